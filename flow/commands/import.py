"""``dcsflow import``: Vivado import — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg import``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from __future__ import annotations

import click


@click.command(name="import", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               add_help_option=False, help="Link a routed Vivado bitstream as a build's template.",
               short_help="Link a routed Vivado bitstream as a build's template.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def COMMAND(args):
    from dcsflow.scg.cli import main

    status = main(["import", *args], prog="dcsflow")
    if status:
        raise click.exceptions.Exit(status)
