"""The AES-128 part of ``dcsflow sim``: RTL on the NIST CAVP KAT vectors (or one response file)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from dcsflow.designs.aes128 import sim
from dcsflow.designs.aes128.vectors import KAT_FILES, kat_dir, read_rsp

#: DESIGN arguments of ``dcsflow sim`` served here
AES_DESIGNS = tuple(sim.DESIGNS)


def run_sim(design: str, vectors: str | None, stall_seed: int | None, out: Console, err: Console) -> bool:
    """Simulate ``design``'s RTL on every KAT file (or on ``vectors``), one table row per file.
    Returns True when every vector passed.

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
    out.print(tab)
    for src, why in fails:
        out.print(f"FAIL {src}: {why}")
    out.print(f"passed {passed}/{total}")
    return total > 0 and passed == total
