"""Where the time goes: named steps with wall and CPU seconds, and every external tool run.

A :class:`Recorder` collects :class:`StepRecord` entries. Code marks its parts with
:func:`step` (a context manager); the tool runner (:func:`dcsflow.tools.run_tool`) records every
external program it runs (Yosys, ABC, GHDL, Icarus, ...) under the step that ran it. Steps nest:
a record's ``path`` names its ancestors (``tmap/baseline abc-dch/abc``). Nothing is recorded
outside :func:`recording` (the calls cost a few microseconds), so library code may mark its steps
unconditionally.

CPU seconds of a step: the CPU time of the thread that ran it (``time.thread_time``) during the
step, plus the CPU time of what it started elsewhere: tool runs (child processes, from their
resource usage) and steps run in other threads or processes (:func:`bind` carries the current step
into a thread; :func:`merge` adds a worker process's records). So a step's CPU seconds can exceed
its wall seconds when its parts ran in parallel.

Standard library only (the core layer: the mapper and the runtime record steps too).
"""

from __future__ import annotations

import contextvars
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Iterator

__all__ = ["StepRecord", "Recorder", "Handle", "recording", "step", "record_tool", "bind", "capture", "merge",
           "join_path", "current_path", "active", "slowest", "totals"]


@dataclass
class StepRecord:
    """One finished step or tool run.

    path: ``/``-separated names from the outermost step (e.g. ``tmap/baseline abc-dch/abc``);
    kind: ``"step"`` or ``"tool"``; what: what it did, in a few words (a tool's script or command);
    tool: the program's name for a tool run, else None; start: seconds from the recording's start;
    wall / cpu: seconds (cpu: see the module docstring); failed: why it failed (one line) or None.
    """

    path: str
    kind: str
    what: str = ""
    tool: str | None = None
    start: float = 0.0
    wall: float = 0.0
    cpu: float = 0.0
    failed: str | None = None

    def as_dict(self) -> dict:
        """JSON form, seconds rounded to milliseconds."""
        d = asdict(self)
        for k in ("start", "wall", "cpu"):
            d[k] = round(d[k], 3)
        return d


class Recorder:
    """Thread-safe list of :class:`StepRecord` entries of one recording; ``t0``: its start
    (``time.perf_counter``, the same clock in every process of the machine)."""

    def __init__(self, t0: float | None = None):
        self.t0 = time.perf_counter() if t0 is None else t0
        self._lock = threading.Lock()
        self.records: list[StepRecord] = []

    def add(self, rec: StepRecord) -> None:
        """Append one record."""
        with self._lock:
            self.records.append(rec)

    def as_list(self) -> list[dict]:
        """Every record as JSON, in the order they started."""
        with self._lock:
            recs = sorted(self.records, key=lambda r: (r.start, r.path))
        return [r.as_dict() for r in recs]


class _Frame:
    """An open step: where it records, its path, the thread it runs in and the CPU seconds its
    parts spent outside that thread (``foreign``)."""

    __slots__ = ("recorder", "path", "thread", "foreign", "lock")

    def __init__(self, recorder: Recorder, path: str):
        self.recorder = recorder
        self.path = path
        self.thread = threading.get_ident()
        self.foreign = 0.0
        self.lock = threading.Lock()

    def add_foreign(self, cpu: float) -> None:
        with self.lock:
            self.foreign += cpu


_FRAME: contextvars.ContextVar[_Frame | None] = contextvars.ContextVar("dcsflow_step", default=None)


def active() -> bool:
    """True inside :func:`recording`."""
    return _FRAME.get() is not None


def current_path() -> str:
    """Path of the innermost open step ('' outside a recording or at its top)."""
    f = _FRAME.get()
    return f.path if f is not None else ""


def _join(path: str, name: str) -> str:
    name = name.replace("/", "∕")          # a name never splits a path
    return f"{path}/{name}" if path else name


@contextmanager
def recording(recorder: Recorder, prefix: str = "") -> Iterator[Recorder]:
    """Record the steps run inside the block into ``recorder``; their paths start with ``prefix``."""
    token = _FRAME.set(_Frame(recorder, prefix))
    try:
        yield recorder
    finally:
        _FRAME.reset(token)


