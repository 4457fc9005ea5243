"""TMAP: map an AIG with parameter inputs onto TLUTs and build the partial parameterized configuration.

:func:`map_tluts` runs these steps, each its own function and, when the flow records a build, its
own step of :mod:`dcsflow.steps`:

1. parameters (:func:`dcsflow.tmap.params.mapping_params`): the combinational view of the AIG (latch
   outputs are inputs, latch next states are outputs) and its parameter inputs;
2. the cover (:func:`dcsflow.tmap.candidates.choose_cover`; steps "cuts", "ABC variants", "Shannon
   variant"): reduced-cut selection (:mod:`dcsflow.tmap.cuts`: parameter-only nodes are never
   leaves; depth-optimal priority cuts, then area flow and exact area without increasing the depth,
   ``area=True``: area only) on the AIG and its variants, the best cover kept;
3. LUTs and PPC (:func:`dcsflow.tmap.build.build`, step "LUTs and PPC"): per chosen cut a static LUT
   or a TLUT whose entries are outputs of the PPC, an AIG over the parameters;
4. PPC optimization with ABC (:func:`dcsflow.tmap.ppc.optimize_ppc`, step "PPC optimization (ABC)")
   and re-sharing of equal / constant outputs (:func:`dcsflow.tmap.ppc.reshare`, step "PPC
   re-sharing");
   with ``param_bits``, TLUTs that read one parameter function become static LUTs on parameter bits
   (:func:`dcsflow.tmap.parambits.split_param_bits`, step "parameter bits");
5. proof that netlist ∘ PPC equals the AIG for all parameter values (:func:`dcsflow.tmap.proof.verify`,
   step "proof").

The options are :class:`dcsflow.tmap.options.MapOptions`, the result a
:class:`dcsflow.tmap.result.MapResult`.

Reference: K. Bruneel, W. Heirman, D. Stroobandt, "Dynamic data folding with parameterizable FPGA
configurations", ACM TODAES 16(4), 2011 (TMAP, reduced cuts, TLUTs).
"""

from __future__ import annotations

import time

from dcsflow import steps
from dcsflow.aig import Aig

from .build import build
from .candidates import choose_cover
from .errors import TmapError
from .options import MapOptions
from .parambits import split_param_bits
from .params import mapping_params
from .ppc import optimize_ppc, reshare
from .proof import verify
from .result import MapResult, MapStats

__all__ = ["map_tluts"]


def map_tluts(aig: Aig, params: list[str], options: MapOptions | None = None, progress=None) -> MapResult:
    """Map ``aig`` onto LUTs/TLUTs with at most ``options.K`` regular inputs each and build the PPC.

    Args:
        aig: the circuit (latches allowed; mapped combinationally).
        params: names of parameter inputs (input or latch names); may be empty (conventional mapping).
        options: :class:`dcsflow.tmap.options.MapOptions`.
        progress: optional callable(str) told the current step.
    Returns:
        :class:`dcsflow.tmap.result.MapResult`.
    Raises:
        ParamError: unknown parameter name. TmapError: K outside 2..6, tlut_k outside 2..K.
        VerificationError: the ABC proof failed (``options.verify``). ToolError: ABC failed.
        ToolMissing (:mod:`dcsflow.tools`): ABC missing.
    """
    opt = _resolved_options(options, aig)
    say = progress or (lambda s: None)
    t0 = time.perf_counter()
    comb = aig.combinational()
    params, pvars, notes = mapping_params(aig, comb, params, opt.param_latches)
    say("selecting cuts")
    choice = choose_cover(comb, pvars, opt, say)
    if choice.note:
        notes.append(choice.note)
    with steps.step("LUTs and PPC"):
        say("building LUTs and PPC")
        netlist, ppc, claims, affine, _ = build(choice.aig, params, choice.param, choice.cover, choice.nowide,
                                                opt.K, notes, opt.tlut_k or opt.K)
    netlist.source_hash = aig.canonical_hash()
    ppc_seconds = 0.0
    if opt.optimize_ppc:
        ppc, ppc_seconds = optimize_ppc(ppc, opt.ppc_opt_seconds, notes, say)
    if ppc.num_outputs:
        with steps.step("PPC re-sharing"):
            netlist, ppc, affine = reshare(netlist, ppc, affine)
    n_bits = 0
    if opt.param_bits and ppc.num_outputs:
        with steps.step("parameter bits"):
            netlist, affine, n_split, n_bits = split_param_bits(netlist, ppc, affine, opt.K)
        if n_split:
            notes.append(f"{n_split} TLUTs read one parameter function: static LUTs on {n_bits} parameter bits")
    stats = _stats(netlist, ppc, aig, len(params), time.perf_counter() - t0, ppc_seconds)
    stats.param_bits = n_bits
    res = MapResult(netlist, ppc, stats, notes, claims, choice.aig if choice.aig is not comb else None, affine)
    if opt.verify:
        with steps.step("proof"):
            say("proving netlist ∘ PPC ≡ AIG (yosys-abc cec)")
            verify(res, comb, opt.proof_seconds, opt.proof_method)
    return res


def _resolved_options(options: MapOptions | None, aig: Aig) -> MapOptions:
    """``options`` (default: :class:`MapOptions`) with the default mode filled in for ``aig``
    (:meth:`MapOptions.resolved`). Raises TmapError: K outside 2..6, tlut_k outside 2..K, or fewer
    than one cut per node."""
    opt = (options or MapOptions()).resolved(aig.num_ands)
    if not 2 <= opt.K <= 6:
        raise TmapError(f"K must be between 2 and 6, got {opt.K}")
    if opt.tlut_k is not None and not 2 <= opt.tlut_k <= opt.K:
        raise TmapError(f"TLUT inputs must be between 2 and K = {opt.K}, got {opt.tlut_k}")
    if opt.cuts_per_node < 1:
        raise TmapError(f"cuts per node must be at least 1, got {opt.cuts_per_node}")
    return opt


def _stats(netlist, ppc: Aig, aig: Aig, n_params: int, seconds: float, ppc_seconds: float) -> MapStats:
    """The figures of a mapping of ``aig`` (the proof not yet run)."""
    f7, f8 = netlist.mux_counts()
    return MapStats(luts=len(netlist.luts), tluts=sum(1 for lut in netlist.luts if lut.is_tlut),
                    depth=netlist.depth(), ppc_ands=ppc.num_ands, ppc_outputs=ppc.num_outputs, verified=None,
                    seconds=seconds, aig_ands=aig.num_ands, params=n_params, ppc_seconds=ppc_seconds,
                    muxf7=f7, muxf8=f8)
