"""What :func:`dcsflow.tmap.mapper.map_tluts` can be asked to do (:class:`MapOptions`) and its
default mode: which AIGs get 16 priority cuts, the ABC-optimized variants and the Shannon variant.
Standard library only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .netlist import LUT6

__all__ = ["ABC_AIG_SCRIPTS", "FULL_MODE_ANDS", "MapOptions"]

#: ABC scripts of the AIG variants tried by the flow (``MapOptions.aig_scripts``): ``dc2`` (AIG
#: rewriting/refactoring/balancing) and ``&syn2`` (ABC's GIA synthesis script).
ABC_AIG_SCRIPTS = ("strash; dc2", "strash; &get -n; &st; &syn2; &put")
#: Default mode (:meth:`MapOptions.resolved`): AIGs up to this many AND nodes get 16 priority cuts,
#: the ABC-optimized variants and the 8-cut cover as candidates; larger ones 8 cuts on the AIG as given. Decided from
#: benchmarks/tmap_bench.py (see README, "dcsflow map").
FULL_MODE_ANDS = 100_000
#: PPCs above this many AND nodes are not optimized by ABC (``strash; dc2; dc2`` on aes128_pipe's PPC,
#: 2.4M AND nodes, did not finish in 600 s); below, an optimization that runs out of


@dataclass
class MapOptions:
    """Options of :func:`dcsflow.tmap.mapper.map_tluts`.

    ``cuts_per_node``, ``aig_scripts`` and ``extra_cuts`` left at ``None`` select the default mode by
    the size of the AIG (:meth:`resolved`, figures in benchmarks/tmap_bench.py and README): up to
    :data:`FULL_MODE_ANDS` AND nodes 16 priority cuts, the ABC-optimized variants
    :data:`ABC_AIG_SCRIPTS` and the 8-cut cover of the AIG as further candidate, the best cover kept;
    above, 8 cuts on the AIG as given (bounded time on e.g. EPFL ``hyp``).

    Attributes:
        K: LUT size, maximum number of regular inputs per LUT (2..6).
        tlut_k: regular inputs of one TLUT when fewer than ``K`` (None: ``K``); 5 maps TLUTs onto
            CFGLUT5 (UG953, a 5-input LUT whose truth table shifts in from the fabric): the cut
            selection weighs a TLUT cut of ``tlut_k + 1`` or ``tlut_k + 2`` leaves as 2 or 4 TLUTs
            under MUXF7/MUXF8 (:mod:`dcsflow.tmap.cuts`), and the netlist builds it so.
        cuts_per_node: priority cuts C kept per node (None: default mode).
        area: trade depth for area (no depth constraint during area recovery).
        verify: prove netlist ∘ PPC ≡ AIG with ABC ``cec`` (failure raises VerificationError).
        param_latches: also treat latches whose next state depends only on parameters and on such
            latches as parameters, including load-enabled registers ``q' = load ? d : q`` whose ``d``
            does (parameter registers, e.g. key registers).
        optimize_ppc: optimize the PPC with ABC (``strash; dc2; dc2``), at most ``ppc_opt_seconds``
            and only up to :data:`dcsflow.tmap.ppc.PPC_OPT_MAX_ANDS` AND nodes (else the PPC is kept as
            built, with a note).
        flow_passes, exact_passes: area-recovery passes (area flow, exact area).
        proof_seconds: time limit of the ABC proof (an undecided proof is an error).
        proof_method: ``"auto"``, ``"cutpoint"`` or ``"global"`` (see :func:`dcsflow.tmap.proof.verify`).
        aig_scripts: ABC scripts (e.g. ``"strash; dc2"``) giving optimized variants of the AIG, with
            the parameters as ordinary inputs; each variant is mapped too and the best cover kept
            (default mode: fewer LUTs at no greater depth; area mode: fewer LUTs). The proof is
            always against the original AIG. None: default mode; ``()``: the AIG as given only.
        extra_cuts: further priority-cut counts with which the AIG as given is mapped too, keeping
            the better cover by (depth, LUTs), in area mode (LUTs, depth) (more cuts is not always
            better: priority cuts are a heuristic); the ABC variants are compared afterwards, so the
            result is never worse in that order than the cover with those cuts alone. None: default
            mode, ``(8,)`` in the full mode (never worse than the previous default, 8 cuts on the AIG
            as given), else ``()``.
        wide: wide functions on MUXF7/MUXF8 (UG474): cuts of 7 or 8 regular leaves become 2 or 4 LUT6
            (TLUTs when the cone reads parameters) on the cofactors of their last one or two leaves
            plus MUXF7 / MUXF7+MUXF7+MUXF8 cells (:class:`dcsflow.tmap.netlist.Mux`). Every candidate cover is remapped
            with wide cuts (area recovery bounded by its depth; the ABC and Shannon variants only when
            they paid off on the AIG as given) and the wide cover is kept only when it
            has no more LUTs and no greater LUT depth (MUXF7/MUXF8 add no LUT level) and beats it in one
            of them; when a wide table is affine in its frontier, key bits XORed into the selects
            choose which quarter each cofactor TLUT holds (affine records with quarters), else selects
            read through a parameter XOR get that XOR's LUT
            (``dcsflow.tmap.build._LutBuilder._add_wide``), and when those LUTs outweigh the saving
            the cover without wide cuts is built. None: on at K = 6; off at other K (False is forced
            there).
        shannon: with parameters, also map the Shannon-expanded variant of the AIG
            (:mod:`dcsflow.tmap.shannon`: nodes reading K+1 or K+2 regular inputs rebuilt as
            multiplexers of cofactors on K inputs each, where the cover of the AIG as given spends
            more LUTs on them) and keep its cover when it is better (as for ``aig_scripts``; proved
            the same way). None: on whenever ABC-optimized variants are tried (``aig_scripts`` not
            empty after :meth:`resolved`: the full default mode, ``--abc-opt``), else off.
        param_bits: TLUTs that read one parameter function (every entry a constant or one PPC
            function, either polarity) become static LUTs with one input more, reading a
            **parameter bit**: a TLUT without inputs on that function, shared by all LUTs that read
            it, which a CFGLUT5 build (``tlut_k``) holds in a flip-flop of its shift chains instead of
            shifting 32 INIT bits to carry one bit (:func:`dcsflow.tmap.parambits.split_param_bits`;
            only where the static LUT fits in ``K`` inputs).
    """

    K: int = 6
    tlut_k: int | None = None
    cuts_per_node: int | None = None
    area: bool = False
    verify: bool = True
    param_latches: bool = False
    optimize_ppc: bool = True
    ppc_opt_seconds: float = 600.0
    flow_passes: int = 3
    exact_passes: int = 3
    proof_seconds: float = 600.0
    aig_scripts: tuple | None = None
    proof_method: str = "auto"
    extra_cuts: tuple | None = None
    shannon: bool | None = None
    wide: bool | None = None
    param_bits: bool = False

    def resolved(self, aig_ands: int) -> "MapOptions":
        """A copy with the default mode filled in for an AIG of ``aig_ands`` AND nodes (``params``:
        it has parameter inputs): up to :data:`FULL_MODE_ANDS` nodes 16 cuts,
        :data:`ABC_AIG_SCRIPTS` and (when the cut count is not given) ``extra_cuts=(8,)``; above, 8
        cuts and no variants; ``shannon`` on when variants are tried; ``wide`` on at K = 6. Values given
        explicitly are kept."""
        full = aig_ands <= FULL_MODE_ANDS
        scripts = tuple(self.aig_scripts) if self.aig_scripts is not None else (ABC_AIG_SCRIPTS if full else ())
        return dataclasses.replace(
            self, extra_cuts=tuple(self.extra_cuts) if self.extra_cuts is not None else
            ((8,) if full and self.cuts_per_node is None else ()),
            shannon=self.shannon if self.shannon is not None else bool(scripts),
            wide=bool(self.wide if self.wide is not None else True) and self.K == LUT6,
            cuts_per_node=self.cuts_per_node if self.cuts_per_node is not None else (16 if full else 8),
            aig_scripts=scripts)
