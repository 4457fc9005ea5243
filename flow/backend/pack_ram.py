"""Distributed RAM: each RAM cell in a SLICEM of its own (UG474 "Distributed RAM").

A SLICEM's four LUTs can be 64 x 1 RAMs that share one write address (the D LUT's address pins),
one write enable (WE) and the slice's clock, so one RAM primitive takes one SLICEM:
``RAM64M`` (64 x 4, one read port per LUT, the D port addressed by the write address) LUTs A..D,
``RAM64X1D`` LUTs C (DPO, read address DPRA) and D (SPO, address A), ``RAM64X1S`` LUT D
(:data:`~.pack_types.RAM_CELLS`). Each read port is a logical LUT (``ram`` set) in a site of kind
``ram`` whose pins A1..A6 are its address bits 0..5 and whose INIT is the port's INIT parameter
(the template holds it; it is no parameter). The slice records the RAM and its write clock: the
slice's FFs must share that clock (:mod:`.pack_ff`), and no other LUT is put into it.
Simplification (docs/formats.md): the RAM's data inputs enter through the SLICEM's AI..DI pins and do
not use the AX..DX bypass budget; two small RAMs with the same write port are not merged into one
SLICEM.
"""

from __future__ import annotations

from .pack_netlist import PackContext, ram_port_name
from .pack_types import LETTERS, RAM_CELLS, LutSite, PackedSlice


def pack_rams(ctx: PackContext, rams: list) -> None:
    """Pack the distributed-RAM cells ``rams`` (module order), one new SLICEM-only slice each;
    marks their read ports used."""
    for cn in rams:
        c = ctx.cells[cn]
        s = PackedSlice(slicem=True, ram=cn, wclk=c["connections"]["WCLK"][0])
        for letter, _, _, _ in RAM_CELLS[c["type"]]:
            n = ram_port_name(cn, letter)
            s.luts[LETTERS.index(letter)] = LutSite("ram", o6=n, pins=list(ctx.luts[n].inputs))
            ctx.used.add(n)
        ctx.add_slice(s)
