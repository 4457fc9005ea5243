"""The labelled stages of ``dcsflow build`` and the typed records they pass on.

Stages, in order (:data:`STAGES`), like Yosys's ``-run from:to`` labels; each is one module:
:mod:`.frontend` (Yosys to ``map_luts``, extraction of the gate logic),
:mod:`.mapping` (TMAP and the conventional mapping, stage name ``tmap``), :mod:`.verify`,
:mod:`.backend` and :mod:`.outputs`. Each takes the :class:`Context` and the records of the
stages it needs and returns its own record (a frozen dataclass below). The pipeline
(:mod:`dcsflow.flow.build`) stores every record as versioned JSON in ``stages/<stage>.json`` of
the build folder (format ``dcsflow-stage``, docs/formats.md) with the SHA-256 of the files it
wrote and a digest of the files of the stages it read, so that ``--from`` can reload them. Every record carries ``timing``
(:func:`stage_timing`: the stage's wall and CPU seconds and every step and tool run inside it,
:mod:`dcsflow.steps`), set by the pipeline when the stage has run. A record
that is missing, of another format version or design hash, or whose files (or the files of the
stages it read) changed since it ran is stale, and the pipeline runs that stage again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, ClassVar

from dcsflow.fileio import JSON_LIMIT, load_json_file, write_text_atomic
from dcsflow.schema import SchemaError, validate
from dcsflow.scg.buildfolder import STAGE_FORMAT, sha256_file

from ..errors import FlowError
from ..records import STAGE_DATA, STAGE_RECORD

#: the stages of ``dcsflow build``, in order
STAGES = ("frontend", "tmap", "verify", "backend", "outputs")

#: format name and version of the stage records ``stages/<stage>.json``
RECORD_FORMAT = STAGE_FORMAT
RECORD_VERSION = 7
RECORD_DIR = "stages"


class BuildError(FlowError):
    """A build stage cannot run (missing or stale inputs of an earlier stage, failed verification)."""


def no_params_error(design: str, top: str | None) -> BuildError:
    """The one-line error of a build that finds no parameter input."""
    return BuildError(f"no parameter input in design {design}" + (f" (top {top})" if top else "")
                      + ": mark the parameter ports (VHDL: a --PARAM line before and after their declarations, or "
                      "--PARAM after a port; Verilog: //PARAM lines around them, or (* PARAM *)), or name them with "
                      "--param PORT; --allow-no-params builds without (e.g. a conventional baseline)")


@dataclass(frozen=True)
class Context:
    """What every stage may read: the options (:class:`dcsflow.flow.build.BuildOptions`), the design
    (:class:`dcsflow.flow.design.Design`), the resolved top module and parameter port names (VHDL:
    as declared), the VHDL scan (:class:`dcsflow.flow.vhdl.VhdlTop`) or None, the design hash, the
    build folder, a progress callback ``step(text)`` and the build's job runner
    (:class:`dcsflow.flow.jobs.Jobs`: the steps that may run in parallel; None: run them in turn),
    the build's step recorder (:class:`dcsflow.steps.Recorder`, or None) and the stages this run has
    started so far (name -> ``time.perf_counter()`` and ``time.thread_time()`` at its start; the
    other stages' records come from an earlier run), and the jobs started early for a later stage
    (name -> future: ``frontcheck``, the front-end check the frontend stage starts; ``packs``, the
    conventional candidates' packings the tmap stage starts)."""

    options: Any
    design: Any
    top: str | None
    params: tuple[str, ...]
    vhdl: Any
    design_hash: str
    out: Path
    step: Callable[[str], None] = lambda s: None
    jobs: Any = None
    recorder: Any = None
    ran: dict = field(default_factory=dict)
    started: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FrontendResult:
    """Record of the ``frontend`` stage.

    design: design name; top: top module; params: parameter ports -> width (in AIG input order);
    folded: parameter registers folded into the parameters; aig_ands: AND nodes of the extracted
    logic; gates: gate cells extracted; seconds_yosys / seconds_extract: wall time; vhdl: GHDL run
    (``ghdl`` version, ``top``, ``params`` with how each was marked, ``ghdl_options``, ``verilog``
    file) or None; files: the files the stage wrote that later stages read (relative to the build
    folder); marks: parameter input -> how and where it was marked (one phrase, for the build's output);
    timing: see :func:`stage_timing`; parameter_defaults: the top's Verilog parameter values in
    pre.json (``parameter_default_values``, kept in every finished netlist); param_fed: cell type ->
    how many cells of :data:`dcsflow.flow.frontend.REPORTED_CELLS` (CARRY4) a parameter input
    reaches; adders: the adder decisions (``mode``, ``K``, ``fed_by_parameters``, ``logic``: how many
    went to the LUT mapper; :mod:`dcsflow.flow.adders`, ``frontend/adders.json``); dsp_reference:
    for a design with a multiplier fed by a parameter input, Yosys's own synthesis of it with
    DSP48E1 inference (:mod:`dcsflow.flow.dspref`: ``luts``, ``dsp48e1``, ``ffs``, ``carry4``,
    ``seconds``), else empty.
    """

    STAGE: ClassVar[str] = "frontend"
    design: str
    top: str
    params: dict
    folded: int
    aig_ands: int
    gates: int
    seconds_yosys: float
    seconds_extract: float
    vhdl: dict | None = None
    files: list = field(default_factory=list)
    marks: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)
    parameter_defaults: dict = field(default_factory=dict)
    param_fed: dict = field(default_factory=dict)
    dsp_reference: dict = field(default_factory=dict)
    adders: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MapResult:
    """Record of the ``tmap`` stage.

    ppc_file: the PPC AIGER, relative to the build folder; tmap_luts: TMAP's LUTs on the extracted
    logic; tmap_no_param_luts / tmap_no_param_depth: the same mapping with the parameters as ordinary
    inputs (None without parameters), tmap_no_param_param_only_luts: how many of its LUTs compute
    functions of the parameters alone; notes: TMAP's notes (e.g. a skipped PPC optimization);
    abc_cec: verdict of TMAP's own ABC equivalence proof (None: not run); seconds_tmap /
    seconds_tlut_yosys / seconds_conventional_yosys: wall times (the last: the ``yosys-abc``
    candidate); static_remap: the record of :func:`dcsflow.flow.static_remap.recover` (None: not
    run); baselines: the conventional candidates made
    (:meth:`dcsflow.flow.baselines.BaselineRun.as_dict`, in candidate order); files: the files later
    stages read.
    """

    STAGE: ClassVar[str] = "tmap"
    ppc_file: str
    tmap_luts: int | None
    tmap_no_param_luts: int | None
    notes: list = field(default_factory=list)
    abc_cec: bool | None = None
    seconds_tmap: float = 0.0
    seconds_tlut_yosys: float = 0.0
    seconds_conventional_yosys: float = 0.0
    files: list = field(default_factory=list)
    tmap_no_param_depth: int | None = None
    tmap_no_param_param_only_luts: int | None = None
    baselines: list = field(default_factory=list)
    static_remap: dict | None = None
    timing: dict = field(default_factory=dict)


@dataclass(frozen=True)
class VerifyResult:
    """Record of the ``verify`` stage: random patterns simulated, whether TLUT netlist ∘ PPC equalled
    the input AIG on all of them, TMAP's ABC proof verdict, seconds; files: none (it writes none
    that later stages read); frontend_check: the front-end check's result
    (:meth:`dcsflow.flow.frontcheck.FrontCheckResult.as_dict`; ``passed`` null and ``skipped`` when
    it did not run) or None (a record written before the check existed); checked: file (relative to
    the build folder) -> SHA-256 of every file the stage checked (:data:`VERIFIED_FILES` and the
    PPC), so that a reused record certifies those files only as they were checked."""

    STAGE: ClassVar[str] = "verify"
    random_patterns: int
    equal: bool
    abc_cec: bool | None
    seconds: float
    files: list = field(default_factory=list)
    frontend_check: dict | None = None
    timing: dict = field(default_factory=dict)
    checked: dict = field(default_factory=dict)


@dataclass(frozen=True)
class BackendResult:
    """Record of the ``backend`` stage: ``summary`` (report.json's ``backend`` section,
    docs/formats.md), ``files`` written (relative to the build folder), seconds."""

    STAGE: ClassVar[str] = "backend"
    summary: dict
    files: list
    seconds: float
    timing: dict = field(default_factory=dict)


RECORD_TYPES = {t.STAGE: t for t in (FrontendResult, MapResult, VerifyResult, BackendResult)}

#: the files the ``verify`` stage checks besides the PPC (``MapResult.ppc_file``): the front end's
#: netlist and gate logic, TMAP's netlist and the finished TLUT netlist the back end implements
VERIFIED_FILES = ("frontend/pre.json", "frontend/logic.aag", "tmap/netlist.json", "tlut/netlist.json")

#: the stages whose records (and files) each stage reads
DEPENDS = {"frontend": (), "tmap": ("frontend",), "verify": ("frontend", "tmap"), "backend": ("frontend", "tmap"),
           "outputs": ("frontend", "tmap", "verify", "backend")}


def stage_timing(records: list[dict], stage: str, jobs: int) -> dict:
    """The ``timing`` of a stage's record from the build's step records (JSON form,
    :meth:`dcsflow.steps.Recorder.as_list`): ``wall`` and ``cpu`` seconds of the stage, ``jobs``
    (the parallel jobs allowed), ``steps``, every record inside the stage (paths start with
    ``<stage>/``), and ``cached``: the jobs whose results came from the job cache
    (:mod:`dcsflow.flow.cache`; the paths of the steps holding a ``cached`` step)."""
    from dcsflow.steps import totals

    inside = [r for r in records if r["path"].startswith(stage + "/")]
    cached = [r["path"].rsplit("/", 1)[0] for r in inside if r["path"].endswith("/cached")]
    return {**totals(records, stage), "jobs": jobs, "steps": inside, "cached": cached}


class StaleStage(BuildError):
    """A stage's record cannot be used: missing, of another format version or design hash, its files
    changed since it ran, or an earlier stage it read from ran again since (the pipeline then runs
    that stage again)."""


def record_path(out: Path, stage: str) -> Path:
    """``<out>/stages/<stage>.json``."""
    return Path(out) / RECORD_DIR / f"{stage}.json"


def _digest(outputs: dict) -> str:
    return hashlib.sha256(json.dumps(outputs, sort_keys=True).encode()).hexdigest()


def save_record(out: Path, record, design_hash: str, outputs_of: dict[str, dict]) -> dict:
    """Write ``record`` atomically as ``stages/<stage>.json`` (format :data:`RECORD_FORMAT`) with the
    SHA-256 of every file it lists (``outputs``) and a digest of the outputs of every stage it read
    (``inputs``, :data:`DEPENDS`; ``outputs_of`` maps those stages to their outputs). Returns its
    outputs map."""
    outputs = {f: sha256_file(Path(out) / f) for f in record.files}
    doc = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "stage": record.STAGE, "design_hash": design_hash,
           "inputs": {s: _digest(outputs_of[s]) for s in DEPENDS[record.STAGE]}, "outputs": outputs,
           "data": asdict(record)}
    write_text_atomic(record_path(out, record.STAGE), json.dumps(doc, indent=1) + "\n")
    return outputs


