"""Reading the netlist for the packer, and the state its steps share.

:func:`parse_luts` turns LUT, INV and SRL cells into :class:`~.pack_types.LutCell`, :func:`parse_rams`
the read ports of distributed-RAM cells;
:func:`control_set` gives an FF's control set; :func:`group_cells` sorts the other cells by
primitive (and rejects cells without a CLB model); :class:`PackContext` holds the net
drivers/loads, the LUTs already given a site and the slices made so far, and makes the LUT site
that feeds a CARRY4/MUXF7 input pin (:meth:`PackContext.site_for`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .pack_types import FF_CELLS, IO_CELLS, LUT_CELLS, RAM_CELLS, SRL_CELLS, LutCell, LutSite, PackError, PackedSlice


def _init_of(cell: dict, k: int) -> int:
    """INIT parameter of a LUT/SRL cell as an int (Yosys writes a bit string or a number)."""
    v = cell.get("parameters", {}).get("INIT", "0")
    if isinstance(v, int):
        return v
    s = str(v).strip()
    if set(s) <= set("01xz") and s:
        return int(s.replace("x", "0").replace("z", "0"), 2)
    return int(s, 0)


def _ppc_of(attrs: dict) -> list[int]:
    """PPC output index of each INIT bit of a TLUT (attribute ``dcs_ppc``: comma-separated)."""
    return [int(x) for x in str(attrs.get("dcs_ppc", "")).strip().rstrip(",").split(",") if x != ""]


def parse_luts(module: dict) -> dict[str, LutCell]:
    """Logical LUT cells of a module (INV becomes a LUT1 with INIT 2'b01), by cell name in module
    order; TLUTs (attribute ``dcs_tlut``) carry their PPC outputs, SRLs have ``srl`` set."""
    out = {}
    for cn, c in module["cells"].items():
        t = c["type"]
        con = c["connections"]
        if t == "INV":
            out[cn] = LutCell(cn, 1, [con["I"][0]], con["O"][0], 0b01)
        elif t in LUT_CELLS:
            k = int(t[3:])
            attrs = c.get("attributes", {})
            tl = "dcs_tlut" in attrs
            ppc = _ppc_of(attrs) if tl else []
            out[cn] = LutCell(cn, k, [con[f"I{i}"][0] for i in range(k)], con["O"][0], _init_of(c, k), tl, ppc)
        elif t in SRL_CELLS:
            out[cn] = LutCell(cn, 0, [], con["Q"][0], _init_of(c, 0), srl=True)
    return out


def ram_port_name(cell: str, letter: str) -> str:
    """Name of the logical LUT for the read port of RAM ``cell`` in LUT ``letter`` (``<cell>/<letter>``)."""
    return f"{cell}/{letter}"


def parse_rams(module: dict) -> dict[str, LutCell]:
    """Read ports of the distributed-RAM cells (:data:`~.pack_types.RAM_CELLS`) as logical LUTs
    (``ram`` set to the cell, named by :func:`ram_port_name`), in module order. A data output Yosys
    left off the cell (nothing reads it) is ``"x"``, a missing address port constant 0; the port's
    LUT is still occupied (the RAM holds that LUT's memory).

    Raises PackError for a RAM with an inverted write clock (``IS_WCLK_INVERTED``; the slice's
    clock inversion is shared with its FFs and not modelled)."""
    out = {}
    for cn, c in module["cells"].items():
        shape = RAM_CELLS.get(c["type"])
        if shape is None:
            continue
        params = c.get("parameters", {})
        if _init_of({"parameters": {"INIT": params.get("IS_WCLK_INVERTED", "0")}}, 0):
            raise PackError(f"cell {cn} of type {c['type']}: an inverted write clock (IS_WCLK_INVERTED) "
                            "is not supported by the built-in back end")
        con = c["connections"]
        for letter, addr_ports, out_port, init in shape:
            addr = [b for p in addr_ports for b in con.get(p, ["0"] * (6 // len(addr_ports)))]
            if len(addr) != 6:
                raise PackError(f"cell {cn} of type {c['type']}: port {'/'.join(addr_ports)} has "
                                f"{len(addr)} address bits, expected 6")
            name = ram_port_name(cn, letter)
            out[name] = LutCell(name, 6, addr, con.get(out_port, ["x"])[0],
                                _init_of({"parameters": {"INIT": params.get(init, "0")}}, 6), ram=cn)
    return out


def control_set(cell: dict) -> tuple:
    """(clock net, CE net, SR net, async?) of an FD* cell (constants as "0"/"1")."""
    con = cell["connections"]
    t = cell["type"]
    sr = con.get("R") or con.get("S") or con.get("CLR") or con.get("PRE") or ["0"]
    return (str(con["C"][0]), str(con.get("CE", ["1"])[0]), str(sr[0]), t in ("FDCE", "FDPE"))


def net_drivers_and_loads(cells: dict) -> tuple[dict, dict]:
    """(net -> driving cell, net -> [reading cells]) over the int nets of ``cells`` (a cell appears
    once per input bit it reads; constants are skipped)."""
    driver: dict = {}
    loads: dict = {}
    for cn, c in cells.items():
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            for b in bits:
                if not isinstance(b, int):
                    continue
                if dirs.get(p) == "output":
                    driver[b] = cn
                else:
                    loads.setdefault(b, []).append(cn)
    return driver, loads


@dataclass
class CellGroups:
    """The non-LUT cells of a module by primitive, each list in module order."""

    carries: list = field(default_factory=list)
    ffs: list = field(default_factory=list)
    muxf7: list = field(default_factory=list)
    muxf8: list = field(default_factory=list)
    io: list = field(default_factory=list)
    rams: list = field(default_factory=list)


def group_cells(cells: dict, luts: dict) -> CellGroups:
    """Sort ``cells`` by primitive (distributed RAMs in ``rams``); the logical LUTs (``luts``) are left out.

    Raises PackError for a cell type without a CLB model (RAMB*, DSP48*, LD*, ...)."""
    g = CellGroups()
    for cn, c in cells.items():
        t = c["type"]
        if t == "CARRY4":
            g.carries.append(cn)
        elif t in FF_CELLS:
            g.ffs.append(cn)
        elif t == "MUXF7":
            g.muxf7.append(cn)
        elif t == "MUXF8":
            g.muxf8.append(cn)
        elif t in IO_CELLS:
            g.io.append(cn)
        elif t in RAM_CELLS:
            g.rams.append(cn)
        elif cn not in luts:
            raise PackError(f"cell {cn} of type {t} has no model in the built-in back end "
                            "(supported: LUT1-6, INV, FD[RSCP]E, CARRY4, MUXF7/F8, SRL16E/SRLC32E, "
                            f"{', '.join(sorted(RAM_CELLS))}, I/O buffers)")
    return g


@dataclass
class PackContext:
    """State the packing steps share.

    cells: the module's cells; luts: logical LUTs by name (:func:`parse_luts`); driver / loads:
    :func:`net_drivers_and_loads`; used: names of the LUTs already given a site; slices: the
    slices made so far (their order is the packing's slice order); route_throughs: route-through
    and constant LUTs made.
    """

    cells: dict
    luts: dict
    driver: dict
    loads: dict
    used: set = field(default_factory=set)
    slices: list = field(default_factory=list)
    route_throughs: int = 0

    def driver_of(self, net) -> str | None:
        """The cell driving ``net`` (None for a constant or an undriven net)."""
        return self.driver.get(net) if isinstance(net, int) else None

    def free_lut_driving(self, net, tlut: bool = False) -> str | None:
        """The LUT driving ``net`` if it has no site yet (not an SRL; a TLUT only with ``tlut``),
        else None."""
        d = self.driver_of(net)
        if d is None or d not in self.luts or d in self.used or self.luts[d].srl or self.luts[d].ram:
            return None
        if self.luts[d].tlut and not tlut:
            return None
        return d

    def site_for(self, cell: str, port: str, bit: int) -> LutSite:
        """The LUT site feeding input ``port[bit]`` of ``cell`` (a CARRY4 S or MUXF7 data input)
        through the site's O6: the free LUT driving that net (marked used; for a MUXF7 also a TLUT,
        site kind ``tlut``: a wide function's cofactor TLUT sits under its MUXF7), else a
        route-through LUT (O6 = A1) of the net, or a constant LUT for a constant input."""
        net = self.cells[cell]["connections"][port][bit]
        d = self.free_lut_driving(net, tlut=self.cells[cell]["type"] == "MUXF7")
        if d is not None:
            self.used.add(d)
            return LutSite("tlut" if self.luts[d].tlut else "lut", o6=d, pins=list(self.luts[d].inputs))
        self.route_throughs += 1
        if not isinstance(net, int):
            return LutSite("const", const_value=int(net == "1"), feeds=(cell, port, bit))
        return LutSite("rt", pins=[net], rt_net=net, feeds=(cell, port, bit))

    def add_slice(self, s: PackedSlice) -> int:
        """Append ``s`` to the slices; returns its index."""
        self.slices.append(s)
        return len(self.slices) - 1
