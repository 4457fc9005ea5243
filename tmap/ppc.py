"""The partial parameterized configuration (PPC): the AIG over the parameters whose outputs are the
TLUT entries.

:class:`PpcBuilder` builds it while the LUTs are made (:mod:`dcsflow.tmap.build`): one AND node per
parameter-only node of the mapped AIG that an entry needs, one output per distinct entry literal.
:func:`optimize_ppc` then hands it to ABC, and :func:`reshare` merges the outputs that became equal
or constant (a TLUT whose entries all became constant turns into a static LUT).
"""

from __future__ import annotations

import dataclasses
import time

from dcsflow import steps
from dcsflow.aig import Aig

from . import abc
from .cones import ParamLiterals, compact
from .errors import ToolTimeout
from .netlist import Lut, TlutNetlist

__all__ = ["PPC_OPT_MAX_ANDS", "PPC_SCRIPT", "EXHAUSTIVE_PARAMS", "PpcBuilder", "optimize_ppc", "reshare"]

#: PPCs above this many AND nodes are not optimized by ABC (``strash; dc2; dc2`` on aes128_pipe's PPC,
#: 2.4M AND nodes, did not finish in 600 s); below, an optimization that runs out of
#: ``MapOptions.ppc_opt_seconds`` keeps the PPC as built (a note says so) instead of failing.
PPC_OPT_MAX_ANDS = 500_000
#: ABC script of the PPC optimization.
PPC_SCRIPT = "strash; dc2; dc2"
#: Up to this many parameters, PPC outputs are compared by exhaustive simulation (exact sharing).
EXHAUSTIVE_PARAMS = 12


class PpcBuilder:
    """The PPC AIG under construction (``aig``): its inputs are the parameters, :meth:`literal` gives
    the PPC literal of a parameter-only variable of the mapped AIG ``comb`` (building its cone once),
    :meth:`output` the PPC output of a literal (one output per distinct literal, named ``e<i>``)."""

    def __init__(self, comb: Aig, params: list):
        self.aig = Aig()
        self.out_index = {}        # PPC literal -> output index
        pos = {nm: j for j, nm in enumerate(comb.input_names)}
        inputs = {}
        for p in params:
            inputs[1 + pos[p]] = self.aig.add_input(p)
        #: PPC literal (positive) of a parameter-only variable of ``comb`` (:class:`ParamLiterals`)
        self.literal = ParamLiterals(comb.ands, comb.first_and, self.aig, inputs).literal

    def output(self, lit: int) -> int:
        """Index of the PPC output driven by ``lit`` (added on first use)."""
        j = self.out_index.get(lit)
        if j is None:
            j = self.aig.add_output(lit, f"e{len(self.aig.outputs)}")
            self.out_index[lit] = j
        return j


def optimize_ppc(ppc: Aig, seconds: float, notes: list, say=lambda s: None) -> tuple[Aig, float]:
    """The PPC optimized by ABC (:data:`PPC_SCRIPT`, at most ``seconds``), recorded as step "PPC
    optimization (ABC)" (:mod:`dcsflow.steps`). Above :data:`PPC_OPT_MAX_ANDS` AND nodes it is not
    tried, and an optimization that runs out of time keeps the PPC as built; either is said in a note
    appended to ``notes``. ``say``: told the current step (progress).

    Returns (the PPC, seconds spent in the optimization).
    Raises:
        ToolMissing (:mod:`dcsflow.tools`): ABC missing. ToolError: ABC failed.
    """
    if ppc.num_ands > PPC_OPT_MAX_ANDS:
        notes.append(f"PPC optimization skipped: {ppc.num_ands:,} AND nodes > {PPC_OPT_MAX_ANDS:,} "
                     "(yosys-abc dc2 would take longer than its time limit)")
        return ppc, 0.0
    if not ppc.num_ands:
        return ppc, 0.0
    with steps.step("PPC optimization (ABC)"):
        say("optimizing PPC (yosys-abc)")
        t1 = time.perf_counter()
        try:
            ppc = abc.optimize_aig(ppc, PPC_SCRIPT, timeout=seconds, what=f"PPC optimization: {PPC_SCRIPT}")
        except ToolTimeout as e:
            notes.append(f"PPC optimization stopped after {e.seconds:.0f} s; the PPC is used as built")
        return ppc, time.perf_counter() - t1


