"""Vivado back end: dcsflow fixes the TLUT placement, Vivado implements the rest.

The placement of every TLUT comes from the built-in TLUT-aware placer (:class:`BuiltinBackend`),
so the frame map is known before Vivado runs; ``dcsflow import`` (:mod:`.vivado_import`) checks it
after Vivado has routed the design. ``dcsflow build --backend vivado [--board B]`` writes
``vivado/`` in the build folder (formats in docs/formats.md):

- ``netlist.v``: the TLUT netlist as structural Verilog (Yosys ``write_verilog``). Every TLUT is a
  ``LUT6`` cell named ``dcs_tlut_<i>`` with the attributes ``DONT_TOUCH``, ``BEL``, ``LOC`` and
  ``LOCK_PINS`` (all six pins, ``I<q>:A<q+1>``) and the template INIT of :func:`template_init`;
  a k-input TLUT has its unused inputs I<k>..I5 tied to 1 and its INIT repeated over them (the
  frame map's ``unused_pins: repeat`` rule), so the decoded INIT does not depend on them;
- ``constraints.xdc``: clock period, board pins (clock, reset), per TLUT ``BEL`` then ``LOC``
  (UG912, UG903: the BEL must be set before the LOC), ``LOCK_PINS``, ``DONT_TOUCH``;
- ``build.tcl``: non-project batch flow (UG835 commands), ``vivado -mode batch -source build.tcl``;
- ``dump_tluts.tcl``: after routing, writes ``tlut_cells.json`` (LOC, BEL, LOCK_PINS, INIT and the
  logical-to-physical pin map from ``get_bel_pins`` of every TLUT cell);
- ``tluts.json``: the plan (cell name -> TLUT, site, BEL, pin map, template INIT) that ``import``
  checks against.

Open back ends (nextpnr-xilinx, RapidWright) would implement :class:`flow.backend.Backend` the same
way; they are not built (see the issue): nextpnr-xilinx needs prjxray-db's full tile files,
RapidWright downloads device files at run time.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dcsflow import __version__
from dcsflow.fileio import write_text_atomic
from dcsflow.scg.lut import depends_on, swap_inputs, template_init, template_table  # noqa: F401
from dcsflow.scg.vivado_import import DUMP_FORMAT, PLAN_FORMAT
from ..yosys import run_script
from . import BackendError, BuiltinBackend

BOARD_FORMAT = "dcsflow-board"
BOARDS_DIR = Path(__file__).resolve().parent.parent / "boards"
CELL_PREFIX = "dcs_tlut_"
#: Vivado part of each device when no board is given.
DEFAULT_PARTS = {"xc7z020": "xc7z020clg400-1", "xc7a35t": "xc7a35ticsg324-1L"}


class VivadoBackend(BuiltinBackend):
    """Same packing and TLUT-aware placement as the built-in back end; the build stage then writes
    the Vivado project files (:func:`export_vivado`). Vivado itself runs outside dcsflow."""

    name = "vivado"


# ------------------------------------------------------------------------------ boards
@dataclass
class Board:
    """A board file (``flow/boards/<name>.json``, format ``dcsflow-board`` v1).

    name, part (Vivado part), device (dcsflow device), clock / reset: dicts with ``pin``,
    ``iostandard``, ``period_ns`` (clock), ``active_low`` (reset), ``source`` (where it came from);
    hwicap_base: physical address of the AXI HWICAP (int) or None; block_design: Tcl file name or None.
    """

    name: str
    part: str
    device: str
    clock: dict
    reset: dict
    hwicap_base: int | None
    block_design: str | None
    path: Path

    @property
    def block_design_path(self) -> Path | None:
        """Path of the board's block-design Tcl, if it has one."""
        return self.path.parent / self.block_design if self.block_design else None


def board_names() -> list[str]:
    """Names of the bundled board files."""
    return sorted(p.stem for p in BOARDS_DIR.glob("*.json"))


def load_board(name: str) -> Board:
    """Load board ``name`` (bundled). Raises BackendError for an unknown or malformed board file."""
    p = BOARDS_DIR / f"{name}.json"
    if not p.is_file():
        raise BackendError(f"unknown board {name!r}; boards: {', '.join(board_names())}")
    try:
        d = json.loads(p.read_text())
        if d.get("format") != BOARD_FORMAT or d.get("version") != 1:
            raise ValueError("not a dcsflow-board v1 file")
        base = d.get("hwicap_base")
        return Board(d["name"], d["part"], d["device"], d["clock"], d["reset"],
                     int(base, 0) if base else None, d.get("block_design"), p)
    except (ValueError, KeyError, TypeError) as e:
        raise BackendError(f"{p}: malformed board file ({e})") from None


