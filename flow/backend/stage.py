"""The ``backend`` stage of ``dcsflow build``: both implementations through the built-in back end.

Reads ``tlut/netlist.json`` (TLUT implementation), ``conventional/netlist.json`` and the PPC of the
tmap stage; writes (formats in docs/formats.md, contract in the issue-6/7 build contract):
``tlut/`` and ``conv/``: ``placement.json``, ``utilization.json``, ``template.frm``, ``template.bit``;
``tlut/framemap.json``; ``backend/report.html`` with ``utilization.png`` and ``device_map.png``.
Every JSON carries ``design_hash`` and ``idcode``.
"""

from __future__ import annotations

import json
from pathlib import Path

from dcsflow.scg.bitstream import header_part, to_bit, write_full
from dcsflow.scg.device import get_device
from dcsflow.scg.ppc import Ppc

from dcsflow.fileio import write_bytes_atomic, write_text_atomic
from . import BackendError, BackendRequest, get_backend
from .pack import LETTERS
from .report import html_page, plot_device_map, plot_utilization, rekey_model

PLACEMENT_FORMAT = "dcsflow-placement"
from dcsflow.scg.buildfolder import FRAMEMAP_FORMAT  # noqa: E402  (defined once, in the runtime)
IMPLS = (("tlut", "tlut/netlist.json"), ("conv", "conventional/netlist.json"))


def net_namer(module: dict):
    """Function net id -> readable name (``netnames`` of the module; ``n<id>`` otherwise; constants as is)."""
    names: dict = {}
    for name, nn in sorted(module.get("netnames", {}).items(), key=lambda kv: (kv[1].get("hide_name", 0), kv[0])):
        bits = nn["bits"]
        for i, b in enumerate(bits):
            if isinstance(b, int) and b not in names:
                names[b] = name if len(bits) == 1 else f"{name}[{i}]"
    return lambda b: names.get(b, f"n{b}") if isinstance(b, int) else (None if b is None else str(b))


def placement_doc(impl, module: dict, device, design_hash: str, namer) -> dict:
    """JSON document of a placement (format ``dcsflow-placement`` v1, docs/formats.md)."""
    packing, placement = impl.packing, impl.placement
    slices, cells = [], {}
    for si, s in enumerate(packing.slices):
        site = placement.sites[si]
        luts = []
        for li, ls in enumerate(s.luts):
            if ls is None:
                continue
            bel = f"{LETTERS[li]}6LUT"
            e = {"bel": bel, "kind": ls.kind, "o6": ls.o6, "o5": ls.o5,
                 "nets": [x if isinstance(x, int) else str(x) for x in ls.pins],
                 "pins": [namer(x) for x in ls.pins]}
            if ls.feeds:
                e["feeds"] = list(ls.feeds)
            if ls.kind == "const":
                e["value"] = ls.const_value
            luts.append(e)
            if ls.o6:
                cells[ls.o6] = f"{site}/{bel}"
            if ls.o5:
                cells[ls.o5] = f"{site}/{LETTERS[li]}5LUT"
        for f, bel in s.ffs:
            cells[f] = f"{site}/{bel}"
        if s.carry:
            cells[s.carry] = f"{site}/CARRY4"
        for m, bel in zip(s.muxf7, ("F7AMUX", "F7BMUX")):
            if m:
                cells[m] = f"{site}/{bel}"
        if s.muxf8:
            cells[s.muxf8] = f"{site}/F8MUX"
        slices.append({"site": site, "luts": luts, "ffs": [list(x) for x in s.ffs],
                       "control_set": list(s.control_set) if s.control_set else None,
                       "carry": s.carry, "muxf7": s.muxf7, "muxf8": s.muxf8, "tlut": s.tlut,
                       "chain": list(s.chain) if s.chain else None})
    return {"format": PLACEMENT_FORMAT, "version": 1, "device": device.name, "idcode": f"0x{device.idcode:08X}",
            "design_hash": design_hash, "pin_order": "I<q> on A<q+1>; LUT6_2: union of inputs on A1..A5, A6 = 1",
            "seed": placement.seed, "hpwl": placement.hpwl, "slices": slices, "cells": cells,
            "io_cells": packing.io_cells}


