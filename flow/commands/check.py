"""``dcsflow check``: specialized netlists of a build against its design's vectors (π16-Cipher, AES-128)."""

from __future__ import annotations

import click

from ..check import check_build


@click.command("check")
@click.argument("build", type=click.Path(file_okay=False))
@click.option("--vectors", type=click.Path(dir_okay=False, exists=True),
              help="Vector file (π16: π-Cipher reference format, AES: a CAVP .rsp file); default: the "
                   "design's own vectors (π16: official file of the key size; AES: the four KAT files).")
@click.option("--frames", is_flag=True,
              help="Configuration-level check: specialize the template FRAMES (SCG patches), decode every "
                   "LUT INIT back from them and simulate the netlist rebuilt from INITs + placement.")
@click.option("--quiet", is_flag=True, help="No progress display.")
def COMMAND(build, vectors, frames, quiet):
    """Specialize BUILD for the parameter values of every vector (π16: Key and PMN of every vector
    without AD and SMN; AES-128: the key, one netlist per key), simulate the encryption with Icarus
    Verilog (Yosys's cells_sim.v), compare with the expected output and print 'passed N/M'.
    Exit status 0 only when all pass."""
    if frames:
        from ..backend.verify import check_frames

        res = check_frames(build, vectors, progress=not quiet)
    else:
        res = check_build(build, vectors, progress=not quiet)
    for num, why in res.failures:
        click.echo(f"vector {num}: {why}")
    click.echo(f"passed {res.passed}/{res.total}")
    raise SystemExit(0 if res.passed == res.total else 1)