# ------------------------------------------------------------------------------ export
def _port_of_net(module: dict, net) -> str | None:
    for pn, p in module["ports"].items():
        if p["direction"] == "input" and p["bits"] == [net]:
            return pn
    return None


def clock_port(module: dict) -> str | None:
    """The input port behind the BUFG (through its IBUF), else a 1-bit input named clk/clock."""
    drivers = {}
    for c in module["cells"].values():
        if c["type"] == "IBUF":
            drivers[c["connections"]["O"][0]] = c["connections"]["I"][0]
    for c in module["cells"].values():
        if c["type"] == "BUFG":
            net = c["connections"]["I"][0]
            p = _port_of_net(module, drivers.get(net, net))
            if p:
                return p
    for n in ("clk", "clock", "CLK"):
        if n in module["ports"] and len(module["ports"][n]["bits"]) == 1:
            return n
    return None


def reset_port(module: dict) -> str | None:
    """A 1-bit input named rst/reset/rst_n/reset_n/resetn, if any."""
    for n in ("rst", "reset", "rst_n", "reset_n", "resetn"):
        p = module["ports"].get(n)
        if p and p["direction"] == "input" and len(p["bits"]) == 1:
            return n
    return None


def lock_pins() -> list[str]:
    """LOCK_PINS pairs of a TLUT: logical I<q> on physical A<q+1> for all six pins."""
    return [f"I{q}:A{q + 1}" for q in range(6)]


def plan_cells(module: dict, tluts: list) -> list[dict]:
    """Plan entries, one per TLUT: ``cell`` (Vivado cell name), ``tlut`` (netlist cell name), ``k``,
    ``site``, ``bel``, ``lock_pins``, ``pin_map`` {I<q>: A<q+1>}, ``init`` (16 hex digits).

    Raises:
        BackendError: a TLUT shares its LUT6 site with another LUT (``--tlut-pairs``).
    """
    out = []
    for i, t in enumerate(tluts):
        if not t["bel"].endswith("6LUT") or "input_pins" in t:
            raise BackendError("--backend vivado needs one TLUT per LUT6 site: build without --tlut-pairs")
        cell = module["cells"][t["name"]]
        k = sum(1 for p in cell["connections"] if p.startswith("I"))
        out.append({"cell": f"{CELL_PREFIX}{i}", "tlut": t["name"], "k": k, "site": t["site"], "bel": t["bel"],
                    "lock_pins": ",".join(lock_pins()), "pin_map": {f"I{q}": f"A{q + 1}" for q in range(6)},
                    "init": f"{template_init(k):016X}"})
    return out


def export_module(module: dict, plan: list[dict]) -> dict:
    """Copy of ``module`` for Vivado: TLUTs become attributed ``LUT6`` cells (module docstring),
    other cells lose their Yosys-only attributes."""
    cells = {}
    by_name = {p["tlut"]: p for p in plan}
    for cn, c in module["cells"].items():
        c = json.loads(json.dumps(c))
        p = by_name.get(cn)
        if p is None:
            c["attributes"] = {}
            cells[cn] = c
            continue
        k = p["k"]
        conns = {f"I{q}": c["connections"][f"I{q}"] for q in range(k)}
        conns.update({f"I{q}": ["1"] for q in range(k, 6)})
        conns["O"] = c["connections"]["O"]
        cells[p["cell"]] = {
            "hide_name": 0, "type": "LUT6", "parameters": {"INIT": format(int(p["init"], 16), "064b")},
            "attributes": {"DONT_TOUCH": "TRUE", "BEL": p["bel"], "LOC": p["site"],
                           "LOCK_PINS": ", ".join(p["lock_pins"].split(","))},
            "port_directions": {**{f"I{q}": "input" for q in range(6)}, "O": "output"},
            "connections": conns}
    m = dict(module)
    m["cells"] = cells
    m["attributes"] = {}
    m["netnames"] = {n: {**nn, "attributes": {}} for n, nn in module.get("netnames", {}).items()}
    return m