def _canonical_outputs(ppc: Aig) -> list[int]:
    """Per PPC output, its literal; with at most :data:`EXHAUSTIVE_PARAMS` inputs, exhaustive
    simulation over all parameter values makes it exact: 0 / 1 for a constant output, else the
    literal of the first output with the same function."""
    canon = list(ppc.outputs)
    if ppc.num_inputs <= EXHAUSTIVE_PARAMS:
        width = 1 << ppc.num_inputs
        pats = [sum(1 << i for i in range(width) if i >> j & 1) for j in range(ppc.num_inputs)]
        full = (1 << width) - 1
        sims = ppc.simulate(pats, width=width)
        first = {}
        for j, (lit, sv) in enumerate(zip(ppc.outputs, sims)):
            if sv == 0:
                canon[j] = 0
            elif sv == full:
                canon[j] = 1
            else:
                canon[j] = first.setdefault(sv, lit)
    return canon


def _shared_luts(luts: list, canon: list[int], remap: list[int]) -> tuple[list, dict]:
    """``luts`` with their PPC output indices renumbered by ``remap``; a TLUT whose entries are all
    constant (``canon``) becomes a static LUT, a tunable constant (no input) becomes the constant
    itself. Returns (LUTs, tunable constant name -> ``"0"``/``"1"``: they only drive outputs)."""
    out = []
    const_luts = {}
    for lut in luts:
        if lut.is_tlut:
            lits = [canon[j] for j in lut.ppc]
            if not lut.inputs and lits[0] <= 1:
                const_luts[lut.name] = str(lits[0])
                continue
            if all(x <= 1 for x in lits):
                t = 0
                for i, x in enumerate(lits):
                    t |= x << i
                out.append(Lut(lut.name, lut.inputs, init=t))
                continue
            out.append(Lut(lut.name, lut.inputs, ppc=[remap[j] for j in lut.ppc]))
        else:
            out.append(lut)
    return out, const_luts


def reshare(netlist: TlutNetlist, ppc: Aig, affine: dict | None = None) -> tuple[TlutNetlist, Aig, dict]:
    """After ABC: merge PPC outputs with equal literals (with at most :data:`EXHAUSTIVE_PARAMS`
    parameters: equal functions); TLUTs whose entries all became constant turn into static LUTs.
    ``affine`` (TLUT name -> AffineTlut) has its frontier outputs renumbered and kept; records of
    TLUTs that became static are dropped; the outputs are numbered densely again.
    Returns the netlist (changed in place), the new PPC (without unused nodes) and the affine records."""
    affine = dict(affine or {})
    new = Aig(num_inputs=ppc.num_inputs, ands=ppc.ands, input_names=list(ppc.input_names))
    index = {}
    remap = []
    canon = _canonical_outputs(ppc)
    for lit in canon:
        j = index.get(lit)
        if j is None:
            j = new.add_output(lit, f"e{len(new.outputs)}")
            index[lit] = j
        remap.append(j)
    luts, const_luts = _shared_luts(netlist.luts, canon, remap)
    tl = {lut.name for lut in luts if lut.is_tlut}
    affine = {n: dataclasses.replace(a, frontier=tuple(remap[j] for j in a.frontier))
              for n, a in affine.items() if n in tl}
    # drop outputs no longer used (keep numbering dense)
    used = sorted({j for lut in luts if lut.is_tlut for j in lut.ppc}
                  | {j for a in affine.values() for j in a.frontier})
    if len(used) != new.num_outputs:
        dense = {j: i for i, j in enumerate(used)}
        final = Aig(num_inputs=new.num_inputs, ands=new.ands, input_names=list(new.input_names))
        for j in used:
            final.add_output(new.outputs[j], f"e{dense[j]}")
        luts = [Lut(l.name, l.inputs, ppc=[dense[j] for j in l.ppc]) if l.is_tlut else l for l in luts]
        affine = {n: dataclasses.replace(a, frontier=tuple(dense[j] for j in a.frontier))
                  for n, a in affine.items()}
        new = final
    netlist.luts = luts
    netlist.outputs = [(n, const_luts.get(d, d)) for n, d in netlist.outputs]
    return netlist, compact(new), affine
