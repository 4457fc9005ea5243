"""Static LUTs and SRLs: connectivity order, LUT6_2 pairs, slice fill; SRLs in SLICEM sites.

The LUTs not placed by the carry and multiplexer steps are visited in a breadth-first order of the
LUT connectivity graph (:func:`connectivity_order`), so that connected LUTs end up in the same or
nearby slices. SRL16E/SRLC32E take a whole LUT site of a SLICEM, four per slice
(:func:`pack_srls`). Static LUTs (:func:`pack_static_luts`) are paired into LUT6_2 sites (two LUTs of
<= 5 inputs, <= 5 distinct input nets together; O6 with A6 tied high, O5 = INIT[31:0]): first a
maximum matching (networkx; greedy in components above :data:`EXACT_MATCHING_NODES` LUTs, where the
cubic blossom algorithm would take many minutes, or with more than :data:`EXACT_MATCHING_EDGES` edges) on the graph
of LUT pairs that share an input net (through each net, a LUT's next :data:`PAIR_NET_WINDOW` readers), where a LUT already
fixed in a carry slice whose xMUX output is free may take an O5 partner too; then small unrelated
LUTs (<= 4 inputs) close in the order. The resulting sites fill the free LUT positions of the carry
and multiplexer slices first, then new slices, four sites each.
"""

from __future__ import annotations

from collections import deque

from .pack_netlist import PackContext
from .pack_types import LutSite, PackedSlice, pair_site

#: how far ahead in the connectivity order a small LUT looks for an unrelated LUT6_2 partner
NEIGHBOUR_WINDOW = 31
#: how many later readers of one input net a LUT considers as LUT6_2 partners through that net
#: (in the connectivity order): without a bound a net read by n pairable LUTs (a clock enable or
#: load select of a wide register) adds up to n^2/2 candidate pairs, millions on a 1344-bit buffer
PAIR_NET_WINDOW = 256
#: largest connected component of the pair graph matched exactly (networkx's blossom algorithm,
#: cubic in the component's size); larger ones are matched greedily (:func:`_greedy_matching`)
EXACT_MATCHING_NODES = 2000
#: ... and with at most this many edges: the blossom algorithm's time grows with the edges too (a
#: dense component of 1,300 LUTs sharing the select nets of a wide register took minutes)
EXACT_MATCHING_EDGES = 20000


def _lut_neighbours(ctx: PackContext, n: str, among: set) -> list[str]:
    """LUTs in ``among`` that drive an input of LUT ``n`` (in input order) or read its output."""
    lc = ctx.luts[n]
    nbrs = []
    for net in lc.inputs:
        d = ctx.driver_of(net)
        if d in among:
            nbrs.append(d)
    if isinstance(lc.output, int):
        nbrs.extend(x for x in ctx.loads.get(lc.output, ()) if x in among)
    return nbrs


def connectivity_order(ctx: PackContext) -> list[str]:
    """The LUTs without a site (module order) in breadth-first order of the LUT connectivity graph,
    each component started at its first LUT in module order."""
    rest = [n for n in ctx.luts if n not in ctx.used]
    rest_set = set(rest)
    order = []
    seen = set()
    for start in rest:
        if start in seen:
            continue
        seen.add(start)
        q = deque([start])
        while q:
            n = q.popleft()
            order.append(n)
            for m in _lut_neighbours(ctx, n, rest_set):
                if m not in seen:
                    seen.add(m)
                    q.append(m)
    return order


def pack_srls(ctx: PackContext, order: list[str]) -> None:
    """Pack the SRLs of ``order`` four per new SLICEM-only slice, each in a whole LUT site."""
    srls = [n for n in order if ctx.luts[n].srl]
    for j in range(0, len(srls), 4):
        s = PackedSlice(slicem=True)
        for i, n in enumerate(srls[j:j + 4]):
            s.luts[i] = LutSite("srl", o6=n, pins=[])
            ctx.used.add(n)
        ctx.add_slice(s)


def _can_pair(ctx: PackContext, a: str, b: str) -> bool:
    """True when LUTs ``a`` and ``b`` fit one LUT6_2 site (<= 5 inputs each, <= 5 nets together)."""
    la, lb = ctx.luts[a], ctx.luts[b]
    return la.pairable and lb.pairable and len(set(la.inputs) | set(lb.inputs)) <= 5


def _pairable_by_net(ctx: PackContext, static: list[str]) -> dict:
    """net -> the pairable LUTs of ``static`` reading it (in order)."""
    by_net: dict = {}
    for n in static:
        lc = ctx.luts[n]
        if lc.pairable:
            for net in set(lc.inputs):
                by_net.setdefault(net, []).append(n)
    return by_net