def _xdc(top: str, module: dict, plan: list[dict], board: Board | None, part: str) -> str:
    lines = [f"# dcsflow {__version__}: constraints of {top} on {part}" + (f" (board {board.name})" if board else ""),
             "# format: dcsflow-xdc v1 (docs/formats.md)"]
    clk = clock_port(module)
    period = board.clock["period_ns"] if board else 10.0
    if clk:
        lines.append(f"create_clock -period {period:.3f} -name dcs_clk [get_ports {{{clk}}}]")
    if board:
        lines.append(f"# pins: {board.clock['source']}; {board.reset['source']}")
        lines.append("# not checked on a board here (no board, no Vivado on the test machines)")
        if clk:
            lines.append(f"set_property -dict {{PACKAGE_PIN {board.clock['pin']} IOSTANDARD "
                         f"{board.clock['iostandard']}}} [get_ports {{{clk}}}]")
        rst = reset_port(module)
        if rst:
            if board.reset.get("active_low") != rst.endswith("n"):
                lines.append(f"# WARNING: board reset {board.reset['board_name']} is "
                             f"{'active low' if board.reset.get('active_low') else 'active high'}, "
                             f"port {rst} is not: hold the button accordingly")
            lines.append(f"set_property -dict {{PACKAGE_PIN {board.reset['pin']} IOSTANDARD "
                         f"{board.reset['iostandard']}}} [get_ports {{{rst}}}]")
    return "\n".join(lines + _tlut_xdc_lines(plan)) + "\n"


def _tlut_xdc_lines(plan: list[dict]) -> list[str]:
    lines = ["# TLUT placement from dcsflow's placer: BEL before LOC (UG912, UG903)"]
    for p in plan:
        c = f"[get_cells {{{p['cell']}}}]"
        lines += [f"set_property BEL {p['bel']} {c}", f"set_property LOC {p['site']} {c}",
                  f"set_property LOCK_PINS {{{p['lock_pins'].replace(',', ' ')}}} {c}",
                  f"set_property DONT_TOUCH TRUE {c}"]
    return lines


def _build_tcl(top: str, part: str) -> str:
    return f"""# dcsflow {__version__}: Vivado non-project batch flow for {top} on {part}
# run in this folder: vivado -mode batch -source build.tcl
# format: dcsflow-build-tcl v1 (docs/formats.md)
set here [file dirname [file normalize [info script]]]
read_verilog [file join $here netlist.v]
read_xdc [file join $here constraints.xdc]
link_design -top {top} -part {part}
opt_design
place_design
route_design
report_utilization -file [file join $here utilization.rpt]
report_timing_summary -file [file join $here timing.rpt]
write_checkpoint -force [file join $here routed.dcp]
# ports other than the board's clock and reset have no pin: allow the bitstream anyway
set_property SEVERITY {{Warning}} [get_drc_checks {{NSTD-1 UCIO-1}}]
write_bitstream -force -bin_file [file join $here routed.bit]
source [file join $here dump_tluts.tcl]
"""


_DUMP_TCL = r"""# dcsflow @VERSION@: after route_design, write tlut_cells.json (format @FORMAT@ v1):
# LOC, BEL, LOCK_PINS, INIT and the get_bel_pins pin map of every TLUT cell
set here [file dirname [file normalize [info script]]]
proc dcs_json_str {s} {
    return "\"[string map {\\ \\\\ \" \\\"} $s]\""
}
set dcs_cells {@NAMES@}
# block-design flow: hierarchical path of the design instance (set by block_design.tcl)
if {![info exists dcs_prefix]} { set dcs_prefix "" }
set fh [open [file join $here tlut_cells.json] w]
puts $fh "{\"format\": \"@FORMAT@\", \"version\": 1, \"part\": [dcs_json_str [get_property PART [current_design]]], \"cells\": \["
set first 1
foreach name $dcs_cells {
    set c [get_cells -quiet "$dcs_prefix$name"]
    if {[llength $c] != 1} {
        close $fh
        error "dcsflow: TLUT cell $name not found in the routed design"
    }
    set pins {}
    foreach p [get_pins -of_objects $c -filter {DIRECTION == IN}] {
        set phys [lindex [split [get_bel_pins -quiet -of_objects $p] /] end]
        lappend pins "[dcs_json_str [get_property REF_PIN_NAME $p]]: [dcs_json_str $phys]"
    }
    if {$first} { set sep "" } else { set sep "," }
    set first 0
    puts $fh "$sep{\"name\": [dcs_json_str $name], \"loc\": [dcs_json_str [get_property LOC $c]], \"bel\": [dcs_json_str [get_property BEL $c]], \"lock_pins\": [dcs_json_str [get_property LOCK_PINS $c]], \"init\": [dcs_json_str [get_property INIT $c]], \"pins\": {[join $pins {, }]}}"
}
puts $fh "\]}"
close $fh
"""


