"""Time and memory limits of external tool runs: defaults, one override of each for the whole process.

Every external program the flow starts (:func:`dcsflow.tools.run_tool`) runs under a time limit, so
that a hung Yosys, ABC or simulator, or a user's test bench that never returns, ends the command
instead of hanging it. Without an override a run gets the default of its tool
(:data:`DEFAULT_LIMITS`, seconds per run; generous: a build of the largest bundled design stays
far below them). ``dcsflow build --timeout SECONDS`` / ``dcsflow check --timeout SECONDS`` and
``[build] timeout`` in a project's ``dcsflow.toml`` set one limit for every run instead
(:func:`set_time_limit`, :func:`time_limit`); the command line wins over the file. A run that
reaches its limit is killed with everything it started and raises
:class:`dcsflow.tools.ToolTimeout`: one line naming the tool, the step, the limit and how to raise it.

A caller may also give a run its own budget (``run_tool(..., timeout=...)``, e.g. the time an
equivalence proof may take before the flow gives up on it); an override below that budget still
applies. The limit never changes a result, so it is not part of any build hash or stage record.

| tool | default (s) | runs |
| --- | --- | --- |
| ``yosys`` | 3600 | synthesis (front end, TLUT and conventional builds) |
| ``ghdl`` | 3600 | VHDL analysis and elaboration |
| ``abc`` | 1800 | PPC optimization, baseline mappings, equivalence proofs |
| ``iverilog`` | 1800 | compiling a simulation |
| ``vvp`` | 1800 | one simulation run (a design's check, the front-end check) |
| ``verilator`` | 3600 | compiling a simulation |
| ``verilated`` | 1800 | one run of a simulation Verilator compiled |
| ``cocotb`` | 600 | one run of a user's cocotb test bench (``dcsflow check``) |
| ``yosys-config``, version queries | 60 | asking a tool where its files are |
| any other tool | 3600 | |

The front end's Yosys and GHDL runs (reading and elaborating the HDL, synthesis up to the LUT
mapping) get a default of their own, scaled from the size of the design's HDL
(:func:`frontend_time_limit`: :data:`FRONTEND_BASE_SECONDS` plus :data:`FRONTEND_SECONDS_PER_KIB`
per KiB, at most the tool's default), so that a runaway elaboration (an endless ``generate`` loop)
ends in minutes; :func:`tool_defaults` puts such defaults in place for a block (a context variable:
the block's thread; a job in a worker process is given them explicitly). The override still wins.

Memory: every run gets a limit of its address space (``RLIMIT_AS``, set in the child before the
program starts, so also what it starts inherits it): by default :data:`DEFAULT_MEMORY_FRACTION` of
the machine's physical memory (:func:`default_memory_limit`); ``--max-memory SIZE`` and ``[build]
max_memory`` in a project's ``dcsflow.toml`` set another (:func:`set_memory_limit`,
:func:`memory_limit`; :func:`check_memory_limit` reads sizes such as ``2G``, ``512MiB`` or a number
of bytes). A run that fails for want of memory raises :class:`dcsflow.tools.ToolMemoryLimit`, one
line naming the tool, the step, the limit and how to raise it.

Standard library only (the core layer).
"""

from __future__ import annotations

import contextvars
import math
import os
import re
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["DEFAULT_LIMITS", "FALLBACK_LIMIT", "MAX_TIME_LIMIT", "MIN_TIME_LIMIT", "HOW_TO_RAISE", "TimeLimitError",
           "check_time_limit", "set_time_limit", "get_time_limit", "time_limit", "limit_for", "format_seconds",
           "FRONTEND_BASE_SECONDS", "FRONTEND_SECONDS_PER_KIB", "frontend_time_limit", "tool_defaults",
           "current_defaults", "DEFAULT_MEMORY_FRACTION", "MIN_MEMORY_LIMIT", "MAX_MEMORY_LIMIT", "HOW_TO_RAISE_MEMORY",
           "MemoryLimitError", "machine_memory", "default_memory_limit", "check_memory_limit", "set_memory_limit",
           "get_memory_limit", "memory_limit", "memory_limit_for", "format_bytes"]

#: seconds one run of each tool may take when nothing overrides it (module docstring)
DEFAULT_LIMITS = {
    "yosys": 3600.0,
    "ghdl": 3600.0,
    "abc": 1800.0,
    "iverilog": 1800.0,
    "vvp": 1800.0,
    "verilator": 3600.0,
    "verilated": 1800.0,
    "cocotb": 600.0,
    "yosys-config": 60.0,
    "version": 60.0,
}
#: seconds for a tool not in :data:`DEFAULT_LIMITS`
FALLBACK_LIMIT = 3600.0
#: the largest limit ``--timeout`` / ``[build] timeout`` accept: one week
MAX_TIME_LIMIT = 7 * 24 * 3600.0
#: the smallest: 0.1 s (below it nothing but a fake tool would ever finish)
MIN_TIME_LIMIT = 0.1
#: the end of every time-limit message
HOW_TO_RAISE = "raise it with --timeout SECONDS or [build] timeout in dcsflow.toml"
#: the front end's default time limit: this many seconds ...
FRONTEND_BASE_SECONDS = 300.0
#: ... plus this many per KiB of HDL (the largest bundled front end, 12 KiB of PPE RTL, takes 261 s
#: on a 2-core Xeon, docs/results/build_times.md: its default of 1,023 s leaves a factor of 3.9)
FRONTEND_SECONDS_PER_KIB = 60.0

