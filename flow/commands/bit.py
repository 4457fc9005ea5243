"""``dcsflow bit``: bitstream tools — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg bit``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from __future__ import annotations

import click


@click.command(name="bit", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               add_help_option=False, help="Inspect, query and compare 7-series bitstreams.",
               short_help="Inspect, query and compare 7-series bitstreams.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def COMMAND(args):
    from dcsflow.scg.cli import main

    status = main(["bit", *args], prog="dcsflow")
    if status:
        raise click.exceptions.Exit(status)
