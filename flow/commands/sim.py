"""``dcsflow sim NAME``: simulate a design's RTL on its vectors (commands contributed by the designs)."""

from __future__ import annotations

import click


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
def COMMAND():
    """Simulate a design's RTL on vectors (each installed design brings its own: `dcsflow sim NAME
    --help`). Prints a table and 'passed N/M'; exit status 0 only if every case passed."""
