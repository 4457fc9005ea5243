"""TLUT-aware placer: packed slices -> CLB sites of a 7-series device (scg.device site list).

Legality: every slice on its own valid site (holes of the PS and configuration blocks come from the
device's site list, i.e. ``clb_tile_types.json``); SLICEM-only slices on SLICEM sites; a carry chain
on vertically consecutive sites of one slice column (same X, Y, Y+1, ...).

TLUT term: a *LUT frame set* is one slice column (X) in one clock region (50 rows): its 4 LUT minors
hold the INIT bits of all 200 LUTs A-D there (FACTS.md). TLUT slices (4 TLUTs each, from the packer)
are confined to the ⌈TLUT slices / 50⌉ frame sets nearest the design's anchor, so the frames touched
per rekey are 4 × that number, the lower bound 4 × ⌈TLUTs / 200⌉ when the packer fills TLUT slices.

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
from .pack import Packing

ROWS_PER_REGION = 50


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
    """Nets between slices: list of sorted slice-index lists (>= 2 slices), clock nets excluded."""
    cells = module["cells"]
    where: dict[str, int] = {}
    for si, s in enumerate(packing.slices):
        for site in s.luts:
            if site is not None:
                for n in (site.o6, site.o5):
                    if n:
                        where[n] = si
        for n in (s.carry, s.muxf8, *s.muxf7, *(f for f, _ in s.ffs)):
            if n:
                where[n] = si
    clocks = set()
    for s in packing.slices:
        for f, _ in s.ffs:
            clocks.update(b for b in cells[f]["connections"]["C"] if isinstance(b, int))
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


def _hpwl(pins, xs, ys) -> int:
    x = [xs[p] for p in pins]
    y = [ys[p] for p in pins]
    return max(x) - min(x) + max(y) - min(y)


def _bbox(pins, xs, ys) -> tuple:
    x = [xs[p] for p in pins]
    y = [ys[p] for p in pins]
    return (min(x), max(x), min(y), max(y))


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
    sites = device.sites
    grid = {(s.x, s.y): name for name, s in sites.items()}
    kind = {(s.x, s.y): s.kind for s in sites.values()}
    max_x = max(s.x for s in sites.values())
    if anchor is None:
        anchor = (max_x // 2, ROWS_PER_REGION // 2)
    ax, ay = anchor

    def dist(p):
        return abs(p[0] - ax) + abs(p[1] - ay)

    if n > len(grid):
        raise PlaceError(f"design needs {n} slices, {device.name} has {len(grid)}")
    nets = slice_nets(packing, module)
    slice_nets_idx: list[list[int]] = [[] for _ in range(n)]
    for k, pins in enumerate(nets):
        for p in pins:
            slice_nets_idx[p].append(k)
    loc: list = [None] * n
    occ: dict = {}

    # ---- TLUT slices: whole frame sets (slice column x clock region) nearest the anchor
    tl = [i for i, s in enumerate(slices) if s.tlut]
    fsets = []
    if tl:
        need = math.ceil(len(tl) / ROWS_PER_REGION)
        cand = []
        for (x, y) in grid:
            if y % ROWS_PER_REGION == 0:
                cr = y // ROWS_PER_REGION
                ys = range(cr * ROWS_PER_REGION, (cr + 1) * ROWS_PER_REGION)
                if all((x, yy) in grid for yy in ys):
                    cand.append((abs(x - ax) + abs(cr * ROWS_PER_REGION + 25 - ay), x, cr))
        cand.sort()
        if len(cand) < need:
            raise PlaceError(f"{len(tl)} TLUT slices need {need} free slice columns of a clock region")
        fsets = [(x, cr) for _, x, cr in cand[:need]]
        tsites = [(x, cr * ROWS_PER_REGION + l) for x, cr in fsets for l in range(ROWS_PER_REGION)]
        tsites.sort(key=dist)
        for i, p in zip(tl, tsites):
            loc[i] = p
            occ[p] = i
    tl_region = {(x, cr * ROWS_PER_REGION + l) for x, cr in fsets for l in range(ROWS_PER_REGION)}

    # ---- carry chains: vertical runs nearest the anchor
    free_sorted = sorted((p for p in grid if p not in tl_region), key=lambda p: (dist(p), p))
    for chain in sorted(packing.chains, key=len, reverse=True):
        L = len(chain)
        m_needed = [slices[i].slicem for i in chain]
        placed = False
        for (x, y) in free_sorted:
            ok = True
            for j in range(L):
                q = (x, y + j)
                if q not in grid or q in occ or q in tl_region or (m_needed[j] and kind[q] != "SLICEM"):
                    ok = False
                    break
            if ok:
                for j, i in enumerate(chain):
                    loc[i] = (x, y + j)
                    occ[(x, y + j)] = i
                placed = True
                break
        if not placed:
            raise PlaceError(f"no free vertical run of {L} slices for a carry chain")
    fixed = {i for c in packing.chains for i in c}

    # ---- the rest in connectivity (BFS) order, into the free sites nearest the anchor
    rest = [i for i in range(n) if loc[i] is None]
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
                if len(nets[k]) > 32:
                    continue
                for b in nets[k]:
                    if b not in seen and loc[b] is None:
                        seen.add(b)
                        q.append(b)
    free = [p for p in free_sorted if p not in occ]
    n_m = sum(1 for i in rest if slices[i].slicem)
    region = free[:int(len(rest) * 1.15) + 8]
    if sum(1 for p in region if kind[p] == "SLICEM") < n_m:
        region = free
        if sum(1 for p in free if kind[p] == "SLICEM") < n_m:
            raise PlaceError(f"design needs {n_m} SLICEM-only slices; not enough free SLICEM sites")
    if len(region) < len(rest):
        raise PlaceError(f"design needs {n} slices; not enough free sites")
    # serpentine order of the region (column by column) keeps BFS neighbours close
    region.sort(key=lambda p: (p[0], p[1] if p[0] % 2 == 0 else -p[1]))
    ms = [p for p in region if kind[p] == "SLICEM"]
    mi = 0
    ri = 0
    for i in order:
        if slices[i].slicem:
            while ms[mi] in occ:
                mi += 1
            p = ms[mi]
        else:
            while region[ri] in occ:
                ri += 1
            p = region[ri]
        loc[i] = p
        occ[p] = i

    xs = [p[0] for p in loc]
    ys = [p[1] for p in loc]
    bbs = [_bbox(pins, xs, ys) for pins in nets]
    cost = [b[1] - b[0] + b[3] - b[2] for b in bbs]
    h0 = sum(cost)

    # ---- simulated annealing (fixed move budget)
    movable = [i for i in range(n) if i not in fixed]
    area_sites = [p for p in region if p not in occ or occ[p] not in fixed]
    area_set = set(area_sites)
    moves = accepted = 0
    if movable and nets:
        per_temp = max(50, int(40 * effort * len(movable) ** 0.5 * 4))
        span_x = max(p[0] for p in area_sites) - min(p[0] for p in area_sites) + 1
        span_y = max(p[1] for p in area_sites) - min(p[1] for p in area_sites) + 1
        win = max(span_x, span_y)
        # initial temperature from the spread of random move costs
        temp = max(1.0, 2.0 * sum(cost) / max(1, len(nets)))
        budget = int(effort * 300 * len(movable))
        budget = min(budget, int(effort * 400_000))
        while moves < budget and temp > 0.01:
            acc_here = 0
            for _ in range(per_temp):
                moves += 1
                a = movable[rng.randrange(len(movable))]
                pa = loc[a]
                pool = tl_region if slices[a].tlut else area_set
                w = max(1, int(win))
                pb = (pa[0] + rng.randint(-w, w), pa[1] + rng.randint(-w, w))
                if pb == pa or pb not in pool:
                    continue
                b = occ.get(pb)
                if b is not None:
                    if b in fixed or slices[b].tlut != slices[a].tlut:
                        continue
                    if slices[b].slicem and kind[pa] != "SLICEM":
                        continue
                if slices[a].slicem and kind[pb] != "SLICEM":
                    continue
                na = slice_nets_idx[a]
                nb_ = slice_nets_idx[b] if b is not None else ()
                both = set(na).intersection(nb_) if nb_ else ()
                xs[a], ys[a] = pb
                if b is not None:
                    xs[b], ys[b] = pa
                newb = {}
                delta = 0
                for mover, frm, nl_ in ((a, pa, na), (b, pb, nb_)):
                    for k in nl_:
                        if k in newb:
                            continue
                        pins = nets[k]
                        x0, x1, y0, y1 = bb = bbs[k]
                        ox, oy = frm
                        if len(pins) > 6 and k not in both and x0 < ox < x1 and y0 < oy < y1:
                            nx_, ny_ = xs[mover], ys[mover]
                            nbb = (min(x0, nx_), max(x1, nx_), min(y0, ny_), max(y1, ny_))
                        else:
                            nbb = _bbox(pins, xs, ys)
                        newb[k] = nbb
                        delta += nbb[1] - nbb[0] + nbb[3] - nbb[2] - (bb[1] - bb[0] + bb[3] - bb[2])
                if delta <= 0 or rng.random() < math.exp(-delta / temp):
                    accepted += 1
                    acc_here += 1
                    for k, v in newb.items():
                        bbs[k] = v
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
                if moves >= budget:
                    break
            rate = acc_here / per_temp
            # VPR-style schedule: cool slowly while many moves are accepted
            temp *= 0.5 if rate > 0.96 else 0.9 if rate > 0.8 else 0.95 if rate > 0.15 else 0.8
            win = max(1.0, win * (1.0 - 0.44 + rate))
    names = [grid[p] for p in loc]
    return Placement(names, h0, sum(b[1] - b[0] + b[3] - b[2] for b in bbs), moves, accepted, time.perf_counter() - t0, seed,
                     [{"x": x, "clock_region": cr} for x, cr in fsets])