def _carry_o5_sites(ctx: PackContext) -> dict[str, LutSite]:
    """LUT sites of carry slices that may take an O5 partner: a pairable static LUT on O6 in a
    stage whose O/CO outputs do not need the xMUX output (CO[3] leaves on COUT). LUT name -> site."""
    fixed_sites = {}
    for s in ctx.slices:
        if s.carry is None:
            continue
        con = ctx.cells[s.carry]["connections"]
        for i, site in enumerate(s.luts):
            xmux_free = all(not (isinstance(con[p][i], int) and con[p][i] in ctx.loads) or (p == "CO" and i == 3)
                            for p in ("O", "CO"))
            if xmux_free and site is not None and site.kind == "lut" and ctx.luts[site.o6].pairable:
                fixed_sites[site.o6] = site
    return fixed_sites


def _pair_graph(ctx: PackContext, static: list[str], pos: dict, by_net: dict, fixed_sites: dict):
    """networkx graph of the LUT pairs that share an input net and fit one LUT6_2: static LUTs
    (each edge added once, from the earlier LUT, to the next :data:`PAIR_NET_WINDOW` readers of
    each of its nets), then the carry-slice LUTs of ``fixed_sites``."""
    import networkx as nx

    # a LUT's index among each net's readers (by_net lists them in the order of ``static``)
    at = {net: {m: i for i, m in enumerate(ms)} for net, ms in by_net.items() if len(ms) > PAIR_NET_WINDOW}
    g = nx.Graph()
    for n in static:
        if ctx.luts[n].pairable:
            g.add_node(n)
            for net in dict.fromkeys(ctx.luts[n].inputs):
                ms = by_net.get(net, ())
                if net in at:
                    i = at[net][n] + 1
                    ms = ms[i:i + PAIR_NET_WINDOW]
                for m in ms:
                    if pos[m] > pos[n] and _can_pair(ctx, n, m):
                        g.add_edge(n, m)
    for n in fixed_sites:
        g.add_node(n)
        for net in dict.fromkeys(ctx.luts[n].inputs):
            for m in by_net.get(net, ()):
                if _can_pair(ctx, n, m):
                    g.add_edge(n, m)
    return g


def _greedy_matching(g) -> set:
    """A maximal matching of graph ``g``: repeatedly match a node of least remaining degree with
    its neighbour of least remaining degree (ties: insertion order). Linear-logarithmic; on the
    pair graphs of large datapaths it comes within a few pairs of a maximum matching."""
    import heapq

    order = {n: i for i, n in enumerate(g)}
    deg = {n: g.degree(n) for n in g}
    heap = [(d, order[n], n) for n, d in deg.items() if d]
    heapq.heapify(heap)
    matched: set = set()
    out = set()
    while heap:
        d, _, n = heapq.heappop(heap)
        if n in matched or d != deg[n]:
            continue
        free = [m for m in g[n] if m not in matched]
        if not free:
            continue
        m = min(free, key=lambda x: (deg[x], order[x]))
        matched.update((n, m))
        out.add((n, m))
        for x in (n, m):
            for y in g[x]:
                if y not in matched:
                    deg[y] -= 1
                    if deg[y]:
                        heapq.heappush(heap, (deg[y], order[y], y))
    return out


def _matching(g) -> set:
    """Maximum-cardinality matching of ``g`` (networkx's blossom algorithm) of each connected
    component with at most :data:`EXACT_MATCHING_NODES` nodes and :data:`EXACT_MATCHING_EDGES`
    edges; larger components are matched greedily (:func:`_greedy_matching`)."""
    import networkx as nx

    comps = list(nx.connected_components(g))
    if all(len(c) <= EXACT_MATCHING_NODES for c in comps) and g.number_of_edges() <= EXACT_MATCHING_EDGES:
        return nx.max_weight_matching(g, maxcardinality=True)
    pos = {n: i for i, n in enumerate(g)}
    out: set = set()
    for comp in comps:
        sub = _component_graph(g, comp, pos)
        exact = len(comp) <= EXACT_MATCHING_NODES and sub.number_of_edges() <= EXACT_MATCHING_EDGES
        out |= nx.max_weight_matching(sub, maxcardinality=True) if exact else _greedy_matching(sub)
    return out


