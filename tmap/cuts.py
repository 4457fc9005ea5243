"""Reduced-cut enumeration with priority cuts and cut selection (depth, area flow, exact area).

Algorithm: priority cuts (Mishchenko, Cho, Chatterjee, Brayton, "Combinational and sequential
mapping with priority cuts", ICCAD 2007) — at most C cuts are kept per node, ranked by the current
objective; the mapping is depth-optimal over those cuts first, then improved by area flow and by
exact area (reference counting over the current cover) under required times that keep the depth.
Reduced cuts (Bruneel, Heirman, Stroobandt, "Dynamic data folding with parameterizable FPGA
configurations", ACM TODAES 16(4), 2011 — TMAP): parameter inputs and nodes that depend only on
parameters are never cut leaves and cost nothing; a cut is K-feasible when it has at most K
(regular) leaves.

Wide cuts (``wide=True``, K = 6): cuts of 7 or 8 regular leaves are allowed too and cost 2 or 4 LUTs
(:func:`cut_luts`) in area flow and exact area, at the depth of one LUT: such a function is 2 or 4
LUT6 on the cofactors of its last one or two leaves plus a MUXF7, or two MUXF7 and a MUXF8, inside one
slice (Xilinx UG474, "7 Series FPGAs CLB User Guide", multiplexers F7AMUX/F7BMUX/F8MUX).

TLUT size (``tlut_k`` below the LUT size; CFGLUT5, UG953): a cut whose cone reads a parameter (a
TLUT) has at most ``tlut_k`` leaves for one LUT; a TLUT cut of ``tlut_k + 1`` or ``tlut_k + 2`` leaves
costs 2 or 4 (cofactors plus MUXF7/MUXF8, as for wide cuts). Whether a cut reads a parameter is the OR
over the cuts merged into it, a parameter-only fanin setting it. Every CFGLUT5 is also a chain word of
every rekey, so at equal LUTs the cover with fewer CFGLUT5s wins (:func:`selection_costs`).

Data: a cut is a ``frozenset`` of variable indices (regular inputs or regular AND nodes) together
with a 64-bit signature (bit ``v & 63`` per leaf) used as a fast size filter.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass

try:  # compiled core built by setup.py; TMAP_PURE_PYTHON=1 forces the reference implementation
    from . import _cutsc
except ImportError:  # pragma: no cover - depends on the build
    _cutsc = None

INF = 1 << 30
#: Largest cut of a wide cover: 4 LUT6 + 2 MUXF7 + 1 MUXF8 (UG474).
WIDE_LEAVES = 8


def cut_luts(n: int, lut_k: int = 6) -> int:
    """LUTs that implement a cut of ``n`` leaves: 1 up to ``lut_k`` leaves, else ``2 ** (n - lut_k)``
    (LUT6 cofactors combined by MUXF7/MUXF8, UG474)."""
    return 1 if n <= lut_k else 1 << (n - lut_k)


#: Cost of one LUT in cut selection when the TLUTs are CFGLUT5s (``tlut_k`` below the LUT size); a
#: CFGLUT5 costs one unit more, because it is also one chain word of every rekey: of two covers with
#: the same LUTs the one with fewer CFGLUT5s wins (the same constant is in tmap/_cutsc.c).
TLUT_UNIT = 1024


def selection_costs(K: int, lut_k: int, tlut_k: int) -> list[int]:
    """Cost of a cut in cut selection, by leaves: entries 0..K for regular cuts, K+1..2K+1 for TLUT
    cuts (:func:`cut_luts` LUTs; with ``tlut_k < lut_k`` scaled by :data:`TLUT_UNIT`, a TLUT cut's
    CFGLUT5s added)."""
    reg = [cut_luts(i, lut_k) for i in range(K + 1)]
    tl = [cut_luts(i, tlut_k) for i in range(K + 1)]
    if tlut_k >= lut_k:
        return reg + tl
    return [c * TLUT_UNIT for c in reg] + [c * (TLUT_UNIT + 1) for c in tl]


#: Depth passes of the default mode (alternating rankings; also in tmap/_cutsc.c).
DEPTH_ROUNDS = 6


def compiled_core() -> bool:
    """True when the compiled cut selection (tmap._cutsc) is in use."""
    return _cutsc is not None and not os.environ.get("TMAP_PURE_PYTHON")


@dataclass
class Cover:
    """Result of the cut selection.

    Attributes:
        best: per variable, the chosen cut (tuple of leaf variables, ascending) of every regular
            AND node; ``None`` for inputs, parameter-only nodes and the constant.
        arrival: per variable, LUT depth of the chosen cut (0 for inputs and parameter nodes).
        refs: per variable, number of references in the final cover (LUT fanins and outputs).
        depth: maximum arrival over the output drivers.
        tl: per variable, 1 when its chosen cut reads a parameter (a TLUT).
        tlut_k: leaves of one TLUT (a TLUT cut with more costs :func:`cut_luts` with this size).
    """

    best: list
    arrival: list
    refs: list
    depth: int
    tl: bytes = b""
    tlut_k: int = 6

    def cut_cost(self, v: int) -> int:
        """LUTs of variable ``v``'s chosen cut (:func:`cut_luts`; LUT6, or ``tlut_k`` for a TLUT)."""
        return cut_luts(len(self.best[v]), self.tlut_k if self.tl and self.tl[v] else 6)


