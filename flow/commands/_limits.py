"""``--timeout SECONDS``: one option for every command that runs external tools (Yosys, ABC, GHDL,
Icarus, a cocotb test bench), defined once here.

The option sets the time limit of every tool run of the command (:func:`dcsflow.limits.time_limit`)
for as long as the command runs; without it each tool has its default (:data:`dcsflow.limits.DEFAULT_LIMITS`),
or a project's ``[build] timeout`` where the command works on a project. A value that is not a
number of seconds between :data:`dcsflow.limits.MIN_TIME_LIMIT` and
:data:`dcsflow.limits.MAX_TIME_LIMIT` is a usage error (one line).
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

#: help text of ``--timeout``
TIMEOUT_HELP = ("Time limit in seconds of every external tool run (Yosys, ABC, GHDL, Icarus, a cocotb test "
                "bench) [each tool's own: " + ", ".join(f"{k} {limits.format_seconds(limits.DEFAULT_LIMITS[k])}"
                                                      for k in ("yosys", "abc", "vvp", "cocotb"))
                + ", ...; or the project's [build] timeout]. A run past it ends the command with one line "
                "naming it.")


def timeout_option(f: Callable) -> Callable:
    """Add ``--timeout SECONDS`` to click command function ``f``; the limit holds while ``f`` runs
    (``f`` does not receive it)."""

    @functools.wraps(f)
    def wrapped(*args, timeout=None, **kwargs):
        with limits.time_limit(timeout, "--timeout"):
            return f(*args, **kwargs)

    return click.option("--timeout", "timeout", type=SECONDS, default=None, metavar="SECONDS",
                        help=TIMEOUT_HELP)(wrapped)