def _component_graph(g, comp: set, pos: dict):
    """The subgraph of ``g`` on the nodes ``comp`` as a graph of its own: its nodes in ``g``'s order
    (``pos``: node -> index in ``g``), its edges added node by node in that order, each node's in
    the order of ``g``'s adjacency, so the same on every run. A networkx subgraph *view* of a
    component smaller than half the graph iterates the component's set, whose order follows
    Python's string hashing and so changes from run to run; the matchings found on it, and with
    them the slice count, changed with it (keccak's yosys-abc candidate: 3920 or 3921 slices)."""
    import networkx as nx

    nodes = sorted(comp, key=pos.__getitem__)
    sub = nx.Graph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from((u, v) for u in nodes for v in g.adj[u])
    return sub


def _apply_matching(ctx: PackContext, matching, pos: dict, fixed_sites: dict) -> tuple[dict, set]:
    """Turn the matched pairs (in order of their earlier LUT) into LUT6_2 pairs: a carry-slice LUT's
    site becomes a ``pair`` with its partner on O5 (the partner is absorbed and marked used); other
    pairs are returned for :func:`_static_units`. Returns (LUT -> partner, absorbed LUTs)."""
    paired: dict[str, str] = {}
    absorbed = set()
    for a, b in sorted(matching, key=lambda e: min(pos.get(e[0], -1), pos.get(e[1], -1))):
        if a in fixed_sites or b in fixed_sites:
            f, m = (a, b) if a in fixed_sites else (b, a)
            site = fixed_sites[f]
            site.kind, site.o5 = "pair", m
            site.pins = list(dict.fromkeys(ctx.luts[f].inputs + ctx.luts[m].inputs))
            absorbed.add(m)
            ctx.used.add(m)
        else:
            paired[a], paired[b] = b, a
    return paired, absorbed


def _pair_neighbours(ctx: PackContext, static: list[str], pos: dict, paired: dict) -> None:
    """Pair each unpaired LUT of <= 4 net inputs with the first unpaired LUT it fits with among the
    next :data:`NEIGHBOUR_WINDOW` of ``static`` (counted from its position in ``pos``, the order
    before the absorbed LUTs were removed)."""
    for n in static:
        lc = ctx.luts[n]
        if n in paired or lc.k > 4 or not all(isinstance(x, int) for x in lc.inputs):
            continue
        for m in static[pos[n] + 1:pos[n] + 1 + NEIGHBOUR_WINDOW]:
            if m not in paired and _can_pair(ctx, n, m):
                paired[n], paired[m] = m, n
                break


def _static_units(ctx: PackContext, static: list[str], paired: dict) -> list[LutSite]:
    """One LUT site per pair (the earlier LUT on O6) or single LUT, in ``static`` order; marks the
    LUTs used."""
    units = []
    done = set()
    for n in static:
        if n in done:
            continue
        done.add(n)
        if n in paired:
            m = paired[n]
            done.add(m)
            units.append(pair_site("pair", ctx.luts[n], ctx.luts[m]))
        else:
            units.append(LutSite("lut", o6=n, pins=list(ctx.luts[n].inputs)))
        ctx.used.update(x for x in (n, paired.get(n)) if x)
    return units


def _fill_slices(ctx: PackContext, units: list[LutSite]) -> None:
    """Put ``units`` into the free LUT positions of the slices so far that are neither TLUT nor
    SLICEM-only slices (unused tops of carry chains, multiplexer slices) or are CFGLUT5 slices
    (a CFGLUT5 takes only its own LUT site), then into new slices."""
    holes = [(si, i) for si, s in enumerate(ctx.slices) if (not s.tlut and not s.slicem) or s.cfglut
             for i in s.free_lut_positions()]
    hi = 0
    cur = None
    for u in units:
        if hi < len(holes):
            si, i = holes[hi]
            hi += 1
            ctx.slices[si].luts[i] = u
            continue
        if cur is None or not cur.free_lut_positions():
            cur = PackedSlice()
            ctx.add_slice(cur)
        cur.luts[cur.free_lut_positions()[0]] = u


def pack_static_luts(ctx: PackContext, order: list[str], pairs: bool = True) -> None:
    """Pack the LUTs of ``order`` that have no site yet: LUT6_2 pairing (``pairs``; off: one LUT
    per site, as below LUT size 6), then slice fill (module docstring)."""
    static = [n for n in order if n not in ctx.used]
    if not pairs:
        _fill_slices(ctx, _static_units(ctx, static, {}))
        return
    pos = {n: i for i, n in enumerate(static)}
    fixed_sites = _carry_o5_sites(ctx)
    g = _pair_graph(ctx, static, pos, _pairable_by_net(ctx, static), fixed_sites)
    paired, absorbed = _apply_matching(ctx, _matching(g), pos, fixed_sites)
    static = [n for n in static if n not in absorbed]
    _pair_neighbours(ctx, static, pos, paired)
    _fill_slices(ctx, _static_units(ctx, static, paired))