def select_cover(first_and: int, fanin0: list, fanin1: list, param: bytearray, out_vars: list,
                 K: int = 6, C: int = 8, area_mode: bool = False, flow_passes: int = 3,
                 exact_passes: int = 3, wide: bool = False, depth_bound: int = 0, single: bool = False,
                 tlut_k: int = 0) -> Cover:
    """Choose one K-feasible reduced cut for every regular AND node, covering the outputs.

    Args:
        first_and: variable index of the first AND node; variables below it are the constant (0)
            and the inputs.
        fanin0, fanin1: per variable, fanin *variable* of each AND node (entries below
            ``first_and`` unused).
        param: per variable, 1 if it is the constant, a parameter input or depends on parameters
            only (such variables are never leaves).
        out_vars: variables driving outputs (duplicates allowed).
        K: maximum number of regular leaves (2..6 in the flow; any K ≥ 1 works here).
        C: priority cuts kept per node.
        area_mode: no depth constraint during area recovery (``--area``).
        flow_passes, exact_passes: area-recovery passes after the depth pass.
        wide: also allow cuts of up to :data:`WIDE_LEAVES` leaves costing :func:`cut_luts` LUTs
            (only with K = 6; ignored at other K).
        depth_bound: depth-bounded modes: the outputs' required time is this bound when it is above
            the depth found (area recovery may then use the slack); 0: the depth found.
        single: one starting point instead of two (default mode: the (depth, area flow) pass; area
            mode: the area-flow pass), about half the time.
        tlut_k: leaves of one TLUT (0: the LUT size): a TLUT cut may have up to ``tlut_k + 2``
            leaves, costing :func:`cut_luts` with this size (CFGLUT5 cofactors and MUXF7/MUXF8).
    Returns:
        a :class:`Cover` (its ``best`` cuts may have up to 8 leaves with ``wide``).
    """
    lut_k = K
    if wide and K == 6:
        K = WIDE_LEAVES
    tk = tlut_k if 0 < tlut_k < lut_k else lut_k
    if single:
        return _select(first_and, fanin0, fanin1, param, out_vars, K, C, 2 if area_mode else 3, flow_passes,
                       exact_passes, lut_k, depth_bound, tk)
    if area_mode:
        # two starting points (depth-oriented and area-flow-oriented first pass); keep the smaller cover
        covers = [_select(first_and, fanin0, fanin1, param, out_vars, K, C, m, flow_passes, exact_passes,
                          lut_k, depth_bound, tk) for m in (1, 2)]
        return min(covers, key=lambda c: (_cover_size(c, first_and), c.depth))
    # two depth-oriented starting points, keep the shallower cover, then the smaller:
    # - DEPTH_ROUNDS depth passes alternating the rankings (depth, size, area flow) and (depth, area
    #   flow), each keeping every node's previous cut as a candidate (as ABC's &if preprocessing rounds
    #   "Delay", "Delay-2"): arrival times can only decrease from pass to pass, and re-ranking with the
    #   new arrival times finds shallower covers than one pass (EPFL hyp: 4193 levels instead of 4195);
    # - one depth pass ranked (depth, area flow): often the smaller cover at the same depth (array
    #   multipliers with a parameter operand: 12% fewer LUTs).
    covers = [_select(first_and, fanin0, fanin1, param, out_vars, K, C, m, flow_passes, exact_passes,
                      lut_k, depth_bound, tk) for m in (4, 3)]
    return min(covers, key=lambda c: (c.depth, _cover_size(c, first_and)))


