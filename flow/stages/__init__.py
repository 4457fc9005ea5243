"""The labelled stages of ``dcsflow build`` and the typed records they pass on.

Stages, in order (:data:`STAGES`), like Yosys's ``-run from:to`` labels; each is one module:
:mod:`.frontend` (Yosys to ``map_luts``, extraction of the gate logic),
:mod:`.mapping` (TMAP and the conventional mapping, stage name ``tmap``), :mod:`.verify`,
:mod:`.backend` and :mod:`.outputs`. Each takes the :class:`Context` and the records of the
stages it needs and returns its own record (a frozen dataclass below). The pipeline
(:mod:`dcsflow.flow.build`) stores every record as versioned JSON in ``stages/<stage>.json`` of
the build folder (format ``dcsflow-stage``, docs/formats.md), so that ``--from`` can reload them;
a record of another format version or another design hash is refused.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, ClassVar

from dcsflow.fileio import write_text_atomic

from ..errors import FlowError

#: the stages of ``dcsflow build``, in order
STAGES = ("frontend", "tmap", "verify", "backend", "outputs")

#: format name and version of the stage records ``stages/<stage>.json``
RECORD_FORMAT = "dcsflow-stage"
RECORD_VERSION = 1
RECORD_DIR = "stages"


class BuildError(FlowError):
    """A build stage cannot run (missing or stale inputs of an earlier stage, failed verification)."""


@dataclass(frozen=True)
class Context:
    """What every stage may read: the options (:class:`dcsflow.flow.build.BuildOptions`), the design
    (:class:`dcsflow.flow.design.Design`), the resolved top module and parameter port names (VHDL:
    as declared), the VHDL scan (:class:`dcsflow.flow.vhdl.VhdlTop`) or None, the design hash, the
    build folder and a progress callback ``step(text)``."""

    options: Any
    design: Any
    top: str | None
    params: tuple[str, ...]
    vhdl: Any
    design_hash: str
    out: Path
    step: Callable[[str], None] = lambda s: None


@dataclass(frozen=True)
class FrontendResult:
    """Record of the ``frontend`` stage.

    design: design name; top: top module; params: parameter ports -> width (in AIG input order);
    folded: parameter registers folded into the parameters; aig_ands: AND nodes of the extracted
    logic; gates: gate cells extracted; seconds_yosys / seconds_extract: wall time; vhdl: GHDL run
    (``ghdl`` version, ``top``, ``params`` with how each was marked, ``verilog`` file) or None.
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


@dataclass(frozen=True)
class MapResult:
    """Record of the ``tmap`` stage.

    ppc_file: the PPC AIGER, relative to the build folder; tmap_luts: TMAP's LUTs on the extracted
    logic; tmap_no_param_luts: the same mapping with the parameters as ordinary inputs (None without
    parameters); notes: TMAP's notes (e.g. a skipped PPC optimization); abc_cec: verdict of TMAP's
    own ABC equivalence proof (None: not run); seconds_tmap / seconds_tlut_yosys /
    seconds_conventional_yosys: wall times.
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


@dataclass(frozen=True)
class VerifyResult:
    """Record of the ``verify`` stage: random patterns simulated, whether TLUT netlist ∘ PPC equalled
    the input AIG on all of them, TMAP's ABC proof verdict, seconds."""

    STAGE: ClassVar[str] = "verify"
    random_patterns: int
    equal: bool
    abc_cec: bool | None
    seconds: float


@dataclass(frozen=True)
class BackendResult:
    """Record of the ``backend`` stage: ``summary`` (report.json's ``backend`` section,
    docs/formats.md), ``files`` written (relative to the build folder), seconds."""

    STAGE: ClassVar[str] = "backend"
    summary: dict
    files: list
    seconds: float


RECORD_TYPES = {t.STAGE: t for t in (FrontendResult, MapResult, VerifyResult, BackendResult)}


def record_path(out: Path, stage: str) -> Path:
    """``<out>/stages/<stage>.json``."""
    return Path(out) / RECORD_DIR / f"{stage}.json"


def save_record(out: Path, record, design_hash: str) -> None:
    """Write ``record`` atomically as ``stages/<stage>.json`` (format :data:`RECORD_FORMAT`)."""
    doc = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "stage": record.STAGE, "design_hash": design_hash,
           "data": asdict(record)}
    write_text_atomic(record_path(out, record.STAGE), json.dumps(doc, indent=1) + "\n")


def load_record(out: Path, stage: str, design_hash: str):
    """The record of ``stage`` in build folder ``out``.

    Raises:
        BuildError: missing (run that stage first), unreadable, another format version, or written
            for another design hash (the design or its options changed: run from ``frontend``).
    """
    p = record_path(out, stage)
    if not p.is_file():
        raise BuildError(f"{out}: no result of the '{stage}' stage: run it first (--from {stage})")
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise BuildError(f"{p}: unreadable ({e}); run from the '{stage}' stage") from None
    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT or doc.get("stage") != stage:
        raise BuildError(f"{p}: not a {RECORD_FORMAT} record of the '{stage}' stage; run from '{stage}'")
    if doc.get("version") != RECORD_VERSION:
        raise BuildError(f"{p}: stage record of format version {doc.get('version')}; this dcsflow reads version "
                         f"{RECORD_VERSION}: run from the '{stage}' stage")
    if doc.get("design_hash") != design_hash:
        raise BuildError(f"{out}: the design, its sources or its --param list changed since the {stage} stage; "
                         "run from 'frontend'")
    cls = RECORD_TYPES[stage]
    data = doc.get("data")
    names = {f.name for f in fields(cls)}
    if not isinstance(data, dict) or set(data) != names:
        raise BuildError(f"{p}: malformed record of the '{stage}' stage; run from '{stage}'")
    return cls(**data)
