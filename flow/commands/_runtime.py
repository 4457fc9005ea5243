"""The runtime's commands inside ``dcsflow``: ``rekey``, ``bit``, ``import``, ``codegen`` pass their
arguments unchanged to the runtime's command line (``python -m dcsflow.scg``, :mod:`dcsflow.scg.cli`),
where every option is defined once; ``dcsflow NAME --help`` shows the runtime's help."""

from __future__ import annotations

import click


def runtime_command(name: str, short_help: str) -> click.Command:
    """A click command ``name`` that runs ``python -m dcsflow.scg NAME ARGS...`` in this process and
    exits with its status."""

    @click.command(name=name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                   add_help_option=False, help=short_help, short_help=short_help)
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args):
        from dcsflow.scg.cli import main

        status = main([name, *args], prog="dcsflow")
        if status:
            raise click.exceptions.Exit(status)

    return command
