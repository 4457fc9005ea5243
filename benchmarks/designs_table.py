#!/usr/bin/env python3
"""The bundled designs' headline figures, from finished builds: README's table and a results page.

Reads ``report.json`` of every finished build folder given (a ``dcsflow build NAME`` folder, or a
``dcsflow demo --out DIR`` folder, whose subfolders are builds), keeps the figures in
``docs/results/designs.json`` (one record per design: the figures, the date of the report, the
commit this script ran at), and with ``--readme`` rewrites the table between the marker comments
``<!-- designs-table -->`` and ``<!-- /designs-table -->`` of README.md, with ``--docs`` the page
``docs/results/designs.md``. Figures are never typed by hand: a design without a record says which
command measures it. Without build folders, the tables are rewritten from the records kept.

Usage: python benchmarks/designs_table.py [BUILD ...] [--readme] [--docs] [--check]
  --check: exit 1 if README.md's table differs from the records (tests/test_readme.py runs it)
Last line: one JSON object (the records).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import _results

ROOT = _results.ROOT
README = ROOT / "README.md"
RECORDS = _results.RESULTS / "designs.json"
BEGIN, END = "<!-- designs-table -->", "<!-- /designs-table -->"
RECORDS_FORMAT = "dcsflow-designs-table"


def installed_designs() -> dict[str, str]:
    """Installed design name -> its one-line description (the registry, in name order)."""
    from dcsflow.flow.registry import installed

    return {n: d.description for n, d in installed().items()}


def record(build: Path) -> dict:
    """The headline figures of one finished build folder (report.json version 2)."""
    rep = json.loads((build / "report.json").read_text())
    if rep.get("format") != "dcsflow-report" or rep.get("version", 1) < 2:
        raise SystemExit(f"error: {build}/report.json is not a dcsflow report of version 2 or later; rebuild it")
    c, t = rep["conventional"], rep["tlut"]
    be = rep.get("backend") or {}
    rk = be.get("rekey") or {}
    when = datetime.datetime.fromtimestamp((build / "report.json").stat().st_mtime, datetime.timezone.utc)
    return {
        "design": rep["design"], "device": rep.get("device"), "params": rep.get("params"),
        "tlut": {"luts": t["luts"], "tluts": t["tluts"], "ffs": t["ffs"], "depth": t["depth"],
                 "slices": (be.get("tlut") or {}).get("slices"), "ppc_ands": t.get("ppc_ands")},
        "conventional": {"baseline": c.get("baseline"), "luts": c["luts"], "ffs": c["ffs"], "depth": c["depth"],
                         "slices": (be.get("conventional") or {}).get("slices")},
        "slices_saved": be.get("slices_saved"), "slices_saved_percent": be.get("slices_saved_percent"),
        "frames_per_rekey": rk.get("frames_per_rekey"), "icap_words": rk.get("icap_words_batched"),
        "rekey_us_hwicap": rk.get("rekey_us_hwicap_batched"),
        # the whole build's wall seconds (report.json timing); reports without it: the sum of its stages
        "build_seconds": round((rep.get("timing") or {}).get("wall")
                               or sum((rep.get("stage_seconds") or {}).values()), 1),
        "report_date": when.strftime("%Y-%m-%d"), "commit": _results.commit(),
    }


def builds_in(paths: list[Path]) -> list[Path]:
    """The finished build folders among ``paths`` and their subfolders (a demo's output)."""
    out = []
    for p in paths:
        if (p / "report.json").is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(q for q in p.iterdir() if (q / "report.json").is_file())
        else:
            raise SystemExit(f"error: {p}: no report.json (not a finished build folder)")
    return out


def load_records() -> dict:
    if not RECORDS.is_file():
        return {}
    doc = json.loads(RECORDS.read_text())
    if doc.get("format") != RECORDS_FORMAT:
        raise SystemExit(f"error: {RECORDS}: not a {RECORDS_FORMAT} file")
    return doc["designs"]


def _pct(r: dict) -> str:
    s, p = r.get("slices_saved"), r.get("slices_saved_percent")
    return "-" if s is None else f"{s} ({p:.1f}%)"


def _impl(x: dict, tluts: bool) -> str:
    luts = f"{x['luts']} ({x['tluts']})" if tluts else str(x["luts"])
    return f"{luts} / {x['depth']} / {x['slices'] if x['slices'] is not None else '-'}"


def readme_table(records: dict, designs: dict[str, str]) -> str:
    """The README's table: every installed design, figures where a record exists."""
    rows = ["| design | what | TLUT: LUTs (TLUTs) / depth / slices | conventional: LUTs / depth / slices "
            "| slices saved | frames per rekey |", "| --- | --- | --- | --- | --- | --- |"]
    for name, desc in designs.items():
        r = records.get(name)
        if r is None:
            rows.append(f"| `{name}` | {desc} | not measured: `dcsflow build {name}` | | | |")
            continue
        c = r["conventional"]
        rows.append(f"| `{name}` | {desc} | {_impl(r['tlut'], True)} | {_impl(c, False)} (`{c['baseline']}`) "
                    f"| {_pct(r)} | {r['frames_per_rekey'] if r['frames_per_rekey'] is not None else '-'} |")
    dates = sorted({r["report_date"] for r in records.values()})
    when = f"builds of {dates[0]}" + (f" to {dates[-1]}" if len(dates) > 1 else "") if dates else "no builds yet"
    rows.append("")
    rows.append(f"Figures from finished builds' `report.json` ({when}; device xc7z020, seed 1), written by "
                "`python benchmarks/designs_table.py BUILD... --readme --docs`; more figures and their "
                "provenance: [docs/results/designs.md](docs/results/designs.md).")
    return "\n".join(rows) + "\n"


def docs_body(records: dict, designs: dict[str, str]) -> str:
    """The results page: one row per design with every headline figure and its provenance."""
    rows, missing = [], []
    for name in designs:
        r = records.get(name)
        if r is None:
            missing.append(name)
            continue
        t, c = r["tlut"], r["conventional"]
        rows.append([f"`{name}`", ", ".join(f"{p} ({w} bits)" for p, w in (r.get("params") or {}).items()),
                     t["luts"], t["tluts"], t["ffs"], t["depth"], t["slices"], t["ppc_ands"],
                     f"`{c['baseline']}`", c["luts"], c["ffs"], c["depth"], c["slices"], _pct(r),
                     r["frames_per_rekey"], r["icap_words"], r["rekey_us_hwicap"], r["build_seconds"],
                     r["report_date"], f"`{r['commit']}`"])
    body = _results.table(
        ["design", "parameter inputs", "TLUT LUTs", "TLUTs", "FFs", "LUT depth", "slices", "PPC ANDs",
         "conventional", "LUTs", "FFs", "LUT depth", "slices", "slices saved", "frames / rekey",
         "ICAP words / rekey", "rekey µs (AXI HWICAP, modelled)", "build s (wall)", "report of", "recorded at"],
        rows) if rows else "No design has been measured yet.\n"
    if missing:
        body += ("\nNot measured yet: " + ", ".join(f"`{n}`" for n in missing) + ". For each: `dcsflow build NAME "
                 "--out build/NAME`, then `python benchmarks/designs_table.py build/NAME --readme --docs`.\n")
    return body


INTRO = """The headline figures of the bundled designs, read from the `report.json` of finished builds
(`dcsflow build NAME`, or `dcsflow demo --out DIR`). The conventional implementation is the strongest
candidate of each build (the fewest slices at no greater LUT depth than Yosys's own mapping); rekey
time is the back end's model of the frame-batched AXI HWICAP transport. "Recorded at" is the commit
the table was written at; the build itself is of the date in "report of". The README's table is
written from the same records."""


def replace_between(text: str, new: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"error: README.md has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + new + END + tail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="*", type=Path, help="finished build folders (or a demo's output folder)")
    ap.add_argument("--readme", action="store_true", help="rewrite the table between README.md's markers")
    _results.add_docs_option(ap)
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md's table differs from the records")
    a = ap.parse_args(argv)
    _results.check_docs(a)
    records = load_records()
    for b in builds_in(a.builds):
        r = record(b)
        records[r["design"]] = r
        print(f"{r['design']}: {b}", file=sys.stderr)
    designs = installed_designs()
    table = readme_table(records, designs)
    if a.check:
        text = README.read_text()
        if replace_between(text, table) != text:
            print("README.md's designs table differs from docs/results/designs.json: run "
                  "python benchmarks/designs_table.py --readme", file=sys.stderr)
            return 1
    if a.builds:
        from dcsflow.fileio import write_text_atomic

        write_text_atomic(RECORDS, json.dumps({"format": RECORDS_FORMAT, "version": 1,
                                               "designs": dict(sorted(records.items()))}, indent=1) + "\n")
    if a.readme:
        from dcsflow.fileio import write_text_atomic

        write_text_atomic(README, replace_between(README.read_text(), table))
    if a.docs:
        _results.write_page("designs", "Bundled designs", docs_body(records, designs), INTRO)
    print(json.dumps(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
