"""Time limits of external tool runs: one default per tool, one override for the whole process.

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

Standard library only (the core layer).
"""

from __future__ import annotations

import math
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["DEFAULT_LIMITS", "FALLBACK_LIMIT", "MAX_TIME_LIMIT", "MIN_TIME_LIMIT", "HOW_TO_RAISE", "TimeLimitError",
           "check_time_limit", "set_time_limit", "get_time_limit", "time_limit", "limit_for", "format_seconds"]

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


class TimeLimitError(ValueError):
    """A time limit that cannot be used (not a number, not positive, above :data:`MAX_TIME_LIMIT`);
    one line naming where it was given. ``user_error``: the command lines print it as ``error: ...``."""

    user_error = True


_LOCK = threading.Lock()
_OVERRIDE: tuple[float, str] | None = None


def format_seconds(seconds: float) -> str:
    """``3600`` for whole seconds, else up to three significant decimals (``0.5``)."""
    return f"{seconds:.0f}" if float(seconds).is_integer() else f"{seconds:.3g}"


def check_time_limit(value, what: str = "--timeout") -> float:
    """``value`` (a number, or a string holding one) as seconds, checked: finite, at least
    :data:`MIN_TIME_LIMIT`, at most :data:`MAX_TIME_LIMIT`.

    Raises:
        TimeLimitError: one line naming ``what`` (e.g. ``--timeout`` or the file and key).
    """
    if isinstance(value, bool):
        raise TimeLimitError(f"{what}: a number of seconds is needed, got {value!r}")
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
    (seconds; the override still applies when it is lower), else the override, else the tool's
    default (:data:`DEFAULT_LIMITS`, else :data:`FALLBACK_LIMIT`)."""
    over = get_time_limit()
    if budget is not None:
        if over is not None and over[0] < budget:
            return over
        return float(budget), f"the flow's budget for this {tool} run"
    if over is not None:
        return over
    return DEFAULT_LIMITS.get(tool, FALLBACK_LIMIT), f"the default for {tool}"