def load_record(out: Path, stage: str, design_hash: str, outputs_of: dict[str, dict]):
    """The record of ``stage`` in build folder ``out`` and its outputs map, checked: format, version,
    design hash, its schema (:data:`dcsflow.flow.records.STAGE_DATA`: every field's type and range),
    every output file unchanged, and every stage it read unchanged since (``outputs_of`` holds the
    outputs of the earlier stages, already loaded).

    Raises:
        StaleStage: the reason, in a few words (the caller reruns from ``stage``).
    """
    p = record_path(out, stage)
    if not p.is_file():
        raise StaleStage(f"no result of the '{stage}' stage")
    try:
        doc = load_json_file(p, JSON_LIMIT)
    except (OSError, ValueError) as e:
        raise StaleStage(f"{p} unreadable ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT or doc.get("stage") != stage:
        raise StaleStage(f"{p} is not a {RECORD_FORMAT} record of the '{stage}' stage")
    if doc.get("version") != RECORD_VERSION:
        raise StaleStage(f"{p} has format version {doc.get('version')}; this dcsflow reads version {RECORD_VERSION}")
    if doc.get("design_hash") != design_hash:
        raise StaleStage(f"the design, its sources, its --param list or the LUT size changed since the {stage} stage")
    cls = RECORD_TYPES[stage]
    data, outputs, inputs = doc.get("data"), doc.get("outputs"), doc.get("inputs")
    names = {f.name for f in fields(cls)}
    try:
        validate(doc, STAGE_RECORD)
        validate(data, STAGE_DATA[stage])
    except SchemaError as e:
        raise StaleStage(f"{p} is a malformed record of the '{stage}' stage (field {e.field}: {e.reason})") from None
    if set(data) != names or set(outputs) != set(data.get("files") or []):
        raise StaleStage(f"{p} is a malformed record of the '{stage}' stage")
    for f, digest in outputs.items():
        path = Path(out) / f
        if not path.is_file() or sha256_file(path) != digest:
            raise StaleStage(f"{f} {'is missing' if not path.is_file() else 'changed'} since the {stage} stage")
    for s in DEPENDS[stage]:
        if inputs.get(s) != _digest(outputs_of[s]):
            raise StaleStage(f"the {s} stage ran again after the {stage} stage")
    rec = cls(**data)
    check_reused(out, rec)
    return rec, outputs


def failed_checks(record) -> list[str]:
    """The checks a ``tmap`` or ``verify`` record says failed (empty: none failed): TMAP's ABC
    proof (``abc_cec`` false), the random-pattern comparison (``equal`` not true), the front-end
    check (``frontend_check.passed`` false, or neither passed nor skipped)."""
    bad = []
    if getattr(record, "abc_cec", None) is False:
        bad.append("abc_cec is false")
    if isinstance(record, VerifyResult):
        if record.equal is not True:
            bad.append("equal is not true")
        fc = record.frontend_check
        if fc is not None and (not isinstance(fc, dict) or fc.get("passed") is False
                               or (fc.get("passed") is not True and not fc.get("skipped"))):
            bad.append("frontend_check did not pass")
    return bad


def check_reused(out: Path, record) -> None:
    """Check a record about to be reused (``--from`` a later stage) beyond its files' hashes: a
    record whose checks failed is never reused (the stage runs again and fails or passes on its
    own), and a ``verify`` record certifies the files it checked only as they were checked
    (``checked``): a file changed since, though the stage records agree with it (records rewritten
    after the files changed), refuses the build.

    Raises:
        StaleStage: a failed check recorded (the stage runs again), a ``verify`` record that names
            other files than this dcsflow checks.
        BuildError: a checked file changed since the verify stage.
    """
    where = record_path(out, record.STAGE)
    bad = failed_checks(record)
    if bad:
        raise StaleStage(f"{where} records a failed check ({', '.join(bad)})")
    if not isinstance(record, VerifyResult):
        return
    checked = record.checked
    if not isinstance(checked, dict) or not set(VERIFIED_FILES) <= set(checked) \
            or not all(isinstance(d, str) for d in checked.values()):
        raise StaleStage(f"{where} does not name the files the verify stage checked")
    for f, digest in sorted(checked.items()):
        p = Path(out) / f
        if not p.is_file() or sha256_file(p) != digest:
            raise BuildError(f"{f} {'is missing' if not p.is_file() else 'changed'} since the verify stage checked "
                             "it, though the stage records agree with it (they were rewritten): the build cannot "
                             "be certified; run dcsflow build --from tmap")


def checked_files(out: Path, ppc_file: str) -> dict:
    """``VerifyResult.checked``: file -> SHA-256 of :data:`VERIFIED_FILES` and the PPC ``ppc_file``
    (relative names) in the build folder ``out``."""
    return {f: sha256_file(Path(out) / f) for f in (*VERIFIED_FILES, ppc_file)}
