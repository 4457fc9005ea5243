"""LUTs and PPC of a cover: each chosen cut becomes a LUT (static, with a truth table) or a TLUT
(its entries PPC outputs), a wide cut LUT6 cofactors under MUXF7/MUXF8 cells.

Per chosen cut, the LUT function: a truth table when the cone holds no parameter (static LUT,
INIT), else one PPC literal per truth-table entry, built by evaluating the cone for each assignment
of the regular leaves inside the PPC AIG (structural hashing folds constants and shares equal
entries). TLUTs whose entries are affine in the parameter-only nodes the cone reads get an affine
record (:mod:`dcsflow.tmap.affine`), which the SCG patches instead of evaluating the PPC.
:func:`build` also decides whether the wide functions of a cover pay off once the LUTs they need
are counted. With a TLUT size below six (CFGLUT5), a TLUT cut with more leaves becomes TLUT
cofactors of that size under MUXF7/MUXF8 (:meth:`_LutBuilder._add_wide`).
"""

from __future__ import annotations

from typing import NamedTuple

from dcsflow.aig import Aig, truth_vars

from .affine import MAX_FRONTIER, AffineTlut, cone_tables, detect
from .cuts import _cover_size
from .netlist import LUT6, Lut, Mux, TlutNetlist
from .ppc import PpcBuilder

__all__ = ["Built", "build_luts", "build"]


def _unique_namer(taken: set):
    """A function giving names not in ``taken`` (``base``, else ``base`` with ``_t`` appended until
    free), each added to ``taken``."""
    def name(base: str) -> str:
        s = base
        while s in taken:
            s += "_t"
        taken.add(s)
        return s
    return name


def _mapped_nodes(comb: Aig, param: bytearray, cover) -> list[int]:
    """AND variables that get a LUT: referenced by the cover, not parameter-only, with a cut."""
    return [v for v in range(comb.first_and, comb.max_var + 1)
            if cover.refs[v] and not param[v] and cover.best[v] is not None]


def _leaf_vars(mapped: list[int], best, n: int) -> bytearray:
    """Flag per variable: a leaf of some mapped node's cut (its LUT must exist in positive form)."""
    used_as_leaf = bytearray(n)
    for v in mapped:
        for l in best[v]:
            used_as_leaf[l] = 1
    return used_as_leaf


def _output_polarities(comb: Aig, param: bytearray) -> tuple[bytearray, bytearray]:
    """Flags per variable: an output reads the AND node positive / complemented (parameter-only
    nodes excluded)."""
    n, base = comb.max_var + 1, comb.first_and
    pos_out = bytearray(n)
    neg_out = bytearray(n)
    for o in comb.outputs:
        if o >> 1 >= base and not param[o >> 1]:
            if o & 1:
                neg_out[o >> 1] = 1
            else:
                pos_out[o >> 1] = 1
    return pos_out, neg_out


def _cone(v: int, leaves, ands, base: int, param: bytearray) -> tuple[list[int], list[int]]:
    """(AND variables between the cut ``leaves`` and ``v`` in topological order, the parameter-only
    variables the cone reads (its frontier, constant 0 excluded))."""
    cone = []
    frontier = []
    stack = [v]
    seen = set(leaves)
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if param[x]:
            if x:
                frontier.append(x)
            continue
        cone.append(x)
        a, b = ands[x - base]
        stack.append(a >> 1)
        stack.append(b >> 1)
    cone.sort()
    return cone, frontier


def _value(lit, val, param, get_ppc, mask, size):
    """Value of ``lit`` in a cone: an int truth table (``mask``: all ones) or a list of ``size`` PPC
    literals; a parameter-only literal is a constant table or the same PPC literal in every entry."""
    v = lit >> 1
    if param[v]:
        p = get_ppc(v) ^ (lit & 1)
        if p <= 1:
            return mask if p else 0
        return [p] * size
    x = val[v]
    if lit & 1:
        if isinstance(x, int):
            return x ^ mask
        return [p ^ 1 for p in x]
    return x


