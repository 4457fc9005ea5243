"""``dcsflow specialize``: a netlist specialized for given parameter values."""

from __future__ import annotations

import click

from ..specialize import specialize_to_file


@click.command("specialize")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--param", "params", multiple=True, metavar="NAME=HEX", required=True,
              help="Parameter value in hex (all parameter bits, e.g. key_mn=0123...). Repeatable.")
@click.option("--out", type=click.Path(dir_okay=False), help="Output file (written with mode 0600); default stdout.")
def COMMAND(build, params, out):
    """Evaluate BUILD's PPC for the given parameter values and write the specialized Verilog
    netlist of Xilinx primitives (TLUT INITs filled in; simulate with Yosys's xilinx/cells_sim.v).
    The values are written nowhere except the requested output."""
    text = specialize_to_file(build, list(params), out)
    if text is not None:
        click.echo(text, nl=False)
