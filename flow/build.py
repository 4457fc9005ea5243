"""``dcsflow build``: the pipeline that makes the TLUT implementation and the conventional baseline.

Labelled stages (like Yosys ``-run from:to``; :data:`STAGES`), one module each under
:mod:`dcsflow.flow.stages`: ``frontend`` (Yosys to map_luts, gate logic as an AIG), ``tmap`` (TMAP
and the conventional ABC mapping), ``verify`` (netlist ∘ PPC against the AIG), ``backend`` (pack,
place, template configuration, frame map) and ``outputs`` (template, PPC, report, build manifest).
Each stage takes and returns frozen dataclasses; their records are stored as versioned JSON in
``stages/`` of the build folder, and ``--from`` reloads them (version and design-hash checked).
Running a stage first removes its record and every later one, and the build's manifest and report,
so an interrupted or failed run never leaves a folder that looks complete.
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.scg.device import DEFAULT_PART

from .design import Design
from .registry import resolve
from .stages import STAGES, BuildError, Context, load_record, record_path, save_record

__all__ = ["STAGES", "BuildError", "BuildOptions", "BuildResult", "build", "design_hash"]

#: the build's manifest and report: removed before any stage runs (a failed run must not look complete)
FINISHED_FILES = ("build.json", "report.json")

@dataclass(frozen=True)
class BuildOptions:
    """Inputs of :func:`build` (never changed by it).

    design: DESIGN argument (installed design name, HDL file or folder, first VHDL file; None with
    ``project``); out: build folder; top: top module; params: extra parameter port names; device:
    target device; start/stop: first and last stage (names in :data:`STAGES`); progress: rich
    progress on stderr; area: TMAP area recovery without the depth bound; seed: placer seed;
    tlut_pairs: the back end may put two small TLUTs into one LUT6_2 site; mul_chunk: front end,
    regular-operand bits per chunk product of a multiplier with a parameter operand
    (:mod:`dcsflow.flow.param_arith`; 0 = leave it to synth_xilinx); more: further VHDL files after
    ``design``; backend: ``builtin`` or ``vivado``; board: board name (Vivado back end); project: a
    ``dcsflow.toml`` (:mod:`dcsflow.flow.project`) instead of ``design``.
    """

    design: str | None
    out: Path
    top: str | None = None
    params: tuple[str, ...] | list[str] = ()
    device: str = DEFAULT_PART
    start: str = "frontend"
    stop: str = "outputs"
    progress: bool = True
    area: bool = False
    seed: int = 1
    tlut_pairs: bool = False
    mul_chunk: int = 6
    more: tuple[str, ...] | list[str] = ()
    backend: str = "builtin"
    board: str | None = None
    project: Path | str | None = None


@dataclass
class BuildResult:
    """Output of :func:`build`: the build folder and the report (report.json's content; empty when
    the run stopped before ``outputs``)."""

    out: Path
    report: dict = field(default_factory=dict)


def design_hash(design: Design, top: str | None, params: list[str] | tuple[str, ...]) -> str:
    """SHA-256 (hex) identifying what is built: every source (name and contents), the top, the
    Verilog parameters, the parameter port list and the conventional build's own parameters. Every
    artifact carries it, so that a PPC can never be applied to another build's template."""
    h = hashlib.sha256()
    for p in design.sources:
        h.update(p.name.encode() + b"\0" + Path(p).read_bytes() + b"\0")
    h.update(json.dumps([top, dict(design.chparams), sorted(params)], sort_keys=True).encode())
    if design.conventional_chparams:
        h.update(json.dumps(dict(design.conventional_chparams), sort_keys=True).encode())
    return h.hexdigest()


class _Progress:
    """Status line on stderr (rich) naming the stage and the current Yosys/TMAP step, and one
    line ``build <design>: <stage> done in <s> s`` per finished stage (:mod:`dcsflow.flow.termout`)."""

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


def _check_device(device: str) -> None:
    """Refuse a device without Project X-Ray data (``scg/xc7/<part>/`` in the package, or the shared folder)."""
    from dcsflow.scg.data import DataMissing, data_file, package_devices

    known = package_devices()
    if device in known:
        return
    try:
        data_file("xc7", device, "part.json")
    except DataMissing:
        raise BuildError(f"--device {device}: no device data; known devices: {', '.join(known)}") from None


def _context(opts: BuildOptions, design: Design, step) -> Context:
    """The design's top and parameter ports (a VHDL design's as declared, after scanning the sources)
    and the design hash. Raises VhdlError for a VHDL design whose ports or marks are wrong."""
    params = list(dict.fromkeys([*design.params, *opts.params]))
    top, vhdl = design.top, None
    if design.language == "vhdl":
        from .vhdl import prepare

        vhdl = prepare(list(design.sources), design.top, params)
        top, params = vhdl.top, list(vhdl.params)
    out = Path(opts.out)
    return Context(opts, design, top, tuple(params), vhdl, design_hash(design, top, params), out, step)


def _run_stage(name: str, ctx: Context, records: dict):
    from .stages import backend, frontend, mapping, outputs, verify

    if name == "frontend":
        return frontend.run(ctx)
    if name == "tmap":
        return mapping.run(ctx, records["frontend"])
    if name == "verify":
        return verify.run(ctx, records["frontend"], records["tmap"])
    if name == "backend":
        return backend.run(ctx, records["frontend"], records["tmap"])
    return outputs.run(ctx, records["frontend"], records["tmap"], records["verify"], records["backend"])


def build(opts: BuildOptions) -> BuildResult:
    """Run stages ``opts.start``..``opts.stop`` of the build of the design into ``opts.out``.

    Raises:
        BuildError: unknown stage name, records of earlier stages missing or stale (another design
            hash or format version), verification failure.
        DesignError, ProjectError: the design cannot be found or read.
        FlowError subclasses from the front end (Yosys errors, unknown --param), the mapper, the back end.
    """
    for s in (opts.start, opts.stop):
        if s not in STAGES:
            raise BuildError(f"unknown stage {s!r}; stages: {', '.join(STAGES)}")
    i0, i1 = STAGES.index(opts.start), STAGES.index(opts.stop)
    if i0 > i1:
        raise BuildError(f"--from {opts.start} comes after --to {opts.stop}")
    _check_device(opts.device)
    design = resolve(opts.design, opts.top, list(opts.more), opts.project)
    out = Path(opts.out)
    for stale in FINISHED_FILES:           # before anything else can fail
        (out / stale).unlink(missing_ok=True)
    for name in STAGES[i0:]:
        record_path(out, name).unlink(missing_ok=True)
    prog = _Progress(opts.progress, f"build {design.name}")
    ctx = _context(opts, design, prog.step)
    records = {name: load_record(out, name, ctx.design_hash) for name in STAGES[:i0]}
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    with prog.running():
        for name in STAGES[i0:i1 + 1]:
            prog.stage(name)
            rec = _run_stage(name, ctx, records)
            if name == "outputs":
                report = rec
            else:
                save_record(out, rec, ctx.design_hash)
                records[name] = rec
    return BuildResult(out, report)
