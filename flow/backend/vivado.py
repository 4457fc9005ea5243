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
  checks against;
- with a board that has a block design and a top with the board's ports (``board_ports``):
  ``block_design.tcl`` and ``dcs_axil_wrapper.v``;
- with ``--transport icap-dma``: ``dcs_icap_dma.v`` and ``dcs_icap_dma_top.v``, the ICAP stream
  controller with the build's BUILD_ID and words per rekey (:mod:`dcsflow.flow.icapdma`), which the
  block design puts in place of the AXI HWICAP.

A ``cfglut5`` build (:func:`export_vivado_cfglut`) has no frame map to keep: its TLUTs are CFGLUT5s,
ordinary SLICEM logic to Vivado, loaded from the fabric. ``vivado/`` then holds ``netlist.v`` (the
netlist with CFGLUT5 chains, the text of ``cfglut/core.v``), ``dcs_cfglut_loader.v``,
``dcs_cfglut_gate.v``, ``top.v`` (module ``<top>_cfglut``, the top Vivado links), ``constraints.xdc``
(the clock only, plus a board's pins), ``build.tcl`` and ``README.txt``: no TLUT placement, pin
locks, ``dump_tluts.tcl`` or ``tluts.json``, and no block design.

The XDC and Tcl files and the block-design files are Jinja2 templates rendered from data
(:func:`template_context`): ``flow/templates/vivado/*.j2`` and the templates a board file names in
``flow/boards/``; a variable a template needs and the data lack is an error (:func:`render`).

Open back ends (nextpnr-xilinx, RapidWright) would implement :class:`dcsflow.flow.backend.Backend` the same
way; they are not built: nextpnr-xilinx needs prjxray-db's full tile files,
RapidWright downloads device files at run time.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dcsflow import __version__
from dcsflow.fileio import JSON_LIMIT, load_json_file, write_text_atomic
from dcsflow.scg.device import device_facts
from dcsflow.scg.lut import template_init
from dcsflow.scg.vivado_import import DUMP_FORMAT, PLAN_FORMAT
from ..icapdma import SOURCE_FILES as ICAP_DMA_FILES, controller_text, top_verilog
from ..yosys import run_script
from .base import BackendError, BuiltinBackend

BOARD_FORMAT = "dcsflow-board"
BOARD_VERSION = 2
BOARDS_DIR = Path(__file__).resolve().parent.parent / "boards"
#: the generic templates (``vivado/<name>.j2`` for :func:`render`); board templates are ``boards/<name>.j2``
TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates" / "vivado"
CELL_PREFIX = "dcs_tlut_"


class VivadoBackend(BuiltinBackend):
    """Same packing and TLUT-aware placement as the built-in back end; :meth:`export` then writes
    the Vivado project files (:func:`export_vivado`). Vivado itself runs outside dcsflow."""

    name = "vivado"
    tlut_kinds = ("frames", "cfglut5")

    def load_board(self, board: str | None):
        """The bundled board file ``board`` (:func:`load_board`), or None. Raises BackendError."""
        return None if board is None else load_board(board)

    def export(self, job) -> list[str]:
        """``vivado/`` for the placed TLUT implementation (:func:`export_vivado`; a ``cfglut5`` build:
        :func:`export_vivado_cfglut`)."""
        if job.tlut == "cfglut5":
            return export_vivado_cfglut(job.out, job.module, job.top, job.device, job.design_hash, job.board,
                                        job.chain_luts, job.handshake)
        return export_vivado(job.out, job.module, job.top, job.tluts, job.device, job.design_hash, job.board,
                             list(job.params), board_ports=job.board_ports, transport=job.transport)


# ------------------------------------------------------------------------------ boards
@dataclass
class Board:
    """A board file (``flow/boards/<name>.json``, format ``dcsflow-board`` v2, docs/formats.md).

    name, part (Vivado part), device (dcsflow device, a part of ``scg/devices.json``), clock / reset:
    dicts with ``pin``, ``iostandard``, ``board_name``, ``source`` (where it came from),
    ``period_ns`` (clock), ``active_low`` (reset); hwicap_base: physical address of the AXI HWICAP
    (int) or None; block_design / block_design_wrapper: file names of the board's Jinja2 templates
    of ``block_design.tcl`` and of the wrapper (written under its name without ``.j2``), both None
    for a board without a block design; path: the board file.
    """

    name: str
    part: str
    device: str
    clock: dict
    reset: dict
    hwicap_base: int | None
    block_design: str | None
    block_design_wrapper: str | None
    path: Path

    @property
    def block_design_path(self) -> Path | None:
        """Path of the board's block-design template, if it has one."""
        return self.path.parent / self.block_design if self.block_design else None

    @property
    def wrapper_name(self) -> str | None:
        """File name of the written wrapper (``dcs_axil_wrapper.v``), if the board has a block design."""
        w = self.block_design_wrapper
        return w[:-len(".j2")] if w else None


def board_names() -> list[str]:
    """Names of the bundled board files (``flow/boards/*.json``), sorted."""
    return sorted(p.stem for p in BOARDS_DIR.glob("*.json"))


def _check_board(d: dict, folder: Path) -> None:
    """Raise ValueError for a board document that is not a complete ``dcsflow-board`` v2 file."""
    if d.get("format") != BOARD_FORMAT or d.get("version") != BOARD_VERSION:
        raise ValueError(f"not a {BOARD_FORMAT} v{BOARD_VERSION} file")
    for k in ("name", "part", "device"):
        if not isinstance(d[k], str) or not d[k]:
            raise ValueError(f"{k!r} must be a non-empty string")
    for k, fields in (("clock", ("pin", "iostandard", "board_name", "source")),
                      ("reset", ("pin", "iostandard", "board_name", "source"))):
        for f in fields:
            if not isinstance(d[k][f], str):
                raise ValueError(f"{k}.{f} must be a string")
    if not isinstance(d["clock"]["period_ns"], (int, float)) or isinstance(d["clock"]["period_ns"], bool) \
            or d["clock"]["period_ns"] <= 0:
        raise ValueError("clock.period_ns must be a positive number")
    if not isinstance(d["reset"]["active_low"], bool):
        raise ValueError("reset.active_low must be true or false")
    bd, wr = d["block_design"], d["block_design_wrapper"]
    if (bd is None) != (wr is None):
        raise ValueError("block_design and block_design_wrapper: both template names or both null")
    for t in (bd, wr):
        if t is not None and (not isinstance(t, str) or not t.endswith(".j2") or "/" in t
                              or not (folder / t).is_file()):
            raise ValueError(f"template {t!r}: not a .j2 file beside the board file")
    if bd is not None and not d.get("hwicap_base"):
        raise ValueError("a block design needs hwicap_base")


def load_board(name: str) -> Board:
    """Load board ``name`` (bundled, ``flow/boards/<name>.json``).

    Raises:
        BackendError: unknown board (the message lists the boards) or malformed board file.
    """
    p = BOARDS_DIR / f"{name}.json"
    if not p.is_file():
        raise BackendError(f"unknown board {name!r}; boards: {', '.join(board_names())}")
    try:
        d = load_json_file(p, JSON_LIMIT)
        _check_board(d, p.parent)
        base = d.get("hwicap_base")
        return Board(d["name"], d["part"], d["device"], d["clock"], d["reset"],
                     int(base, 0) if base else None, d["block_design"], d["block_design_wrapper"], p)
    except (ValueError, KeyError, TypeError) as e:
        raise BackendError(f"{p}: malformed board file ({e})") from None


# ------------------------------------------------------------------------------ templates
@lru_cache(maxsize=None)
def template_environment():
    """The Jinja2 environment of the Vivado files.

    Template names: ``vivado/<file>.j2`` (``flow/templates/vivado/``) and ``boards/<file>.j2``
    (``flow/boards/``, named by board files). ``StrictUndefined`` (a variable the data lack is an
    error, never an empty string), ``keep_trailing_newline``, ``trim_blocks`` and ``lstrip_blocks``
    (a line holding only a ``{% ... %}`` tag leaves nothing behind), no autoescaping (Tcl, XDC and
    Verilog, not HTML).

    Raises:
        BackendError: Jinja2 is not installed.
    """
    try:
        import jinja2
    except ModuleNotFoundError:
        raise BackendError("--backend vivado needs Jinja2: pip install 'dcsflow[flow]'") from None
    loader = jinja2.PrefixLoader({"vivado": jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
                                  "boards": jinja2.FileSystemLoader(str(BOARDS_DIR))})
    return jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=True, lstrip_blocks=True, autoescape=False)


def _template_name(filename: str) -> str:
    """Template name (``vivado/...``, ``boards/...``) of a template file path, else the path."""
    for root, prefix in ((TEMPLATES_DIR, "vivado"), (BOARDS_DIR, "boards")):
        try:
            return f"{prefix}/{Path(filename).resolve().relative_to(Path(root).resolve()).as_posix()}"
        except ValueError:
            continue
    return filename


def _template_line(exc: BaseException) -> str:
    """``<template> line <n>`` of the innermost template frame of a rendering error ('' if none)."""
    where, tb = "", exc.__traceback__
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn.endswith(".j2"):
            where = f"{_template_name(fn)} line {tb.tb_lineno}"
        tb = tb.tb_next
    return where


def render(name: str, context: dict) -> str:
    """Render template ``name`` (``vivado/<file>.j2`` or ``boards/<file>.j2``) with ``context``.

    Raises:
        BackendError: one line naming the template (and line) for a missing template, a syntax
            error or a variable the context does not have.
    """
    env = template_environment()         # BackendError if Jinja2 is missing
    import jinja2

    try:
        return env.get_template(name).render(context)
    except jinja2.TemplateNotFound as e:
        raise BackendError(f"template {name}: not found ({e.name})") from None
    except jinja2.TemplateSyntaxError as e:
        where = _template_name(e.filename) if e.filename else name
        raise BackendError(f"template {where} line {e.lineno}: {e.message}") from None
    except jinja2.TemplateError as e:
        where = _template_line(e) or name
        inside = "" if where.startswith(f"{name} ") or where == name else f" (included by {name})"
        why = " (the data given to the template lack it)" if isinstance(e, jinja2.UndefinedError) else ""
        raise BackendError(f"template {where}{inside}: {e.message}{why}") from None


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


def template_context(top: str, module: dict, plan: list[dict], board: Board | None, part: str,
                     param_port: str | None = None, transport: str = "hwicap") -> dict:
    """The variables of the Vivado templates (every template takes what it needs from them).

    ``version`` (dcsflow's), ``top``, ``part`` (Vivado part), ``board`` (:class:`Board` or None),
    ``period_ns`` (the board's clock period, 10.0 without a board), ``clock_port``
    (:func:`clock_port`), ``reset_port`` (:func:`reset_port`), ``reset_port_active_low`` (the reset
    port's name ends in ``n``), ``cells`` (:func:`plan_cells`), ``dump_format`` (of
    ``tlut_cells.json``), ``param_port`` / ``param_width`` (the block design's parameter input, or None),
    ``port_widths`` (bits of every port of ``module``, by name: e.g. the wrapper's tag width),
    ``extra_clocks`` (further clock ports, none here), ``cfglut`` (False: TLUT placement lines) and
    ``transport`` (the configuration port: ``hwicap`` or ``icap-dma``).
    """
    rst = reset_port(module)
    return {"version": __version__, "top": top, "part": part, "board": board,
            "period_ns": board.clock["period_ns"] if board else 10.0,
            "clock_port": clock_port(module), "reset_port": rst,
            "reset_port_active_low": rst.endswith("n") if rst else None,
            "cells": plan, "dump_format": DUMP_FORMAT, "param_port": param_port,
            "param_width": len(module["ports"][param_port]["bits"]) if param_port else None,
            "port_widths": {n: len(p["bits"]) for n, p in module["ports"].items()},
            "extra_clocks": [], "cfglut": False, "transport": transport}


def export_vivado(out: Path, module: dict, top: str, tluts: list, device, design_hash: str,
                  board: Board | None = None, params: list[str] | None = None, *,
                  board_ports: frozenset[str] = frozenset(), transport: str = "hwicap") -> list[str]:
    """Write ``out/vivado/`` (module docstring) for the placed TLUT implementation.

    Args:
        module: TLUT netlist module (Yosys JSON); tluts: the configuration's TLUT list
            (name, site, bel, pins); device: :class:`dcsflow.scg.device.Device`; board: optional board;
            params: the parameter input ports.
        board_ports: the ports the board's block-design wrapper drives (empty: no block design).
            ``block_design.tcl`` and the wrapper are written when the board has a block design,
            ``board_ports`` is not empty and all of them are ports of ``module``, and ``module``
            has exactly one parameter port.
        transport: ``icap-dma`` also writes the ICAP stream controller (:func:`icap_dma_top`) and
            puts it in the block design in place of the AXI HWICAP; ``hwicap``: the AXI HWICAP.
    Returns:
        paths written, relative to ``out``.
    Raises:
        BackendError: board for another device, TLUT pairs, a template variable missing, icap-dma
            on a board without a block design (no processor to read DDR for); YosysError from
            ``write_verilog``.
    """
    if board is not None and board.device != device.name:
        raise BackendError(f"board {board.name} carries {board.device}, the build targets {device.name} "
                           f"(use --device {board.device})")
    if transport == "icap-dma" and board is not None and board.block_design is None:
        raise BackendError(f"--transport icap-dma: board {board.name} has no block design (no processor and DDR for "
                           "the ICAP stream controller to read the rekey from); use partial bitstreams there")
    part = board.part if board else device_facts(device.name).vivado_part
    plan = plan_cells(module, tluts)
    pports = [p for p in (params or []) if p in module["ports"]]
    with_bd = (board is not None and board.block_design is not None and bool(board_ports)
               and set(board_ports) <= set(module["ports"]) and len(pports) == 1)
    ctx = template_context(top, module, plan, board, part, pports[0] if with_bd else None, transport)
    # render everything before writing anything: a template error leaves no half-written folder
    texts = {"constraints.xdc": render("vivado/constraints.xdc.j2", ctx),
             "tlut_placement.xdc": render("vivado/tlut_placement.xdc.j2", ctx),
             "build.tcl": render("vivado/build.tcl.j2", ctx),
             "dump_tluts.tcl": render("vivado/dump_tluts.tcl.j2", ctx)}
    if with_bd:
        texts["block_design.tcl"] = render(f"boards/{board.block_design}", ctx)
        texts[board.wrapper_name] = render(f"boards/{board.block_design_wrapper}", ctx)
    if transport == "icap-dma":
        texts.update(zip(ICAP_DMA_FILES, (controller_text(), icap_dma_top(tluts, device, design_hash, top))))
    vdir = Path(out) / "vivado"
    vdir.mkdir(parents=True, exist_ok=True)
    mod = export_module(module, plan)
    with tempfile.TemporaryDirectory(prefix="dcsflow-vivado-") as tmp:
        t = Path(tmp)
        (t / "in.json").write_text(json.dumps({"creator": "dcsflow", "modules": {top: mod}}))
        run_script("read_json in.json\nwrite_verilog -noexpr netlist.v\n", t, "export")   # runs in t
        text = (t / "netlist.v").read_text()
    write_text_atomic(vdir / "netlist.v", f"// dcsflow {__version__}: {top} for Vivado, design_hash={design_hash}\n"
                      + text)
    for n in ("constraints.xdc", "tlut_placement.xdc", "build.tcl", "dump_tluts.tcl"):
        write_text_atomic(vdir / n, texts[n])
    doc = {"format": PLAN_FORMAT, "version": 1, "device": device.name, "idcode": f"0x{device.idcode:08X}",
           "part": part, "board": board.name if board else None,
           "hwicap_base": f"0x{board.hwicap_base:08X}" if board and board.hwicap_base is not None else None,
           "design_hash": design_hash, "top": top, "transport": transport,
           "cells": plan}
    write_text_atomic(vdir / "tluts.json", json.dumps(doc, indent=1) + "\n")
    files = ["vivado/netlist.v", "vivado/constraints.xdc", "vivado/tlut_placement.xdc", "vivado/build.tcl",
             "vivado/dump_tluts.tcl", "vivado/tluts.json"]
    if with_bd:
        write_text_atomic(vdir / "block_design.tcl", texts["block_design.tcl"])
        write_text_atomic(vdir / board.wrapper_name, texts[board.wrapper_name])
        files += ["vivado/block_design.tcl", f"vivado/{board.wrapper_name}"]
    for n in ICAP_DMA_FILES:      # an earlier icap-dma export of this folder is not this build's
        if transport == "icap-dma":
            write_text_atomic(vdir / n, texts[n])
            files.append(f"vivado/{n}")
        else:
            (vdir / n).unlink(missing_ok=True)
    return files


def icap_dma_top(tluts: list, device, design_hash: str, top: str) -> str:
    """``dcs_icap_dma_top.v`` of a build (:func:`dcsflow.flow.icapdma.top_verilog`): its BUILD_ID
    (:func:`dcsflow.scg.icapdma.build_id_of`), its words per rekey (the runs of the frames its
    TLUTs' LUT INIT bits lie in, :func:`dcsflow.scg.driver.rekey_icap_words`, as the runtime
    counts them) and the device's IDCODE."""
    from dcsflow.scg.bitstream import frame_runs
    from dcsflow.scg.driver import rekey_icap_words
    from dcsflow.scg.icapdma import build_id_of

    fars = {far for t in tluts for far, _w, _b in device.lut_bits(t["site"], t["bel"])}
    words = rekey_icap_words(frame_runs(device, fars), device.idcode)
    return top_verilog(build_id_of(design_hash), words, device.idcode,
                       f"dcsflow {__version__}: for {top}, design_hash={design_hash}")


#: the notes of a ``cfglut5`` export, also printed by ``dcsflow build --backend vivado``
CFGLUT_NOTE = ("constraints.xdc holds the clock only (and a board's pins); no frame map, no TLUT placement "
               "or pin locks: the CFGLUT5s are ordinary SLICEM logic to Vivado, loaded by the loader")


def cfglut_template_context(ctx: dict, top: str, handshake=None) -> dict:
    """``ctx`` (:func:`template_context`) with the keys of a ``cfglut5`` export: ``cfglut``,
    ``link_top`` (``<top>_cfglut``), ``sources`` (``netlist.v`` for ``core.v``, then the loader, the
    gate and ``top.v``), the handshake's clock port and, without a handshake, ``cfg_clk`` as a further
    clock."""
    from .. import cfglut

    files = ["netlist.v" if n == "core.v" else n for n in cfglut.SOURCE_FILES]
    return {**ctx, "cfglut": True, "link_top": f"{top}_cfglut", "sources": files,
            "clock_port": handshake.clock if handshake else ctx["clock_port"],
            "extra_clocks": [] if handshake else ["cfg_clk"]}


def export_vivado_cfglut(out: Path, module: dict, top: str, device, design_hash: str, board: Board | None = None,
                         chain_luts: int | None = None, handshake=None) -> list[str]:
    """Write ``out/vivado/`` for a ``cfglut5`` build (module docstring): the CFGLUT5 netlist and the
    loader, gate and top of :func:`dcsflow.flow.cfglut.sources` (the same chains as ``cfglut.json``),
    ``constraints.xdc`` with the clock only, ``build.tcl`` (top ``<top>_cfglut``) and ``README.txt``.

    Args:
        module: the TLUT netlist module (Yosys JSON; TLUTs LUT1..LUT5 with ``dcs_tlut``); chain_luts:
            CFGLUT5s per chain (None: :func:`dcsflow.flow.cfglut.choose_chain_luts`); handshake:
            the design's input handshake (:class:`dcsflow.flow.design.Handshake`) or None.
    Returns:
        paths written, relative to ``out``.
    Raises:
        BackendError: board for another device, a template variable missing; CfglutBuildError: a
            TLUT wider than a CFGLUT5, no TLUT, a handshake the top does not have.
    """
    from .. import cfglut

    if board is not None and board.device != device.name:
        raise BackendError(f"board {board.name} carries {board.device}, the build targets {device.name} "
                           f"(use --device {board.device})")
    part = board.part if board else device_facts(device.name).vivado_part
    layout = cfglut.module_layout(module, design_hash, chain_luts)
    srcs = cfglut.sources(module, top, layout, handshake)
    names = {"core.v": "netlist.v"}
    ctx = cfglut_template_context(template_context(top, module, [], board, part), top, handshake)
    texts = {"constraints.xdc": render("vivado/constraints.xdc.j2", ctx),
             "build.tcl": render("vivado/cfglut_build.tcl.j2", ctx),
             "README.txt": render("vivado/cfglut_README.txt.j2", ctx)}
    vdir = Path(out) / "vivado"
    vdir.mkdir(parents=True, exist_ok=True)
    head = f"// dcsflow {__version__}: {top} with CFGLUT5 TLUTs for Vivado, design_hash={design_hash}\n"
    for n in cfglut.SOURCE_FILES:
        write_text_atomic(vdir / names.get(n, n), (head if n == "core.v" else "") + srcs[n])
    for n, text in texts.items():
        write_text_atomic(vdir / n, text)
    # files of an earlier frames export of this folder would describe another netlist
    for n in ("tlut_placement.xdc", "dump_tluts.tcl", "tluts.json", "block_design.tcl"):
        (vdir / n).unlink(missing_ok=True)
    return [f"vivado/{n}" for n in (*ctx["sources"], *texts)]
