"""TLUT-aware placer: packed slices -> CLB sites of a 7-series device (scg.device site list).

Legality: every slice on its own valid site (holes of the PS and configuration blocks come from the
device's site list, i.e. ``clb_tile_types.json``); SLICEM-only slices (SRLs, distributed RAM) on
SLICEM sites, never inside a TLUT frame set (a rekey rewrites those frames whole, which would
overwrite a RAM's contents with the template's); a carry chain
on vertically consecutive sites of one slice column (same X, Y, Y+1, ...).

TLUT term: a *LUT frame set* is one slice column (X) in one clock region (50 rows): its 4 LUT minors
hold the INIT bits of all 200 LUTs A-D there (FACTS.md). TLUT slices (4 TLUTs each, from the packer)
are confined to the ⌈TLUT slices / 50⌉ frame sets nearest the design's anchor, so the frames touched
per rekey are 4 × that number, the lower bound 4 × ⌈TLUTs / 200⌉ when the packer fills TLUT slices.

A ``cfglut5`` build's TLUT slices are CFGLUT5 slices (``cfglut``): no frame is rewritten, so they
are not confined to frame sets; they are SLICEM-only slices, placed and moved like the others but
only onto SLICEM sites. A design whose SLICEM-only slices outnumber the device's SLICEM sites is
refused before placement (:func:`check_slicems`).

Objective: half-perimeter wirelength (HPWL) over the nets between slices (clock nets excluded), in
slice coordinates. Algorithm: connectivity-ordered initial placement into the sites nearest the
anchor (carry chains first), then simulated annealing with a fixed move budget (swaps and moves to
empty sites inside a shrinking window). Deterministic for a given seed (no time-based cut-off).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from dataclasses import dataclass, field

from dcsflow.scg.device import Device

from ..errors import FlowError
from .pack_types import Packing

#: slice rows of a clock region (one LUT frame set spans them)
ROWS_PER_REGION = 50
#: nets of more slices than this are not followed by the initial placement's breadth-first order
BFS_MAX_NET = 32
#: the initial placement's region holds this many sites per slice to place (plus 8)
REGION_SLACK = 1.15
#: annealing move budget per movable slice at effort 1.0, and its cap at effort 1.0
MOVES_PER_SLICE = 300
MAX_MOVES = 400_000


class PlaceError(FlowError):
    """The packed design does not fit the device (slices, SLICEMs, carry chains, TLUT columns)."""


@dataclass
class Placement:
    """Result of :func:`place`: ``sites[i]`` = site name of packed slice i; ``hpwl_initial`` /
    ``hpwl`` (slice units); ``moves``/``accepted`` of the annealer; ``seconds``; ``seed``."""

    sites: list
    hpwl_initial: int
    hpwl: int
    moves: int = 0
    accepted: int = 0
    seconds: float = 0.0
    seed: int = 1
    tlut_frame_sets: list = field(default_factory=list)


def slice_nets(packing: Packing, module: dict) -> list[list[int]]:
    """Nets between slices: list of sorted slice-index lists (>= 2 slices), clock nets (FF clocks and
    distributed-RAM write clocks) excluded; a distributed RAM's nets count at its slice."""
    cells = module["cells"]
    where: dict[str, int] = {}
    for si, s in enumerate(packing.slices):
        for site in s.luts:
            if site is not None:
                for n in (site.o6, site.o5):
                    if n:
                        where[packing.luts[n].cell] = si
        for n in (s.carry, s.muxf8, *s.muxf7, *(f for f, _ in s.ffs)):
            if n:
                where[n] = si
    clocks = set()
    for s in packing.slices:
        for f, _ in s.ffs:
            clocks.update(b for b in cells[f]["connections"]["C"] if isinstance(b, int))
        if s.ram:
            clocks.update(b for b in cells[s.ram]["connections"]["WCLK"] if isinstance(b, int))
    net_slices: dict[int, set] = {}
    for cn, si in where.items():
        for p, bits in cells[cn]["connections"].items():
            for b in bits:
                if isinstance(b, int) and b not in clocks:
                    net_slices.setdefault(b, set()).add(si)
    for si, s in enumerate(packing.slices):  # route-through LUT inputs
        for site in s.luts:
            if site is not None and site.kind == "rt" and site.rt_net not in clocks:
                net_slices.setdefault(site.rt_net, set()).add(si)
    return [sorted(v) for k, v in sorted(net_slices.items()) if len(v) > 1]


