"""Cut-point equivalence proof of a TLUT netlist ∘ PPC against the AIG it was mapped from.

A global miter (``cec`` of the composed netlist against the AIG) gets hard on arithmetic with
parameters: a TLUT becomes a multiplexer of 2^k PPC functions, which has no internal counterpart in
the AIG, so the SAT solver has to case-split on the regular inputs (a 32-bit multiplier with a
parameter operand does not finish in 10 minutes). The mapper knows which AIG literal every LUT
implements (its *claim*). With those cut points the proof splits into obligations that are each
easy, and together prove the same statement, netlist ∘ PPC ≡ AIG for all parameter values:

1. structure: every LUT input is a regular input or an earlier LUT; the AIG cone of each LUT's claim
   reaches no regular input other than the claims of its inputs (the inputs form a cut); every
   netlist output is driven by the LUT / input / constant that implements that AIG output;
2. function, per LUT and per truth-table entry i: the AIG cone evaluated with the cut leaves set to
   the bits of i (a function of the parameters only) equals the entry — the INIT bit of a static LUT,
   the PPC output named by a TLUT. The re-derived entry functions and the PPC are built in one
   structurally hashed AIG over the parameters, so an entry whose two sides become the same literal
   is proved there; the entries of a LUT whose cone reads parameters through at most
   :data:`LOCAL_MAX_FRONTIER` parameter-only nodes (its *frontier*, e.g. the round-key byte before an
   S-box) are then simulated exhaustively with the frontier nodes as free variables, when the PPC side
   of every entry is built on those same nodes too (it is when the PPC is used as the mapper built
   it): equal tables prove the entries for every value of the frontier, so for every parameter
   value. The remaining entries are proved at once by one ``cec`` (ABC ``cec``, as the global proof).

A wide function (LUT6 cofactors under MUXF7/MUXF8 cells, :class:`dcsflow.tmap.netlist.Mux`) is one cut
point: its last mux carries the claim, and its LUTs and inner MUXF7s, which have no claim, are read
by nothing else. The cell is checked as one LUT whose inputs are the cofactor LUTs' inputs followed by
the select of the MUXF7s and then of the MUXF8, and whose entry ``i`` is entry ``i mod 64`` of the
cofactor LUT that the mux tree passes for the select bits ``i >> 6`` (``O = S ? I1 : I0``, UG474);
the cofactor LUTs must share their inputs and the MUXF7s of a MUXF8 their select.

A **parameter bit** (:mod:`dcsflow.tmap.parambits`) is a TLUT without inputs and without a claim: its
value is its PPC output, a function of the parameters only, so it needs no obligation of its own. A
LUT (static or TLUT, claimed or a cofactor of a wide function) that reads parameter bits is checked
as one cell over its other inputs, in their order: its implemented entry ``i`` is the multiplexer
tree, selected by the parameter bits' PPC literals, of the entries it holds for the bits of ``i``
and each value of the parameter bits (with one bit and constant INIT bits: a constant, the bit or its
complement). A parameter bit may drive an output: its PPC literal must then equal the AIG output,
which has to be a function of the parameters only. A parameter bit read as a mux select or by a LUT
before it fails the proof.

By induction over the topological order every LUT output then equals its claimed AIG literal for all
inputs, and so does every output. This is the classic cut-point (or "internal equivalence")
decomposition of combinational equivalence checking, e.g. A. Kuehlmann, F. Krohm, "Equivalence
checking using cuts and heaps", DAC 1997.
"""

from __future__ import annotations

from dcsflow.aig import Aig, truth_vars

from . import abc
from .cones import NotParameterOnly, ParamLiterals, parameter_only

__all__ = ["cutpoint_proof", "LOCAL_MAX_FRONTIER"]

#: Largest frontier (parameter-only nodes a LUT's cone reads) whose entries are decided by exhaustive
#: simulation (2^16-bit words) instead of ABC ``cec``.
LOCAL_MAX_FRONTIER = 16
#: Most AND nodes between a frontier and the entries of one group that the local simulation visits;
#: larger groups go to ``cec``.
LOCAL_MAX_NODES = 200_000


