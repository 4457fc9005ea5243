"""``dcsflow codegen BUILD --out DIR``: C99 sources of the firmware SCG (thin layer over :mod:`scg.codegen`)."""

from __future__ import annotations

import click


@click.command(name="codegen")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Folder for scg_gen.h, scg_gen.c, scg_devtab.c (use as GEN= for make -C firmware).")
def COMMAND(build, out):
    """Generate the straight-line bit-sliced PPC evaluation and the CRC-protected data blob of BUILD."""
    from scg.codegen import codegen

    r = codegen(build, out)
    click.echo(f"wrote {len(r.files)} files to {out}: {r.ands} AND nodes, {r.frames} frames, "
               f"{r.entries} frame-map entries, blob {r.blob_words * 4} bytes")