#: share of the machine's physical memory one tool run may use by default
DEFAULT_MEMORY_FRACTION = 0.75
#: the smallest memory limit accepted (64 MiB: below it no tool of the flow starts)
MIN_MEMORY_LIMIT = 64 << 20
#: the largest (1 PiB)
MAX_MEMORY_LIMIT = 1 << 50
#: the end of every memory-limit message
HOW_TO_RAISE_MEMORY = "raise it with --max-memory SIZE or [build] max_memory in dcsflow.toml"


class TimeLimitError(ValueError):
    """A time limit that cannot be used (not a number, not positive, above :data:`MAX_TIME_LIMIT`);
    one line naming where it was given. ``user_error``: the command lines print it as ``error: ...``."""

    user_error = True


class MemoryLimitError(ValueError):
    """A memory limit that cannot be used (not a size, outside :data:`MIN_MEMORY_LIMIT` ..
    :data:`MAX_MEMORY_LIMIT`); one line naming where it was given. ``user_error``: the command lines
    print it as ``error: ...``."""

    user_error = True


_LOCK = threading.Lock()
_OVERRIDE: tuple[float, str] | None = None
_MEMORY: tuple[int, str] | None = None
_DEFAULTS: contextvars.ContextVar[dict] = contextvars.ContextVar("dcsflow_tool_defaults", default={})


def format_seconds(seconds: float) -> str:
    """``3600`` for whole seconds, else up to three significant decimals (``0.5``)."""
    return f"{seconds:.0f}" if float(seconds).is_integer() else f"{seconds:.3g}"


def check_time_limit(value, what: str = "--timeout") -> float:
    """``value`` (a number, or a string holding one in ASCII) as seconds, checked: finite, at least
    :data:`MIN_TIME_LIMIT`, at most :data:`MAX_TIME_LIMIT`.

    Raises:
        TimeLimitError: one line naming ``what`` (e.g. ``--timeout`` or the file and key).
    """
    if isinstance(value, bool) or (isinstance(value, str) and not value.isascii()):
        # ASCII only: float() also reads other scripts' digits ('６０')
        raise TimeLimitError(f"{what}: a number of seconds is needed (ASCII digits), got {value!r}")
    try:
        seconds = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise TimeLimitError(f"{what}: a number of seconds is needed, got {value!r}") from None
    if not math.isfinite(seconds) or seconds < MIN_TIME_LIMIT or seconds > MAX_TIME_LIMIT:
        raise TimeLimitError(f"{what}: the time limit must be between {format_seconds(MIN_TIME_LIMIT)} and "
                             f"{format_seconds(MAX_TIME_LIMIT)} seconds (one week), got {value!r}")
    return seconds


def set_time_limit(seconds: float | None, source: str = "--timeout") -> None:
    """Give every tool run of this process the limit ``seconds`` (None: back to the defaults);
    ``source`` says where it came from, in the message of a run that reaches it. Checked by
    :func:`check_time_limit` (TimeLimitError)."""
    global _OVERRIDE
    value = None if seconds is None else (check_time_limit(seconds, source), source)
    with _LOCK:
        _OVERRIDE = value


def get_time_limit() -> tuple[float, str] | None:
    """The override (seconds, where it came from), or None when every tool has its default."""
    with _LOCK:
        return _OVERRIDE


@contextmanager
def time_limit(seconds: float | None, source: str = "--timeout") -> Iterator[None]:
    """:func:`set_time_limit` for the block, then the earlier override again. ``seconds`` None
    leaves the current override as it is."""
    if seconds is None:
        yield
        return
    before = get_time_limit()
    set_time_limit(seconds, source)
    try:
        yield
    finally:
        global _OVERRIDE
        with _LOCK:
            _OVERRIDE = before


def limit_for(tool: str, budget: float | None = None) -> tuple[float, str]:
    """The time limit of one run of ``tool`` and where it comes from: the caller's ``budget``
    (seconds; the override still applies when it is lower), else the override, else a default of
    :func:`tool_defaults` in force, else the tool's default (:data:`DEFAULT_LIMITS`, else
    :data:`FALLBACK_LIMIT`)."""
    over = get_time_limit()
    if budget is not None:
        if over is not None and over[0] < budget:
            return over
        return float(budget), f"the flow's budget for this {tool} run"
    if over is not None:
        return over
    scoped = _DEFAULTS.get().get(tool)
    if scoped is not None:
        return scoped
    return DEFAULT_LIMITS.get(tool, FALLBACK_LIMIT), f"the default for {tool}"


