"""The AES-128 cores' ``dcsflow sim NAME``: RTL on the NIST CAVP KAT vectors (or one response file).

Registered through the designs' :class:`~dcsflow.flow.design.Design` descriptions (``sims``).
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from dcsflow.flow.errors import FlowError
from dcsflow.flow.termout import table_console
from dcsflow.flow.clitypes import ASCII_INT

from . import sim
from .vectors import KAT_FILES, kat_dir, read_rsp


def run_sim(design: str, vectors: str | None, stall_seed: int | None, out: Console, err: Console) -> bool:
    """Simulate ``design``'s RTL (a :data:`sim.DESIGNS` name) on every KAT file (or on ``vectors``),
    one table row per file. Returns True when every vector passed.

    Raises:
        VectorFileError: unreadable file, cryptography_vectors missing. SimulationError: Icarus failed.
    """
    files = [Path(vectors)] if vectors else [kat_dir() / f for f in KAT_FILES]
    tab = Table(title=f"{design} RTL on NIST CAVP AES-128 ECB KAT (icarus)", title_justify="left")
    for col in ("file", "vectors", "keys", "passed", "cycles first block"):
        tab.add_column(col, justify="right" if col != "file" else "left")
    passed = total = 0
    fails = []
    for f in files:
        vs = read_rsp(f)
        with err.status(f"simulating {design} on {f.name}: {len(vs)} blocks in one run"):
            rep = sim.check_rtl(design, vs, stall_seed)
        passed += rep.passed
        total += rep.total
        fails += rep.failures
        first = [c for n, c in rep.cycles if n == 1]
        tab.add_row(f.name, str(rep.total), str(len(rep.cycles)), f"{rep.passed}/{rep.total}",
                    str(first[0]) if first else "-")
    table_console(out.file).print(tab)
    for src, why in fails:
        out.print(f"FAIL {src}: {why}")
    out.print(f"passed {passed}/{total}")
    return total > 0 and passed == total


def sim_command(name: str) -> click.Command:
    """``dcsflow sim NAME`` for an AES-128 core (``name`` in :data:`sim.DESIGNS`)."""

    @click.command(name)
    @click.option("--vectors", type=click.Path(dir_okay=False), default=None,
                  help="One CAVP .rsp file (default: the four AES-128 ECB KAT files).")
    @click.option("--stall", "stall_seed", type=ASCII_INT, default=None, metavar="SEED",
                  help="Random gaps on s_valid and m_ready (seeded), to exercise the handshake.")
    @click.option("--buffer-key", is_flag=True, hidden=True)
    @click.option("--simulator", default="icarus", hidden=True)
    def cmd(vectors, stall_seed, buffer_key, simulator):
        if buffer_key or simulator != "icarus":
            raise FlowError("--buffer-key and --simulator apply to the π16 message processors only")
        if not run_sim(name, vectors, stall_seed, Console(), Console(stderr=True)):
            raise click.exceptions.Exit(1)

    top, kt = sim.DESIGNS[name]
    variant = "" if kt is None else f", KEY_TABLE={kt}"
    cmd.help = (f"Simulate the RTL ({top}{variant}) on the NIST CAVP AES-128 ECB KAT files (or one .rsp file) "
                "with Icarus; prints a table and 'passed N/M'; exit status 0 only if every vector passed.")
    return cmd
