"""Shared pieces of ``dcsflow sim`` and ``dcsflow demo``: run a vector check, print its table."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dcsflow.designs.picipher import sim
from dcsflow.designs.picipher.vectors import official_file, read_vectors

#: DESIGN argument → (key bits, picipher_cis_mp variant).
DESIGN_CHOICES = {
    "picipher": (96, False),
    "picipher128": (128, False),
    "picipher_cis": (96, True),
    "picipher128_cis": (128, True),
}


def run_check(design: str, vectors: Path | None, buffer_key: int, simulator: str,
              stall_seed: int | None, err: Console) -> tuple[sim.CheckReport, Path]:
    """Read the vector file (default: the official one of the design's key size, SHA-256 checked)
    and simulate its records without AD/SMN. Returns (report, vector file)."""
    bits, cis = DESIGN_CHOICES[design]
    path = Path(vectors) if vectors else official_file(bits)
    with err.status(f"reading {path.name}"):
        vs = read_vectors(path, check=True if vectors is None else None)
    cases, _ = sim.cases_from_vectors(vs)
    with err.status(f"simulating {design} ({simulator}): {3 * len(cases)} messages in one run"):
        rep = sim.check_vectors(vs, bits, buffer_key=buffer_key, cis=cis, stall_seed=stall_seed,
                                simulator=simulator)
    return rep, path


def print_report(out: Console, title: str, rep: sim.CheckReport) -> None:
    """Table per message length: cases, encrypt / decrypt passed, tampered tags rejected, cycles."""
    groups = defaultdict(list)
    for r in rep.rows:
        groups[r.msg_len].append(r)
    from dcsflow.flow.termout import table_console

    t = Table(title=title, title_justify="left")
    for col in ("msg bytes", "vectors", "encrypt ok", "decrypt ok", "bad tag rejected", "cycles"):
        t.add_column(col, justify="right")
    for ln in sorted(groups):
        rows = groups[ln]
        by = {k: [r for r in rows if r.direction == k] for k in ("enc", "dec", "dec-tampered")}
        cyc = sorted({r.cycles for r in by["enc"]})
        t.add_row(str(ln), str(len(by["enc"])),
                  *(f"{sum(r.passed for r in by[k])}/{len(by[k])}" for k in ("enc", "dec", "dec-tampered")),
                  "-".join(map(str, (cyc[0], cyc[-1]))) if len(cyc) > 1 else (str(cyc[0]) if cyc else ""))
    table_console(out.file).print(t)
    for r in rep.rows:
        if not r.passed:
            out.print(f"FAIL {r.name} ({r.msg_len} bytes, {r.direction}): {r.detail}")
