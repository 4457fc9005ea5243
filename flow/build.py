"""``dcsflow build``: the TLUT implementation and the conventional baseline of one design.

Labelled stages (like Yosys ``-run from:to``), each reading the previous stage's files in the
build folder:

- ``frontend``: Yosys up to LUT mapping (``pre.json``); gate logic -> ``frontend/logic.aag`` with the
  parameter inputs marked and parameter registers folded.
- ``tmap``: LUT mapping. TMAP maps the AIG (``tmap/``); the TLUT netlist goes back into Yosys, which
  finishes synth_xilinx (``tlut/netlist.json``). In parallel (a second Yosys process) the
  conventional baseline finishes the same ``pre.json`` with Yosys's own mapping
  (``abc -luts 2:2,3,6:5,10,20``, synth_xilinx defaults) (``conventional/netlist.json``).
- ``verify``: random-pattern simulation of TLUT netlist ∘ PPC against the input AIG (independent of
  TMAP's own ABC ``cec`` proof, whose verdict is also reported) and consistency of TLUT attributes.
- ``backend``: placeholder until the back-end issue (packing, placement, frame map).
- ``outputs``: ``template.v``, ``conventional.v``, ``ppc.aig`` + ``ppc.json``, ``build.json``
  (hashes), ``report.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import frontend as fe
from . import netlist as nl
from .designs import DesignInfo, resolve
from .errors import FlowError
from dcsflow.fileio import write_text_atomic
from dcsflow.scg.buildfolder import BUILD_FORMAT, BUILD_VERSION, sha256_file
from .mapping import map_logic

STAGES = ["frontend", "tmap", "verify", "backend", "outputs"]
REPORT_FORMAT = "dcsflow-report"


class BuildError(FlowError):
    """A build stage cannot run (missing inputs of an earlier stage, failed verification)."""


@dataclass
class BuildOptions:
    """Inputs of :func:`build`.

    design: DESIGN argument (bundled name, file or folder); top: top module; params: extra
    parameter port names; device: target device (recorded; used by the back end); out: build folder;
    start/stop: first and last stage (names in :data:`STAGES`); progress: show rich progress on stderr;
    area: TMAP area recovery without the depth bound (fewer LUTs, deeper logic); seed: placer seed;
    tlut_pairs: back end may put two small TLUTs into one LUT6_2 site (opt-in); mul_chunk:
    front end, regular-operand bits per chunk product of a multiplier with a parameter operand
    (:mod:`flow.param_arith`; 0 = leave it to synth_xilinx, e.g. a DSP48E1); more: further design
    files after ``design`` (VHDL, analysed in this order, :mod:`flow.vhdl`); backend: ``builtin`` or
    ``vivado`` (also writes ``vivado/``); board: board file name for the Vivado back end.
    """

    design: str
    out: Path
    top: str | None = None
    params: list[str] = field(default_factory=list)
    device: str = "xc7z020"
    start: str = "frontend"
    stop: str = "outputs"
    progress: bool = True
    area: bool = False
    seed: int = 1
    tlut_pairs: bool = False
    mul_chunk: int = fe.DEFAULT_CHUNK
    more: list[str] = field(default_factory=list)
    _vhdl: object = field(default=None, init=False, repr=False)   # flow.vhdl.VhdlTop of this run
    backend: str = "builtin"
    board: str | None = None


@dataclass
class BuildResult:
    """Output of :func:`build`: the build folder and the report dict (``report.json``)."""

    out: Path
    report: dict


def _design_hash(info: DesignInfo, params: list[str]) -> str:
    h = hashlib.sha256()
    for p in info.sources:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(json.dumps([info.top, info.chparams, sorted(params)], sort_keys=True).encode())
    if info.conventional_chparams:
        h.update(json.dumps(info.conventional_chparams, sort_keys=True).encode())
    return h.hexdigest()


class _Progress:
    """Status line on stderr (rich) naming the stage and the current Yosys/TMAP step, and one
    line ``build <design>: <stage> done in <s> s`` per finished stage (:mod:`flow.termout`)."""

    def __init__(self, enabled: bool, title: str):
        self.enabled = enabled
        self.title = title
        self._status = None
        self._console = None
        self._stage = ""
        self._t0 = self._ts = time.perf_counter()

    @contextmanager
    def running(self):
        if not self.enabled:
            yield self
            return
        from rich.console import Console

        self._console = Console(stderr=True)
        with self._console.status(f"{self.title}: starting") as st:
            self._status = st
            yield self
            self._stage_done()
        self._status = None

    def _stage_done(self) -> None:
        if self._stage and self._console is not None:
            from .termout import stage_done

            stage_done(self._console, self.title, self._stage, time.perf_counter() - self._ts)

    def stage(self, name: str) -> None:
        self._stage_done()
        self._stage = name
        self._ts = time.perf_counter()
        self.step("")

    def step(self, what: str) -> None:
        if self._status is not None:
            el = time.perf_counter() - self._t0
            self._status.update(f"[bold]{self.title}[/] · {self._stage} · {what} [dim]({el:.0f} s)[/]")


def _load_json(path: Path, stage: str) -> dict:
    if not path.exists():
        raise BuildError(f"{path} missing: run the '{stage}' stage first (--from {stage})")
    return json.loads(path.read_text())


def _state(out: Path) -> dict:
    p = out / "state.json"
    return json.loads(p.read_text()) if p.exists() else {}


def _save_state(out: Path, state: dict) -> None:
    write_text_atomic(out / "state.json", json.dumps(state, indent=1) + "\n")


# ------------------------------------------------------------------------------------ stages

def stage_frontend(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> None:
    """Yosys to map_luts (``frontend/pre.json``, shared by both builds) and extraction of the gate logic."""
    out = opts.out
    fdir = out / "frontend"
    if fdir.exists():
        shutil.rmtree(fdir)
    sources = _vhdl_frontend(info, opts, state, prog) if info.language == "vhdl" else info.sources
    spec = fe.DesignSpec(sources=sources, top=info.top,
                         chparams={} if info.language == "vhdl" else info.chparams, params=opts.params,
                         mul_chunk=opts.mul_chunk, conventional_chparams=info.conventional_chparams)
    prog.step("yosys synth_xilinx -run :map_luts")
    pre_path, top, t_pre = fe.synthesize_pre(spec, fdir, lambda s: prog.step(f"yosys {s}"))
    pre = json.loads(pre_path.read_text())
    prog.step("extracting gate logic")
    t0 = time.perf_counter()
    ext, _ = fe.extract_logic(pre, top, opts.params, fdir)
    t_ext = time.perf_counter() - t0
    state.update(top=top, design=info.name, params=ext.param_ports, folded=len(ext.folded),
                 aig_ands=ext.ands, gates=ext.gates)
    state.setdefault("seconds", {}).update(yosys_pre=t_pre, extract=t_ext)


# ------------------------------------------------------------------------------------ VHDL input

def _vhdl_prepare(info: DesignInfo, opts: BuildOptions) -> None:
    """VHDL design: scan the sources (:func:`flow.vhdl.prepare`) before anything is written; sets
    ``info.top`` and ``opts.params`` to the names as declared (``--param``, attribute and ``--PARAM``
    comment marks together). Raises VhdlError (one line, file:line where there is one)."""
    from .vhdl import prepare

    vt = prepare(info.sources, info.top, opts.params)
    info.top = vt.top
    opts.params = list(vt.params)
    opts._vhdl = vt


def _vhdl_frontend(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> list[Path]:
    """GHDL: VHDL → ``frontend/ghdl/top.v`` (the Verilog the Yosys front end reads); ``info.chparams``
    become top-level generics (``ghdl -gNAME=VALUE``)."""
    from .vhdl import ghdl_version, translate

    vt = opts._vhdl
    top_v = translate(info.sources, vt, opts.out / "frontend" / "ghdl", generics=info.chparams,
                      status=prog.step)
    state["vhdl"] = {"ghdl": ghdl_version(), "top": vt.top, "params": vt.marked,
                     "verilog": str(top_v.relative_to(opts.out))}
    return [top_v]


def _conventional(out: Path, top: str, pre: dict, prog: _Progress) -> float:
    """The baseline: pre.json (or ``pre_conventional.json``, see :data:`flow.frontend.CONVENTIONAL_PRE`)
    finished with Yosys's own LUT mapping (synth_xilinx defaults)."""
    cdir = out / "conventional"
    cdir.mkdir(parents=True, exist_ok=True)
    src = out / "frontend" / fe.CONVENTIONAL_PRE
    if not src.exists():
        src = out / "frontend" / "pre.json"
    t_conv = fe.continue_synthesis(src, top, fe.ABC_LUTS_DEFAULT, cdir / "post.json", cdir, "yosys")
    conv = json.loads((cdir / "post.json").read_text())
    conv["modules"][top]["parameter_default_values"] = pre["modules"][top].get("parameter_default_values", {})
    write_text_atomic(cdir / "netlist.json", json.dumps({"creator": "dcsflow", "modules": {top: conv["modules"][top]}}))
    return t_conv


