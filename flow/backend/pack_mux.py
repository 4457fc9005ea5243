"""Wide multiplexers: MUXF8 with its two MUXF7s in one slice, the other MUXF7s two per slice.

A MUXF7 selects between the O6 outputs of LUTs A/B (F7AMUX) or C/D (F7BMUX) of its slice; a MUXF8
between the slice's two MUXF7s. Each data input of a MUXF7 gets the free LUT driving it, else a
route-through (or constant) LUT (:meth:`~.pack_netlist.PackContext.site_for`). The select inputs
use the bypass pins (counted by :mod:`.pack_ff`). A TLUT under a MUXF7 (a cofactor of a wide
function mapped by TMAP) takes its whole LUT6 site there, and the slice is marked a TLUT slice
(placed with the TLUT slices, not filled with further static LUTs, its TLUT sites in the frame map).
"""

from __future__ import annotations

from .pack_netlist import PackContext
from .pack_types import PackError, PackedSlice


def _place_muxf7(ctx: PackContext, s: PackedSlice, half: int, m7: str) -> None:
    """Put MUXF7 ``m7`` in position ``half`` (0: F7AMUX over LUTs A/B, 1: F7BMUX over C/D) of ``s``."""
    s.muxf7[half] = m7
    s.luts[2 * half] = ctx.site_for(m7, "I0", 0)
    s.luts[2 * half + 1] = ctx.site_for(m7, "I1", 0)
    if any(x is not None and x.kind == "tlut" for x in s.luts[2 * half:2 * half + 2]):
        s.tlut = True


def _pack_muxf8(ctx: PackContext, m8: str, taken: set) -> None:
    """A new slice for MUXF8 ``m8`` and the MUXF7s driving its inputs (added to ``taken``).

    Raises PackError when an input is not driven by a MUXF7 of its own."""
    s = PackedSlice(muxf8=m8)
    con = ctx.cells[m8]["connections"]
    for half, p in enumerate(("I0", "I1")):
        d = ctx.driver_of(con[p][0])
        if d is None or ctx.cells[d]["type"] != "MUXF7" or d in taken:
            raise PackError(f"MUXF8 {m8}: input {p} is not driven by its own MUXF7")
        taken.add(d)
        _place_muxf7(ctx, s, half, d)
    ctx.add_slice(s)


def pack_wide_muxes(ctx: PackContext, muxf7: list, muxf8: list) -> None:
    """Pack the MUXF8 cells (one slice each, with their MUXF7s), then the remaining MUXF7 cells
    two per slice, in module order, into new slices of ``ctx``. Raises PackError for a MUXF8 input
    not driven by its own MUXF7."""
    in_f8: set = set()
    for m8 in muxf8:
        _pack_muxf8(ctx, m8, in_f8)
    pending = [m for m in muxf7 if m not in in_f8]
    for j in range(0, len(pending), 2):
        s = PackedSlice()
        for half, m7 in enumerate(pending[j:j + 2]):
            _place_muxf7(ctx, s, half, m7)
        ctx.add_slice(s)
