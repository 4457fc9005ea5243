"""``dcsflow sim NAME``: simulate a design's RTL on its vectors (commands contributed by the designs)."""

from __future__ import annotations

import click

from dcsflow import limits

from ._limits import MEMORY_HELP, SECONDS, SIZE, TIMEOUT_HELP


class _SimGroup(click.Group):
    """The ``sim`` group: its subcommands are the installed designs' ``sims`` (loaded on use)."""

    def _sims(self) -> dict:
        from ..registry import installed

        out = {}
        for d in installed().values():
            for name, cmd in d.sims.items():
                out.setdefault(name, cmd)
        return out

    def list_commands(self, ctx):
        return sorted(self._sims())

    def get_command(self, ctx, name):
        return self._sims().get(name)


@click.group("sim", cls=_SimGroup)
@click.option("--timeout", type=SECONDS, default=None, metavar="SECONDS", help=TIMEOUT_HELP)
@click.option("--max-memory", "max_memory", type=SIZE, default=None, metavar="SIZE", help=MEMORY_HELP)
@click.pass_context
def COMMAND(ctx, timeout, max_memory):
    """Simulate a design's RTL on vectors (each installed design brings its own: `dcsflow sim NAME
    --help`). Prints a table and 'passed N/M'; exit status 0 only if every case passed."""
    ctx.with_resource(limits.time_limit(timeout, "--timeout"))       # for the design's sim command
    ctx.with_resource(limits.memory_limit(max_memory, "--max-memory"))