def _cone_function(v: int, cone: list[int], leaves, ands, base: int, param: bytearray, ppc: PpcBuilder):
    """The function of ``v`` over its cut ``leaves``: an int truth table (no parameter in the cone:
    static) or a list of PPC literals, one per truth-table entry (tunable)."""
    k = len(leaves)
    size = 1 << k
    mask = (1 << size) - 1
    val = {}
    for j, l in enumerate(leaves):
        val[l] = truth_vars(k)[j]
    for x in cone:
        a, b = ands[x - base]
        va = _value(a, val, param, ppc.literal, mask, size)
        vb = _value(b, val, param, ppc.literal, mask, size)
        if isinstance(va, int) and isinstance(vb, int):
            val[x] = va & vb
        else:
            if isinstance(va, int):
                va = [(va >> i) & 1 for i in range(size)]
            if isinstance(vb, int):
                vb = [(vb >> i) & 1 for i in range(size)]
            val[x] = [ppc.aig.add_and(p, q) for p, q in zip(va, vb)]
    return val[v]


def _affine_shape(comb: Aig, v: int, f, cone: list[int], leaves, frontier: list[int], param: bytearray):
    """(sorted frontier, cols, neg, table at frontier 0) when the tunable function ``f`` of ``v`` is an
    affine TLUT (:mod:`dcsflow.tmap.affine`), else None. Only cones with 1..MAX_FRONTIER frontier nodes and
    no parameter-only leaf are tested."""
    if isinstance(f, int) or not 1 <= len(frontier) <= MAX_FRONTIER or any(param[l] for l in leaves):
        return None
    frontier.sort()
    tabs = cone_tables(comb.ands, comb.first_and, cone, list(leaves), frontier, v)
    found = detect(tabs, len(leaves), len(frontier))
    if found is None:
        return None
    return (frontier, found[0], found[1], tabs[0])


def _leaf_name(l, lut_name, names_in):
    """Netlist name of cut leaf ``l``: its LUT, else the AIG input."""
    return lut_name[l] if l in lut_name else names_in[l - 1]


