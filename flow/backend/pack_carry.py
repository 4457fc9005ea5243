"""CARRY4 chains: one slice per CARRY4, chained CARRY4s in consecutive slices of one chain.

A CARRY4 whose CI is driven by CO[3] of another CARRY4 continues that one's chain (vertically
consecutive slices, bottom first). Stage i's S input comes from the O6 of LUT i of the same slice:
the free static LUT driving that net moves into the site, any other net gets a route-through LUT
(INIT = A1), a constant a constant LUT (:meth:`~.pack_netlist.PackContext.site_for`). A stage with a
constant S whose O/CO outputs and those of the stages above are unread, in the top CARRY4 of its
chain or as stage 3, is the unused top of the chain: its LUT site stays free for other logic.
"""

from __future__ import annotations

from .pack_netlist import PackContext
from .pack_types import PackError, PackedSlice


def _chain_successors(ctx: PackContext, carries: list) -> dict:
    """CARRY4 -> the CARRY4 whose CI its CO[3] drives. Raises PackError when one CO[3] drives two
    carry inputs."""
    carry_set = set(carries)
    nxt = {}
    for cn in carries:
        ci = ctx.cells[cn]["connections"]["CI"][0]
        d = ctx.driver_of(ci)
        if d in carry_set and ctx.cells[d]["connections"]["CO"][3] == ci:
            if d in nxt:
                raise PackError(f"CARRY4 {d} drives two carry inputs")
            nxt[d] = cn
    return nxt


def _stage_read(ctx: PackContext, cell: dict, i: int) -> bool:
    """True when an O or CO output of stage ``i`` or a stage above it is read."""
    con = cell["connections"]
    return any(isinstance(con[p][j], int) and con[p][j] in ctx.loads for p in ("O", "CO") for j in range(i, 4))


def _carry_slice(ctx: PackContext, cn: str, chain_pos: tuple, last: bool) -> PackedSlice:
    """The slice of CARRY4 ``cn`` with the LUT sites of its S inputs (``last``: no CARRY4 above)."""
    c = ctx.cells[cn]
    s = PackedSlice(carry=cn, chain=chain_pos)
    for i in range(4):
        net = c["connections"]["S"][i]
        if not isinstance(net, int) and not _stage_read(ctx, c, i) and (i == 3 or last):
            continue  # unused top of the chain: LUT i stays free
        s.luts[i] = ctx.site_for(cn, "S", i)
    return s


def pack_carry_chains(ctx: PackContext, carries: list) -> list[list[int]]:
    """Pack the CARRY4 cells ``carries`` (module order) into new slices of ``ctx``, chain by chain in
    the order of their bottom CARRY4s. Returns the chains as lists of slice indices, bottom first.

    Raises PackError when a CO[3] drives two carry inputs or the CARRY4s form a loop."""
    nxt = _chain_successors(ctx, carries)
    has_prev = set(nxt.values())
    chains = []
    for head in carries:
        if head in has_prev:
            continue
        chain = []
        cn = head
        while cn is not None:
            chain.append(ctx.add_slice(_carry_slice(ctx, cn, (len(chains), len(chain)), cn not in nxt)))
            cn = nxt.get(cn)
        chains.append(chain)
    if len(set(carries)) != sum(len(c) for c in chains):
        raise PackError("CARRY4 cells form a loop")
    return chains
