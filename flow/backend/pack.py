"""Slice packer for Xilinx 7-series CLBs (UG474 "CLB resources").

Input: a flat Yosys JSON module of Xilinx primitives (``LUT1``..``LUT6``, ``INV``, ``FD*``, ``CARRY4``,
``MUXF7``, ``MUXF8``; ``IBUF``/``OBUF``/``BUFG`` are I/O and clock cells outside the CLBs; TLUTs are LUT
cells with attribute ``dcs_tlut`` and ``dcs_ppc``). Output: :class:`Packing`, a list of
:class:`PackedSlice`.

Rules (UG474):
- a slice has 4 LUT6 sites A..D; a site holds one LUT (<= 6 inputs) or two LUTs of <= 5 inputs whose
  inputs together are <= 5 nets (LUT6_2: O6 with A6 tied high, O5 = INIT[31:0]);
- a TLUT always takes a whole LUT6 site (its 64 INIT bits are rewritten at run time) and TLUTs are
  packed 4 per slice so that they occupy as few LUT columns as possible;
- 8 flip-flops per slice with one control set (clock, CE, SR, sync/async); an FF whose D input is
  not driven from inside its slice enters through one of the 4 bypass pins AX..DX, which MUXF7/F8
  selects and CARRY4 DI/CYINIT inputs also use (at most 4 distinct nets per slice);
- a CARRY4 takes one slice; S[i] comes from the O6 of LUT i of the same slice; chained CARRY4s
  (CO[3] -> CI) go in vertically consecutive slices; a S input that is not the output of a LUT free
  to move there gets a route-through LUT (INIT = A1), a constant S input of a used stage a constant LUT;
- a MUXF7 takes the O6 of LUTs A/B (F7AMUX) or C/D (F7BMUX) of its slice; a MUXF8 the two MUXF7s;
  inputs not driven by a free LUT get route-through LUTs;
- SRL16E/SRLC32E are SLICEM-only (a whole LUT site in a SLICEM);
- a distributed RAM (RAM64M, RAM64X1D, RAM64X1S) takes the LUTs of one SLICEM of its own
  (:mod:`.pack_ram`).
Simplifications (documented in docs/formats.md): an FD from inside the slice reaches any of its 8
FFs; DI of CARRY4 uses the bypass pins; the O5 of a LUT6_2 leaves through the xMUX output.

A build of LUT size K < 6 (``dcsflow build --lut-size``, ``lut_size`` below) targets K-input LUTs,
as the published TLUT flow does: each LUT takes a LUT6 site of its own (its 64-bit INIT repeats the
K-input table, :mod:`.config`) and the rest of the site stays unused: no LUT6_2 pairs, static or
TLUT; a LUT cell of more than K inputs is refused.

A ``cfglut5`` build (``dcsflow build --tlut cfglut5``, ``tlut`` below) realizes every TLUT as a
CFGLUT5 (UG953): SLICEM only, a whole LUT site, at most 5 inputs. Its TLUT slices, and the
multiplexer slices holding TLUT cofactors, are SLICEM-only CFGLUT5 slices (``cfglut``): no TLUT
pairs, not confined to TLUT frame sets (the placer), and static LUTs fill their free LUT sites. The
CFGLUT5s of a slice share its clock (the loader's, :mod:`dcsflow.flow.cfglut`: the design's clock), so
an FF enters such a slice only when the design has that one FF clock (:func:`cfglut_clock`).

Split by primitive, like nextpnr's ``pack_carry.cc``/``pack_dsp_xc7.cc``. :mod:`.pack_types` holds the
constants, :class:`PackError`, :class:`LutCell`, :class:`LutSite`, :class:`PackedSlice` and
:class:`Packing` (all importable from here too); :mod:`.pack_netlist` reads LUTs, FF control sets and
cell kinds and holds :class:`~.pack_netlist.PackContext`, the state the steps share (including the
route-through LUTs for CARRY4/MUXF7 inputs). :func:`pack` runs the steps in this order, later ones
filling the room earlier ones left:

0. distributed RAMs, one SLICEM each (:mod:`.pack_ram`);
1. CARRY4 chains (:mod:`.pack_carry`);
2. MUXF8 with their MUXF7s, then the other MUXF7s (:mod:`.pack_mux`);
3. the breadth-first connectivity order of the remaining LUTs (:mod:`.pack_lut`);
4. TLUTs, four per TLUT slice, optionally in pairs (:mod:`.pack_tlut`);
5. SRLs in SLICEMs, then static LUTs with LUT6_2 pairing and slice fill (:mod:`.pack_lut`);
6. FFs by control set and bypass pins (:mod:`.pack_ff`).
"""

from __future__ import annotations

from ..cfglut import CFGLUT5_INPUTS, design_clock
from ..design import TLUT_KINDS
from .pack_carry import pack_carry_chains
from .pack_ff import pack_ffs
from .pack_lut import connectivity_order, pack_srls, pack_static_luts
from .pack_mux import pack_wide_muxes
from .pack_netlist import PackContext, control_set, group_cells, net_drivers_and_loads, parse_luts, parse_rams
from .pack_ram import pack_rams
from .pack_tlut import pack_tluts
from .pack_types import (FF_CELLS, IO_CELLS, LETTERS, LUT_CELLS, RAM_CELLS, RT_INIT, SRL_CELLS, LutCell, LutSite, PackError,
                         PackedSlice, Packing)