class _LutBuilder:
    """The LUTs of a cover: one per mapped node and output polarity, plus tunable constants and
    inverters the outputs need. ``luts`` in creation order; ``lut_name``/``neg_name``: variable (or
    a ``("tc", lit)`` / ``("inv", v)`` key) -> name of the LUT computing it / its complement;
    ``claims``: LUT name -> literal of the mapped AIG it computes; ``affine``: TLUT name ->
    AffineTlut."""

    def __init__(self, comb: Aig, param: bytearray, ppc: PpcBuilder, tlut_k: int = LUT6):
        self.comb = comb
        self.tlut_k = tlut_k
        self.param = param
        self.ppc = ppc
        # LUT names differ from input and output names
        self.namer = _unique_namer(set(comb.input_names) | set(comb.output_names))
        self.luts = []
        self.muxes = []
        self.select_luts = 0       # LUTs of select XOR nodes made for wide functions (_add_wide)
        self.best = None           # the cover's cuts (cover.best), for the select XOR nodes' cuts
        self._tab_memo = (None, None)
        self._mux_memo = {}
        self.affine = {}
        self.claims = {}
        self.lut_name = {}
        self.neg_name = {}

    def _lut(self, nm: str, ins: list, f, c: int, mask: int) -> Lut:
        """LUT ``nm`` of function ``f`` complemented if ``c``: static when ``f`` is a truth table or
        all its PPC literals are constant, else a TLUT on the PPC outputs of its entries."""
        if isinstance(f, int):
            return Lut(nm, ins, init=(f ^ mask) if c else f)
        if all(p <= 1 for p in f):
            t = 0
            for i, p in enumerate(f):
                t |= (p ^ c) << i
            return Lut(nm, ins, init=t)
        return Lut(nm, ins, ppc=[self.ppc.output(p ^ c) for p in f])

    def add_node(self, v: int, leaves, polarities: list[int]) -> None:
        """The LUTs of mapped node ``v`` with cut ``leaves`` in the ``polarities`` asked for (0:
        positive, 1: complement)."""
        comb, param, ppc = self.comb, self.param, self.ppc
        k = len(leaves)
        mask = (1 << (1 << k)) - 1
        cone, frontier = _cone(v, leaves, comb.ands, comb.first_and, param)
        if frontier and k > self.tlut_k and self.tlut_k < LUT6:
            self._add_wide(v, list(leaves), cone, frontier, polarities, self.tlut_k)
            return
        if k > LUT6:
            self._add_wide(v, list(leaves), cone, frontier, polarities)
            return
        f = _cone_function(v, cone, leaves, comb.ands, comb.first_and, param, ppc)
        ins = [_leaf_name(l, self.lut_name, comb.input_names) for l in leaves]
        aff = _affine_shape(comb, v, f, cone, leaves, frontier, param)
        for c in polarities:
            nm = self.namer(f"n{v}" if c == 0 else f"n{v}_inv")
            lut = self._lut(nm, ins, f, c, mask)
            self.luts.append(lut)
            if lut.is_tlut and aff is not None:
                fr, cols, neg, b0 = aff
                self.affine[nm] = AffineTlut(k, tuple(ppc.output(ppc.literal(x)) for x in fr), cols, neg,
                                             b0 ^ (mask if c else 0))
            (self.neg_name if c else self.lut_name)[v] = nm
            self.claims[nm] = 2 * v + c

    def _select_xor(self, v: int, leaves: list, s: int):
        """For select leaf ``s`` of node ``v``'s wide cut: the cone node ``t = s XOR p`` (``p`` a
        parameter-only literal; AIG form ``AND(NOT AND(a, b), NOT AND(NOT a, NOT b))``) through which
        alone the cone reads ``s``, or None."""
        comb, param = self.comb, self.param
        ands, base = comb.ands, comb.first_and
        others = set(leaves) - {s}
        found = None
        stack, seen = [v], set()
        while stack:                                 # nodes of the cone between v and the leaves
            x = stack.pop()
            if x in seen or x in others or param[x]:
                continue
            seen.add(x)
            if x == s:
                return None                          # s read other than through one XOR node
            a, b = ands[x - base]
            if found is None and a & 1 and b & 1 and (a >> 1) >= base and (b >> 1) >= base:
                ga, gb = ands[(a >> 1) - base], ands[(b >> 1) - base]
                if sorted(ga) == sorted(l ^ 1 for l in gb) and s in (ga[0] >> 1, ga[1] >> 1):
                    p = ga[1] if ga[0] >> 1 == s else ga[0]
                    if param[p >> 1] and p >> 1:
                        found = x
                        continue                     # stop at t: its cone is s and p only
            stack += [a >> 1, b >> 1]
        return found

    def _tables(self, v: int, cone: list, leaves: list, frontier: list) -> tuple[list, list]:
        """(sorted frontier, :func:`dcsflow.tmap.affine.cone_tables` of ``v`` over ``leaves`` per frontier
        value), memoized for the last cut asked."""
        key = (v, tuple(leaves))
        if self._tab_memo[0] != key:
            fr = sorted(frontier)
            self._tab_memo = (key, (fr, cone_tables(self.comb.ands, self.comb.first_and, cone, list(leaves), fr, v)))
        return self._tab_memo[1]

    def _entries_from_tables(self, fr: list, tabs: list, k: int) -> list:
        """The PPC literal of each of the 2^k entries of a cone whose tables per frontier value are
        ``tabs`` (frontier ``fr``, at most MAX_FRONTIER nodes): entry i as a function of the frontier
        (bit f of its table = bit i of ``tabs[f]``), built as a multiplexer tree over the frontier
        literals, shared by every entry and cone with the same sub-table (the same functions as
        :func:`_cone_function`, without evaluating the cone once per entry)."""
        nf = len(fr)
        lits = [self.ppc.literal(x) for x in fr]
        memo = self._mux_memo.setdefault(tuple(lits), {})
        aig = self.ppc.aig

        def lit(tt: int, n: int) -> int:
            if n == 0:
                return tt & 1
            key = (tt, n)
            r = memo.get(key)
            if r is None:
                h = 1 << (n - 1)
                lo, hi = tt & ((1 << h) - 1), tt >> h
                r = lit(lo, n - 1) if lo == hi else aig.add_mux(lits[n - 1], lit(hi, n - 1), lit(lo, n - 1))
                memo[key] = r
            return r

        size = 1 << k
        tt = [0] * size
        for f, t in enumerate(tabs):
            bit = 1 << f
            while t:
                low = t & -t
                tt[low.bit_length() - 1] |= bit
                t ^= low
        return [lit(x, nf) for x in tt]

    def _affine_quarters(self, v: int, cone: list, leaves: list, frontier: list, c: int) -> list | None:
        """Per cofactor LUT of a wide cut (64-entry quarter of the table over ``leaves``), its
        AffineTlut (complemented when ``c``), or None when some quarter is not affine (or the cone is
        out of range for the test, as in :func:`_affine_shape`)."""
        if not 1 <= len(frontier) <= MAX_FRONTIER or any(self.param[l] for l in leaves):
            return None
        fr, tabs = self._tables(v, cone, leaves, frontier)
        m64 = (1 << 64) - 1
        out = []
        for q in range(1 << (len(leaves) - LUT6)):
            qt = [(t >> (64 * q)) & m64 for t in tabs]
            found = detect(qt, LUT6, len(fr))
            if found is None:
                return None
            out.append(AffineTlut(LUT6, tuple(self.ppc.output(self.ppc.literal(x)) for x in fr), found[0],
                                  found[1], qt[0] ^ (m64 if c else 0)))
        return out

    def _quarter_records(self, v: int, cone: list, leaves: list, frontier: list, c: int) -> list | None:
        """Per cofactor LUT of a wide cut, its AffineTlut (complemented when ``c``) when the whole
        2^k-entry table over ``leaves`` is affine in the frontier (:func:`dcsflow.tmap.affine.detect`
        on k = 7 or 8 inputs): index XOR ``S(f)`` and complement ``n(f)``. The low six bits of ``S``
        permute within a quarter, the select bits choose which quarter each cofactor holds
        (:class:`dcsflow.affine.AffineTlut` ``quarters``/``hcols``; none when no select is XORed).
        None when the table is not affine (or out of range for the test, as in :func:`_affine_shape`)."""
        if not 1 <= len(frontier) <= MAX_FRONTIER or any(self.param[l] for l in leaves):
            return None
        k = len(leaves)
        fr, tabs = self._tables(v, cone, leaves, frontier)
        found = detect(tabs, k, len(fr))
        if found is None:
            return None
        cols, neg = found
        m64 = (1 << 64) - 1
        nq = 1 << (k - LUT6)
        quarters = tuple(((tabs[0] >> (64 * q)) & m64) ^ (m64 if c else 0) for q in range(nq))
        low = tuple(x & 63 for x in cols)
        hcols = tuple(x >> 6 for x in cols)
        outs = tuple(self.ppc.output(self.ppc.literal(x)) for x in fr)
        if not any(hcols):
            return [AffineTlut(LUT6, outs, low, neg, quarters[q]) for q in range(nq)]
        return [AffineTlut(LUT6, outs, low, neg, quarters[q], quarters, q, hcols) for q in range(nq)]

    def _add_wide(self, v: int, leaves: list, cone: list, frontier: list, polarities: list[int],
                  lut_k: int = LUT6) -> None:
        """A wide function of node ``v`` (7 or 8 cut ``leaves``; ``cone`` and ``frontier`` as in
        :meth:`add_node`): per polarity, LUT6 ``<name>_q<q>`` on the first
        six leaves holding the entries ``q * 64 .. q * 64 + 63`` (the cofactor at select 7 = q & 1,
        select 8 = q >> 1), MUXF7 ``O = sel7 ? q1 : q0`` (and q3/q2), and for 8 leaves MUXF8
        ``O = sel8 ? F7(q2, q3) : F7(q0, q1)`` (UG474). The last mux carries the node's name and claim.

        A select leaf is a regular leaf; a parameter read on the way from it changes which entries land
        in which cofactor (the PPC entries), so a cofactor TLUT of ``S(x ^ k)`` holds a quarter chosen
        by key bits. When the whole table is affine in the frontier (:meth:`_quarter_records`), each
        cofactor TLUT gets a record with the quarter tables and the key bits that choose among them
        (:class:`dcsflow.affine.AffineTlut` ``quarters``/``hcols``), which the SCG's row patching
        handles, and no LUT is added. Otherwise, when the cone reads a select leaf ``s`` only through one node
        ``t = s XOR p`` (``p`` parameter-only, e.g. AddRoundKey before an S-box) and the cofactors over
        ``t`` are affine TLUTs (:mod:`dcsflow.tmap.affine`) while those over ``s`` are not, the select
        is ``t``'s LUT instead (a 1-input affine TLUT, shared by every wide cut that selects on it; no
        extra LUT level: it reads ``s`` as the cofactor LUTs read their leaves), so the SCG's affine
        row patching keeps covering the cofactor TLUTs.

        With ``lut_k`` below six (a TLUT cut of ``tlut_k`` + 1 or + 2 leaves, CFGLUT5; the cut selection
        allows no more, :mod:`dcsflow.tmap.cuts`) the cofactor TLUTs sit on the first ``lut_k`` leaves
        (a CFGLUT5's O6 feeds its slice's F7 multiplexer like a LUT6's) and get no affine records: the
        SCG of a CFGLUT5 build evaluates the PPC for every TLUT."""
        comb = self.comb
        aff = None
        if frontier and lut_k == LUT6:   # the cone reads parameters: cofactor TLUTs, affine ones wanted
            leaves, cone, frontier, aff = self._wide_records(v, leaves, cone, frontier, polarities)
        f = self._wide_function(v, leaves, cone, frontier)
        ins = [_leaf_name(l, self.lut_name, comb.input_names) for l in leaves]
        for pi, c in enumerate(polarities):
            top = self.namer(f"n{v}" if c == 0 else f"n{v}_inv")
            self._wide_cells(top, ins, f, c, aff[pi] if aff is not None else None, lut_k)
            (self.neg_name if c else self.lut_name)[v] = top
            self.claims[top] = 2 * v + c

    def _wide_function(self, v: int, leaves: list, cone: list, frontier: list):
        """The function of node ``v`` over a cut of more leaves than one LUT takes: a truth table
        (no frontier) or the PPC literal of each entry, built from the cone's tables per frontier value
        (:meth:`_entries_from_tables`) when the frontier is small enough, else by evaluating the cone."""
        if frontier and len(frontier) <= MAX_FRONTIER and not any(self.param[l] for l in leaves):
            fr, tabs = self._tables(v, cone, leaves, frontier)
            return self._entries_from_tables(fr, tabs, len(leaves))
        comb = self.comb
        return _cone_function(v, cone, leaves, comb.ands, comb.first_and, self.param, self.ppc)

    def _wide_records(self, v: int, leaves: list, cone: list, frontier: list, polarities: list[int]):
        """Affine records of the cofactor TLUTs of a wide cut whose cone reads parameters (see
        :meth:`_add_wide`): (leaves, cone, frontier, per polarity the records of its cofactor LUTs or
        None); the cut's own leaves, cone and frontier, or those with the select leaves replaced by
        their XOR nodes (:meth:`_xor_selects`)."""
        qa = [self._quarter_records(v, cone, leaves, frontier, c) for c in polarities]
        if None not in qa:
            return leaves, cone, frontier, qa        # affine over the whole table: quarters chosen by key bits
        found = self._xor_selects(v, leaves, cone, frontier, polarities)
        if found is not None:
            return found
        return leaves, cone, frontier, [self._affine_quarters(v, cone, leaves, frontier, c) for c in polarities]

    def _xor_selects(self, v: int, leaves: list, cone: list, frontier: list, polarities: list[int]):
        """When every select leaf ``s`` of the wide cut is read only through its own node
        ``t = s XOR p`` (:meth:`_select_xor`) and the cofactors over the ``t`` are affine TLUTs while
        those over the ``s`` are not: the LUTs of the ``t`` (made here when missing, counted in
        ``select_luts``) and (leaves with the ``t`` as selects, their cone, frontier, per polarity the
        cofactor records). Else None."""
        comb = self.comb
        ts = [self._select_xor(v, leaves, s) for s in leaves[LUT6:]]
        if None in ts or len(set(ts)) != len(ts):
            return None
        leaves2 = leaves[:LUT6] + ts
        cone2, frontier2 = _cone(v, leaves2, comb.ands, comb.first_and, self.param)
        aff2 = [self._affine_quarters(v, cone2, leaves2, frontier2, c) for c in polarities]
        if None in aff2 or self._affine_quarters(v, cone, leaves, frontier, 0) is not None:
            return None
        for t, s in zip(ts, leaves[LUT6:]):
            if t not in self.lut_name:
                # t = s XOR p over s's own cut when s is a LUT (p is free: a reduced cut), so
                # s's LUT is swept when nothing else reads it; else a 1-input TLUT on s
                cut = self.best[s] if self.best is not None and s >= comb.first_and else None
                n0 = len(self.luts)
                self.add_node(t, tuple(cut) if cut is not None and len(cut) <= LUT6 else (s,), [0])
                self.select_luts += len(self.luts) - n0
        return leaves2, cone2, frontier2, aff2

    def _wide_cells(self, top: str, ins: list, f, c: int, records: list | None, lut_k: int = LUT6) -> None:
        """The cells of one polarity ``c`` of a wide function ``f`` (truth table or PPC literals over
        ``ins``, ``lut_k`` + 1 or + 2 inputs) named ``top``: its cofactor LUTs ``<top>_q<j>`` on the
        first ``lut_k`` inputs (with ``records[j]`` when a TLUT) and the MUXF7 (and MUXF8) over them,
        the last one named ``top``."""
        size = 1 << lut_k
        mq = (1 << size) - 1
        nsel = len(ins) - lut_k
        q = []
        for j in range(1 << nsel):
            fq = (f >> (size * j)) & mq if isinstance(f, int) else f[size * j:size * (j + 1)]
            nm = self.namer(f"{top}_q{j}")
            lut = self._lut(nm, ins[:lut_k], fq, c, mq)
            self.luts.append(lut)
            if lut.is_tlut and records is not None:
                self.affine[nm] = records[j]
            q.append(nm)
        if nsel == 1:
            self.muxes.append(Mux(top, "MUXF7", q[0], q[1], ins[lut_k]))
        else:
            a, b = self.namer(f"{top}_f7a"), self.namer(f"{top}_f7b")
            self.muxes += [Mux(a, "MUXF7", q[0], q[1], ins[lut_k]), Mux(b, "MUXF7", q[2], q[3], ins[lut_k]),
                           Mux(top, "MUXF8", a, b, ins[lut_k + 1])]

    def _shared_lut(self, key, nm_base: str, ins: list, o: int, **function) -> str:
        """Name of the LUT for ``key`` (a tunable constant or an inverter an output needs), made on
        first use with ``function`` (``init=`` or ``ppc=``; a ``ppc`` output is already there when
        the LUT is)."""
        if key not in self.lut_name:
            nm = self.namer(nm_base)
            self.luts.append(Lut(nm, ins, **function))
            self.lut_name[key] = nm
            self.claims[nm] = o
        return self.lut_name[key]

    def output_driver(self, o: int) -> str:
        """The netlist name driving an output of literal ``o``: a constant "0"/"1", a regular input,
        a tunable constant (TLUT without inputs), an inverter LUT of an input, or a node's LUT."""
        v, c = o >> 1, o & 1
        if v == 0:
            return str(c)
        if self.param[v]:
            lit = self.ppc.literal(v) ^ c
            if lit <= 1:
                return str(lit)
            return self._shared_lut(("tc", lit), f"n{v}" if not c else f"n{v}_inv", [], o,
                                    ppc=[self.ppc.output(lit)])
        if v < self.comb.first_and:
            name = self.comb.input_names[v - 1]
            if not c:
                return name
            return self._shared_lut(("inv", v), f"n{v}_inv", [name], o, init=1)
        return self.neg_name[v] if c else self.lut_name[v]


