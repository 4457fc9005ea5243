"""Flip-flops: eight per slice, one control set per slice, D inputs through the bypass budget.

A slice's 8 FFs (AFF..DFF, A5FF..D5FF) share one control set (clock, CE, SR, sync/async:
:func:`~.pack_netlist.control_set`). An FF goes preferably into the slice whose LUT, CARRY4 or
MUXF7/F8 drives its D input (simplification: such a D reaches any of the 8 FFs); an FF whose D comes
from outside the slice enters through one of the 4 bypass pins AX..DX, which the slice's MUXF7/F8
selects and CARRY4 DI/CYINIT inputs use too (at most 4 distinct nets per slice). FFs that do not fit
their driver's slice go, in netlist order, into a slice already holding their control set (the
first with room among the next 16 not yet full), else into a slice without FFs, else a new slice.
A SLICEM holding a distributed RAM clocks its FFs with the RAM's write clock (one CLK pin per slice),
so only FFs of that clock go there.
"""

from __future__ import annotations

from .pack_netlist import PackContext, control_set
from .pack_types import LETTERS, PackedSlice

#: FFs per slice
FFS_PER_SLICE = 8
#: bypass pins AX..DX per slice
BYPASS_PINS = 4
#: slices of the same control set tried for an FF after the first one that is not full
LOOKAHEAD = 16


def _driver_slices(ctx: PackContext) -> dict:
    """net -> index of the slice whose LUT (O6/O5), CARRY4 or MUXF7/F8 drives it."""
    home = {}
    for si, s in enumerate(ctx.slices):
        for site in s.luts:
            if site is not None:
                for n in (site.o6, site.o5):
                    if n:
                        home[ctx.luts[n].output] = si
        for m in (s.carry, s.muxf8, *s.muxf7):
            if m:
                for p, bits in ctx.cells[m]["connections"].items():
                    if ctx.cells[m]["port_directions"][p] == "output":
                        for b in bits:
                            home.setdefault(b, si)
    return home


def _reserve_bypass_pins(ctx: PackContext) -> None:
    """Record in each slice the nets its MUXF7/F8 selects and CARRY4 DI/CYINIT take on AX..DX."""
    for s in ctx.slices:
        for m, ports in ((s.muxf7[0], ("S",)), (s.muxf7[1], ("S",)), (s.muxf8, ("S",)), (s.carry, ("DI", "CYINIT"))):
            if m:
                for p in ports:
                    s.bypass.update(b for b in ctx.cells[m]["connections"][p] if isinstance(b, int))


class _FfSlots:
    """FF occupancy of the slices: which slice can take an FF (control set, FF count, bypass pins)."""

    def __init__(self, slices: list, home: dict):
        self.slices = slices
        self.home = home      # net -> slice that drives it

    def fits(self, si: int, cs: tuple, d) -> bool:
        """True when slice ``si`` can take an FF of control set ``cs`` with D net ``d`` (in a RAM's
        slice only with the RAM's write clock)."""
        s = self.slices[si]
        if len(s.ffs) >= FFS_PER_SLICE or (s.control_set is not None and s.control_set != cs):
            return False
        if s.wclk is not None and cs[0] != str(s.wclk):
            return False
        return self.home.get(d) == si or d in s.bypass or not isinstance(d, int) or len(s.bypass) < BYPASS_PINS

    def add(self, si: int, cn: str, cs: tuple, d) -> None:
        """Put FF ``cn`` into the next FF BEL of slice ``si`` (a D from outside takes a bypass pin)."""
        s = self.slices[si]
        s.control_set = cs
        if self.home.get(d) != si and isinstance(d, int):
            s.bypass.add(d)
        k = len(s.ffs)
        s.ffs.append((cn, f"{LETTERS[k % 4]}{'FF' if k < 4 else '5FF'}"))

    def full(self, si: int) -> bool:
        """True when slice ``si`` has no FF BEL or no bypass pin left."""
        return len(self.slices[si].ffs) >= FFS_PER_SLICE or len(self.slices[si].bypass) >= BYPASS_PINS


def _pack_into_driver_slices(ctx: PackContext, slots: _FfSlots, ffs: list) -> list[tuple]:
    """Put each FF into the slice driving its D when it fits there; returns the others as
    (cell, control set, D net) in order."""
    overflow = []
    for cn in ffs:
        cs = control_set(ctx.cells[cn])
        d = ctx.cells[cn]["connections"]["D"][0]
        si = slots.home.get(d)
        if si is not None and slots.fits(si, cs, d):
            slots.add(si, cn, cs, d)
        else:
            overflow.append((cn, cs, d))
    return overflow


def _pack_overflow(ctx: PackContext, slots: _FfSlots, overflow: list[tuple]) -> None:
    """Put the remaining FFs into slices of their control set, else slices without FFs, else new
    slices (module docstring)."""
    slices = ctx.slices
    by_cs: dict = {}
    for si, s in enumerate(slices):
        by_cs.setdefault(s.control_set, []).append(si)
    ptr: dict = {}
    empty = [si for si, s in enumerate(slices) if s.control_set is None]
    ei = 0
    for cn, cs, d in overflow:
        lst = by_cs.setdefault(cs, [])
        j = ptr.get(cs, 0)
        while j < len(lst) and slots.full(lst[j]):
            j += 1
        ptr[cs] = j
        hit = next((lst[t] for t in range(j, min(len(lst), j + LOOKAHEAD)) if slots.fits(lst[t], cs, d)), None)
        if hit is not None:
            slots.add(hit, cn, cs, d)
            continue
        while ei < len(empty) and (slices[empty[ei]].control_set is not None or not slots.fits(empty[ei], cs, d)):
            ei += 1
        if ei < len(empty):
            si = empty[ei]
        else:
            si = ctx.add_slice(PackedSlice())
        slots.add(si, cn, cs, d)
        lst.append(si)


def pack_ffs(ctx: PackContext, ffs: list) -> None:
    """Pack the FF cells ``ffs`` (module order) into the slices of ``ctx``, adding slices as needed;
    records the bypass nets of every slice (module docstring)."""
    slots = _FfSlots(ctx.slices, _driver_slices(ctx))
    _reserve_bypass_pins(ctx)
    _pack_overflow(ctx, slots, _pack_into_driver_slices(ctx, slots, ffs))
