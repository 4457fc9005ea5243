"""``dcsflow sim``: simulate a bundled design's RTL (π16-Cipher message processor, AES-128 cores) on vectors."""

from __future__ import annotations

import click
from rich.console import Console

from dcsflow.designs.picipher.sim import SIMULATORS

from ..errors import FlowError
from ._aes import AES_DESIGNS, run_sim
from ._picipher import DESIGN_CHOICES, print_report, run_check


@click.command("sim")
@click.argument("design", type=click.Choice(list(DESIGN_CHOICES) + list(AES_DESIGNS)))
@click.option("--vectors", type=click.Path(dir_okay=False), default=None,
              help="Vector file in the official record format (default: the official file of the "
                   "design's key size from the shared folder, SHA-256 checked).")
@click.option("--buffer-key", is_flag=True, help="Simulate with BUFFER_KEY=1 (Key||PMN register buffer).")
@click.option("--simulator", type=click.Choice(SIMULATORS), default="icarus", show_default=True)
@click.option("--stall", "stall_seed", type=int, default=None, metavar="SEED",
              help="Random gaps on s_valid and m_ready (seeded), to exercise the handshake.")
def COMMAND(design, vectors, buffer_key, simulator, stall_seed):
    """Simulate DESIGN's RTL on every record of a vector file without AD and SMN.

    DESIGN: picipher (picipher_mp, 96-bit key), picipher128 (128-bit key), picipher_cis /
    picipher128_cis (picipher_cis_mp, parameter from the golden model); aes128_pipe, aes128_iter
    (aes128_iter_onthefly: KEY_TABLE=0) on the NIST CAVP AES-128 ECB KAT files (--vectors: one CAVP
    .rsp file; --simulator and --buffer-key do not apply). Each π16 record is run
    encrypting, decrypting, and decrypting with a corrupted tag (which must be rejected); records
    with AD or SMN are skipped and counted. Prints a table and ``passed N/M``; exit status 0 only if
    every case ran and passed.
    """
    out, err = Console(), Console(stderr=True)
    if design in AES_DESIGNS:
        if buffer_key or simulator != "icarus":
            raise FlowError("--buffer-key and --simulator verilator apply to the π16 designs only")
        if not run_sim(design, vectors, stall_seed, out, err):
            raise click.exceptions.Exit(1)
        return
    rep, path = run_check(design, vectors, int(buffer_key), simulator, stall_seed, err)
    print_report(out, f"{design} on {path.name} ({simulator}{', BUFFER_KEY=1' if buffer_key else ''})", rep)
    out.print(f"skipped {rep.skipped} record(s) with AD or SMN")
    out.print(f"passed {rep.passed}/{rep.total}")
    if not rep.ok:
        raise click.exceptions.Exit(1)
