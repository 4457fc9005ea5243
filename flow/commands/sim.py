"""``dcsflow sim NAME``: simulate a design's RTL on its vectors (commands contributed by the designs)."""

from __future__ import annotations

import click

from dcsflow import limits

from ._limits import SECONDS, TIMEOUT_HELP


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
@click.pass_context
def COMMAND(ctx, timeout):
    """Simulate a design's RTL on vectors (each installed design brings its own: `dcsflow sim NAME
    --help`). Prints a table and 'passed N/M'; exit status 0 only if every case passed."""
    ctx.with_resource(limits.time_limit(timeout, "--timeout"))       # for the design's sim command