class Built(NamedTuple):
    """LUTs and PPC of a cover (:func:`build_luts`, before ABC).

    netlist: the :class:`TlutNetlist` (no ``source_hash`` yet); ppc: the PPC AIG (inputs: the
    parameters); claims: LUT or mux name -> literal of the mapped AIG it computes; affine: TLUT name ->
    :class:`dcsflow.affine.AffineTlut`; select_luts: LUTs made for the selects of wide functions
    beyond the cover (:meth:`_LutBuilder._add_wide`)."""

    netlist: TlutNetlist
    ppc: Aig
    claims: dict
    affine: dict
    select_luts: int


def build_luts(comb: Aig, params: list, param: bytearray, cover, K: int, tlut_k: int = 0) -> Built:
    """Turn the chosen cuts of ``cover`` (a :class:`dcsflow.tmap.cuts.Cover` of ``comb``; ``param``:
    its parameter-only flags, ``params``: the parameter names in PPC input order) into LUTs/TLUTs and
    the PPC AIG (before ABC). A mapped node gets its LUT in the polarities its readers need; outputs
    that read inputs, constants or parameter-only nodes get inverters or tunable constants. ``tlut_k``:
    most regular inputs of one TLUT (0: ``K``; larger TLUT cuts are split, :meth:`_LutBuilder._add_wide`)."""
    tlut_k = tlut_k or K
    ppc = PpcBuilder(comb, params)
    mapped = _mapped_nodes(comb, param, cover)
    used_as_leaf = _leaf_vars(mapped, cover.best, comb.max_var + 1)
    pos_out, neg_out = _output_polarities(comb, param)
    lb = _LutBuilder(comb, param, ppc, tlut_k)
    lb.best = cover.best
    for v in mapped:
        want_pos = pos_out[v] or used_as_leaf[v] or not neg_out[v]
        want_neg = neg_out[v]
        lb.add_node(v, cover.best[v], ([0] if want_pos else []) + ([1] if want_neg else []))
    outputs = [(oname, lb.output_driver(o)) for oname, o in zip(comb.output_names, comb.outputs)]
    if lb.select_luts:
        lb.select_luts -= _sweep(lb, outputs)
    regular_inputs = [nm for j, nm in enumerate(comb.input_names) if not param[1 + j]]
    netlist = TlutNetlist(K=K, inputs=regular_inputs, params=list(params), luts=lb.luts, outputs=outputs,
                          muxes=lb.muxes, tlut_k=tlut_k)
    return Built(netlist, ppc.aig, lb.claims, lb.affine, lb.select_luts)