def _cover_size(cover: Cover, first_and: int) -> int:
    """LUTs of a cover (a wide cut counts :func:`cut_luts` with LUT6, a TLUT cut with the cover's
    ``tlut_k``)."""
    return sum(cover.cut_cost(v) for v in range(first_and, len(cover.best))
               if cover.refs[v] and cover.best[v] is not None)


def _select(first_and, fanin0, fanin1, param, out_vars, K, C, area_mode, flow_passes, exact_passes,
            lut_k=None, depth_bound=0, tlut_k=None) -> Cover:
    """One run of the passes; area_mode 0: depth-bounded, 1: unbounded with a depth-oriented first
    pass, 2: unbounded with an area-flow first pass, 3: depth-bounded with a first pass ranking cuts
    by (depth, area flow), 4: DEPTH_ROUNDS depth passes alternating the rankings of 0 and 3. K: maximum leaves; lut_k: leaves
    of one LUT (wider cuts cost :func:`cut_luts`); tlut_k: leaves of one TLUT (module docstring)."""
    lut_k = lut_k or K
    tlut_k = tlut_k or lut_k
    if compiled_core() and K <= 8:
        best, arr, refs, depth, tl = _cutsc.select_cover(
            first_and, array("i", fanin0), array("i", fanin1), bytes(param), array("i", out_vars), K, C,
            int(area_mode), flow_passes, exact_passes, lut_k, depth_bound, tlut_k)
        return Cover(best=best, arrival=arr, refs=refs, depth=depth, tl=tl, tlut_k=tlut_k)
    n = len(fanin0)
    is_and = bytearray(n)
    for v in range(first_and, n):
        if not param[v]:
            is_and[v] = 1
    fanout = [0] * n
    for v in range(first_and, n):
        if is_and[v]:
            fanout[fanin0[v]] += 1
            fanout[fanin1[v]] += 1
    for v in out_vars:
        fanout[v] += 1
    est = [max(1.0, float(f)) for f in fanout]
    best = [None] * n
    arr = [0] * n
    req = [INF] * n
    refs = [0] * n
    btl = bytearray(n)          # per variable: its chosen cut reads a parameter

    # the first pass is always depth-oriented (a good starting cover); with area_mode the required
    # times stay unbounded so that area recovery may increase the depth
    first = {2: ["area"], 3: ["delay2"], 4: ["delay", "delay2"] * (DEPTH_ROUNDS // 2)}.get(area_mode, ["delay"])
    passes = first + ["area"] * flow_passes + ["exact"] * exact_passes
    for pi, mode in enumerate(passes):
        _pass(first_and, fanin0, fanin1, param, is_and, K, C, mode, best, arr, req, est, refs, lut_k, btl, tlut_k)
        # cover, refs, depth, required times
        refs = _cover_refs(n, first_and, is_and, best, out_vars)
        depth = max([arr[v] for v in out_vars], default=0)
        target = INF if area_mode in (1, 2) else max(depth, depth_bound)
        req = [INF] * n
        for v in out_vars:
            if is_and[v]:
                req[v] = min(req[v], target)
        for v in range(n - 1, first_and - 1, -1):
            if refs[v] and is_and[v]:
                r = req[v] - 1
                for l in best[v]:
                    if req[l] > r:
                        req[l] = r
        for v in range(first_and, n):
            if is_and[v]:
                est[v] = max(1.0, (est[v] + 2.0 * refs[v]) / 3.0)
    bt = [tuple(sorted(c)) if c is not None else None for c in best]
    return Cover(best=bt, arrival=arr, refs=refs, depth=max([arr[v] for v in out_vars], default=0),
                 tl=bytes(btl), tlut_k=tlut_k)


def _cover_refs(n, first_and, is_and, best, out_vars):
    refs = [0] * n
    for v in out_vars:
        refs[v] += 1
    for v in range(n - 1, first_and - 1, -1):
        if refs[v] and is_and[v]:
            for l in best[v]:
                refs[l] += 1
    return refs


_EMPTY = (frozenset(), 0, 1)   # the cut of a parameter-only variable: no leaf, no cost, reads a parameter


def _pass(first_and, fanin0, fanin1, param, is_and, K, C, mode, best, arr, req, est, refs, lut_k=None,
          btl=None, tlut_k=None):
    """One pass over the regular AND nodes in topological order: per node its priority cuts (the
    merged cuts of its fanins and its previous cut, ranked by ``mode``: "delay", "delay2", "area"
    (area flow) or "exact" (exact area)), of which at most ``C`` are kept for its readers and the
    best becomes ``best[v]`` with its arrival ``arr[v]``; cuts later than ``req[v]`` are skipped
    (except the previous cut). ``est``: estimated fanout per node; ``refs``: reference counts of the
    current cover (updated in place by exact area). ``lut_k``: leaves of one LUT (a wider cut costs
    :func:`cut_luts`); ``tlut_k``: leaves of one TLUT; ``btl``: per variable, 1 when its chosen cut
    reads a parameter (updated in place). A cut is (leaves, signature, reads a parameter); the cost of
    a cut of n leaves is ``cost[n]``, of a TLUT cut ``cost[n + K + 1]``."""
    lut_k = lut_k or K
    tlut_k = tlut_k or lut_k
    btl = btl if btl is not None else bytearray(len(fanin0))
    cost = selection_costs(K, lut_k, tlut_k)
    n = len(fanin0)
    cuts = [None] * n
    for v in range(1, first_and):
        cuts[v] = [_EMPTY] if param[v] else [(frozenset((v,)), 1 << (v & 63), 0)]
    cuts[0] = [(frozenset(), 0, 0)]
    af = [0.0] * n
    arr_get = arr.__getitem__
    af_get = af.__getitem__
    exact = _exact_area(refs, best, btl, is_and, cost, K + 1) if mode == "exact" else None
    ref_cut, deref_cut = exact or (None, None)
    delay_mode = mode in ("delay", "delay2")
    remaining = [0] * n          # readers of each variable's cuts not yet visited
    for v in range(first_and, n):
        if is_and[v]:
            remaining[fanin0[v]] += 1
            remaining[fanin1[v]] += 1
    for v in range(first_and, n):
        if param[v]:
            cuts[v] = [_EMPTY]
            continue
        cand = _merged_cuts(cuts, fanin0[v], fanin1[v], remaining, K, min(K, tlut_k + 2))
        prev = best[v]
        if prev is not None and prev not in cand:
            fs = frozenset(prev)
            sig = 0
            for l in fs:
                sig |= 1 << (l & 63)
            cand[fs] = (sig, btl[v])
        r0 = exact is not None and refs[v]
        if r0 and prev is not None:
            deref_cut(prev, btl[v])
        keep = _priority_cuts(_scored(cand, mode, exact, arr_get, af_get, cost, est[v], req[v], prev, K + 1), C)
        chosen = keep[0]
        if r0:
            ref_cut(chosen[3], chosen[6])
        best[v] = chosen[3]
        btl[v] = chosen[6]
        arr[v] = chosen[0] if delay_mode else chosen[2]
        af[v] = chosen[5]
        if remaining[v]:
            cuts[v] = [(t[3], t[4], t[6]) for t in keep] + [(frozenset((v,)), 1 << (v & 63), 0)]


def _merged_cuts(cuts, f0, f1, remaining, K, tlut_max=None) -> dict:
    """The K-feasible unions of a cut of fanin ``f0`` and one of ``f1`` (cut -> (signature, reads a
    parameter)), TLUT cuts with at most ``tlut_max`` leaves; a fanin's cut list is dropped once its
    last reader has merged it."""
    ca = cuts[f0]
    cb = cuts[f1]
    remaining[f0] -= 1
    if not remaining[f0]:
        cuts[f0] = None
    remaining[f1] -= 1
    if not remaining[f1]:
        cuts[f1] = None
    tlut_max = K if tlut_max is None else tlut_max
    cand = {}
    for fa, sa, ta in ca:
        for fb, sb, tb in cb:
            s = sa | sb
            if s.bit_count() > K:
                continue
            u = fa | fb
            t = ta | tb
            if len(u) > (tlut_max if t else K):
                continue
            cand[u] = (s, t)
    return cand


def _scored(cand: dict, mode: str, exact, arr_get, af_get, cost, est_v: float, rv: int, prev, toff: int) -> list:
    """The candidate cuts of a node ranked for ``mode``: per cut ``u`` (those whose arrival ``d`` is
    within the required time ``rv``, and the previous cut ``prev``) a tuple whose first three fields
    rank it (lower is better), then ``u``, its signature, its area flow ``a`` and whether it reads a
    parameter: delay (d, |u|, a),
    delay2 (d, 0, a), area flow (a, |u|, d), exact area (exact area, |u|, d). ``arr_get``/``af_get``:
    arrival and area flow per variable; ``exact``: the (ref, deref) pair of :func:`_exact_area` in
    exact-area mode, else None; ``cost``: LUTs per cut size, TLUT cuts at offset ``toff``."""
    ref_cut, deref_cut = exact or (None, None)
    delay_mode = mode in ("delay", "delay2")
    delay2 = mode == "delay2"
    scored = []
    for u, (s, t) in cand.items():
        d = 1 + max(map(arr_get, u))
        if d > rv and u != prev:
            continue
        a = (cost[len(u) + toff * t] + sum(map(af_get, u))) / est_v
        if delay2:
            scored.append((d, 0, a, u, s, a, t))
        elif delay_mode:
            scored.append((d, len(u), a, u, s, a, t))
        elif ref_cut is not None:
            ar = ref_cut(u, t)
            deref_cut(u, t)
            scored.append((ar, len(u), d, u, s, a, t))
        else:
            scored.append((a, len(u), d, u, s, a, t))
    scored.sort(key=_key3)
    return scored


def _priority_cuts(scored: list, C: int) -> list:
    """The first ``C`` of the ranked cuts ``scored`` that no earlier kept cut dominates (is a subset of)."""
    keep = []
    for t in scored:
        u = t[3]
        dominated = False
        for k in keep:
            if k[3] <= u:
                dominated = True
                break
        if not dominated:
            keep.append(t)
            if len(keep) >= C:
                break
    return keep


def _exact_area(refs, best, btl, is_and, cost, toff):
    """Exact area of cuts under the current cover: (ref, deref); ``ref(cut, tl)`` adds a cut (``tl``:
    it reads a parameter) to the cover (the cuts of its leaves that become referenced too,
    recursively), ``deref(cut, tl)`` takes it out; each returns the LUTs so added or freed. ``refs``
    (reference counts) is updated in place; ``btl``: per variable, its chosen cut reads a parameter;
    ``cost``: as in :func:`_scored`. Closures: they run once per candidate cut of exact area, the hot
    loop of the pure-Python passes."""

    def ref(cut, tl):
        area = 0
        stack = [(cut, tl)]
        while stack:
            c, t = stack.pop()
            area += cost[len(c) + toff * t]
            for l in c:
                if is_and[l]:
                    r = refs[l]
                    refs[l] = r + 1
                    if r == 0:
                        stack.append((best[l], btl[l]))
        return area

    def deref(cut, tl):
        area = 0
        stack = [(cut, tl)]
        while stack:
            c, t = stack.pop()
            area += cost[len(c) + toff * t]
            for l in c:
                if is_and[l]:
                    r = refs[l] - 1
                    refs[l] = r
                    if r == 0:
                        stack.append((best[l], btl[l]))
        return area

    return ref, deref


def _key3(t):
    return (t[0], t[1], t[2])