def run_backend(out: Path, state: dict, device_name: str = "xc7z020", seed: int = 1, step=lambda s: None,
                backend: str = "builtin", tlut_pairs: bool = False, board: str | None = None) -> dict:
    """Run the back end on both implementations of the build folder ``out``; returns the summary
    stored as ``report["backend"]`` and lists written files in ``state["backend_files"]``.

    ``backend="vivado"`` (optionally with ``board``) also writes ``vivado/`` (:mod:`.vivado`).

    Raises:
        BackendError: inputs of earlier stages missing, unknown board, board of another device;
            PackError/PlaceError from the stages.
    """
    out = Path(out)
    dev = get_device(device_name)
    be = get_backend(backend)
    board_obj = None
    if board is not None:
        from .vivado import load_board

        if be.name != "vivado":
            raise BackendError("--board needs --backend vivado")
        board_obj = load_board(board)
    top = state.get("top")
    design_hash = state.get("design_hash")
    idcode = f"0x{dev.idcode:08X}"
    ppc_path = out / state.get("ppc_file", "tmap/ppc.aig")
    if not ppc_path.exists():
        raise BackendError(f"{ppc_path} missing: run the 'tmap' stage first (--from tmap)")
    ppc = Ppc.load(ppc_path)
    ppc_zero = ppc.evaluate({p: 0 for p in ppc.ports}) if ppc.inputs else ppc.evaluate({})
    files = []
    summary = {"backend": be.name, "device": dev.name, "idcode": idcode, "design_hash": design_hash, "seed": seed,
               "tlut_pairs": tlut_pairs}
    impls = {}
    modules = {}
    for impl_name, src in IMPLS:
        p = out / src
        if not p.exists():
            raise BackendError(f"{p} missing: run the earlier stages first")
        module = json.loads(p.read_text())["modules"][top]
        modules[impl_name] = module
        step(f"{impl_name}: pack, place ({dev.name}), configure")
        namer = net_namer(module)
        impl = be.implement(BackendRequest(module, dev, seed, ppc_zero if impl_name == "tlut" else None, namer,
                                           tlut_pairs=tlut_pairs))
        impls[impl_name] = impl
        d = out / impl_name
        d.mkdir(parents=True, exist_ok=True)
        write_text_atomic(d / "placement.json", json.dumps(placement_doc(impl, module, dev, design_hash, namer)) + "\n")
        util = {**impl.utilization, "hpwl": impl.placement.hpwl, "hpwl_initial": impl.placement.hpwl_initial,
                "seconds": {k: round(v, 3) for k, v in impl.seconds.items()}}
        write_text_atomic(d / "utilization.json", json.dumps(
            {"format": "dcsflow-utilization", "version": 1, "device": dev.name, "idcode": idcode,
             "design_hash": design_hash, **util}, indent=1) + "\n")
        mem = impl.configuration.memory
        frm = mem.to_frm()
        lines = frm.split("\n", 1)
        frm = (lines[0] + f" design_hash={design_hash} logic-only\n" + lines[1])
        write_text_atomic(d / "template.frm", frm)
        step(f"{impl_name}: writing template.bit")
        label = f"{top};dcsflow-template-{impl_name};logic-only(no routing);design_hash={design_hash};idcode={idcode}"
        write_bytes_atomic(d / "template.bit", to_bit(write_full(mem), design=label, part=header_part(dev)))
        files += [f"{impl_name}/{n}" for n in ("placement.json", "utilization.json", "template.frm", "template.bit")]
        summary["tlut" if impl_name == "tlut" else "conventional"] = util
    conf = impls["tlut"].configuration
    fm = {"format": FRAMEMAP_FORMAT, "version": 1, "device": dev.name, "idcode": idcode, "design_hash": design_hash,
          "ppc_outputs": ppc.num_outputs, "unused_pins": "repeat", "entries": [list(e) for e in conf.entries],
          "tluts": conf.tluts}
    write_text_atomic(out / "tlut" / "framemap.json", json.dumps(fm) + "\n")
    files.append("tlut/framemap.json")
    if be.name == "vivado":
        from .vivado import export_vivado

        step("vivado: netlist, constraints, Tcl")
        files += export_vivado(out, modules["tlut"], top, conf.tluts, dev, design_hash, board_obj,
                               list(state.get("params") or {}))
        summary["board"] = board
    t, c = summary["tlut"], summary["conventional"]
    summary["slices_saved"] = c["slices"] - t["slices"]
    summary["slices_saved_percent"] = round(100.0 * (c["slices"] - t["slices"]) / max(1, c["slices"]), 2)
    summary["rekey"] = rekey_model(t["tluts"], conf.tlut_fars, dev)
    summary["tlut_frame_sets"] = impls["tlut"].placement.tlut_frame_sets
    step("report: plots and HTML")
    bdir = out / "backend"
    bdir.mkdir(exist_ok=True)
    plot_utilization(summary, bdir / "utilization.png")
    tl_impl = impls["tlut"]
    used = tl_impl.placement.sites
    tls = [used[i] for i, s in enumerate(tl_impl.packing.slices) if s.tlut]
    plot_device_map(dev, used, tls, bdir / "device_map.png", f"{top}: TLUT implementation on {dev.name}")
    write_text_atomic(bdir / "report.html", html_page(f"{top}: back end on {dev.name}", summary,
                                                      ["utilization.png", "device_map.png"]))
    files += ["backend/report.html", "backend/utilization.png", "backend/device_map.png"]
    state["backend_files"] = files
    return summary
