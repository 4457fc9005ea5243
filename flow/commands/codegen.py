"""``dcsflow codegen BUILD --out DIR``: C99 sources of the firmware SCG (thin layer over :mod:`scg.codegen`)."""

from __future__ import annotations

import click


@click.command(name="codegen")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Folder for scg_gen.h, scg_gen.c, scg_devtab.c (use as GEN= for make -C firmware).")
@click.option("--firmware", "fw_dir", type=click.Path(file_okay=False),
              help="Also copy the C firmware sources (Makefile, HWICAP driver, SCG runtime) into this folder, "
                   "e.g. for a wheel install without the repository: make -C DIR host-test GEN=$PWD/OUT.")
@click.option("--style", type=click.Choice(["auto", "straight", "table"]), default="auto", show_default=True,
              help="straight: one C statement per PPC AND node and patched word (fastest); table: loops over "
                   "constant tables (small code for large PPCs); auto: table above 100,000 AND nodes or entries.")
def COMMAND(build, out, fw_dir, style):
    """Generate the bit-sliced, constant-time PPC evaluation, the frame patch and the CRC-protected
    data blob of BUILD."""
    from dcsflow.scg.codegen import codegen, copy_firmware

    r = codegen(build, out, style=style)
    click.echo(f"wrote {len(r.files)} files to {out} ({r.style} code): {r.live_ands} of {r.ands} AND nodes "
               f"evaluated, {r.frames} frames, {r.entries} frame-map entries ({r.affine} affine TLUTs patched "
               f"from their frontier), blob {r.blob_words * 4} bytes")
    if fw_dir:
        files = copy_firmware(fw_dir)
        click.echo(f"copied {len(files)} firmware files to {fw_dir}")
