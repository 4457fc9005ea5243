"""Which cover to build: the candidate covers of :func:`dcsflow.tmap.mapper.map_tluts` and their
comparison.

Candidates, in this order (:func:`choose_cover`):

1. the AIG as given, with ``MapOptions.cuts_per_node`` priority cuts and each further count of
   ``extra_cuts`` (compared by (depth, LUTs), in area mode (LUTs, depth));
2. the ABC-optimized variants of the AIG (``aig_scripts``, parameters as ordinary inputs; made by
   ``yosys-abc`` processes that run while the AIG itself is mapped);
3. the Shannon-expanded variant (:mod:`dcsflow.tmap.shannon`), with parameters.

A variant is kept when its cover beats the best so far: fewer LUTs at no greater depth (area mode:
fewer LUTs, then lower depth). With wide functions (``MapOptions.wide``) every candidate cover is
first improved by wide cuts (:func:`cover_of`), and the same choices are made on the covers
without wide cuts; the wide choice is kept only when it is at least as good as that one in LUTs and
in depth. Each phase is a step of :mod:`dcsflow.steps` ("cuts", "ABC variants", "Shannon variant").

The proof (:mod:`dcsflow.tmap.proof`) is always against the original AIG.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from dcsflow import steps
from dcsflow.aig import Aig

from . import abc
from .cones import parameter_only
from .cuts import Cover, _cover_size, select_cover
from .options import MapOptions
from .shannon import shannon_roots, shannon_variant

__all__ = ["Choice", "choose_cover", "cover_of"]


@dataclass
class Choice:
    """The cover chosen by :func:`choose_cover`.

    Attributes:
        aig: the AIG it covers (the combinational view of the input, or a variant of it).
        cover: the :class:`dcsflow.tmap.cuts.Cover`.
        param: parameter-only flags of ``aig`` (:func:`dcsflow.tmap.cones.parameter_only`).
        note: which variant it came from (a note for the result), or None.
        nowide: the same choice's cover without wide cuts when ``cover`` has them (None: wide
            functions off, or the cover is its own).
    """

    aig: Aig
    cover: Cover
    param: bytearray
    note: str | None
    nowide: Cover | None


def cover_of(comb: Aig, pvars: set, opt: MapOptions, wide: bool = False, depth_bound: int = 0,
             wide_pass: dict | None = None, single: bool = False) -> tuple[Cover, bytearray]:
    """Mark parameter-only variables of ``comb`` and select its cover (``wide``: with wide cuts,
    ``depth_bound``: see :func:`dcsflow.tmap.cuts.select_cover`); returns (cover, param).

    ``wide_pass`` (a dict) with ``opt.wide``: select the cover without wide cuts, improve it with
    :func:`_wide_cover`, and record ``id(result) -> (result, cover without wide cuts)`` in the dict."""
    if wide_pass is not None and opt.wide and not wide:
        cover, param = cover_of(comb, pvars, opt, depth_bound=depth_bound)
        better = _wide_cover(comb, pvars, opt, cover)
        if better is not cover:
            wide_pass[id(better)] = (better, cover)   # the object too: ids of dropped covers are reused
        return better, param
    if opt.cuts_per_node is None:
        opt = opt.resolved(comb.num_ands)
    n = comb.max_var + 1
    base = comb.first_and
    fanin0 = [0] * n
    fanin1 = [0] * n
    param = parameter_only(comb, pvars)
    for i, (a, b) in enumerate(comb.ands):
        fanin0[base + i] = a >> 1
        fanin1[base + i] = b >> 1
    out_vars = [o >> 1 for o in comb.outputs]
    cover = select_cover(base, fanin0, fanin1, param, [v for v in out_vars if v >= base and not param[v]],
                         K=opt.K, C=opt.cuts_per_node, area_mode=opt.area, flow_passes=opt.flow_passes,
                         exact_passes=opt.exact_passes, wide=wide, depth_bound=depth_bound, single=single,
                         tlut_k=opt.tlut_k or 0)
    return cover, param


def _wide_cover(g: Aig, pvars: set, opt: MapOptions, cover: Cover) -> Cover:
    """The cover of ``g`` with wide cuts (:func:`dcsflow.tmap.cuts.select_cover` ``wide``) when it
    beats ``cover`` (the cover without them): no more LUTs and no greater depth, better in one; of
    such covers the one with the fewest LUTs, then the smaller depth. One wide cover is selected,
    its area recovery bounded by the depth of ``cover`` (the slack of a shallower wide cover is spent
    on area; area mode has no bound).
    Returns the chosen cover (``cover`` itself when the wide one does not beat it)."""
    base = (_cover_size(cover, g.first_and), cover.depth)
    cw, _ = cover_of(g, pvars, opt, wide=True, depth_bound=0 if opt.area else cover.depth)
    key = (_cover_size(cw, g.first_and), cw.depth)
    return cw if key[0] <= base[0] and key[1] <= base[1] and key < base else cover


def _better(c2: Cover, first2: int, c1: Cover, first1: int, area: bool) -> bool:
    """True when cover ``c2`` beats ``c1``: fewer LUTs at no greater depth (default mode), or fewer
    LUTs, then lower depth (area mode)."""
    a1, a2 = _cover_size(c1, first1), _cover_size(c2, first2)
    if area:
        return (a2, c2.depth) < (a1, c1.depth)
    return c2.depth <= c1.depth and a2 < a1


class _Candidates:
    """The best candidate so far (``g``, ``cover``, ``param``, ``note``) and the same choices made on
    the covers without wide cuts (``base``: [AIG, wide-improved cover, its cover without wide cuts,
    param, note]); ``nowide``: id(wide-improved cover) -> (it, the cover without wide cuts), filled by
    :func:`cover_of`."""

    def __init__(self, opt: MapOptions):
        self.opt = opt
        self.nowide = {}
        self.g = self.cover = self.param = self.base = None
        self.note = None

    def without_wide(self, cv: Cover) -> Cover | None:
        """The cover without wide cuts that ``cv`` was improved from, or None."""
        hit = self.nowide.get(id(cv))
        return hit[1] if hit and hit[0] is cv else None

    def plain(self, cv: Cover) -> Cover:
        """``cv`` without its wide improvement (``cv`` itself when it has none)."""
        return self.without_wide(cv) or cv

    def start(self, g: Aig, cover: Cover, param: bytearray) -> None:
        """The first candidate: ``cover`` of the AIG as given."""
        self.g, self.cover, self.param = g, cover, param
        self.base = [g, cover, self.plain(cover), param, None]

    def _follow(self, better: bool, g: Aig, cv: Cover, param: bytearray, note: str | None = None) -> None:
        """Update ``base`` with candidate (g, cv) when its cover without wide cuts wins."""
        if better:
            self.base[:] = [g, cv, self.plain(cv), param, note]

    def offer_cuts(self, cover: Cover, param: bytearray, rank) -> None:
        """Another cover of the AIG as given (another cut count), kept when ``rank`` (a key, lower
        is better) says so."""
        self._follow(rank(self.plain(cover)) < rank(self.base[2]), self.g, cover, param)
        if rank(cover) < rank(self.cover):
            self.cover, self.param = cover, param

    def offer_variant(self, g: Aig, cover: Cover, param: bytearray, note: str) -> None:
        """The cover of a variant ``g`` of the AIG, kept when it is better (:func:`_better`)."""
        area = self.opt.area
        self._follow(_better(self.plain(cover), g.first_and, self.base[2], self.base[0].first_and, area),
                     g, cover, param, note)
        if _better(cover, g.first_and, self.cover, self.g.first_and, area):
            self.g, self.cover, self.param, self.note = g, cover, param, note

    def choice(self) -> Choice:
        """The chosen candidate: never worse in LUTs and depth than the choice without wide cuts
        (that choice, with its own wide improvement, otherwise)."""
        g, cover, param, note = self.g, self.cover, self.param, self.note
        b = self.base
        if self.opt.wide and not (_cover_size(cover, g.first_and) <= _cover_size(b[2], b[0].first_and)
                                  and cover.depth <= b[2].depth):
            g, cover, _, param, note = b
        return Choice(g, cover, param, note, self.without_wide(cover) if self.opt.wide else None)


def choose_cover(comb: Aig, pvars: set, opt: MapOptions, say=lambda s: None) -> Choice:
    """The best cover of ``comb`` (a combinational AIG; ``pvars``: its parameter variables) among the
    candidates of ``opt`` (resolved: :meth:`MapOptions.resolved`), see the module docstring.
    ``say``: told the current step (progress).

    Raises:
        ToolMissing (:mod:`dcsflow.tools`): ABC missing (with ``aig_scripts``). ToolError: ABC failed.
    """
    cands = _Candidates(opt)
    with ThreadPoolExecutor(max_workers=max(1, len(opt.aig_scripts))) as pool:
        futures = [pool.submit(steps.bind(abc.optimize_aig), comb, script, what=f"ABC variant: {script}")
                   for script in opt.aig_scripts]
        with steps.step("cuts"):
            comb_cover = _map_as_given(cands, comb, pvars, opt)
        # the ABC variants and the Shannon variant are remapped with wide cuts only when these paid off
        # on the AIG as given (bounded time: without parameters, e.g. aes128_iter's logic, they rarely do)
        wide_pass = cands.nowide if cands.nowide else None
        if futures:
            with steps.step("ABC variants"):
                _map_abc_variants(cands, comb, pvars, opt, zip(opt.aig_scripts, futures), wide_pass, say)
    if opt.shannon and pvars:
        with steps.step("Shannon variant"):
            _map_shannon_variant(cands, comb, pvars, opt, comb_cover, wide_pass, say)
    return cands.choice()


def _map_as_given(cands: _Candidates, comb: Aig, pvars: set, opt: MapOptions) -> Cover:
    """The candidates on the AIG as given: ``opt.cuts_per_node`` priority cuts, then each further
    count of ``opt.extra_cuts``, compared by (depth, LUTs), or (LUTs, depth) in area mode, so the
    result is never worse in that order than the cover with those cuts alone. Returns the best of
    them without wide cuts (the Shannon roots are chosen on a cover of K-input cuts)."""
    cover, param = cover_of(comb, pvars, opt, wide_pass=cands.nowide)
    cands.start(comb, cover, param)
    rank = (lambda cv: (_cover_size(cv, comb.first_and), cv.depth)) if opt.area else \
        (lambda cv: (cv.depth, _cover_size(cv, comb.first_and)))
    for c in opt.extra_cuts:
        if c != opt.cuts_per_node:
            cover2, param2 = cover_of(comb, pvars, dataclasses.replace(opt, cuts_per_node=c),
                                      wide_pass=cands.nowide)
            cands.offer_cuts(cover2, param2, rank)
    return cands.plain(cands.cover)


def _map_abc_variants(cands: _Candidates, comb: Aig, pvars: set, opt: MapOptions, variants,
                      wide_pass: dict | None, say) -> None:
    """Map each ABC-optimized variant (``variants``: (script, future of its AIG) pairs) that ABC made
    smaller than ``comb`` and offer its cover."""
    for script, fut in variants:
        say(f"mapping the ABC-optimized AIG ({script})")
        g2 = fut.result()
        if g2 is comb:
            continue
        cover2, param2 = cover_of(g2, pvars, opt, wide_pass=wide_pass)
        cands.offer_variant(g2, cover2, param2, "mapped an ABC-optimized AIG")


def _map_shannon_variant(cands: _Candidates, comb: Aig, pvars: set, opt: MapOptions, comb_cover: Cover,
                         wide_pass: dict | None, say) -> None:
    """Map the Shannon-expanded variant of ``comb`` (roots chosen on ``comb_cover``, the cover of the
    AIG as given without wide cuts, with its own parameter-only flags) and offer its cover; nothing
    when no node is worth expanding."""
    comb_param = parameter_only(comb, pvars)
    roots = shannon_roots(comb, comb_param, opt.K, cover=comb_cover)
    if not roots:
        return
    say("mapping the Shannon-expanded AIG")
    g3 = shannon_variant(comb, comb_param, opt.K, roots)
    cover3, param3 = cover_of(g3, pvars, opt, wide_pass=wide_pass)
    cands.offer_variant(g3, cover3, param3, f"mapped the Shannon-expanded AIG ({len(roots)} node(s) expanded)")