class _Fail(Exception):
    pass


def cutpoint_proof(netlist, ppc: Aig, aig: Aig, claims: dict, seconds: float = 600.0) -> tuple[bool, str]:
    """Prove ``netlist`` ∘ ``ppc`` ≡ ``aig`` (combinational) with the LUT claims as cut points.

    Args:
        netlist: the :class:`dcsflow.tmap.netlist.TlutNetlist` (outputs in the order of ``aig``'s outputs).
        ppc: the PPC AIG, inputs = ``netlist.params`` in order.
        aig: the combinational AIG the netlist was mapped from; its inputs are the regular inputs and
            the parameters (by name).
        claims: LUT name -> AIG literal of ``aig`` that the LUT computes.
        seconds: time limit of the ABC ``cec`` call.
    Returns:
        (proved, verdict): verdict is one line; when not proved it names the first failing LUT or
        output, or gives ABC's verdict.
    Raises:
        ToolError: ABC failed. ToolMissing (:mod:`dcsflow.tools`): ABC missing.
    """
    try:
        ref, imp, n_pairs, n_local = _obligations(netlist, ppc, aig, claims)
    except _Fail as e:
        return False, f"cut-point proof failed: {e}"
    local = f", {n_local} by simulation over their frontier" if n_local else ""
    n_bits = sum(1 for lut in netlist.luts if lut.is_tlut and not lut.inputs and lut.name not in claims)
    if n_bits:
        local += f", {n_bits} parameter bits"
    if not ref.outputs:
        return True, (f"cut-point proof: {len(netlist.luts)} LUTs, {n_pairs} entries, all decided "
                      f"without SAT{local}")
    ok, verdict = abc.cec(ref, imp, seconds, what="cec: cut-point TLUT entries (PPC vs AIG cones)")
    if not ok:
        return False, f"cut-point proof failed on the TLUT entries: {verdict}"
    return True, (f"cut-point proof: {len(netlist.luts)} LUTs, {n_pairs} entries{local}, "
                  f"{ref.num_outputs} parametric ones by yosys-abc cec: {verdict}")


def _truth_table(order, lit, leaf, ands, base, size):
    """Truth table (int, bit i = entry i) of ``lit`` over the leaves, or None when the cone reads a
    parameter."""
    mask = (1 << size) - 1
    tt = {0: 0}
    for v, (j, c) in leaf.items():
        t = 0
        for i in range(size):
            if (i >> j) & 1:
                t |= 1 << i
        tt[v] = t ^ (mask if c else 0)
    for x in order:
        a, b = ands[x - base]
        ta, tb = tt.get(a >> 1), tt.get(b >> 1)
        if ta is None or tb is None:
            return None                               # a parameter (or parameter-only node) is read
        tt[x] = (ta ^ (mask if a & 1 else 0)) & (tb ^ (mask if b & 1 else 0))
    t = tt.get(lit >> 1)
    if t is None:
        return None
    return t ^ (mask if lit & 1 else 0)


def _entry_literals(order, lit, leaf, ands, base, size, ref: Aig, param_only) -> tuple[list, set]:
    """Per truth-table entry i, the literal (in ``ref``, over the parameters) of ``lit`` with the leaves
    set to the bits of i; ``param_only(v)`` gives the literal of a parameter-only variable. Returns
    (literals, frontier: the ``ref`` variables of the parameter-only nodes the cone reads)."""
    val = {}
    frontier = set()
    for v, (j, c) in leaf.items():
        val[v] = [((i >> j) & 1) ^ c for i in range(size)]

    def value(lt):
        v = lt >> 1
        x = val.get(v)
        if x is None:                                 # a parameter or parameter-only node
            p = param_only(v)
            if p > 1:
                frontier.add(p >> 1)
            x = val[v] = [p] * size
        return x if not lt & 1 else [y ^ 1 for y in x]

    for x in order:
        if x not in val:
            a, b = ands[x - base]
            val[x] = [ref.add_and(p, q) for p, q in zip(value(a), value(b))]
    return value(lit), frontier


