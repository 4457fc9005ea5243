"""``dcsflow rekey``: host SCG — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg rekey``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from __future__ import annotations

import click


@click.command(name="rekey", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               add_help_option=False, help="Host SCG: new parameter values, each touched frame written once.",
               short_help="Host SCG: new parameter values, each touched frame written once.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def COMMAND(args):
    from dcsflow.scg.cli import main

    status = main(["rekey", *args], prog="dcsflow")
    if status:
        raise click.exceptions.Exit(status)