def _bbox(pins, xs, ys) -> tuple:
    """Bounding box (x0, x1, y0, y1) of the slices ``pins`` at coordinates ``xs``/``ys``."""
    x = [xs[p] for p in pins]
    y = [ys[p] for p in pins]
    return (min(x), max(x), min(y), max(y))


def _half_perimeter(bb: tuple) -> int:
    """Half perimeter of a bounding box (x0, x1, y0, y1)."""
    return bb[1] - bb[0] + bb[3] - bb[2]


@dataclass
class _Grid:
    """The device's CLB sites by slice coordinates: ``names`` (x, y) -> site name, ``kinds`` (x, y)
    -> ``SLICEL``/``SLICEM``; ``anchor`` (x, y) around which the design is placed."""

    names: dict
    kinds: dict
    anchor: tuple

    @classmethod
    def of(cls, device: Device, anchor: tuple[int, int] | None) -> "_Grid":
        """The grid of ``device``; ``anchor`` None: middle of the bottom clock-region row."""
        sites = device.sites
        names = {(s.x, s.y): name for name, s in sites.items()}
        kinds = {(s.x, s.y): s.kind for s in sites.values()}
        if anchor is None:
            anchor = (max(s.x for s in sites.values()) // 2, ROWS_PER_REGION // 2)
        return cls(names, kinds, anchor)

    def dist(self, p) -> int:
        """Manhattan distance of site ``p`` from the anchor."""
        return abs(p[0] - self.anchor[0]) + abs(p[1] - self.anchor[1])

    def is_slicem(self, p) -> bool:
        """True when site ``p`` is a SLICEM."""
        return self.kinds[p] == "SLICEM"


def _frame_set_sites(fsets: list) -> list:
    """The sites of frame sets (x, clock region), column by column, bottom to top."""
    return [(x, cr * ROWS_PER_REGION + row) for x, cr in fsets for row in range(ROWS_PER_REGION)]


def _nearest_frame_sets(grid: _Grid, n_tlut_slices: int) -> list[tuple[int, int]]:
    """The ⌈n / 50⌉ complete frame sets (slice column x, clock region) whose middle is nearest the
    anchor. Raises PlaceError when the device has fewer."""
    ax, ay = grid.anchor
    need = math.ceil(n_tlut_slices / ROWS_PER_REGION)
    cand = []
    for (x, y) in grid.names:
        if y % ROWS_PER_REGION == 0:
            cr = y // ROWS_PER_REGION
            ys = range(cr * ROWS_PER_REGION, (cr + 1) * ROWS_PER_REGION)
            if all((x, yy) in grid.names for yy in ys):
                cand.append((abs(x - ax) + abs(cr * ROWS_PER_REGION + ROWS_PER_REGION // 2 - ay), x, cr))
    cand.sort()
    if len(cand) < need:
        raise PlaceError(f"{n_tlut_slices} TLUT slices need {need} free slice columns of a clock region")
    return [(x, cr) for _, x, cr in cand[:need]]


def device_slicems(device: Device) -> int:
    """The SLICEM sites of ``device`` (its site list, ``clb_tile_types.json``)."""
    return sum(1 for s in device.sites.values() if s.kind == "SLICEM")


def check_slicems(packing: Packing, device: Device) -> None:
    """Refuse a packing whose SLICEM-only slices (CFGLUT5 slices of a ``cfglut5`` build, SRLs,
    distributed RAM) outnumber the SLICEM sites of ``device``. Raises PlaceError (one line)."""
    need = sum(1 for s in packing.slices if s.slicem)
    have = device_slicems(device)
    if need <= have:
        return
    cfg = [s for s in packing.slices if s.cfglut]
    if cfg:
        tl = sum(1 for s in cfg for x in s.luts if x is not None and x.kind == "tlut")
        more = need - len(cfg)
        raise PlaceError(f"--tlut cfglut5: {tl} CFGLUT5s need {len(cfg)} SLICEMs"
                         + (f" (and {more} more for SRLs/distributed RAM)" if more else "")
                         + f"; {device.name} has {have} SLICEMs (use a larger device or --tlut frames)")
    raise PlaceError(f"design needs {need} SLICEM-only slices (SRLs/distributed RAM); {device.name} has {have} SLICEMs")


def _place_tlut_slices(slices: list, grid: _Grid, loc: list, occ: dict) -> list[tuple[int, int]]:
    """Put the TLUT slices into the sites nearest the anchor of the frame sets nearest it; returns
    the frame sets used (x, clock region)."""
    tl = [i for i, s in enumerate(slices) if s.tlut and not s.cfglut]
    if not tl:
        return []
    fsets = _nearest_frame_sets(grid, len(tl))
    tsites = _frame_set_sites(fsets)
    tsites.sort(key=grid.dist)
    for i, p in zip(tl, tsites):
        loc[i] = p
        occ[p] = i
    return fsets


def _run_fits(grid: _Grid, x: int, y: int, needs_m: list, occ: dict, reserved: set) -> bool:
    """True when sites (x, y), (x, y+1), ... are free, outside ``reserved``, and SLICEMs where
    ``needs_m`` says so."""
    for j, m in enumerate(needs_m):
        q = (x, y + j)
        if q not in grid.names or q in occ or q in reserved or (m and not grid.is_slicem(q)):
            return False
    return True


def _place_carry_chains(packing: Packing, grid: _Grid, free_sorted: list, loc: list, occ: dict,
                        reserved: set) -> None:
    """Put each carry chain (longest first) on the first vertical run of ``free_sorted`` (sites by
    distance from the anchor) that fits. Raises PlaceError when none does."""
    for chain in sorted(packing.chains, key=len, reverse=True):
        needs_m = [packing.slices[i].slicem for i in chain]
        at = next(((x, y) for (x, y) in free_sorted if _run_fits(grid, x, y, needs_m, occ, reserved)), None)
        if at is None:
            raise PlaceError(f"no free vertical run of {len(chain)} slices for a carry chain")
        for j, i in enumerate(chain):
            loc[i] = (at[0], at[1] + j)
            occ[(at[0], at[1] + j)] = i


def _nets_of_slices(nets: list, n: int) -> list[list[int]]:
    """For each of ``n`` slices, the indices of the nets in ``nets`` that touch it."""
    out: list[list[int]] = [[] for _ in range(n)]
    for k, pins in enumerate(nets):
        for p in pins:
            out[p].append(k)
    return out


def _connectivity_order(rest: list, loc: list, nets: list, slice_nets_idx: list) -> list[int]:
    """The unplaced slices ``rest`` in breadth-first order over the nets of at most 32 slices."""
    order, seen = [], set()
    for st in rest:
        if st in seen:
            continue
        seen.add(st)
        q = deque([st])
        while q:
            a = q.popleft()
            order.append(a)
            for k in slice_nets_idx[a]:
                if len(nets[k]) > BFS_MAX_NET:
                    continue
                for b in nets[k]:
                    if b not in seen and loc[b] is None:
                        seen.add(b)
                        q.append(b)
    return order


def _placement_region(slices: list, rest: list, free: list, grid: _Grid) -> list:
    """The free sites (nearest the anchor first) the rest is placed into, with 15 % + 8 slack, or all
    free sites when that many hold too few SLICEMs; in serpentine order (column by column, up and
    down) so that connected slices stay close. Raises PlaceError when the device is too small."""
    n_m = sum(1 for i in rest if slices[i].slicem)
    region = free[:int(len(rest) * REGION_SLACK) + 8]
    if any(slices[i].cfglut for i in rest):
        region = _slicem_region(free, len(region), n_m, grid)
    if sum(1 for p in region if grid.is_slicem(p)) < n_m:
        region = free
        if sum(1 for p in free if grid.is_slicem(p)) < n_m:
            raise PlaceError(f"design needs {n_m} SLICEM-only slices; not enough free SLICEM sites")
    if len(region) < len(rest):
        raise PlaceError(f"design needs {len(slices)} slices; not enough free sites")
    region.sort(key=lambda p: (p[0], p[1] if p[0] % 2 == 0 else -p[1]))
    return region


def _slicem_region(free: list, n: int, n_m: int, grid: _Grid) -> list:
    """The first ``n`` sites of ``free`` (nearest the anchor first), extended by the next nearest
    until it holds ``n_m`` SLICEM sites with 15 % + 2 slack (a ``cfglut5`` build's many SLICEM-only
    slices stay near the anchor instead of spreading over the device)."""
    want = min(int(n_m * REGION_SLACK) + 2, sum(1 for p in free if grid.is_slicem(p)))
    have = 0
    for j, p in enumerate(free):
        have += grid.is_slicem(p)
        if have >= want and j + 1 >= n:
            return free[:j + 1]
    return free


def _place_in_order(slices: list, order: list, region: list, grid: _Grid, loc: list, occ: dict) -> None:
    """Put the slices of ``order`` into the next free site of ``region`` (SLICEM-only slices into the
    next free SLICEM site of it; other slices take a SLICEM site only while enough SLICEM sites stay
    free for the SLICEM-only slices still to come)."""
    ms = [p for p in region if grid.is_slicem(p)]
    free_m = sum(1 for p in ms if p not in occ)
    need_m = sum(1 for i in order if slices[i].slicem)
    mi = 0
    ri = 0
    for i in order:
        if slices[i].slicem:
            while ms[mi] in occ:
                mi += 1
            p = ms[mi]
            need_m -= 1
        else:
            while region[ri] in occ or (grid.is_slicem(region[ri]) and free_m <= need_m):
                ri += 1
            p = region[ri]
        if grid.is_slicem(p):
            free_m -= 1
        loc[i] = p
        occ[p] = i


@dataclass
class _Anneal:
    """State of the annealer: ``loc``/``occ`` (slice -> site, site -> slice), ``xs``/``ys`` (slice
    coordinates), ``bbs`` (bounding box per net), what may move where (``movable``, ``fixed``,
    ``tl_region`` for TLUT slices confined to frame sets (``framed``, per slice), ``area_set`` for
    the others), ``cnts`` (per net, how many of its
    slices sit on each edge of its box: :func:`_box`), and the temperature ``temp`` and window
    ``win``."""

    slices: list
    grid: _Grid
    nets: list
    slice_nets_idx: list
    loc: list
    occ: dict
    xs: list
    ys: list
    bbs: list
    movable: list
    fixed: set
    tl_region: set
    area_set: set
    cnts: list = field(default_factory=list)
    framed: list = field(default_factory=list)
    temp: float = 0.0
    win: float = 0.0


def _box(pins, xs, ys) -> tuple[tuple, list]:
    """Bounding box (x0, x1, y0, y1) of the slices ``pins`` at ``xs``/``ys`` and how many of them
    sit on each of its edges: [x0, x1, y0, y1]."""
    px = [xs[p] for p in pins]
    py = [ys[p] for p in pins]
    x0, x1, y0, y1 = min(px), max(px), min(py), max(py)
    return (x0, x1, y0, y1), [px.count(x0), px.count(x1), py.count(y0), py.count(y1)]


def _move_delta(st: _Anneal, a: int, pa: tuple, b, pb: tuple) -> tuple[int, dict]:
    """Wirelength change of moving slice ``a`` from ``pa`` to ``pb`` (and slice ``b``, if any, back
    to ``pa``), with ``xs``/``ys`` already updated; returns (delta, net -> (new bounding box, its
    edge counts)).

    Each net's box follows the moved slice incrementally (VPR's bounding-box update with edge
    counts: exact, computed again only when an edge loses its last slice); a net holding both
    swapped slices keeps its box."""
    xs, ys, bbs, cnts, nets = st.xs, st.ys, st.bbs, st.cnts, st.nets
    na = st.slice_nets_idx[a]
    nb_ = st.slice_nets_idx[b] if b is not None else ()
    both = set(na).intersection(nb_) if nb_ else ()
    newb = {}
    delta = 0
    for (ox, oy), (nx, ny), nl_ in ((pa, pb, na), (pb, pa, nb_)):
        for k in nl_:
            if k in newb or k in both:
                continue
            # VPR's incremental update, written out (the placer's hot spot): an edge that loses
            # its last slice makes the box be computed again
            bb = x0, x1, y0, y1 = bbs[k]
            c0, c1, c2, c3 = cnts[k]
            ok = True
            if nx != ox:
                c0 -= ox == x0
                c1 -= ox == x1
                if nx < x0:
                    x0, c0 = nx, 1
                elif nx == x0:
                    c0 += 1
                if nx > x1:
                    x1, c1 = nx, 1
                elif nx == x1:
                    c1 += 1
                ok = c0 and c1
            if ok and ny != oy:
                c2 -= oy == y0
                c3 -= oy == y1
                if ny < y0:
                    y0, c2 = ny, 1
                elif ny == y0:
                    c2 += 1
                if ny > y1:
                    y1, c3 = ny, 1
                elif ny == y1:
                    c3 += 1
                ok = c2 and c3
            if ok:
                newb[k] = ((x0, x1, y0, y1), [c0, c1, c2, c3])
            else:
                newb[k] = got = _box(nets[k], xs, ys)
                x0, x1, y0, y1 = got[0]
            delta += x1 - x0 + y1 - y0 - (bb[1] - bb[0] + bb[3] - bb[2])
    return delta, newb


def _sweep(st: _Anneal, rng: random.Random, count: int, limit: int) -> tuple[int, int]:
    """Up to ``count`` moves at the current temperature and window, at most ``limit`` in all; each
    move draws a slice, then an x and a y offset within the window, and (only for a move that
    lengthens the wires) an acceptance number. Returns (moves made, moves accepted)."""
    slices, kinds, loc, occ, xs, ys = st.slices, st.grid.kinds, st.loc, st.occ, st.xs, st.ys
    movable, fixed, tl_region, area_set, bbs = st.movable, st.fixed, st.tl_region, st.area_set, st.bbs
    framed = st.framed
    temp = st.temp
    w = max(1, int(st.win))
    moves = accepted = 0
    for _ in range(count):
        moves += 1
        a = movable[rng.randrange(len(movable))]
        pa = loc[a]
        pool = tl_region if framed[a] else area_set
        pb = (pa[0] + rng.randint(-w, w), pa[1] + rng.randint(-w, w))
        if pb == pa or pb not in pool:
            continue
        b = occ.get(pb)
        if b is not None:
            if b in fixed or framed[b] != framed[a]:
                continue
            if slices[b].slicem and kinds[pa] != "SLICEM":
                continue
        if slices[a].slicem and kinds[pb] != "SLICEM":
            continue
        xs[a], ys[a] = pb
        if b is not None:
            xs[b], ys[b] = pa
        delta, newb = _move_delta(st, a, pa, b, pb)
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            accepted += 1
            cnts = st.cnts
            for k, (v, c) in newb.items():
                bbs[k] = v
                cnts[k] = c
            loc[a] = pb
            occ[pb] = a
            if b is not None:
                loc[b] = pa
                occ[pa] = b
            else:
                del occ[pa]
        else:
            xs[a], ys[a] = pa
            if b is not None:
                xs[b], ys[b] = pb
        if moves >= limit:
            break
    return moves, accepted


def _anneal(st: _Anneal, rng: random.Random, effort: float, area_sites: list) -> tuple[int, int]:
    """Simulated annealing with a fixed move budget (``effort`` x 300 per movable slice, at most
    ``effort`` x 400k) and a VPR-style schedule; returns (moves, accepted)."""
    per_temp = max(50, int(40 * effort * len(st.movable) ** 0.5 * 4))
    span_x = max(p[0] for p in area_sites) - min(p[0] for p in area_sites) + 1
    span_y = max(p[1] for p in area_sites) - min(p[1] for p in area_sites) + 1
    st.win = max(span_x, span_y)
    # initial temperature from the average net length
    st.temp = max(1.0, 2.0 * sum(_half_perimeter(b) for b in st.bbs) / max(1, len(st.nets)))
    budget = int(effort * MOVES_PER_SLICE * len(st.movable))
    budget = min(budget, int(effort * MAX_MOVES))
    moves = accepted = 0
    while moves < budget and st.temp > 0.01:
        done, acc_here = _sweep(st, rng, per_temp, budget - moves)
        moves += done
        accepted += acc_here
        rate = acc_here / per_temp
        # VPR-style schedule: cool slowly while many moves are accepted
        st.temp *= 0.5 if rate > 0.96 else 0.9 if rate > 0.8 else 0.95 if rate > 0.15 else 0.8
        st.win = max(1.0, st.win * (1.0 - 0.44 + rate))
    return moves, accepted


def place(packing: Packing, module: dict, device: Device, seed: int = 1, effort: float = 1.0,
          anchor: tuple[int, int] | None = None) -> Placement:
    """Place ``packing`` on ``device`` (see module docstring).

    Args:
        effort: scales the annealing move budget (1.0: 300 moves per movable slice, at most 400k).
        anchor: (x, y) slice coordinates around which the design is placed (default: middle of the
            bottom clock-region row, which has no PS or configuration hole on xc7z020).
    Raises:
        PlaceError: not enough sites / SLICEMs / TLUT frame sets, or a carry chain longer than a column.
    """
    t0 = time.perf_counter()
    rng = random.Random(seed)
    slices = packing.slices
    n = len(slices)
    grid = _Grid.of(device, anchor)
    if n > len(grid.names):
        raise PlaceError(f"design needs {n} slices, {device.name} has {len(grid.names)}")
    nets = slice_nets(packing, module)
    slice_nets_idx = _nets_of_slices(nets, n)
    loc: list = [None] * n
    occ: dict = {}

    check_slicems(packing, device)
    fsets = _place_tlut_slices(slices, grid, loc, occ)
    tl_region = set(_frame_set_sites(fsets))
    free_sorted = sorted((p for p in grid.names if p not in tl_region), key=lambda p: (grid.dist(p), p))
    _place_carry_chains(packing, grid, free_sorted, loc, occ, tl_region)
    fixed = {i for c in packing.chains for i in c}
    rest = [i for i in range(n) if loc[i] is None]
    order = _connectivity_order(rest, loc, nets, slice_nets_idx)
    region = _placement_region(slices, rest, [p for p in free_sorted if p not in occ], grid)
    _place_in_order(slices, order, region, grid, loc, occ)

    xs = [p[0] for p in loc]
    ys = [p[1] for p in loc]
    bbs = [_bbox(pins, xs, ys) for pins in nets]
    h0 = sum(_half_perimeter(b) for b in bbs)
    movable = [i for i in range(n) if i not in fixed]
    area_sites = [p for p in region if p not in occ or occ[p] not in fixed]
    st = _Anneal(slices, grid, nets, slice_nets_idx, loc, occ, xs, ys, bbs, movable, fixed, tl_region,
                 set(area_sites), [_box(pins, xs, ys)[1] for pins in nets],
                 [s.tlut and not s.cfglut for s in slices])
    moves = accepted = 0
    if movable and nets:
        moves, accepted = _anneal(st, rng, effort, area_sites)
    names = [grid.names[p] for p in loc]
    return Placement(names, h0, sum(_half_perimeter(b) for b in bbs), moves, accepted, time.perf_counter() - t0,
                     seed, [{"x": x, "clock_region": cr} for x, cr in fsets])