def _decide_local(m: Aig, frontier, items: list) -> list:
    """Entries of ``items`` ((reference literal, implemented literal, what), literals of ``m``) that
    are equal for every value of the ``frontier`` variables taken as free variables; returns the
    others. All are returned when a cone of the group reaches an input or node outside the frontier
    before the frontier, or the group is larger than :data:`LOCAL_MAX_NODES`."""
    base, ands = m.first_and, m.ands
    fvars = sorted(frontier)
    stop = set(fvars)
    stop.add(0)
    order, seen = [], set()
    stack = [x >> 1 for r, i, _ in items for x in (r, i)]
    while stack:
        x = stack.pop()
        if x in seen or x in stop:
            continue
        if x < base or len(order) >= LOCAL_MAX_NODES:
            return items                              # not a function of the frontier alone
        seen.add(x)
        order.append(x)
        a, b = ands[x - base]
        stack.append(a >> 1)
        stack.append(b >> 1)
    order.sort()
    full = (1 << (1 << len(fvars))) - 1
    sim = dict(zip(fvars, truth_vars(len(fvars))))
    sim[0] = 0
    for x in order:
        a, b = ands[x - base]
        sim[x] = (sim[a >> 1] ^ (full if a & 1 else 0)) & (sim[b >> 1] ^ (full if b & 1 else 0))

    def value(lt):
        return sim[lt >> 1] ^ (full if lt & 1 else 0)

    return [it for it in items if value(it[0]) != value(it[1])]


def _obligations(netlist, ppc: Aig, aig: Aig, claims: dict):
    """Build the two AIGs over the parameters (reference entries, implemented entries), cell by cell
    in topological order, then the outputs. Returns (reference AIG, implemented AIG, entries checked,
    entries decided by simulation over their frontier); raises _Fail on the first obligation that
    fails without SAT."""
    ob = _Obligations(netlist, ppc, aig, claims)
    try:
        for cell in (netlist.cells() if hasattr(netlist, "cells") else netlist.luts):
            ob.cell(cell)
        ob.outputs()
    except NotParameterOnly as e:
        raise _Fail(f"{aig.input_names[e.var - 1]} reached where only parameters may be") from None
    return ob.finish()


def _check_names(netlist, ppc: Aig, var_of: dict) -> None:
    """The netlist's parameters and regular inputs are inputs of the AIG (``var_of``: name ->
    variable), the PPC has one input per parameter; else _Fail."""
    params = list(netlist.params)
    if ppc.num_inputs != len(params):
        raise _Fail("PPC inputs differ from the netlist's parameters")
    pset = set(params)
    for p in params:
        if p not in var_of:
            raise _Fail(f"parameter {p} is not an input of the AIG")
    for nm in netlist.inputs:
        if nm not in var_of or nm in pset:
            raise _Fail(f"regular input {nm} is not a regular input of the AIG")


def _copy_ppc(ppc: Aig, g: Aig) -> list[int]:
    """Copy the PPC's AND nodes into ``g``, whose first inputs are the PPC's inputs in order; returns
    the literals of the PPC outputs in ``g``."""
    plit = {0: 0}
    for j in range(ppc.num_inputs):
        plit[1 + j] = 2 * (1 + j)
    pbase = ppc.first_and
    for i, (a, b) in enumerate(ppc.ands):
        plit[pbase + i] = g.add_and(plit[a >> 1] ^ (a & 1), plit[b >> 1] ^ (b & 1))
    return [plit[o >> 1] ^ (o & 1) for o in ppc.outputs]