def frontend_time_limit(hdl_bytes: int) -> float:
    """The front end's default time limit (seconds) for ``hdl_bytes`` bytes of HDL:
    :data:`FRONTEND_BASE_SECONDS` + :data:`FRONTEND_SECONDS_PER_KIB` per KiB, at most Yosys's
    default (:data:`DEFAULT_LIMITS`)."""
    seconds = FRONTEND_BASE_SECONDS + FRONTEND_SECONDS_PER_KIB * max(0, int(hdl_bytes)) / 1024
    return float(min(DEFAULT_LIMITS["yosys"], math.ceil(seconds)))


@contextmanager
def tool_defaults(defaults: dict[str, tuple[float, str]] | None) -> Iterator[None]:
    """Inside the block (this thread's context), the tools named in ``defaults`` (tool -> (seconds,
    where it comes from)) have those default time limits instead of :data:`DEFAULT_LIMITS`; an
    override (:func:`set_time_limit`) and a caller's budget still win. None or empty: no change."""
    if not defaults:
        yield
        return
    token = _DEFAULTS.set({**_DEFAULTS.get(), **defaults})
    try:
        yield
    finally:
        _DEFAULTS.reset(token)


def current_defaults() -> dict[str, tuple[float, str]]:
    """The defaults of :func:`tool_defaults` in force here (to hand to a job in another process)."""
    return dict(_DEFAULTS.get())


# ------------------------------------------------------------------------------------------ memory

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"([0-9]{1,15})(?:\.([0-9]{1,6}))?[ ]?([kKmMgGtT]?)(?:i?[bB])?")


def format_bytes(n: int) -> str:
    """``n`` bytes in the largest binary unit that keeps it at least 1: ``2 GiB``, ``1.5 GiB``, ``512 MiB``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n} bytes"


def machine_memory() -> int:
    """The machine's physical memory in bytes (``sysconf``), 0 when it cannot be read."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 0


def default_memory_limit() -> tuple[int, str]:
    """The memory limit of a tool run when nothing sets one: :data:`DEFAULT_MEMORY_FRACTION` of the
    machine's physical memory (at least 1 GiB; 16 GiB when the memory cannot be read), and where it
    comes from."""
    total = machine_memory()
    if total <= 0:
        return 16 << 30, "the default for a machine whose memory is unknown"
    limit = max(1 << 30, int(total * DEFAULT_MEMORY_FRACTION) >> 20 << 20)
    return limit, f"the default, {DEFAULT_MEMORY_FRACTION:.0%} of this machine's {format_bytes(total)}"


def check_memory_limit(value, what: str = "--max-memory") -> int:
    """``value`` as a number of bytes: an int, or a string of ASCII digits (an optional fraction)
    and an optional binary unit ``K``, ``M``, ``G``, ``T`` (also ``KB``, ``KiB``, ...: all of them
    multiples of 1024); checked to lie between :data:`MIN_MEMORY_LIMIT` and :data:`MAX_MEMORY_LIMIT`.

    Raises:
        MemoryLimitError: one line naming ``what``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise MemoryLimitError(f"{what}: a size such as 4G or 512M is needed, got {type(value).__name__}")
    if isinstance(value, int):
        n = value
    else:
        m = _SIZE.fullmatch(value.strip())
        if m is None:
            raise MemoryLimitError(f"{what}: not a size (give digits and a unit, e.g. 4G, 512M or 2GiB)")
        whole, frac, unit = m.group(1), m.group(2) or "", m.group(3).lower()
        mult = _UNITS[unit]
        n = int(whole) * mult + (int(frac) * mult // 10 ** len(frac) if frac else 0)
    if not MIN_MEMORY_LIMIT <= n <= MAX_MEMORY_LIMIT:
        raise MemoryLimitError(f"{what}: the memory limit must be between {format_bytes(MIN_MEMORY_LIMIT)} and "
                               f"{format_bytes(MAX_MEMORY_LIMIT)}, got {format_bytes(n) if n > 0 else n}")
    return n


def set_memory_limit(limit: int | None, source: str = "--max-memory") -> None:
    """Give every tool run of this process the memory limit ``limit`` bytes (None: back to the
    default); ``source`` says where it came from. Checked by :func:`check_memory_limit`."""
    global _MEMORY
    value = None if limit is None else (check_memory_limit(limit, source), source)
    with _LOCK:
        _MEMORY = value


def get_memory_limit() -> tuple[int, str] | None:
    """The memory-limit override (bytes, where it came from), or None (the default applies)."""
    with _LOCK:
        return _MEMORY


@contextmanager
def memory_limit(limit: int | None, source: str = "--max-memory") -> Iterator[None]:
    """:func:`set_memory_limit` for the block, then the earlier override again. None leaves the
    current override as it is."""
    if limit is None:
        yield
        return
    before = get_memory_limit()
    set_memory_limit(limit, source)
    try:
        yield
    finally:
        global _MEMORY
        with _LOCK:
            _MEMORY = before


def memory_limit_for(tool: str) -> tuple[int, str]:
    """The memory limit (bytes) of one run of ``tool`` and where it comes from: the override, else
    :func:`default_memory_limit`."""
    over = get_memory_limit()
    return over if over is not None else default_memory_limit()
