"""The ``backend`` stage of ``dcsflow build``: both implementations through the built-in back end.

Reads ``tlut/netlist.json`` (TLUT implementation), the conventional candidates'
``baselines/<name>/netlist.json`` (:mod:`dcsflow.flow.baselines`) and the PPC of the tmap stage;
every candidate is packed and placed the same way, and :func:`dcsflow.flow.baselines.choose` picks
the conventional implementation. Writes (formats in docs/formats.md, the build folder's contract:
docs/architecture.md): ``tlut/`` and ``conv/`` (the chosen candidate): ``placement.json``,
``utilization.json``, ``template.frm``, ``template.bit``; ``baselines/<name>/utilization.json``
for every candidate; ``tlut/framemap.json``. (The build's page, ``report.html`` with the figures,
is drawn by the outputs stage from these files: :mod:`dcsflow.flow.reportpage`.) Every JSON carries
``design_hash`` and ``idcode``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from dcsflow.scg.bitstream import header_part, to_bit, write_full
from dcsflow.scg.device import get_device
from dcsflow.scg.ppc import Ppc

from dcsflow import steps
from dcsflow.fileio import NETLIST_LIMIT, load_json_file, write_bytes_atomic, write_text_atomic

from ..cache import cached
from ..records import top_module
from . import BackendError, BackendRequest, ExportJob, get_backend
from .pack import LETTERS
from .report import rekey_model

PLACEMENT_FORMAT = "dcsflow-placement"
from dcsflow.scg.buildfolder import FRAMEMAP_FORMAT  # noqa: E402  (defined once, in the runtime)
#: the conventional candidates when the caller names none: Yosys's own mapping alone
DEFAULT_BASELINES = (("yosys-abc", "baselines/yosys-abc/netlist.json"),)


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
            if ls.kind == "ram":
                continue
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
        if s.ram:
            cells[s.ram] = f"{site}/{LETTERS[min(i for i, x in enumerate(s.luts) if x is not None)]}6LUT"
        slices.append({"site": site, "luts": luts, "ffs": [list(x) for x in s.ffs],
                       "control_set": list(s.control_set) if s.control_set else None,
                       "carry": s.carry, "muxf7": s.muxf7, "muxf8": s.muxf8, "tlut": s.tlut,
                       "chain": list(s.chain) if s.chain else None, "ram": s.ram,
                       **({"cfglut": True} if s.cfglut else {})})
    return {"format": PLACEMENT_FORMAT, "version": 1, "device": device.name, "idcode": f"0x{device.idcode:08X}",
            "design_hash": design_hash, "pin_order": "I<q> on A<q+1>; LUT6_2: union of inputs on A1..A5, A6 = 1",
            "seed": placement.seed, "hpwl": placement.hpwl, "slices": slices, "cells": cells,
            "io_cells": packing.io_cells}


@dataclass
class BackendOutcome:
    """Output of :func:`run_backend`: ``summary`` (what report.json carries under ``backend``,
    docs/formats.md) and ``files`` written (relative to the build folder)."""

    summary: dict
    files: list = field(default_factory=list)


@cached(inputs=lambda out, src, *a, **k: [src])
def pack_job(out: Path, src: str, top: str, backend: str, tlut_pairs: bool, lut_size: int = 6,
             tlut: str = "frames") -> tuple:
    """Job: the packing of the netlist ``out/src`` (module ``top``) by back end ``backend`` for LUT
    size ``lut_size`` and TLUT realization ``tlut``. Returns (packing, its utilization, seconds)."""
    import time

    t0 = time.perf_counter()
    module = _load_module(Path(out), src, top)
    packing = get_backend(backend).pack(BackendRequest(module, None, tlut_pairs=tlut_pairs, lut_size=lut_size,
                                                       tlut=tlut))
    return packing, packing.utilization(), time.perf_counter() - t0


def pack_candidate_job(out: Path, run, top: str, backend: str, tlut_pairs: bool, lut_size: int = 6) -> tuple | None:
    """Job: :func:`pack_job` of a conventional candidate as soon as it is made (``run``: its
    :class:`dcsflow.flow.baselines.BaselineRun`), so that the back end finds it packed. Returns
    (its netlist path relative to ``out``, packing, utilization, seconds), or None when the
    candidate has no netlist (skipped or failed)."""
    if not run.netlist:
        return None
    return (run.netlist, *pack_job(out, run.netlist, top, backend, tlut_pairs, lut_size))


@cached(inputs=lambda out, src, *a, **k: [src],
        key=lambda out, src, top, backend, device_name, seed, packing, pack_options=(): [
            src, top, backend, device_name, seed, list(pack_options)])
def place_job(out: Path, src: str, top: str, backend: str, device_name: str, seed: int, packing,
              pack_options: tuple = ()) -> tuple:
    """Job: the placement of ``packing`` (of the netlist ``out/src``) on ``device_name``. Returns
    (placement, seconds). ``pack_options``: the :func:`pack_job` options the packing was made with
    (``tlut_pairs``, ``lut_size``, ``tlut``; the job cache's key: the packing follows from them and
    the netlist)."""
    import time

    t0 = time.perf_counter()
    module = _load_module(Path(out), src, top)
    placement = get_backend(backend).place(BackendRequest(module, get_device(device_name), seed), packing)
    return placement, time.perf_counter() - t0


def _load_module(out: Path, src: str, top: str) -> dict:
    p = out / src
    if not p.exists():
        raise BackendError(f"{p} missing: run the earlier stages first")
    return top_module(load_json_file(p, NETLIST_LIMIT), top, p, BackendError)


def run_backend(out: Path, *, top: str, design_hash: str, ppc_path: Path, params: list[str],
                device_name: str, seed: int = 1, backend: str = "builtin", board: str | None = None,
                tlut_pairs: bool = False, board_ports: frozenset[str] = frozenset(),
                baselines: list | tuple = DEFAULT_BASELINES, jobs=None,
                step: Callable[[str], None] = lambda s: None, lut_size: int = 6, tlut: str = "frames",
                chain_luts: int | None = None, handshake=None, packed: dict | None = None,
                transport: str = "hwicap", depth_limit: int | None = None) -> BackendOutcome:
    """Run the back end on the TLUT implementation and every conventional candidate of the build
    folder ``out`` (module docstring): every netlist is packed, the conventional implementation
    chosen by the packings' slice counts (:func:`dcsflow.flow.baselines.choose`), and the TLUT
    implementation and the chosen candidate are placed and configured (the other candidates'
    utilization has no placement figures: ``placed`` false).

    Args:
        top: top module; design_hash: the build's; ppc_path: the PPC AIGER of the TLUT build;
        params: parameter port names; device_name: target part; seed: placer seed; backend: a
        registered back end (:func:`get_backend`); board: ``--board`` (the back end's
        :meth:`~.Backend.load_board` decides); tlut_pairs: two small TLUTs may share a LUT6_2 site;
        board_ports: ports a board wrapper drives (design description); baselines: tuples of the
        candidate name, its netlist path relative to ``out`` and optionally its finished LUT depth
        (computed when missing or None), the reference
        (:data:`dcsflow.flow.baselines.REFERENCE`) among them; jobs: the build's job runner
        (:class:`dcsflow.flow.jobs.Jobs`; None: in turn); step: progress callback; lut_size: the
        build's LUT size (below 6 one LUT per LUT site, :func:`dcsflow.flow.backend.pack.pack`);
        tlut: the TLUT realization (``cfglut5``: the TLUTs are CFGLUT5s in SLICEMs; the summary's
        ``tlut`` gains ``cfglut_slices`` and ``device_slicem``); chain_luts / handshake: a
        ``cfglut5`` build's chain length and the design's input handshake (for the export);
        transport: the configuration port of the export (``hwicap`` or ``icap-dma``);
        packed: candidate name -> future of :func:`pack_candidate_job` started earlier with the same
        back end, ``tlut_pairs`` and ``lut_size`` (the ``tmap`` stage packs each candidate as soon
        as it is made); a candidate without one, or whose future holds another netlist path or
        None, is packed here; depth_limit: the reference's LUT depth when the reference is not
        among the candidates (``BuildOptions.depth_bounds``).
    Raises:
        BackendError: inputs of earlier stages missing, unknown back end or board, a board the back
            end does not use, board of another device, a TLUT realization the back end cannot
            place; PackError/PlaceError from the stages (PlaceError: the CFGLUT5s of a
            ``cfglut5`` build do not fit the device's SLICEMs).
    """
    from ..jobs import Jobs

    out = Path(out)
    jobs = jobs if jobs is not None else Jobs(1)
    dev = get_device(device_name)
    be = get_backend(backend)
    board_obj = be.load_board(board)
    if tlut not in be.tlut_kinds:
        raise BackendError(f"--tlut {tlut}: back end {be.name} cannot place it (it places {', '.join(be.tlut_kinds)})")
    ppc, ppc_zero = _load_ppc(ppc_path)
    summary = {"backend": be.name, "device": dev.name, "idcode": f"0x{dev.idcode:08X}", "design_hash": design_hash,
               "seed": seed, "tlut_pairs": tlut_pairs}
    ctx = _Run(out, top, design_hash, dev, be, seed, tlut_pairs, jobs, step, lut_size, tlut, depth_limit)
    step(f"packing {len(baselines) + 1} netlists, placing ({dev.name})")
    f_tpack = jobs.submit("pack tlut", pack_job, out, TLUT_NETLIST, top, be.name, tlut_pairs, lut_size, tlut,
                          priority=1)
    f_tplace = jobs.submit("place tlut", _place_after, out, TLUT_NETLIST, top, be.name, dev.name, seed, f_tpack,
                           (tlut_pairs, lut_size, tlut), priority=1)
    chosen, cands, files = _choose_conventional(ctx, baselines, packed or {})
    tl_module, tl_impl, tl_namer = _finish_tlut(ctx, f_tpack, f_tplace, ppc_zero)
    files += _write_implementation(out / "tlut", "tlut", tl_impl, tl_module, dev, design_hash, top, tl_namer, step)
    summary["tlut"] = _tlut_utilization(tl_impl, dev, tlut)
    cutil, more = _finish_conventional(ctx, chosen, cands)
    files += more
    summary["conventional"] = {**cutil, "baseline": chosen}
    summary["baselines"] = {n: {**(cutil if n == chosen else c["util"]), "eligible": c["eligible"], "chosen": n == chosen}
                            for n, c in cands.items()}
    conf = tl_impl.configuration
    files.append(_write_framemap(out, conf, dev, design_hash, ppc))
    step(f"{be.name}: export")
    files += be.export(ExportJob(out, tl_module, top, conf.tluts, dev, design_hash, board_obj, list(params),
                                 frozenset(board_ports), tlut, chain_luts, handshake, transport))
    if board_obj is not None:
        summary["board"] = board
    if transport != "hwicap":
        summary["transport"] = transport
    _add_savings(summary, tl_impl, dev, tlut)
    return BackendOutcome(summary, files)


def _load_ppc(ppc_path: Path) -> tuple:
    """The TLUT build's PPC (:class:`dcsflow.scg.ppc.Ppc`) and its outputs with every parameter 0.

    Raises:
        BackendError: ``ppc_path`` missing.
    """
    if not ppc_path.exists():
        raise BackendError(f"{ppc_path} missing: run the 'tmap' stage first (--from tmap)")
    ppc = Ppc.load(ppc_path)
    ppc_zero = ppc.evaluate({p: 0 for p in ppc.ports}) if ppc.inputs else ppc.evaluate({})
    return ppc, ppc_zero


def _tlut_utilization(tl_impl, dev, tlut: str) -> dict:
    """The TLUT implementation's utilization for the back end's summary; a ``cfglut5`` build's also
    gives the device's SLICEM count (``device_slicem``)."""
    util = _utilization(tl_impl)
    if tlut == "cfglut5":
        from .place import device_slicems

        util["device_slicem"] = device_slicems(dev)
    return util


def _add_savings(summary: dict, tl_impl, dev, tlut: str) -> None:
    """Add to the back end's summary the slices the TLUT implementation saves against the chosen
    conventional one (count and percent), the modelled frame rekey (frames builds only: a
    ``cfglut5`` build rekeys through its loader) and the TLUTs' frame sets."""
    t, c = summary["tlut"], summary["conventional"]
    summary["slices_saved"] = c["slices"] - t["slices"]
    summary["slices_saved_percent"] = round(100.0 * (c["slices"] - t["slices"]) / max(1, c["slices"]), 2)
    if tlut != "cfglut5":   # a cfglut5 build rekeys through its loader, not the frames (report.json cfglut)
        summary["rekey"] = rekey_model(t["tluts"], tl_impl.configuration.tlut_fars, dev)
    summary["tlut_frame_sets"] = tl_impl.placement.tlut_frame_sets


#: the TLUT build's finished netlist in the build folder
TLUT_NETLIST = "tlut/netlist.json"


@dataclass
class _Run:
    """What the steps of :func:`run_backend` share."""

    out: Path
    top: str
    design_hash: str
    dev: object
    be: object
    seed: int
    tlut_pairs: bool
    jobs: object
    step: Callable[[str], None]
    lut_size: int = 6
    tlut: str = "frames"
    depth_limit: int | None = None


def _choose_conventional(r: _Run, baselines, packed: dict) -> tuple[str, dict, list[str]]:
    """Pack every candidate (jobs; ``packed``: the packings started earlier, see
    :func:`run_backend`), choose the conventional implementation by slices at no greater LUT depth
    than the reference (:func:`dcsflow.flow.baselines.choose`), start its placement (job) and write
    the other candidates' utilization. Returns (chosen name, name -> {packing, src, util, eligible,
    and for the chosen ``placing``: its placement's future}, files written)."""
    from ..baselines import choose, how
    from ..netlist import lut_depth

    def early(name: str, src: str):
        f = packed.get(name)
        if f is None or f.cancelled() or f.exception() is not None:
            return None
        got = f.result()
        return got[1:] if got is not None and got[0] == src else None

    f_packs = {}
    for b in baselines:
        if b[0] not in packed:
            f_packs[b[0]] = r.jobs.submit(f"pack baseline {b[0]}", pack_job, r.out, b[1], r.top, r.be.name,
                                          r.tlut_pairs, r.lut_size)
    cands: dict = {}
    for b in baselines:
        name, src = b[0], b[1]
        depth = b[2] if len(b) > 2 and b[2] is not None else lut_depth(_load_module(r.out, src, r.top))
        if name in packed:       # started earlier; packed here when that was for no (or another) netlist
            packing, util, secs = early(name, src) or pack_job(r.out, src, r.top, r.be.name, r.tlut_pairs,
                                                               r.lut_size)
        else:
            packing, util, secs = f_packs[name].result()
        cands[name] = {"packing": packing, "src": src,
                       "util": {**util, "depth": depth, "how": how(name, r.lut_size), "placed": False,
                                "seconds": {"pack": round(secs, 3)}}}
    chosen, eligible = choose({n: c["util"] for n, c in cands.items()}, depth_limit=r.depth_limit)
    for n, c in cands.items():
        c["eligible"] = eligible[n]
    c = cands[chosen]
    c["placing"] = r.jobs.submit(f"place baseline {chosen}", place_job, r.out, c["src"], r.top, r.be.name,
                                 r.dev.name, r.seed, c["packing"], (r.tlut_pairs, r.lut_size, "frames"), priority=1)
    files = [_write_candidate(r.out, n, c["util"], r.dev, r.design_hash) for n, c in cands.items() if n != chosen]
    return chosen, cands, files


def _finish_tlut(r: _Run, f_pack, f_place, ppc_zero) -> tuple[dict, object, Callable]:
    """The TLUT implementation configured from its packing and placement (jobs): (module,
    implementation, its net namer)."""
    module = _load_module(r.out, TLUT_NETLIST, r.top)
    packing, _, tsecs = f_pack.result()
    placement, psecs = f_place.result()
    with steps.step("configure tlut"):
        namer = net_namer(module)
        impl = r.be.implement(BackendRequest(module, r.dev, r.seed, ppc_zero, namer, tlut_pairs=r.tlut_pairs,
                                             lut_size=r.lut_size, tlut=r.tlut),
                              packing, placement, {"pack": tsecs, "place": psecs})
    return module, impl, namer


def _finish_conventional(r: _Run, chosen: str, cands: dict) -> tuple[dict, list[str]]:
    """The chosen candidate configured from its packing and placement, its files written (``conv/``
    and its utilization). Returns (its utilization, files written)."""
    c = cands[chosen]
    module = _load_module(r.out, c["src"], r.top)
    placement, psecs = c["placing"].result()
    with steps.step(f"configure baseline {chosen}"):
        namer = net_namer(module)
        impl = r.be.implement(BackendRequest(module, r.dev, r.seed, None, namer, tlut_pairs=r.tlut_pairs,
                                             lut_size=r.lut_size),
                              c["packing"], placement, {"pack": c["util"]["seconds"]["pack"], "place": psecs})
    cutil = {**_utilization(impl), "depth": c["util"]["depth"], "how": c["util"]["how"]}
    files = [_write_candidate(r.out, chosen, cutil, r.dev, r.design_hash)]
    files += _write_implementation(r.out / "conv", "conv", impl, module, r.dev, r.design_hash, r.top, namer, r.step)
    return cutil, files


def _write_framemap(out: Path, conf, dev, design_hash: str, ppc) -> str:
    """``tlut/framemap.json`` (format ``dcsflow-framemap``, docs/formats.md) of the TLUT
    configuration ``conf``; returns its path relative to ``out``."""
    fm = {"format": FRAMEMAP_FORMAT, "version": 1, "device": dev.name, "idcode": f"0x{dev.idcode:08X}",
          "design_hash": design_hash, "ppc_outputs": ppc.num_outputs, "unused_pins": "repeat",
          "entries": [list(e) for e in conf.entries], "tluts": conf.tluts}
    write_text_atomic(out / "tlut" / "framemap.json", json.dumps(fm) + "\n")
    return "tlut/framemap.json"


def _place_after(out: Path, src: str, top: str, backend: str, device_name: str, seed: int, packed: tuple,
                 pack_options: tuple = ()) -> tuple:
    """Job: :func:`place_job` of the packing in ``packed`` (the result of :func:`pack_job` with
    ``pack_options``)."""
    return place_job(out, src, top, backend, device_name, seed, packed[0], pack_options)


def _write_candidate(out: Path, name: str, util: dict, dev, design_hash: str) -> str:
    """``baselines/<name>/utilization.json``; returns its path relative to ``out``."""
    d = out / "baselines" / name
    d.mkdir(parents=True, exist_ok=True)
    write_text_atomic(d / "utilization.json", json.dumps(
        {"format": "dcsflow-utilization", "version": 1, "device": dev.name, "idcode": f"0x{dev.idcode:08X}",
         "design_hash": design_hash, "baseline": name, **util}, indent=1) + "\n")
    return f"baselines/{name}/utilization.json"


def _utilization(impl) -> dict:
    return {**impl.utilization, "hpwl": impl.placement.hpwl, "hpwl_initial": impl.placement.hpwl_initial,
            "seconds": {k: round(v, 3) for k, v in impl.seconds.items()}}


def _write_implementation(d: Path, impl_name: str, impl, module: dict, dev, design_hash: str, top: str, namer,
                          step) -> list[str]:
    """``placement.json``, ``utilization.json``, ``template.frm`` and ``template.bit`` of one
    implementation into ``d``; returns their paths relative to the build folder."""
    idcode = f"0x{dev.idcode:08X}"
    d.mkdir(parents=True, exist_ok=True)
    write_text_atomic(d / "placement.json", json.dumps(placement_doc(impl, module, dev, design_hash, namer)) + "\n")
    write_text_atomic(d / "utilization.json", json.dumps(
        {"format": "dcsflow-utilization", "version": 1, "device": dev.name, "idcode": idcode,
         "design_hash": design_hash, **_utilization(impl)}, indent=1) + "\n")
    mem = impl.configuration.memory
    frm = mem.to_frm()
    lines = frm.split("\n", 1)
    frm = (lines[0] + f" design_hash={design_hash} logic-only\n" + lines[1])
    write_text_atomic(d / "template.frm", frm)
    step(f"{impl_name}: writing template.bit")
    label = f"{top};dcsflow-template-{impl_name};logic-only(no routing);design_hash={design_hash};idcode={idcode}"
    write_bytes_atomic(d / "template.bit", to_bit(write_full(mem), design=label, part=header_part(dev)))
    return [f"{impl_name}/{n}" for n in ("placement.json", "utilization.json", "template.frm", "template.bit")]