def _dump_tcl(plan: list[dict]) -> str:
    return (_DUMP_TCL.replace("@VERSION@", __version__).replace("@FORMAT@", DUMP_FORMAT)
            .replace("@NAMES@", " ".join(p["cell"] for p in plan)))


#: ports of a π16-Cipher message processor top: the block design's AXI-Lite wrapper drives these
PICIPHER_PORTS = {"clk", "rst", "key_load", "mode", "s_data", "s_valid", "s_ready", "s_last", "s_bytes", "m_data",
                  "m_valid", "m_ready", "m_last", "m_bytes", "tag", "tag_in", "done", "tag_ok"}


def export_vivado(out: Path, module: dict, top: str, tluts: list, device, design_hash: str,
                  board: Board | None = None, params: list[str] | None = None) -> list[str]:
    """Write ``out/vivado/`` (module docstring) for the placed TLUT implementation.

    Args:
        module: TLUT netlist module (Yosys JSON); tluts: the configuration's TLUT list
            (name, site, bel, pins); device: :class:`scg.device.Device`; board: optional board.
    Returns:
        paths written, relative to ``out``.
    Raises:
        BackendError: board for another device, TLUT pairs; YosysError from ``write_verilog``.
    """
    if board is not None and board.device != device.name:
        raise BackendError(f"board {board.name} carries {board.device}, the build targets {device.name} "
                           f"(use --device {board.device})")
    part = board.part if board else DEFAULT_PARTS.get(device.name, device.name)
    plan = plan_cells(module, tluts)
    vdir = Path(out) / "vivado"
    vdir.mkdir(parents=True, exist_ok=True)
    mod = export_module(module, plan)
    with tempfile.TemporaryDirectory(prefix="dcsflow-vivado-") as tmp:
        t = Path(tmp)
        (t / "in.json").write_text(json.dumps({"creator": "dcsflow", "modules": {top: mod}}))
        run_script(f"read_json {t / 'in.json'}\nwrite_verilog -noexpr {t / 'netlist.v'}\n", t, "export")
        text = (t / "netlist.v").read_text()
    write_text_atomic(vdir / "netlist.v", f"// dcsflow {__version__}: {top} for Vivado, design_hash={design_hash}\n"
                      + text)
    write_text_atomic(vdir / "constraints.xdc", _xdc(top, module, plan, board, part))
    write_text_atomic(vdir / "tlut_placement.xdc", "\n".join(
        [f"# dcsflow {__version__}: TLUT placement of {top} only, for scoped use (read_xdc -ref / SCOPED_TO_REF)"]
        + _tlut_xdc_lines(plan)) + "\n")
    write_text_atomic(vdir / "build.tcl", _build_tcl(top, part))
    write_text_atomic(vdir / "dump_tluts.tcl", _dump_tcl(plan))
    doc = {"format": PLAN_FORMAT, "version": 1, "device": device.name, "idcode": f"0x{device.idcode:08X}",
           "part": part, "board": board.name if board else None,
           "hwicap_base": f"0x{board.hwicap_base:08X}" if board and board.hwicap_base is not None else None,
           "design_hash": design_hash, "top": top,
           "cells": plan}
    write_text_atomic(vdir / "tluts.json", json.dumps(doc, indent=1) + "\n")
    files = ["vivado/netlist.v", "vivado/constraints.xdc", "vivado/tlut_placement.xdc", "vivado/build.tcl",
             "vivado/dump_tluts.tcl", "vivado/tluts.json"]
    bd = board.block_design_path if board else None
    pports = [p for p in (params or []) if p in module["ports"]]
    if bd is not None and bd.is_file() and PICIPHER_PORTS <= set(module["ports"]) and len(pports) == 1:
        write_text_atomic(vdir / "block_design.tcl", bd.read_text().replace("@TOP@", top))
        wrapper = (BOARDS_DIR / "dcs_axil_wrapper.v").read_text()
        write_text_atomic(vdir / "dcs_axil_wrapper.v", wrapper.replace("@TOP@", top).replace("@PARAM@", pports[0])
                          .replace("@PARAMW@", str(len(module["ports"][pports[0]]["bits"]))))
        files += ["vivado/block_design.tcl", "vivado/dcs_axil_wrapper.v"]
    return files