class _Obligations:
    """The obligations of a cut-point proof (module docstring), collected in ``imp``: one structurally
    hashed AIG over the parameters for both sides, the reference entries (built from the AIG's cones)
    and the PPC (copied in). An obligation whose two sides are one literal is proved there;
    ``groups``: frontier (frozenset of ``imp`` variables) -> [(ref, imp, what)] for
    :func:`_decide_local`; ``pairs``: (reference literal, implemented literal) -> first obligation
    naming it, for ``cec``."""

    def __init__(self, netlist, ppc: Aig, aig: Aig, claims: dict):
        self.netlist, self.aig, self.claims = netlist, aig, claims
        self.var_of = {nm: 1 + j for j, nm in enumerate(aig.input_names)}
        _check_names(netlist, ppc, self.var_of)
        self.pset = set(netlist.params)
        self.imp = Aig()
        pvar = {}
        for p in netlist.params:
            pvar[self.var_of[p]] = self.imp.add_input(p)
        self.ppc_out = _copy_ppc(ppc, self.imp)
        # parameter-only variables (parameters and AND nodes over them): a LUT cone stops there, their
        # literal over the parameters is built once (param_only) and shared by every entry and LUT
        self.ponly = parameter_only(aig, pvar)
        self.param_only = ParamLiterals(aig.ands, aig.first_and, self.imp, pvar).literal
        self.claim_of = {}      # LUT name -> AIG literal, for LUTs seen so far
        self.pairs = {}
        self.groups = {}
        self.n_pairs = 0
        self.mux_read = set()   # LUTs and MUXF7s read by a mux as data
        for m in getattr(netlist, "muxes", []):
            self.mux_read.update((m.i0, m.i1))
        self.pending = {}       # unclaimed LUT / mux name -> (cofactor (inputs, entries), selects), read by a later mux
        self.pbit = {}          # parameter bit (TLUT without inputs or claim) -> its PPC literal in imp

    def obligation(self, r: int, i_lit: int, what: str, frontier=None) -> None:
        """Reference literal ``r`` must equal implemented literal ``i_lit`` (both in ``imp``)."""
        self.n_pairs += 1
        if r == i_lit:
            return                                    # the same literal: structurally equal
        if r <= 1 and i_lit <= 1:
            raise _Fail(f"{what} differs for every parameter value")
        if frontier and len(frontier) <= LOCAL_MAX_FRONTIER:
            self.groups.setdefault(frontier, []).append((r, i_lit, what))
        else:
            self.pairs.setdefault((r, i_lit), what)

    def _entries(self, lut) -> tuple[list, list]:
        """(inputs other than parameter bits, implemented entries over them) of ``lut``. Its own
        entries are the PPC output literals of a TLUT or the INIT bits of a static LUT; when it reads
        parameter bits, entry ``i`` over the other inputs is the multiplexer tree, selected by the
        bits' PPC literals, of its own entries at the bits of ``i`` and each value of the bits."""
        k = len(lut.inputs)
        size = 1 << k
        if lut.is_tlut and len(lut.ppc) != size or not lut.is_tlut and lut.init >> size:
            raise _Fail(f"LUT {lut.name}: truth table does not have 2^{k} entries")
        if lut.is_tlut and any(not 0 <= e < len(self.ppc_out) for e in lut.ppc):
            raise _Fail(f"LUT {lut.name}: PPC output index out of range")
        own = [self.ppc_out[lut.ppc[i]] for i in range(size)] if lut.is_tlut else \
            [(lut.init >> i) & 1 for i in range(size)]
        bits = [j for j, nm in enumerate(lut.inputs) if nm in self.pbit]
        if not bits:
            return list(lut.inputs), own
        regular = [j for j in range(k) if j not in bits]
        sel = [self.pbit[lut.inputs[j]] for j in bits]
        got = []
        for r in range(1 << len(regular)):
            at = sum(((r >> t) & 1) << j for t, j in enumerate(regular))
            vals = [own[at | sum(((b >> t) & 1) << j for t, j in enumerate(bits))] for b in range(1 << len(bits))]
            got.append(self.imp.add_mux_tree(sel, vals))
        return [lut.inputs[j] for j in regular], got

    def _expand(self, m, name: str) -> tuple:
        """The (cofactor LUTs' (inputs, entries) of :meth:`_entries`, selects) behind data input
        ``name`` of mux ``m``."""
        x = self.pending.pop(name, None)
        if x is None:
            raise _Fail(f"{m.kind} {m.name}: data input {name} is not a cofactor LUT or MUXF7 of its own")
        return x

    def _mux_group(self, cell) -> tuple[list, list]:
        """(cofactor LUTs' (inputs, entries), selects: those of the MUXF7s, then the MUXF8's) of a
        MUXF7 / MUXF8."""
        if cell.kind not in ("MUXF7", "MUXF8"):
            raise _Fail(f"mux {cell.name}: unknown type {cell.kind}")
        (l0, s0), (l1, s1) = self._expand(cell, cell.i0), self._expand(cell, cell.i1)
        if s0 != s1 or (cell.kind == "MUXF7") != (not s0):
            raise _Fail(f"{cell.kind} {cell.name}: inputs are not two "
                        f"{'LUTs' if cell.kind == 'MUXF7' else 'MUXF7s'} with one select")
        return l0 + l1, s0 + [cell.s]

    def cell(self, cell) -> None:
        """The obligations of one cell (a LUT, or the last mux of a wide function: one LUT whose
        inputs are the cofactor LUTs' inputs and then the selects); a cell without a claim that a
        later mux reads waits in ``pending``; a parameter bit (a TLUT without inputs or claim) is
        recorded in ``pbit`` with its PPC literal."""
        if (cell.name in self.claim_of or cell.name in self.var_of or cell.name in self.pending
                or cell.name in self.pbit):
            raise _Fail(f"LUT name {cell.name} used twice")
        is_mux = hasattr(cell, "kind")
        kind = cell.kind if is_mux else "LUT"
        if not is_mux and cell.is_tlut and not cell.inputs and cell.name not in self.claims:
            _, (lit,) = self._entries(cell)
            self.pbit[cell.name] = lit
            return
        # a LUT's entries are taken here, so the parameter bits it reads come before it
        group = self._mux_group(cell) if is_mux else ([self._entries(cell)], [])
        if cell.name not in self.claims:
            if cell.name not in self.mux_read:
                raise _Fail(f"{kind} {cell.name} has no claimed AIG literal")
            self.pending[cell.name] = group
            return
        parts, sels = group
        if any(ins != parts[0][0] for ins, _ in parts):
            raise _Fail(f"{kind} {cell.name}: its cofactor LUTs have different inputs")
        got = [e for _, entries in parts for e in entries]
        self._function(cell.name, parts[0][0] + sels, got)

    def _leaves(self, lut_name: str, cell_inputs: list) -> dict:
        """AIG variable -> (input position, complemented) of each input of a cell: a regular input or
        an earlier cell's claim."""
        leaf = {}
        for j, nm in enumerate(cell_inputs):
            if nm in self.claim_of:
                ll = self.claim_of[nm]
            elif nm in self.var_of and nm not in self.pset:
                ll = 2 * self.var_of[nm]
            elif nm in self.pbit:
                raise _Fail(f"{lut_name}: parameter bit {nm} read as a mux select")
            else:
                raise _Fail(f"LUT {lut_name}: input {nm} is neither a regular input nor an earlier LUT")
            if ll >> 1 in leaf or ll >> 1 == 0:
                raise _Fail(f"LUT {lut_name}: input {nm} repeats a leaf or is constant")
            leaf[ll >> 1] = (j, ll & 1)
        return leaf

    def _cone(self, lut_name: str, lit: int, leaf: dict) -> list[int]:
        """AND variables between the leaves and the claim ``lit``, in topological order; _Fail when
        the cone reaches a regular input that is not a leaf (the inputs are not a cut)."""
        ands, base, ponly = self.aig.ands, self.aig.first_and, self.ponly
        order = []
        stack = [lit >> 1]
        seen = set()
        while stack:
            x = stack.pop()
            if x in seen or x in leaf or ponly[x]:       # ponly[0]: the constant
                continue
            seen.add(x)
            if x < base:
                raise _Fail(f"LUT {lut_name}: its inputs are not a cut of {self.aig.input_names[x - 1]}'s cone "
                            f"(claim literal {lit})")
            order.append(x)
            a, b = ands[x - base]
            stack.append(a >> 1)
            stack.append(b >> 1)
        order.sort()
        return order

    def _function(self, lut_name: str, cell_inputs: list, got: list) -> None:
        """Per entry of the cell, its re-derived function (the claimed AIG literal's cone with the
        leaves set to the bits of the entry) must equal ``got``, the implemented entry."""
        lit = self.claims[lut_name]
        size = 1 << len(cell_inputs)
        leaf = self._leaves(lut_name, cell_inputs)
        order = self._cone(lut_name, lit, leaf)
        ands, base = self.aig.ands, self.aig.first_and
        t = _truth_table(order, lit, leaf, ands, base, size)
        frontier = None
        if t is not None:                             # cone without parameters: bit-parallel
            f = [(t >> i) & 1 for i in range(size)]
        else:
            f, fr = _entry_literals(order, lit, leaf, ands, base, size, self.imp, self.param_only)
            frontier = frozenset(fr)
        for i in range(size):
            self.obligation(f[i], got[i], f"LUT {lut_name} entry {i}", frontier)
        self.claim_of[lut_name] = lit

    def outputs(self) -> None:
        """Each netlist output is driven by what implements the AIG output of the same name and place
        (a parameter bit: the AIG output is a function of the parameters equal to its PPC literal)."""
        netlist, aig, var_of = self.netlist, self.aig, self.var_of
        if [n for n, _ in netlist.outputs] != list(aig.output_names):
            raise _Fail("netlist outputs differ from the AIG's outputs (names or order)")
        for (oname, drv), o in zip(netlist.outputs, aig.outputs):
            if drv in ("0", "1"):
                self.obligation(self.param_only(o >> 1) ^ (o & 1), int(drv), f"output {oname}")
            elif drv in self.claim_of:
                if self.claim_of[drv] != o:
                    raise _Fail(f"output {oname} is driven by {drv}, which computes another AIG literal")
            elif drv in var_of and drv not in self.pset:
                if o != 2 * var_of[drv]:
                    raise _Fail(f"output {oname} is driven by input {drv}, which is not the AIG's output")
            elif drv in self.pbit:
                try:
                    ref = self.param_only(o >> 1) ^ (o & 1)
                except NotParameterOnly as e:
                    raise _Fail(f"output {oname} is driven by parameter bit {drv} but reads regular input "
                                f"{aig.input_names[e.var - 1]}") from None
                self.obligation(ref, self.pbit[drv], f"output {oname} (parameter bit {drv})")
            else:
                raise _Fail(f"output {oname}: unknown driver {drv}")

    def finish(self) -> tuple[Aig, Aig, int, int]:
        """Decide the frontier groups by simulation (:func:`_decide_local`); the rest become the
        outputs of (reference AIG, implemented AIG) for ``cec``. Returns them with the number of
        entries checked and of those decided by simulation."""
        imp = self.imp
        n_local = 0
        for frontier, items in self.groups.items():
            left = _decide_local(imp, frontier, items)
            n_local += len(items) - len(left)
            for r, i_lit, what in left:
                self.pairs.setdefault((r, i_lit), what)
        # the two sides as two AIGs over the same nodes (ABC cec matches outputs by order)
        ref = Aig(num_inputs=imp.num_inputs, ands=imp.ands, input_names=list(imp.input_names))
        for (r, i_lit), what in self.pairs.items():
            ref.add_output(r, what)
            imp.add_output(i_lit, what)
        return ref, imp, self.n_pairs, n_local
