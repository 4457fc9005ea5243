"""TLUTs: whole LUT6 sites, four per slice, in slices of their own.

A TLUT's 64 INIT bits are rewritten at run time, so it never shares its site with a static LUT and
TLUT slices hold nothing but TLUTs: packed four per slice in connectivity order, they occupy as few
LUT columns (and so configuration frames) as possible. With ``tlut_pairs`` (opt-in), two TLUTs of
<= 5 inputs sharing <= 5 input nets may share one LUT6_2 site (kind ``tlutpair``, both INIT halves
tunable), chosen by a maximum matching (networkx) on the graph of such pairs that share an input net.

In a ``cfglut5`` build (``cfglut``) every TLUT is a CFGLUT5 (UG953), a SLICEM-only primitive that
takes a whole LUT site: the TLUTs are packed four per slice as above, never paired, and the slices
are SLICEM-only (``slicem``) CFGLUT5 slices (``cfglut``) whose free LUT sites static LUTs may fill.
"""

from __future__ import annotations

from .pack_netlist import PackContext
from .pack_types import LutSite, PackedSlice, pair_site


def _single_site(ctx: PackContext, n: str) -> LutSite:
    """A whole LUT6 site for TLUT ``n``."""
    return LutSite("tlut", o6=n, pins=list(ctx.luts[n].inputs))


def _tlut_mates(ctx: PackContext, tl: list[str]) -> dict[str, str]:
    """TLUT -> its LUT6_2 partner, by a maximum matching on the TLUT pairs of ``tl`` that share an
    input net and fit one LUT6_2."""
    import networkx as nx

    tpos = {n: i for i, n in enumerate(tl)}
    ok = [n for n in tl if ctx.luts[n].pairable]
    tg = nx.Graph()
    tg.add_nodes_from(ok)
    by_in: dict = {}
    for n in ok:
        for net in dict.fromkeys(ctx.luts[n].inputs):
            by_in.setdefault(net, []).append(n)
    for n in ok:
        for net in dict.fromkeys(ctx.luts[n].inputs):
            for m in by_in[net]:
                if tpos[m] > tpos[n] and len(set(ctx.luts[n].inputs) | set(ctx.luts[m].inputs)) <= 5:
                    tg.add_edge(n, m)
    mate = {}
    for a, b in nx.max_weight_matching(tg, maxcardinality=True):
        mate[a], mate[b] = b, a
    return mate


def _paired_sites(ctx: PackContext, tl: list[str]) -> list[LutSite]:
    """Sites of the TLUTs ``tl`` with matched pairs sharing a LUT6_2 (the earlier TLUT on O6)."""
    tpos = {n: i for i, n in enumerate(tl)}
    mate = _tlut_mates(ctx, tl)
    sites = []
    for n in tl:
        if n in mate and tpos[mate[n]] < tpos[n]:
            continue
        if n in mate:
            sites.append(pair_site("tlutpair", ctx.luts[n], ctx.luts[mate[n]]))
        else:
            sites.append(_single_site(ctx, n))
    return sites


def pack_tluts(ctx: PackContext, order: list[str], tlut_pairs: bool = False, cfglut: bool = False,
               wclk=None) -> None:
    """Pack the TLUTs of ``order`` four sites per new TLUT slice (``tlut_pairs``: matched pairs of
    small TLUTs share a LUT6_2 site; ``cfglut``: CFGLUT5 slices, SLICEM-only, clocked by ``wclk``);
    marks them used."""
    tl = [n for n in order if ctx.luts[n].tlut]
    sites = _paired_sites(ctx, tl) if tlut_pairs and not cfglut else [_single_site(ctx, n) for n in tl]
    for j in range(0, len(sites), 4):
        s = PackedSlice(tlut=True, slicem=cfglut, cfglut=cfglut, wclk=wclk if cfglut else None)
        for i, u in enumerate(sites[j:j + 4]):
            s.luts[i] = u
            ctx.used.update(x for x in (u.o6, u.o5) if x)
        ctx.add_slice(s)
