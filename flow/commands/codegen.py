"""``dcsflow codegen``: firmware SCG sources — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg codegen``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from __future__ import annotations

import click


@click.command(name="codegen", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               add_help_option=False, help="C99 sources of the firmware SCG for a build folder.",
               short_help="C99 sources of the firmware SCG for a build folder.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def COMMAND(args):
    from dcsflow.scg.cli import main

    status = main(["codegen", *args], prog="dcsflow")
    if status:
        raise click.exceptions.Exit(status)