def stage_tmap(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> None:
    """LUT mapping: TMAP on the extracted AIG, re-import, rest of synth_xilinx (TLUT build); in
    parallel, the conventional build's ABC mapping and rest of synth_xilinx (a separate Yosys process)."""
    from concurrent.futures import ThreadPoolExecutor

    out = opts.out
    fdir = out / "frontend"
    pre = _load_json(fdir / "pre.json", "frontend")
    with ThreadPoolExecutor(1) as ex:
        conv_job = ex.submit(_conventional, out, state["top"], pre, prog)
        try:
            _tlut_build(opts, state, prog, pre)
        finally:
            t_conv = conv_job.result()
    state.setdefault("seconds", {})["conventional_yosys"] = t_conv


def _tlut_build(opts: BuildOptions, state: dict, prog: _Progress, pre: dict) -> None:
    out = opts.out
    fdir = out / "frontend"
    _load_json(fdir / "extract.json", "frontend")
    ext = fe.Extraction.from_json((fdir / "extract.json").read_text())
    top = ext.top
    # re-run the (deterministic) extraction to get the folded module
    ext2, module = fe.extract_logic(pre, top, list(opts.params), None)
    if ext2.to_json() != ext.to_json():
        raise BuildError("frontend files changed since the frontend stage; run it again (--from frontend)")
    tdir = out / "tmap"
    if tdir.exists():
        shutil.rmtree(tdir)
    prog.step(f"TMAP mapping {ext.ands} AND nodes, {len(ext.params)} parameter bits")
    mo = map_logic(fdir / "logic.aag", [n for n, _ in ext.params], tdir, area=opts.area,
                   status=lambda s: prog.step(f"TMAP: {s}"))
    prog.step("re-importing TLUT netlist into Yosys")
    doc = fe.reimport(pre, module, ext2, mo.netlist)
    ldir = out / "tlut"
    ldir.mkdir(parents=True, exist_ok=True)
    (ldir / "mapped.json").write_text(json.dumps(doc))
    t_y = fe.continue_synthesis(ldir / "mapped.json", top, "", ldir / "post.json", ldir, "yosys",
                                lambda s: prog.step(f"TLUT: yosys {s}"))
    final = fe.finalize_tluts(json.loads((ldir / "post.json").read_text()), top)
    final["modules"][top]["parameter_default_values"] = pre["modules"][top].get("parameter_default_values", {})
    write_text_atomic(ldir / "netlist.json", json.dumps(final))
    state["map"] = {k: v for k, v in mo.stats.items() if k != "proof"}
    state["ppc_file"] = str(mo.ppc_path.relative_to(out))
    state.setdefault("seconds", {}).update(tmap=mo.stats.get("seconds", mo.seconds), tlut_yosys=t_y)


def _affine_records(tmap_manifest: Path, entries: dict[str, list[int]]) -> dict:
    """TMAP's affine TLUT records (``tmap.affine``) keyed by template cell name (``$dcs$<name>``),
    for the TLUT cells whose entries are TMAP's entries repeated over the cell's inputs (a TLUT
    Yosys changed keeps the generic path). Empty when TMAP wrote none."""
    try:
        doc = json.loads(tmap_manifest.read_text())
    except (OSError, ValueError):
        return {}
    aff, tl = doc.get("affine") or {}, doc.get("tluts") or {}
    out = {}
    for cell, ent in entries.items():
        name = cell[len("$dcs$"):] if cell.startswith("$dcs$") else cell
        rec, own = aff.get(name), tl.get(name)
        if rec and own and len(ent) % len(own) == 0 \
                and all(e == own[i % len(own)] for i, e in enumerate(ent)):
            out[cell] = rec
    return out


def _tlut_entries(module: dict) -> dict[str, list[int]]:
    ent = {}
    for cn, c in module["cells"].items():
        if nl.is_tlut(c):
            ent[cn] = [int(x) for x in str(c["attributes"]["dcs_ppc"]).strip().rstrip(",").split(",")]
    return ent


def simulate_netlist(netlist: dict, ppc_vals: list[int], inputs: dict[str, int], width: int) -> dict[str, int]:
    """Evaluate a TLUT netlist (format "dcsflow-tlut-netlist" v1) bit-parallel.

    ``ppc_vals[j]`` is PPC output j (``width`` patterns per int), ``inputs`` the regular inputs.
    Returns output name -> value. An independent evaluator of the netlist, used by ``verify``.
    """
    mask = (1 << width) - 1
    val = dict(inputs)
    val["0"], val["1"] = 0, mask
    for lut in netlist["luts"]:
        ins = [val[x] for x in lut["inputs"]]
        k = len(ins)
        if "ppc" in lut:
            entries = [ppc_vals[j] for j in lut["ppc"]]
        else:
            init = int(lut["init"], 16)
            entries = [mask if (init >> i) & 1 else 0 for i in range(1 << k)]
        acc = 0
        for i, e in enumerate(entries):
            sel = e
            for j in range(k):
                sel &= ins[j] if (i >> j) & 1 else ins[j] ^ mask
            acc |= sel
        val[lut["name"]] = acc
    return {o["name"]: val[o["driver"]] for o in netlist["outputs"]}


def stage_verify(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> None:
    """Random-pattern check of netlist ∘ PPC against the extracted AIG; TLUT attribute checks."""
    from dcsflow.aig import read_aiger

    out = opts.out
    t0 = time.perf_counter()
    src = read_aiger(str(out / "frontend" / "logic.aag"))
    netlist = _load_json(out / "tmap" / "netlist.json", "tmap")
    ppc = read_aiger(str(out / state.get("ppc_file", "tmap/ppc.aig")))
    rng = random.Random(0xD5C)
    width = 512
    rounds = 4
    prog.step(f"simulating {rounds}×{width} random patterns")
    for _ in range(rounds):
        iv = {n: rng.getrandbits(width) for n in src.input_names}
        ref = src.simulate(iv, width=width)
        pv = ppc.simulate({n: iv[n] for n in ppc.input_names}, width=width)
        got = simulate_netlist(netlist, pv, {n: iv[n] for n in netlist["inputs"]}, width)
        for name, r in zip(src.output_names, ref):
            if got.get(name) != r:
                raise BuildError(f"verify: TLUT netlist ∘ PPC differs from the front end's AIG at output {name}")
    final = _load_json(out / "tlut" / "netlist.json", "tmap")
    module = final["modules"][state["top"]]
    for cn, ent in _tlut_entries(module).items():
        if any(j < 0 or j >= len(ppc.outputs) for j in ent):
            raise BuildError(f"verify: TLUT {cn} names a PPC output that does not exist")
        if 1 << int(module["cells"][cn]["type"][3:]) != len(ent):
            raise BuildError(f"verify: TLUT {cn} has {len(ent)} PPC entries for its inputs")
    if any(c["type"].startswith(fe.TLUT_CELL) for c in module["cells"].values()):
        raise BuildError("verify: opaque TLUT cells left in the netlist")
    state["verify"] = {"random_patterns": width * rounds, "equal": True,
                       "abc_cec": state.get("map", {}).get("verified")}
    state.setdefault("seconds", {})["verify"] = time.perf_counter() - t0


def stage_backend(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> None:
    """Built-in back end (flow.backend): pack, place, template configuration, frame map, report."""
    from .backend.stage import run_backend

    t0 = time.perf_counter()
    state["backend"] = run_backend(opts.out, state, opts.device, opts.seed, prog.step, tlut_pairs=opts.tlut_pairs,
                                   backend=opts.backend, board=opts.board)
    state.setdefault("seconds", {})["backend"] = time.perf_counter() - t0


def stage_outputs(info: DesignInfo, opts: BuildOptions, state: dict, prog: _Progress) -> None:
    """Template netlist, PPC with manifest, build manifest with hashes, report."""
    out = opts.out
    top = state["top"]
    final = _load_json(out / "tlut" / "netlist.json", "tmap")
    conv = _load_json(out / "conventional" / "netlist.json", "frontend")
    ppc_src = out / state.get("ppc_file", "tmap/ppc.aig")
    shutil.copyfile(ppc_src, out / ".ppc.aig.tmp")
    (out / ".ppc.aig.tmp").replace(out / "ppc.aig")
    ppc_hash = sha256_file(out / "ppc.aig")
    module = final["modules"][top]
    module.setdefault("attributes", {})["dcs_ppc_sha256"] = ppc_hash
    write_text_atomic(out / "template.json", json.dumps(final))
    entries = _tlut_entries(module)
    from dcsflow.aig import read_aiger

    ppc = read_aiger(str(out / "ppc.aig"))
    manifest = {"format": "dcsflow-build-ppc", "version": 1, "aiger": "ppc.aig", "sha256": ppc_hash,
                "params": list(ppc.input_names), "outputs": len(ppc.outputs), "ands": ppc.num_ands,
                "netlist": "template.json", "tluts": entries,
                "affine": _affine_records(ppc_src.with_name("ppc.json"), entries)}
    write_text_atomic(out / "ppc.json", json.dumps(manifest, indent=1) + "\n")
    write_text_atomic(out / "template.v", nl.write_verilog(module, top))
    write_text_atomic(out / "conventional.v", nl.write_verilog(conv["modules"][top], top))
    ts = nl.stats(module)
    cs = nl.stats(conv["modules"][top])
    secs = state.get("seconds", {})
    report = {
        "format": REPORT_FORMAT, "version": 1, "design": info.name, "top": top, "device": opts.device,
        "params": state.get("params", {}), "parameter_registers_folded": state.get("folded", 0),
        "conventional": {**cs.as_dict(), "ppc_ands": 0,
                         "seconds": round(secs.get("yosys_pre", 0) + secs.get("conventional_yosys", 0), 3)},
        "tlut": {**ts.as_dict(), "ppc_ands": ppc.num_ands, "ppc_outputs": len(ppc.outputs),
                 "tmap_luts": state.get("map", {}).get("luts"),
                 "tmap_no_param_luts": state.get("map", {}).get("no_param_luts"),
                 "tmap_notes": list(state.get("map", {}).get("notes") or []),
                 "seconds": round(secs.get("yosys_pre", 0) + secs.get("extract", 0) + secs.get("tmap", 0)
                                  + secs.get("tlut_yosys", 0), 3)},
        "verify": state.get("verify"), "backend": state.get("backend"),
        **({"vhdl": state["vhdl"]} if "vhdl" in state else {}),
        "stage_seconds": {k: round(v, 3) for k, v in secs.items()},
    }
    write_text_atomic(out / "report.json", json.dumps(report, indent=1) + "\n")
    files = {n: sha256_file(out / n) for n in ("template.json", "ppc.aig", "ppc.json", "template.v",
                                                 "conventional.v", "report.json")}
    if state.get("backend", {}).get("rekey"):
        files.update({n: sha256_file(out / n) for n in state.get("backend_files", [])})
    bj = {"format": BUILD_FORMAT, "version": BUILD_VERSION, "design": info.name, "top": top,
          "device": opts.device, "design_hash": state.get("design_hash"),
          "params": state.get("params", {}), "key_bits": info.key_bits,
          "user_params": info.user_params, "transform": info.transform, "files": files}
    write_text_atomic(out / "build.json", json.dumps(bj, indent=1) + "\n")
    state["report"] = report


_STAGE_FUNCS: dict[str, Callable] = {"frontend": stage_frontend, "tmap": stage_tmap, "verify": stage_verify,
                                     "backend": stage_backend, "outputs": stage_outputs}


def _check_device(device: str) -> None:
    """Refuse a device without Project X-Ray data (``scg/xc7/<part>/`` in the package, or the shared folder)."""
    from dcsflow.scg.data import package_devices

    from .paths import SharedDataMissing, shared_file

    known = package_devices()
    if device in known:
        return
    try:
        shared_file("xc7", device, "part.json")
    except SharedDataMissing:
        raise BuildError(f"--device {device}: no device data; known devices: {', '.join(known)}") from None


def build(opts: BuildOptions) -> BuildResult:
    """Run stages ``opts.start``..``opts.stop`` of the build of ``opts.design`` into ``opts.out``.

    Raises:
        BuildError: unknown stage name, missing files of an earlier stage, verification failure.
        FlowError subclasses from the front end (Yosys errors, unknown --param), the mapper.
    """
    for s in (opts.start, opts.stop):
        if s not in STAGES:
            raise BuildError(f"unknown stage {s!r}; stages: {', '.join(STAGES)}")
    i0, i1 = STAGES.index(opts.start), STAGES.index(opts.stop)
    if i0 > i1:
        raise BuildError(f"--from {opts.start} comes after --to {opts.stop}")
    _check_device(opts.device)
    info = resolve(opts.design, opts.top, opts.more)
    opts.out = Path(opts.out)
    if i0 == 0:     # a failed rebuild must not leave the previous build looking complete
        for stale in ("build.json", "report.json", "state.json"):
            (opts.out / stale).unlink(missing_ok=True)
    if info.language == "vhdl":
        _vhdl_prepare(info, opts)
    opts.out.mkdir(parents=True, exist_ok=True)
    state = _state(opts.out) if i0 > 0 else {}
    if i0 > 0 and not state:
        raise BuildError(f"{opts.out} holds no earlier build; run from the 'frontend' stage")
    dh = _design_hash(info, opts.params)
    if i0 > 0 and state.get("design_hash") not in (None, dh):
        raise BuildError(f"{opts.design} or its --param list changed since the frontend stage; run from 'frontend'")
    state["design_hash"] = dh
    prog = _Progress(opts.progress, f"build {info.name}")
    with prog.running():
        for name in STAGES[i0:i1 + 1]:
            prog.stage(name)
            _STAGE_FUNCS[name](info, opts, state, prog)
            state.setdefault("done", [])
            if name not in state["done"]:
                state["done"].append(name)
            _save_state(opts.out, state)
    return BuildResult(opts.out, state.get("report") or {})


# ------------------------------------------------------------------------------------ table

def comparison_rows(report: dict) -> list[tuple[str, str, str]]:
    """(metric, conventional, TLUT) rows of the comparison table (metric names fit its 80 columns)."""
    c, t = report["conventional"], report["tlut"]
    rows = [
        ("LUTs", str(c["luts"]), f"{t['luts']} ({t['tluts']} TLUTs)"),
        ("FFs", str(c["ffs"]), str(t["ffs"])),
        ("LUTs + FFs", str(c["luts"] + c["ffs"]), str(t["luts"] + t["ffs"])),
        ("CARRY4", str(c["carry4"]), str(t["carry4"])),
        ("MUXF7 / MUXF8", f"{c['muxf7']} / {c['muxf8']}", f"{t['muxf7']} / {t['muxf8']}"),
        ("LUT depth", str(c["depth"]), str(t["depth"])),
        ("PPC AND nodes", "-", str(t["ppc_ands"])),
        # TMAP on the extracted logic with and without parameter inputs (same ABC variants, same
        # cuts): the LUTs that specialization itself saves, apart from the mapper and ABC's help
        ("TMAP LUTs: no params / params", "-",
         f"{t['tmap_no_param_luts']} / {t['tmap_luts']}" if t.get("tmap_no_param_luts") else "-"),
        ("run time (s)", f"{c['seconds']:.1f}", f"{t['seconds']:.1f}"),
    ]
    if (report.get("backend") or {}).get("rekey"):
        from .backend.report import table_rows

        rows += table_rows(report["backend"])
    return rows


def print_table(report: dict, file=None) -> None:
    """Print the conventional-vs-TLUT comparison as a rich table (stdout by default; at most 80 columns)."""
    from rich.table import Table

    from .termout import table_console

    tab = Table(title=f"{report['design']} ({report['top']}): conventional vs TLUT")
    tab.add_column("metric")
    tab.add_column("conv.", justify="right")
    tab.add_column("TLUT", justify="right")
    for r in comparison_rows(report):
        tab.add_row(*r)
    table_console(file).print(tab)


def cycles_for(check_result, msg_bytes: int = 16) -> int | None:
    """Cycles (first s_valid to done) the check measured for a message of ``msg_bytes`` bytes."""
    for n, cyc in check_result.cycles:
        if n == msg_bytes and cyc >= 0:
            return cyc
    return None


def main_job(out_root: Path | str = "build", progress: bool = True, file=None, aes_pipe: bool = False) -> int:
    """The README's main job: build ``picipher`` and ``picipher_cis``, check each against the official
    no-AD/no-SMN vectors, print both comparison tables and a summary (LUTs, FFs, cycles for a
    16-byte message); then the AES-128 cores (:func:`aes_job`; ``aes_pipe`` adds the pipelined core).
    Returns the exit status: 0 only when every check passes.

    Raises the build's FlowErrors (Yosys/TMAP missing or failing).
    """
    from rich.console import Console

    from .check import check_build

    out_root = Path(out_root)
    status = 0
    rows = []
    for design in ("picipher", "picipher_cis"):
        t0 = time.perf_counter()
        res = build(BuildOptions(design=design, out=out_root / design, progress=progress))
        print_table(res.report, file=file)
        chk = check_build(out_root / design, progress=progress)
        Console(file=file).print(f"{design}: check passed {chk.passed}/{chk.total} "
                                 f"(build + check {time.perf_counter() - t0:.0f} s)")
        if chk.passed != chk.total:
            status = 1
        t = res.report["tlut"]
        rows.append((design, t, res.report["conventional"], cycles_for(chk), f"{chk.passed}/{chk.total}"))
    print_summary(rows, file)
    return status | aes_job(out_root, progress, file, AES_DEMO + (AES_PIPE_DEMO if aes_pipe else ()))


def print_summary(rows: list, file=None) -> None:
    """The main job's final table: one row per design ``(design, tlut report, conventional report,
    cycles for 16 bytes or None, "passed/total" of the check's vectors)``; at most 80 columns,
    design names never cut."""
    from rich.table import Table

    from .termout import table_console

    tab = Table(title="π16-Cipher message processor: TLUT implementations")
    tab.add_column("design", no_wrap=True, min_width=max([len(r[0]) for r in rows] + [6]))
    for col in ("LUTs\n(TLUTs)", "FFs", "LUT\ndepth", "conv.\nLUTs/FFs", "cycles\n16 B", "check"):
        tab.add_column(col, justify="right")
    for d, t, c, cyc, ok in rows:
        tab.add_row(d, f"{t['luts']} ({t['tluts']})", str(t["ffs"]), str(t["depth"]),
                    f"{c['luts']}/{c['ffs']}", "-" if cyc is None else str(cyc), ok)
    table_console(file).print(tab)


#: the AES-128 cores in the main job, each checked on one CAVP KAT file (the tests run all 284
#: vectors).
AES_DEMO = (("aes128_iter", "ECBKeySbox128.rsp"),)
#: added by ``dcsflow demo --aes-pipe``: aes128_pipe, checked on the GFSbox file (7 vectors, one key).
#: Not in the default main job: its conventional build (Yosys/ABC on the 10 unrolled rounds with the
#: on-the-fly key schedule) alone takes ~10 min, the whole build ~19 min on 2 cores (designs/aes128/README.md).
AES_PIPE_DEMO = (("aes128_pipe", "ECBGFSbox128.rsp"),)


def aes_job(out_root: Path | str = "build", progress: bool = True, file=None, cores=AES_DEMO) -> int:
    """The AES-128 part of the main job (issue 13): build ``cores`` (pairs of design name and KAT file
    name; TLUT and conventional), check each specialized build on its KAT file, print the comparison
    tables and a summary. Returns 0 only when every check passes. Raises the build's FlowErrors."""
    from rich.console import Console
    from rich.table import Table

    from dcsflow.designs.aes128.vectors import kat_dir

    from .check import check_build
    from .termout import table_console

    status = 0
    tab = Table(title="AES-128 (key as parameter input): TLUT vs conventional")
    tab.add_column("design", no_wrap=True, min_width=max(len(d) for d, _ in cores))
    for col in ("LUTs\n(TLUTs)", "conv.\nLUTs", "FFs /\nconv.", "depth /\nconv.", "PPC\nANDs", "vectors"):
        tab.add_column(col, justify="right")
    for design, kat in cores:
        t0 = time.perf_counter()
        res = build(BuildOptions(design=design, out=Path(out_root) / design, progress=progress))
        print_table(res.report, file=file)
        chk = check_build(Path(out_root) / design, kat_dir() / kat, progress=progress)
        Console(file=file).print(f"{design}: check on {kat} passed {chk.passed}/{chk.total} "
                                 f"(build + check {time.perf_counter() - t0:.0f} s)")
        status |= int(chk.passed != chk.total)
        t, c = res.report["tlut"], res.report["conventional"]
        tab.add_row(design, f"{t['luts']} ({t['tluts']})", str(c["luts"]), f"{t['ffs']} / {c['ffs']}",
                    f"{t['depth']} / {c['depth']}", str(t["ppc_ands"]), f"{chk.passed}/{chk.total}")
    table_console(file).print(tab)
    return status