__all__ = ["pack", "cfglut_clock", "TLUT_KINDS", "parse_luts", "control_set", "PackError", "Packing", "PackedSlice", "LutSite", "LutCell",
           "LETTERS", "RT_INIT", "LUT_CELLS", "FF_CELLS", "SRL_CELLS", "IO_CELLS", "RAM_CELLS"]


def _carry_pins_filled(cell: dict) -> dict:
    """A CARRY4 whose O or CO output Yosys left out (nothing reads it, e.g. a comparator's chain) as a
    copy with the missing outputs unconnected (``"x"`` bits); any other cell as it is."""
    con = cell.get("connections", {})
    if cell.get("type") != "CARRY4" or all(p in con for p in ("O", "CO")):
        return cell
    missing = [p for p in ("O", "CO") if p not in con]
    return {**cell, "connections": {**con, **{p: ["x"] * 4 for p in missing}},
            "port_directions": {**cell.get("port_directions", {}), **{p: "output" for p in missing}}}


def _check_lut_size(luts: dict, lut_size: int, tlut_pairs: bool) -> None:
    """Refuse ``tlut_pairs`` and logical LUTs (not SRLs or RAM ports) of more than ``lut_size``
    inputs (:func:`pack` below LUT size 6). Raises PackError (one line)."""
    if tlut_pairs:
        raise PackError(f"TLUT pairs need LUT size 6; at LUT size {lut_size} every LUT takes a LUT site of its own")
    for lc in luts.values():
        if not lc.srl and lc.ram is None and lc.k > lut_size:
            raise PackError(f"LUT {lc.name} has {lc.k} inputs, more than the LUT size {lut_size}")


#: the clock of CFGLUT5 slices when the design's FFs have no single clock: no FF shares those slices
NO_SHARED_CLOCK = "dcs_cfg_clk"


def cfglut_clock(cells: dict):
    """The clock net of the CFGLUT5 slices: the design's FF clock when all its FFs have one (the
    loader shifts on the design's clock), else :data:`NO_SHARED_CLOCK` (FFs stay out of them)."""
    clk = design_clock(cells)
    return NO_SHARED_CLOCK if clk is None else str(clk)


def _check_cfglut(luts: dict, tlut_pairs: bool) -> None:
    """Refuse ``tlut_pairs`` and TLUTs wider than a CFGLUT5 in a ``cfglut5`` packing. Raises
    PackError (one line)."""
    if tlut_pairs:
        raise PackError("TLUT pairs need --tlut frames: a CFGLUT5 takes a whole LUT site")
    for lc in luts.values():
        if lc.tlut and lc.k > CFGLUT5_INPUTS:
            raise PackError(f"TLUT {lc.name} has {lc.k} inputs: a CFGLUT5 has at most {CFGLUT5_INPUTS}")


def pack(module: dict, tlut_pairs: bool = False, lut_size: int = 6, tlut: str = "frames") -> Packing:
    """Pack a flat netlist module into slices (rules in the module docstring).

    ``tlut_pairs`` (opt-in, off by default: the default rule is one TLUT per LUT6 site) lets two
    TLUTs of <= 5 inputs sharing <= 5 input nets share one LUT6_2 site (kind ``tlutpair``: both
    halves of the INIT are tunable, the frame map names both). ``lut_size``: the build's LUT size K;
    below 6 every LUT takes a LUT site of its own (no LUT6_2 pairs; ``tlut_pairs`` is refused).
    Deterministic: cells are visited in the module's order and in a breadth-first order of the
    LUT connectivity graph. Raises PackError for cell types without a CLB model (RAMB*, DSP48*, LD*,
    distributed RAMs other than those of :data:`RAM_CELLS`), and below LUT size 6 for a LUT cell of
    more than ``lut_size`` inputs or ``tlut_pairs``. ``tlut``: the TLUT realization
    (:data:`TLUT_KINDS`); ``cfglut5``: TLUTs as CFGLUT5s in SLICEM-only slices (module docstring;
    refuses ``tlut_pairs`` and a TLUT of more than 5 inputs).
    """
    if tlut not in TLUT_KINDS:
        raise PackError(f"unknown TLUT realization {tlut!r}; known: {', '.join(TLUT_KINDS)}")
    cells = {n: _carry_pins_filled(c) for n, c in module["cells"].items()}
    luts = {**parse_luts(module), **parse_rams(module)}
    if lut_size < 6:
        _check_lut_size(luts, lut_size, tlut_pairs)
    cfglut = tlut == "cfglut5"
    if cfglut:
        _check_cfglut(luts, tlut_pairs)
    groups = group_cells(cells, luts)
    ctx = PackContext(cells, luts, *net_drivers_and_loads(cells))
    pack_rams(ctx, groups.rams)
    chains = pack_carry_chains(ctx, groups.carries)
    pack_wide_muxes(ctx, groups.muxf7, groups.muxf8)
    wclk = cfglut_clock(cells) if cfglut else None
    if cfglut:         # multiplexer slices holding TLUT cofactors hold CFGLUT5s: SLICEMs
        for s in ctx.slices:
            if s.tlut:
                s.slicem = s.cfglut = True
                s.wclk = wclk
    order = connectivity_order(ctx)
    pack_tluts(ctx, order, tlut_pairs, cfglut, wclk)
    pack_srls(ctx, order)
    pack_static_luts(ctx, order, pairs=lut_size == 6)
    pack_ffs(ctx, groups.ffs)
    return Packing(ctx.slices, chains, luts, ctx.route_throughs, groups.io,
                   {cn: cells[cn]["type"] for cn in groups.rams}, tlut)
