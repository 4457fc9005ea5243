"""``dcsflow build``: the pipeline that makes the TLUT implementation and the conventional baseline.

Labelled stages (like Yosys ``-run from:to``; :data:`STAGES`), one module each under
:mod:`dcsflow.flow.stages`: ``frontend`` (Yosys to map_luts, gate logic as an AIG), ``tmap`` (TMAP
and the conventional ABC mapping), ``verify`` (netlist ∘ PPC against the AIG), ``backend`` (pack,
place, template configuration, frame map) and ``outputs`` (template, PPC, report, build manifest).
Each stage takes and returns frozen dataclasses; their records are stored as versioned JSON in
``stages/`` of the build folder with the hashes of the files they wrote and read, and ``--from``
reloads them. A record that is missing or stale (another version or design hash, its files or the
files it read changed) makes ``--from`` start at that stage instead, with one note on stderr.
``build.json`` is removed first and written last, and running a stage first removes its record and
every later one, so an interrupted or failed run never leaves a folder that looks complete.

The build folder must be a build folder (as its own records say: a dcsflow ``build.json``, or the
record ``stages/folder.json`` every build writes before anything else, so that an interrupted build
can be resumed; :func:`dcsflow.scg.buildfolder.is_build_folder`), empty or new; any other folder
(also one that merely has a ``stages/`` subfolder) is refused unless ``force`` is given, and then
only the build's own files are written (a name the build needs that is already taken by the user's
file or folder is refused). A build holds the folder's lock (a lock on the folder itself,
:mod:`dcsflow.scg.folderlock`) from before it writes anything until it ends: a second build into
the same folder fails at once with one line, also when every file in the folder was deleted meanwhile.
A build folder made for one device is never silently re-targeted: running it again from the back end
(or earlier) for another device is refused unless ``force`` is given (:func:`_check_retarget`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, read_input_bytes
from dcsflow.limits import memory_limit, time_limit
from dcsflow.steps import Recorder, recording, step
from dcsflow.tools import progress

from dcsflow.fileio import write_text_atomic
from dcsflow.scg.buildfolder import FOLDER_FORMAT, FOLDER_RECORD, FOLDER_VERSION, is_build_folder
from dcsflow.scg.folderlock import LOCK_FILE, check_not_in_use, is_lock_file, locked_folder
from dcsflow.scg.device import DEFAULT_PART

from . import cache
from .baselines import ALL_CANDIDATES, check_names
from .design import LUT_SIZES, TLUT_KINDS, TRANSPORTS, Design, design_time_limit
from .frontcheck import submit_for_build
from .frontend import check_param_names
from .jobs import Jobs, check_jobs
from .registry import resolve
from .stages import STAGES, BuildError, Context, StaleStage, load_record, record_path, save_record, stage_timing

__all__ = ["STAGES", "LUT_SIZES", "BuildError", "BuildOptions", "BuildResult", "build", "design_hash"]

#: the build's manifest and report: removed before any stage runs (a failed run must not look complete)
FINISHED_FILES = ("build.json", "report.json", "report.html")

#: what a build writes at the top of its folder (besides FINISHED_FILES): with ``force`` into a
#: folder that is not a build folder, none of these may exist already
BUILD_ENTRIES = ("stages", "frontend", "tmap", "tlut", "baselines", "conventional", "conv", "backend", "vivado",
                 "cfglut", "cfglut.json", "template.json", "transform.json",
                 "template.v", "conventional.v", "ppc.aig", "ppc.json", "frontcheck", "report",
                 LOCK_FILE)

@dataclass(frozen=True)
class BuildOptions:
    """Inputs of :func:`build` (never changed by it).

    design: DESIGN argument (installed design name, HDL file or folder, first VHDL file; None with
    ``project``); out: build folder; top: top module; params: extra parameter port names; device:
    target device; start/stop: first and last stage (names in :data:`STAGES`); progress: rich
    progress on stderr; area: TMAP area recovery without the depth bound; seed: placer seed;
    tlut_pairs: the back end may put two small TLUTs into one LUT6_2 site (LUT size 6 only);
    tlut: the TLUT realization, one of :data:`~dcsflow.flow.design.TLUT_KINDS` (None: the design's
    :attr:`~dcsflow.flow.design.Design.tlut`, else ``frames``); ``cfglut5``: TMAP keeps every TLUT to
    at most 5 regular inputs and the outputs stage writes the CFGLUT5 chains and their loader
    (:mod:`dcsflow.flow.cfglut`); chain_luts: CFGLUT5s per chain of a ``cfglut5`` build (None:
    :func:`~dcsflow.flow.cfglut.choose_chain_luts`, the fewest chain words with chains whose shift meets the
    rekey-time target); param_in_loader: a ``cfglut5`` build also generates the logic that computes
    the chain words from the raw parameter words (its PPC must have no AND nodes) and reports its
    LUT cost (:func:`dcsflow.flow.cfglut.param_generator_verilog`); cache: every job's result is
    taken from, and stored in, the job cache (:mod:`dcsflow.flow.cache`; a design's
    ``cache_max_gb`` caps it; False: ``--no-cache``, every job runs); depth_bounds: (the LUT depth
    of ``yosys-abc``, the LUT depth of the shallowest candidate) as a full build of the same design
    found them: the choice and the static re-mapping are bounded by them, and ``yosys-abc`` is made
    only when ``baselines`` names it (the form of a build that makes only the candidate it compares
    with, e.g. the test suite's; None: computed from the candidates made);
    mul_chunk: front end, regular-operand bits per chunk product of a multiplier with a parameter
    operand (:mod:`dcsflow.flow.param_arith`; 0 = leave it to synth_xilinx; None = the LUT size);
    lut_size: the LUT size K, one of :data:`~dcsflow.flow.design.LUT_SIZES` (None: the design's
    :attr:`~dcsflow.flow.design.Design.lut_size`, else 6): TMAP, every conventional candidate and
    the rest of synth_xilinx map to K-input LUTs, and below 6 the back end puts one LUT in each LUT
    site; adders: which adders fed by a parameter input go to the LUT mapper as logic
    (:mod:`dcsflow.flow.adders`: ``auto``, ``carry``, ``logic``); more: further VHDL files after
    ``design``; backend: ``builtin`` or ``vivado``; board: board
    name (Vivado back end); project: a ``dcsflow.toml`` (:mod:`dcsflow.flow.project`) instead of
    ``design``; force: build into a folder that is not empty and not a build folder (only the
    build's own files are written);
    allow_no_params: build a design in which no parameter input is found (else an error);
    ghdl_options: further GHDL options (:func:`dcsflow.flow.vhdl.ghdl_options`);
    frontend_check: the ``verify`` stage simulates the source against the front end's netlist
    (:mod:`dcsflow.flow.frontcheck`) for ``frontend_cycles`` cycles (>= 1); baselines: the
    conventional candidates to make (:func:`dcsflow.flow.baselines.check_names`; every mapper on the
    design's conventional variant and on both register forms by default; the reference
    ``yosys-abc`` is always made); static_remap: ABC re-maps the TLUT build's static logic where that
    saves LUTs within the shallowest conventional candidate's LUT depth
    (:mod:`dcsflow.flow.static_remap`); jobs: steps that may run in parallel do so on up to this many
    cores (None: $DCSFLOW_JOBS, else the machine's cores, :func:`dcsflow.flow.jobs.default_jobs`; 1:
    every step in turn; the results are the same); timeout: seconds every external tool run may
    take (None: the design's :attr:`~dcsflow.flow.design.Design.timeout`, a project's ``[build]
    timeout``, else each tool's default, :mod:`dcsflow.limits`); max_memory: bytes of memory every
    external tool run may use (None: the design's :attr:`~dcsflow.flow.design.Design.max_memory`, a
    project's ``[build] max_memory``, else :func:`dcsflow.limits.default_memory_limit`). A limit
    never changes a result: it is in no hash and no stage record. transport: the configuration port
    of the Vivado export's block design (:data:`~dcsflow.flow.design.TRANSPORTS`; None: the design's
    :attr:`~dcsflow.flow.design.Design.transport`, else ``hwicap``); ``icap-dma`` needs the Vivado
    back end and a ``frames`` build. It changes no netlist, so it is in no hash either.
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
    mul_chunk: int | None = None
    adders: str = "auto"
    more: tuple[str, ...] | list[str] = ()
    backend: str = "builtin"
    board: str | None = None
    project: Path | str | None = None
    force: bool = False
    allow_no_params: bool = False
    ghdl_options: tuple[str, ...] | list[str] = ()
    frontend_check: bool = True
    frontend_cycles: int = 2000
    baselines: tuple[str, ...] | list[str] = ALL_CANDIDATES
    static_remap: bool = True
    jobs: int | None = None
    lut_size: int | None = None
    timeout: float | None = None
    max_memory: int | None = None
    tlut: str | None = None
    chain_luts: int | None = None
    param_in_loader: bool = False
    cache: bool = True
    depth_bounds: tuple[int, int] | None = None
    transport: str | None = None


@dataclass
class BuildResult:
    """Output of :func:`build`: the build folder, the report (report.json's content; empty when
    the run stopped before ``outputs``) and the timing records of the stages that ran
    (:mod:`dcsflow.steps`, JSON form)."""

    out: Path
    report: dict = field(default_factory=dict)
    steps: list = field(default_factory=list)


def design_hash(design: Design, top: str | None, params: list[str] | tuple[str, ...],
                ghdl_options: list[str] | tuple[str, ...] = (), lut_size: int = 6, adders: str = "auto",
                tlut: tuple = ("frames",)) -> str:
    """SHA-256 (hex) identifying what is built: every source (name and contents), the top, the
    Verilog parameters, the parameter port list, the conventional build's own parameters, the
    user's GHDL options, a LUT size other than 6, an ``--adders`` mode other than ``auto`` and a TLUT
    realization other than ``frames`` with its chain length (``tlut``: (kind, chain_luts)) (so a
    default build's hash is the one it had before these could be chosen). Every artifact carries it, so that a PPC can never be applied to
    another build's template, and a stage record of another LUT size is stale."""
    h = hashlib.sha256()
    for p in design.sources:
        h.update(p.name.encode() + b"\0" + read_input_bytes(p, TEXT_LIMIT, "HDL source") + b"\0")
    h.update(json.dumps([top, dict(design.chparams), sorted(params)], sort_keys=True).encode())
    if design.conventional_chparams:
        h.update(json.dumps(dict(design.conventional_chparams), sort_keys=True).encode())
    if ghdl_options:
        h.update(json.dumps(["ghdl", list(ghdl_options)]).encode())
    if lut_size != 6:
        h.update(json.dumps(["lut_size", lut_size]).encode())
    if adders != "auto":
        h.update(json.dumps(["adders", adders]).encode())
    if tuple(tlut)[0] != "frames":
        h.update(json.dumps(["tlut", *tlut]).encode())
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
        """The status line for the block; the progress lines of long tool runs
        (:func:`dcsflow.tools.set_progress`) go above it, and nowhere when progress is off."""
        if not self.enabled:
            with progress(None):
                yield self
            return
        from rich.console import Console

        self._console = Console(stderr=True)
        with self._console.status(f"{self.title}: starting") as st, progress(self.say):
            self._status = st
            yield self
            self._stage_done()
        self._status = None

    def _stage_done(self) -> None:
        if self._stage and self._console is not None:
            from .termout import stage_done

            stage_done(self._console, self.title, self._stage, time.perf_counter() - self._ts)

    def say(self, text: str) -> None:
        """One line of information on stderr (above the status line while it shows)."""
        if self._console is not None:
            self._console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=sys.stderr)

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


def _context(opts: BuildOptions, design: Design, step, jobs=None) -> Context:
    """The design's top and parameter ports (a VHDL top's as declared, after scanning the sources)
    and the design hash. Raises VhdlError for a VHDL design whose ports or marks are wrong, BuildError
    for GHDL options without VHDL."""
    params = list(dict.fromkeys([*design.params, *check_param_names(opts.params)]))
    top, vhdl = design.top, None
    lang = design.language
    if opts.ghdl_options and lang == "verilog":
        raise BuildError("--ghdl-opt: the design has no VHDL file")
    if lang in ("vhdl", "mixed"):
        from .vhdl import ghdl_options, prepare

        ghdl_options(opts.ghdl_options)           # a bad option: one line before anything runs
        vhdl = prepare(list(design.vhdl_sources), design.top, params, mixed=lang == "mixed")
        if vhdl.top is not None:
            top, params = vhdl.top, list(vhdl.params)
    out = Path(opts.out)
    return Context(opts, design, top, tuple(params), vhdl,
                   design_hash(design, top, params, tuple(opts.ghdl_options), opts.lut_size, opts.adders,
                               (opts.tlut, opts.chain_luts, *(("param",) if opts.param_in_loader else ()))),
                   out, step, jobs,
                   Recorder())


def _lut_options(opts: BuildOptions, design: Design) -> BuildOptions:
    """``opts`` with ``lut_size`` (the option, else the design's, else 6), ``mul_chunk`` (None:
    the LUT size) and ``tlut`` (the option, else the design's, else ``frames``) filled in; ``chain_luts``
    checked (None: chosen by the outputs stage, :func:`~dcsflow.flow.cfglut.choose_chain_luts`).

    Raises:
        BuildError: a LUT size not in :data:`~dcsflow.flow.design.LUT_SIZES`; ``tlut_pairs`` below
            LUT size 6 (one LUT per LUT site there) or with ``cfglut5``; an unknown TLUT realization;
            ``chain_luts`` without ``cfglut5`` or outside 1..:data:`~dcsflow.scg.cfglut.MAX_CHAIN_LUTS`.
    """
    from dcsflow.scg.cfglut import MAX_CHAIN_LUTS

    k = opts.lut_size if opts.lut_size is not None else (design.lut_size or 6)
    where = "--lut-size" if opts.lut_size is not None else f"design {design.name}: lut_size"
    if isinstance(k, bool) or k not in LUT_SIZES:
        raise BuildError(f"{where} {k!r}: the LUT size must be one of {', '.join(map(str, LUT_SIZES))}")
    if opts.tlut_pairs and k != 6:
        raise BuildError(f"--tlut-pairs needs LUT size 6 (this build's is {k}): below 6 every LUT takes a "
                         "LUT site of its own")
    tl = opts.tlut if opts.tlut is not None else (design.tlut or "frames")
    if tl not in TLUT_KINDS:
        where = "--tlut" if opts.tlut is not None else f"design {design.name}: tlut"
        raise BuildError(f"{where} {tl!r}: the TLUT realization must be one of {', '.join(TLUT_KINDS)}")
    if opts.tlut_pairs and tl == "cfglut5":
        raise BuildError("--tlut-pairs needs --tlut frames: a CFGLUT5 takes a whole LUT site")
    chain = None
    if tl == "cfglut5":
        chain = opts.chain_luts
        if chain is not None and (isinstance(chain, bool) or not isinstance(chain, int)
                                  or not 1 <= chain <= MAX_CHAIN_LUTS):
            raise BuildError(f"--chain-luts {chain!r}: CFGLUT5s per chain must be 1..{MAX_CHAIN_LUTS}")
    elif opts.chain_luts is not None:
        raise BuildError("--chain-luts needs --tlut cfglut5")
    if opts.param_in_loader and tl != "cfglut5":
        raise BuildError("--param-in-loader needs --tlut cfglut5")
    if opts.param_in_loader and opts.backend == "vivado":
        raise BuildError("--param-in-loader: the Vivado export does not include the parameter generator; build "
                         "with the built-in back end (cfglut/ holds the generator and its top.v) or without the option")
    tr = opts.transport if opts.transport is not None else (design.transport or "hwicap")
    where = "--transport" if opts.transport is not None else f"design {design.name}: transport"
    if tr not in TRANSPORTS:
        raise BuildError(f"{where} {tr!r}: the configuration port must be one of {', '.join(TRANSPORTS)}")
    if tr == "icap-dma" and opts.backend != "vivado":
        raise BuildError(f"{where} icap-dma: the ICAP stream controller goes into the Vivado export; build with "
                         "--backend vivado")
    if tr == "icap-dma" and tl != "frames":
        raise BuildError(f"{where} icap-dma needs --tlut frames: a {tl} build rekeys through its loader, not the "
                         "configuration port")
    return replace(opts, lut_size=k, mul_chunk=k if opts.mul_chunk is None else opts.mul_chunk, tlut=tl,
                   chain_luts=chain, transport=tr)


def _check_out(out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, or a non-empty folder that is not a build folder (module
    docstring); with ``force``, refuse only names the build needs that are already taken. Reads
    only: nothing is written before the folder is accepted.

    Raises:
        BuildError: one line naming the path.
        dcsflow.scg.folderlock.FolderInUse: another build holds the folder (whatever is left in it).
    """
    if out.exists() and not out.is_dir():
        raise BuildError(f"--out {out}: a file, not a folder")
    check_not_in_use(out)          # held by another build: refused whatever its files say
    if not out.is_dir() or is_build_folder(out):
        return
    try:
        entries = sorted(p.name for p in out.iterdir())
    except OSError as e:
        raise BuildError(f"--out {out}: cannot read the folder ({e.strerror or e})") from None
    if not entries or (entries == [LOCK_FILE] and is_lock_file(out / LOCK_FILE)):
        return          # empty, or only the lock of a build killed before it wrote its folder record
    if not force:
        raise BuildError(f"--out {out}: not empty and not a dcsflow build folder ({', '.join(entries[:3])}"
                         f"{', ...' if len(entries) > 3 else ''}); choose another folder, or --force to write the "
                         "build's own files into it")
    taken = [n for n in (*BUILD_ENTRIES, *FINISHED_FILES) if os.path.lexists(out / n)]
    if taken:
        raise BuildError(f"--out {out}: {', '.join(taken)} already there and not from a dcsflow build; the build "
                         "would replace it: move it away or choose another folder")


@contextmanager
def _claim(out: Path):
    """Create the build folder ``out`` (accepted by :func:`_check_out`), hold its lock for the
    ``with`` block and write its folder record (``stages/folder.json``) before anything else.

    Raises:
        BuildError: the folder cannot be created or its record written.
        FolderInUse: another build holds the folder (one line with its pid).
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"--out {out}: cannot create the folder ({e.strerror or e})") from None
    with locked_folder(out, "build"):
        rec = out / FOLDER_RECORD
        try:
            rec.parent.mkdir(exist_ok=True)
            write_text_atomic(rec, json.dumps({"format": FOLDER_FORMAT, "version": FOLDER_VERSION}) + "\n")
        except OSError as e:
            raise BuildError(f"--out {out}: cannot write {FOLDER_RECORD} ({e.strerror or e})") from None
        yield


def _note(text: str) -> None:
    print(f"note: {text}", file=sys.stderr)


def earlier_device(out: Path) -> str | None:
    """The device the build folder ``out`` was built for (``build.json``, else the back-end stage's
    record), or None when it has neither (a new folder, or one never taken to the back end)."""
    for path, key in ((out / "build.json", ("device",)), (record_path(out, "backend"), ("data", "summary", "device"))):
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            for k in key:
                d = d[k]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(d, str):
            return d
    return None


def _check_retarget(out: Path, opts: BuildOptions, i0: int) -> None:
    """A build folder made for one device, run again from the back end or an earlier stage for
    another device, would lose everything the earlier device's back end made (placement, template
    configuration, frame map, report, Vivado files): refused unless ``force``, which replaces them
    with a note saying so. Reads only.

    Raises:
        BuildError: one line naming both devices and the ways out.
    """
    if i0 > STAGES.index("backend") or not out.is_dir() or not is_build_folder(out):
        return
    was = earlier_device(out)
    if was is None or was == opts.device:
        return
    how = f"--board {opts.board}" if opts.board else "--device"
    if not opts.force:
        raise BuildError(f"--out {out}: built for {was}; this run targets {opts.device} ({how}) and would replace "
                         f"its back-end results for {was} (placement, template configuration, frame map, report): "
                         f"build into another --out, or give --force to re-target this folder")
    _note(f"{out}: re-targeted from {was} to {opts.device}; its back-end results for {was} are replaced")


def _load_earlier(out: Path, upto: int, design_hash: str) -> tuple[int, dict, dict]:
    """Records of the stages before ``STAGES[upto]``: (first stage index to run, records, their outputs).
    The first missing or stale record (:class:`~dcsflow.flow.stages.StaleStage`) moves the start back
    to its stage, with a note on stderr."""
    records, outputs_of = {}, {}
    for k, name in enumerate(STAGES[:upto]):
        try:
            records[name], outputs_of[name] = load_record(out, name, design_hash, outputs_of)
        except StaleStage as e:
            _note(f"{e}: running from the '{name}' stage")
            return k, records, outputs_of
    return upto, records, outputs_of


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
    """Run stages ``opts.start``..``opts.stop`` of the build of the design into ``opts.out`` (an
    earlier start when an earlier stage's record is missing or stale, module docstring).

    Raises:
        BuildError: unknown stage name, an ``--out`` that cannot be used, a LUT size that cannot be
            used (:func:`_lut_options`), verification failure.
        DesignError, ProjectError: the design cannot be found or read.
        dcsflow.scg.folderlock.FolderInUse: another build (or import, report) holds the folder.
        FlowError subclasses from the front end (Yosys errors, unknown --param), the mapper, the back end.
    """
    for s in (opts.start, opts.stop):
        if s not in STAGES:
            raise BuildError(f"unknown stage {s!r}; stages: {', '.join(STAGES)}")
    i0, i1 = STAGES.index(opts.start), STAGES.index(opts.stop)
    if i0 > i1:
        raise BuildError(f"--from {opts.start} comes after --to {opts.stop}")
    _check_device(opts.device)
    check_names(opts.baselines)
    njobs = check_jobs(opts.jobs)
    design = resolve(opts.design, opts.top, list(opts.more), opts.project)
    opts = _lut_options(opts, design)
    with time_limit(opts.timeout, "--timeout"), memory_limit(opts.max_memory, "--max-memory"), \
            design_time_limit(design):
        return _build(opts, design, i0, i1, njobs)


def _build(opts: BuildOptions, design: Design, i0: int, i1: int, njobs: int) -> BuildResult:
    """:func:`build` once the options are checked and the design is found."""
    out = Path(opts.out)
    _check_out(out, opts.force)
    _check_retarget(out, opts, i0)
    with ExitStack() as held:
        if out.is_dir():          # an existing folder: held before anything of an earlier run is removed
            held.enter_context(_claim(out))
        for stale in [*(out / n for n in FINISHED_FILES), *(record_path(out, n) for n in STAGES[i0:])]:
            _remove(stale)                     # before anything else can fail
        prog = _Progress(opts.progress, f"build {design.name}")
        runner = Jobs(njobs)
        ctx = _context(opts, design, prog.step, runner)
        if not out.is_dir():      # a new folder: created (and held) once the design's ports are known
            held.enter_context(_claim(out))
        # the job cache once the folder is held (its key names the tools: their version queries run
        # as part of the build, under the folder's lock)
        note = cache.configure(opts.cache, design.cache_max_gb)
        if note is not None:
            print(f"dcsflow: {note}", file=sys.stderr)
        start, records, outputs_of = _load_earlier(out, i0, ctx.design_hash)
        for name in STAGES[start:]:
            _remove(record_path(out, name))
        return _run(opts, out, ctx, prog, runner, njobs, start, i1, records, outputs_of)


def _run(opts: BuildOptions, out: Path, ctx: Context, prog: _Progress, runner: Jobs, njobs: int, start: int,
         i1: int, records: dict, outputs_of: dict) -> BuildResult:
    """The stages ``STAGES[start:i1 + 1]`` of :func:`build`, in the held build folder ``out``."""
    report: dict = {}
    recorder = ctx.recorder
    with runner, prog.running(), recording(recorder):
        for name in STAGES[start:i1 + 1]:
            prog.stage(name)
            ctx.ran[name] = (time.perf_counter(), time.thread_time())
            if name == "tmap" and i1 >= STAGES.index("verify") and "frontcheck" not in ctx.started:
                # the front-end check needs only the front end: it runs beside the tmap stage (the
                # frontend stage starts it itself when this run made the front end)
                ctx.started["frontcheck"] = submit_for_build(ctx, records["frontend"])
            with step(name):
                rec = _run_stage(name, ctx, records)
            if name == "frontend":
                _say_params(prog, ctx, rec)
            if name == "outputs":
                report = rec
            else:
                rec = replace(rec, timing=stage_timing(recorder.as_list(), name, njobs))
                outputs_of[name] = save_record(out, rec, ctx.design_hash, outputs_of)
                records[name] = rec
    return BuildResult(out, report, recorder.as_list())


def _say_params(prog: _Progress, ctx: Context, front) -> None:
    """The parameter inputs the front end found, one line each: name, width, how it was marked
    (and, for a VHDL top not given with --top, how the top was chosen)."""
    vt = ctx.vhdl
    if vt is not None and vt.top is not None and vt.chosen != "--top":
        prog.say(f"{prog.title}: top {vt.top} ({vt.chosen})")
    if not front.params:
        prog.say(f"{prog.title}: no parameter input (--allow-no-params)")
    for name, width in front.params.items():
        prog.say(f"{prog.title}: parameter input {name}: {width} bit{'s' if width != 1 else ''}, "
                 f"{front.marks.get(name, 'marked')}")
    ad = front.adders or {}
    if ad.get("fed_by_parameters") or ad.get("logic"):
        k, kept = ad.get("logic", 0), ad.get("carry", 0)
        prog.say(f"{prog.title}: adders fed by parameter inputs: {k} to the LUT mapper as logic"
                 + (f", {kept} kept as CARRY4 chains" if kept else "") + f" (--adders {ad.get('mode')})")
    carry = (front.param_fed or {}).get("CARRY4", 0)
    if carry:
        prog.say(f"{prog.title}: parameter inputs reach {carry} CARRY4 cell{'s' if carry != 1 else ''}: "
                 "the chains stay in the template, the TLUTs stop at their inputs")


def _remove(path: Path) -> None:
    """Remove a file of an earlier run. Raises BuildError (one line) when it cannot be removed."""
    try:
        path.unlink(missing_ok=True)
    except IsADirectoryError:
        raise BuildError(f"{path}: a folder where the build keeps a file; move it away") from None
    except OSError as e:
        raise BuildError(f"{path}: cannot remove ({e.strerror or e}); check the folder's permissions") from None
