"""``--timeout SECONDS`` and ``--max-memory SIZE``: the options of every command that runs external
tools (Yosys, ABC, GHDL, Icarus, a cocotb test bench), defined once here.

The option sets the time limit of every tool run of the command (:func:`dcsflow.limits.time_limit`)
for as long as the command runs; without it each tool has its default (:data:`dcsflow.limits.DEFAULT_LIMITS`),
or a project's ``[build] timeout`` where the command works on a project. A value that is not a
number of seconds between :data:`dcsflow.limits.MIN_TIME_LIMIT` and
:data:`dcsflow.limits.MAX_TIME_LIMIT` is a usage error (one line). ``--max-memory`` does the same
for the memory limit of every tool run (:func:`dcsflow.limits.memory_limit`; default
:func:`dcsflow.limits.default_memory_limit`, or a project's ``[build] max_memory``; sizes as
:func:`dcsflow.limits.check_memory_limit` reads them).
"""

from __future__ import annotations

import functools
from typing import Callable

import click

from dcsflow import limits


class _Seconds(click.ParamType):
    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            return limits.check_time_limit(value, "--timeout")
        except limits.TimeLimitError as e:
            self.fail(str(e).removeprefix("--timeout: "), param, ctx)


#: the type of ``--timeout``: seconds, checked by :func:`dcsflow.limits.check_time_limit`
SECONDS = _Seconds()


class _Size(click.ParamType):
    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return limits.check_memory_limit(value, "--max-memory")
        except limits.MemoryLimitError as e:
            self.fail(str(e).removeprefix("--max-memory: "), param, ctx)


#: the type of ``--max-memory``: bytes, checked by :func:`dcsflow.limits.check_memory_limit`
SIZE = _Size()

#: help text of ``--max-memory``
MEMORY_HELP = ("Memory limit of every external tool run (its address space; e.g. 8G, 512M) [3/4 of the machine's "
               "memory, or the project's [build] max_memory]. A run that fails for want of memory ends the command "
               "with one line naming it.")

#: help text of ``--timeout``
TIMEOUT_HELP = ("Time limit in seconds of every external tool run (Yosys, ABC, GHDL, Icarus, a cocotb test "
                "bench) [each tool's own: " + ", ".join(f"{k} {limits.format_seconds(limits.DEFAULT_LIMITS[k])}"
                                                      for k in ("yosys", "abc", "vvp", "cocotb"))
                + ", ...; or the project's [build] timeout]. A run past it ends the command with one line "
                "naming it.")


def timeout_option(f: Callable) -> Callable:
    """Add ``--timeout SECONDS`` and ``--max-memory SIZE`` to click command function ``f``; the
    limits hold while ``f`` runs (``f`` receives neither)."""

    @functools.wraps(f)
    def wrapped(*args, timeout=None, max_memory=None, **kwargs):
        with limits.time_limit(timeout, "--timeout"), limits.memory_limit(max_memory, "--max-memory"):
            return f(*args, **kwargs)

    wrapped = click.option("--max-memory", "max_memory", type=SIZE, default=None, metavar="SIZE",
                           help=MEMORY_HELP)(wrapped)
    return click.option("--timeout", "timeout", type=SECONDS, default=None, metavar="SECONDS",
                        help=TIMEOUT_HELP)(wrapped)
