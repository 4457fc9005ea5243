"""Which conventional baseline each build got: one row per build folder.

For every build folder given (or, with ``--build NAME``, a fresh ``dcsflow build NAME`` into a
temporary folder), reads report.json and prints the chosen candidate, its LUTs / FFs / LUT depth /
slices, the TLUT build's, and the slices saved; then every candidate's LUTs / depth / slices.
The baseline of each figure is named in the row. Last line: one JSON object.

Usage: python benchmarks/baselines_table.py BUILD_DIR... [--build NAME ...] [--markdown] [--docs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def row(rep: dict) -> dict:
    """The figures of one report.json (version 2)."""
    c, t = rep["conventional"], rep["tlut"]
    be = rep.get("backend") or {}
    return {"design": rep["design"], "baseline": c.get("baseline"),
            "conventional": {"luts": c["luts"], "ffs": c["ffs"], "depth": c["depth"],
                             "slices": (be.get("conventional") or {}).get("slices")},
            "tlut": {"luts": t["luts"], "tluts": t["tluts"], "ffs": t["ffs"], "depth": t["depth"],
                     "slices": (be.get("tlut") or {}).get("slices")},
            "slices_saved": be.get("slices_saved"), "slices_saved_percent": be.get("slices_saved_percent"),
            "candidates": {n: {"luts": b["luts"], "depth": b["depth"], "slices": b.get("slices"),
                               "eligible": b.get("eligible")} for n, b in (rep.get("baselines") or {}).items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="*", type=Path)
    ap.add_argument("--build", action="append", default=[], metavar="NAME", help="build this design first")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    import _results
    _results.add_docs_option(ap, "docs/results/baselines.md")
    a = ap.parse_args()
    _results.check_docs(a)
    rows = []
    with tempfile.TemporaryDirectory() as td:
        folders = list(a.builds)
        for name in a.build:
            out = Path(td) / name
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", name, "--out", str(out), "--quiet",
                            "--no-frontend-check"], check=True, stdout=subprocess.DEVNULL)
            print(f"{name}: built in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            folders.append(out)
        for f in folders:
            rep = json.loads((f / "report.json").read_text())
            if rep.get("version", 1) < 2:
                sys.exit(f"error: {f}/report.json is report version {rep.get('version')}; rebuild it")
            rows.append(row(rep))
    if a.markdown:
        print("| design | baseline chosen | conventional LUTs / FFs / depth / slices | TLUT LUTs (TLUTs) / FFs / "
              "depth / slices | slices saved | candidates: LUTs / depth / slices |")
        print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        c, t = r["conventional"], r["tlut"]
        cands = "; ".join(f"{n} {x['luts']}/{x['depth']}/{x['slices']}" + ("" if x["eligible"] else " (deeper)")
                          for n, x in r["candidates"].items())
        if a.markdown:
            print(f"| {r['design']} | `{r['baseline']}` | {c['luts']} / {c['ffs']} / {c['depth']} / {c['slices']} | "
                  f"{t['luts']} ({t['tluts']}) / {t['ffs']} / {t['depth']} / {t['slices']} | "
                  f"{r['slices_saved']} ({r['slices_saved_percent']:.1f}%) | {cands} |")
        else:
            print(f"{r['design']}: conventional = {r['baseline']} {c['luts']} LUTs / {c['ffs']} FFs / depth "
                  f"{c['depth']} / {c['slices']} slices; TLUT {t['luts']} ({t['tluts']} TLUTs) / {t['ffs']} / "
                  f"{t['depth']} / {t['slices']}; saved {r['slices_saved']} slices; candidates: {cands}")
    if a.docs:
        docs_page(rows)
    print(json.dumps({"builds": rows}))


def docs_page(rows: list[dict]) -> None:
    """docs/results/baselines.md from the builds read."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["design", "baseline chosen", "conventional LUTs / FFs / depth / slices", "TLUT LUTs (TLUTs) / FFs / depth / slices",
         "slices saved"],
        [[r["design"], f"`{r['baseline']}`",
          f"{r['conventional']['luts']} / {r['conventional']['ffs']} / {r['conventional']['depth']} / {r['conventional']['slices']}",
          f"{r['tlut']['luts']} ({r['tlut']['tluts']}) / {r['tlut']['ffs']} / {r['tlut']['depth']} / {r['tlut']['slices']}",
          None if r["slices_saved"] is None else f"{r['slices_saved']} ({r['slices_saved_percent']:.1f}%)"]
         for r in rows])
    body += "\nEvery candidate, LUTs / LUT depth / slices (deeper than `yosys-abc`: not eligible):\n\n" + _results.table(
        ["design"] + sorted({n for r in rows for n in r["candidates"]}),
        [[r["design"]] + [(lambda x: None if x is None else f"{x['luts']} / {x['depth']} / {x['slices']}"
                           + ("" if x["eligible"] else " (deeper)"))(r["candidates"].get(n))
                          for n in sorted({n for r in rows for n in r["candidates"]})] for r in rows])
    _results.write_page("baselines", "Conventional baselines", body,
                        "Which conventional candidate each build chose: the one with the fewest slices among those "
                        "whose LUT depth is no greater than `yosys-abc`'s (Yosys's own mapping). Read from the "
                        "builds' `report.json`.")


if __name__ == "__main__":
    main()
