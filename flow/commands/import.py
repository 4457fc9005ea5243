"""``dcsflow import BUILD --bit routed.bit --cells tlut_cells.json``: link Vivado's result as the template."""

from __future__ import annotations

import json

import click


@click.command(name="import")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--bit", "bit_path", required=True, type=click.Path(dir_okay=False),
              help="Vivado's routed bitstream (.bit or .bin) of BUILD/vivado/build.tcl.")
@click.option("--cells", "cells_path", required=True, type=click.Path(dir_okay=False),
              help="tlut_cells.json written by BUILD/vivado/dump_tluts.tcl.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def COMMAND(build, bit_path, cells_path, as_json):
    """Check that every TLUT of BUILD sits in the routed bitstream at its planned site and BEL with
    its planned pin order and template INIT; then make that bitstream the template configuration
    (tlut/imported/). Any difference is an error naming the cell; the build folder is then unchanged."""
    from ..backend.vivado_import import import_vivado

    res = import_vivado(build, bit_path, cells_path)
    d = {"tluts": res.tluts, "frames": res.frames, "seconds": round(res.seconds, 3), "files": res.files}
    if as_json:
        click.echo(json.dumps(d))
    else:
        click.echo(f"imported: {res.tluts} TLUTs at their planned sites, {res.frames} frames "
                   f"({res.seconds:.2f} s); template configuration: {build}/tlut/imported/template.bit")