def build(comb: Aig, params: list, param: bytearray, cover, nowide, K: int, notes: list, tlut_k: int = 0) -> Built:
    """LUTs and PPC of ``cover`` (:func:`build_luts`); ``nowide``: the same choice without wide cuts
    (None: the cover has none to weigh). When the cover's LUTs plus the select LUTs its wide functions
    need (:meth:`_LutBuilder._add_wide`) outnumber those of ``nowide``, ``nowide`` is built instead.
    Either way a note appended to ``notes`` says what the wide functions gave."""
    built = build_luts(comb, params, param, cover, K, tlut_k)
    if nowide is None:
        return built
    n_sel = built.select_luts
    before, after = _cover_size(nowide, comb.first_and), _cover_size(cover, comb.first_and) + n_sel
    if after > before:
        # the select XOR LUTs that keep cofactor TLUTs affine cost more than the wide cuts saved
        notes.append(f"wide functions not used: {before} LUTs without, {after} with their {n_sel} "
                     "select LUTs")
        return build_luts(comb, params, param, nowide, K, tlut_k)
    n_wide = sum(1 for v in range(comb.first_and, len(cover.best))
                 if cover.refs[v] and cover.best[v] is not None and len(cover.best[v]) > LUT6)
    sel = f" + {n_sel} select LUTs" if n_sel else ""
    notes.append(f"wide functions: {n_wide} on MUXF7/MUXF8 ({before} -> {after} LUTs{sel}, "
                 f"depth {nowide.depth} -> {cover.depth})")
    return built


def _sweep(lb: "_LutBuilder", outputs: list) -> int:
    """Remove the LUTs that nothing reads (a LUT whose only reader became a wide function's select
    XOR LUT, :meth:`_LutBuilder._add_wide`), with their claims and affine records; returns how many."""
    read = {d for _, d in outputs}
    for m in lb.muxes:
        read.update((m.i0, m.i1, m.s))
    removed = 0
    while True:
        reads = set(read)
        for lut in lb.luts:
            reads.update(lut.inputs)
        dead = {lut.name for lut in lb.luts if lut.name not in reads}
        if not dead:
            return removed
        removed += len(dead)
        lb.luts = [lut for lut in lb.luts if lut.name not in dead]
        for n in dead:
            lb.claims.pop(n, None)
            lb.affine.pop(n, None)