@contextmanager
def step(name: str, what: str = "") -> Iterator[None]:
    """Mark the block as step ``name`` (nested in the current step). Outside a recording it does
    nothing. A step left by an exception is recorded with ``failed`` (the exception's first line)."""
    parent = _FRAME.get()
    if parent is None:
        yield
        return
    frame = _Frame(parent.recorder, _join(parent.path, name))
    token = _FRAME.set(frame)
    t0, c0 = time.perf_counter(), time.thread_time()
    failed = None
    try:
        yield
    except BaseException as e:
        failed = (str(e).splitlines() or [type(e).__name__])[0][:300] or type(e).__name__
        raise
    finally:
        _FRAME.reset(token)
        wall = time.perf_counter() - t0
        own = time.thread_time() - c0
        cpu = own + frame.foreign
        parent.recorder.add(StepRecord(frame.path, "step", what, None, t0 - parent.recorder.t0, wall, cpu, failed))
        # the parent's own thread time already holds this step's thread time when both ran in one thread
        parent.add_foreign(frame.foreign if frame.thread == parent.thread else cpu)


def record_tool(tool: str, what: str, t0: float, wall: float, cpu: float, failed: str | None = None) -> None:
    """Record an external tool run (a child process) under the current step: ``t0`` its start
    (``time.perf_counter``), ``wall`` / ``cpu`` seconds (``cpu``: the child's user + system time).
    Outside a recording it does nothing."""
    parent = _FRAME.get()
    if parent is None:
        return
    parent.recorder.add(StepRecord(_join(parent.path, tool), "tool", what, tool, t0 - parent.recorder.t0, wall, cpu,
                                   failed))
    parent.add_foreign(cpu)


def bind(fn: Callable) -> Callable:
    """``fn`` wrapped to run in the current step's context (for a thread pool: its steps and tool
    runs are recorded under the current step, their CPU seconds added to it)."""
    ctx = contextvars.copy_context()
    return lambda *a, **k: ctx.run(fn, *a, **k)


class Handle:
    """The current step, captured to receive records from elsewhere later (:func:`capture`):
    ``path`` and ``t0`` (the recording's start) for a worker's own recording, :meth:`merge` for its
    records. Inert outside a recording (``path`` '', ``t0`` now)."""

    def __init__(self, frame: "_Frame | None"):
        self._frame = frame
        self.path = frame.path if frame is not None else ""
        self.t0 = frame.recorder.t0 if frame is not None else time.perf_counter()

    def merge(self, records: Iterable[dict], cpu: float) -> None:
        """Add records made elsewhere (JSON form, complete paths) and their CPU seconds (spent
        outside this step's thread) to the captured step."""
        if self._frame is None:
            return
        for r in records:
            self._frame.recorder.add(StepRecord(**r))
        self._frame.add_foreign(cpu)


def capture() -> Handle:
    """A :class:`Handle` on the current step (for results that arrive from another process)."""
    return Handle(_FRAME.get())


@contextmanager
def recording_under(path: str) -> Iterator[None]:
    """Record the block's steps with ``path`` as their parent's path (in the current recording; the
    CPU seconds still count toward the current step). Outside a recording it does nothing."""
    parent = _FRAME.get()
    if parent is None:
        yield
        return
    frame = _Frame(parent.recorder, path)
    token = _FRAME.set(frame)
    try:
        yield
    finally:
        _FRAME.reset(token)
        parent.add_foreign(frame.foreign)


def join_path(path: str, name: str) -> str:
    """The path of step ``name`` inside the step at ``path``."""
    return _join(path, name)


def merge(records: Iterable[dict], cpu: float) -> None:
    """Add the records of a step run in another process (JSON form, paths already complete) to the
    current recording, and its CPU seconds to the current step. Outside a recording it does nothing."""
    parent = _FRAME.get()
    if parent is None:
        return
    for r in records:
        parent.recorder.add(StepRecord(**r))
    parent.add_foreign(cpu)


def slowest(records: list[dict], n: int = 5, exclude_depth: int = 1) -> list[dict]:
    """The ``n`` slowest (wall seconds) records without recorded parts of their own (tool runs and
    innermost steps), deeper than ``exclude_depth`` path parts (1: no stage itself)."""
    paths = {r["path"] for r in records}
    parents = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    leaves = [r for r in records if r["path"] not in parents and r["path"].count("/") >= exclude_depth]
    return sorted(leaves, key=lambda r: -r["wall"])[:n]


def totals(records: list[dict], prefix: str) -> dict:
    """Wall and CPU seconds of the record whose path is ``prefix`` (``{"wall": .., "cpu": ..}``;
    zeros when there is none)."""
    for r in records:
        if r["path"] == prefix and r["kind"] == "step":
            return {"wall": r["wall"], "cpu": r["cpu"]}
    return {"wall": 0.0, "cpu": 0.0}
