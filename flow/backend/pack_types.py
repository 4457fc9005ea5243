"""Data of the slice packer: cell classes, the packer's error, logical LUTs, LUT sites, slices and
the :class:`Packing` result (rules in :mod:`.pack`).

Every ``pack_*`` module imports its types from here; this module imports none of them, so the
packer's modules form no import cycle.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..errors import FlowError

LUT_CELLS = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV"}
FF_CELLS = {"FDRE", "FDSE", "FDCE", "FDPE"}
SRL_CELLS = {"SRL16E", "SRLC32E"}
IO_CELLS = {"IBUF", "OBUF", "BUFG", "IOBUF", "OBUFT", "BUFGCTRL"}
#: distributed-RAM primitives with a SLICEM model (UG474 "Distributed RAM"; ports as in Yosys's
#: ``xilinx/cells_sim.v``): type -> the LUT sites it takes, each (LUT letter, read-address ports
#: A1..A6 in pin order, data-out port, INIT parameter). The write address is the D LUT's address
#: (RAM64M: ``ADDRD``; RAM64X1D/S: ``A0..A5``), shared by the whole SLICEM.
RAM_CELLS = {
    "RAM64M": tuple((x, (f"ADDR{x}",), f"DO{x}", f"INIT_{x}") for x in "ABCD"),
    "RAM64X1D": (("C", tuple(f"DPRA{i}" for i in range(6)), "DPO", "INIT"),
                 ("D", tuple(f"A{i}" for i in range(6)), "SPO", "INIT")),
    "RAM64X1S": (("D", tuple(f"A{i}" for i in range(6)), "O", "INIT"),),
}
#: LUT sites (and FF BEL names) of a slice, bottom to top.
LETTERS = "ABCD"
#: physical INIT of a route-through LUT: O6 = A1 (LUT6 truth-table index, A1 = LSB).
RT_INIT = 0xAAAAAAAAAAAAAAAA
#: LUT site kinds that hold two logical LUTs (O6 and O5).
PAIR_KINDS = ("pair", "tlutpair")


class PackError(FlowError):
    """The netlist holds cells the built-in packer cannot place (BRAM, DSP, latches...)."""


@dataclass
class LutCell:
    """A logical LUT: ``inputs`` nets of I0..I(k-1) (int net or "0"/"1"), ``output`` net, ``init``
    (int, bit i = output for input pattern i, I0 = LSB), ``tlut``/``ppc`` (PPC output per INIT bit);
    ``srl``: an SRL; ``ram``: the distributed-RAM cell this LUT is one read port of (``inputs`` = its
    read address, ``output`` = its data out, ``init`` = the port's 64-bit INIT), else None."""

    name: str
    k: int
    inputs: list
    output: object
    init: int
    tlut: bool = False
    ppc: list = field(default_factory=list)
    srl: bool = False
    ram: str | None = None

    @property
    def cell(self) -> str:
        """The netlist cell this logical LUT stands for (the RAM cell for a RAM port, else ``name``)."""
        return self.ram or self.name

    @property
    def pairable(self) -> bool:
        """True when the LUT may be one half of a LUT6_2: at most 5 inputs, all of them nets (no
        constant input)."""
        return self.k <= 5 and all(isinstance(x, int) for x in self.inputs)


@dataclass
class LutSite:
    """Occupant of one LUT6 site.

    kind: ``lut`` (one LUT on O6), ``pair`` (LUT6_2: ``o6`` and ``o5``), ``tlut``, ``tlutpair`` (two
    TLUTs as a LUT6_2, opt-in), ``rt`` (route-through
    buffer O6 = A1 of net ``pins[0]``), ``const`` (constant ``const_value`` on O6), ``srl``, ``ram``
    (one read port of a distributed RAM, ``o6`` its :class:`LutCell`, ``pins`` its address).
    pins: nets on physical pins A1..A6 (len <= 6; missing pins are unused).
    feeds: for ``rt``/``const``, the (cell, port, bit) its O6 drives instead of the original net.
    """

    kind: str
    o6: str | None = None
    o5: str | None = None
    pins: list = field(default_factory=list)
    rt_net: object = None
    const_value: int = 0
    feeds: tuple | None = None


def pair_site(kind: str, o6: LutCell, o5: LutCell) -> LutSite:
    """A LUT6_2 site of ``kind`` (``pair`` or ``tlutpair``): ``o6``'s inputs first on A1.., then
    ``o5``'s further inputs."""
    return LutSite(kind, o6=o6.name, o5=o5.name, pins=list(dict.fromkeys(o6.inputs + o5.inputs)))


@dataclass
class PackedSlice:
    """One packed slice: ``luts`` A..D (LutSite or None), ``ffs`` [(cell, bel)], ``control_set``,
    ``carry`` (CARRY4 cell), ``muxf7`` [F7AMUX cell, F7BMUX cell], ``muxf8``, ``slicem`` (needs a
    SLICEM), ``chain`` (chain index, position from the bottom) or None, ``tlut`` (holds TLUTs),
    ``cfglut`` (its TLUTs are CFGLUT5s of a ``cfglut5`` build: a SLICEM, not confined to TLUT frame
    sets, whose free LUT sites take static LUTs; its FFs must use ``wclk``, the CFGLUT5s' clock),
    ``ram``: the distributed-RAM cell whose LUTs the slice holds (its write clock ``wclk`` is the
    slice's clock, so FFs in the slice must use it) or None, ``bypass``: nets on the AX..DX bypass pins (at most 4: MUXF7/F8 selects, CARRY4 DI/CYINIT, and
    the D inputs of FFs whose driver is outside the slice)."""

    luts: list = field(default_factory=lambda: [None] * 4)
    ffs: list = field(default_factory=list)
    control_set: tuple | None = None
    carry: str | None = None
    muxf7: list = field(default_factory=lambda: [None, None])
    muxf8: str | None = None
    slicem: bool = False
    chain: tuple | None = None
    tlut: bool = False
    cfglut: bool = False
    ram: str | None = None
    wclk: object = None
    bypass: set = field(default_factory=set)

    def free_lut_positions(self) -> list[int]:
        """Indices 0..3 of empty LUT sites."""
        return [i for i, s in enumerate(self.luts) if s is None]

    def n_luts(self) -> int:
        """Logical LUTs in the slice (a pair counts 2; route-throughs, constants and distributed-RAM
        ports count 0)."""
        n = 0
        for s in self.luts:
            if s is not None:
                n += 2 if s.kind in PAIR_KINDS else (1 if s.kind in ("lut", "tlut", "srl") else 0)
        return n


@dataclass
class Packing:
    """Result of :func:`.pack.pack`: slices, carry chains (lists of slice indices, bottom first), the
    logical LUTs by name, route-through count, the cells left outside the CLBs (I/O, BUFG), and the
    distributed-RAM cells' types (cell -> type); ``tlut_kind``: the TLUT realization (``frames`` or
    ``cfglut5``, :func:`.pack.pack`)."""

    slices: list
    chains: list
    luts: dict
    route_throughs: int
    io_cells: list
    ram_types: dict = field(default_factory=dict)
    tlut_kind: str = "frames"

    def utilization(self) -> dict:
        """Slices, SLICEMs, LUT sites (every occupied site, distributed RAM included), LUTs (logical,
        without RAM), TLUTs, FFs, CARRY4, MUXF7/F8, route-through LUTs, LUT6_2 pairs; distributed RAM:
        ``lutram_sites`` (LUT sites used as RAM), ``ram_slices`` (SLICEMs holding a RAM) and
        ``rams`` (RAM cells by type); a ``cfglut5`` packing also ``cfglut_slices`` (the SLICEMs
        holding CFGLUT5s)."""
        sl = self.slices
        extra = {"cfglut_slices": sum(1 for s in sl if s.cfglut)} if self.tlut_kind == "cfglut5" else {}
        return {
            "slices": len(sl), "slicem": sum(1 for s in sl if s.slicem),
            "lut_sites": sum(1 for s in sl for x in s.luts if x is not None),
            "luts": sum(s.n_luts() for s in sl),
            "tluts": sum({"tlut": 1, "tlutpair": 2}.get(x.kind, 0) for s in sl for x in s.luts if x is not None),
            "tlut_sites": sum(1 for s in sl for x in s.luts if x is not None and x.kind in ("tlut", "tlutpair")),
            "lut6_2_pairs": sum(1 for s in sl for x in s.luts if x is not None and x.kind == "pair"),
            "route_throughs": sum(1 for s in sl for x in s.luts if x is not None and x.kind in ("rt", "const")),
            "ffs": sum(len(s.ffs) for s in sl), "carry4": sum(1 for s in sl if s.carry),
            "muxf7": sum(1 for s in sl for m in s.muxf7 if m), "muxf8": sum(1 for s in sl if s.muxf8),
            "tlut_slices": sum(1 for s in sl if s.tlut),
            "lutram_sites": sum(1 for s in sl for x in s.luts if x is not None and x.kind == "ram"),
            "ram_slices": sum(1 for s in sl if s.ram),
            "rams": dict(sorted(Counter(self.ram_types[s.ram] for s in sl if s.ram).items())),
            **extra,
        }
