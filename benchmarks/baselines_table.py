"""Which conventional baseline each build got, and the best candidate of every RTL variant.

For every build folder given (or, with ``--build NAME``, a fresh ``dcsflow build NAME`` into a
temporary folder), reads report.json and prints the chosen candidate, its LUTs / FFs / LUT depth /
slices, the TLUT build's, and the slices saved; then, per RTL variant (the design's conventional
variant, and the TLUT build's RTL with its parameters — ``register`` — or the values of its
parameter-only logic — ``precomputed`` — in a register the host loads, :mod:`dcsflow.flow.loadreg`),
the best candidate of that variant and the slices the TLUT build saves against it; then every
candidate. The baseline of each figure is named in the row. Last line: one JSON object.

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dcsflow.flow.report import best_by_variant  # noqa: E402

#: what each RTL variant is, for the page
VARIANTS = {"conventional": "the design's conventional variant (its own RTL option where it has one, else the TLUT "
                            "build's RTL), parameters on input ports",
            "register": "the TLUT build's RTL, every parameter bit in a register the host loads (32-bit port)",
            "precomputed": "the TLUT build's RTL cut at its parameter-only logic, the values of that logic in a "
                           "register the host loads (what the PPC folds away, held in flip-flops)"}


def _cand(b: dict) -> dict:
    return {"luts": b["luts"], "ffs": b.get("ffs"), "depth": b["depth"], "slices": b.get("slices"),
            "eligible": b.get("eligible"), "variant": b.get("variant", "conventional"),
            "register_bits": b.get("register_bits"), "load_words": b.get("load_words")}


def row(rep: dict) -> dict:
    """The figures of one report.json (version 2)."""
    c, t = rep["conventional"], rep["tlut"]
    be = rep.get("backend") or {}
    ts = (be.get("tlut") or {}).get("slices")
    best = best_by_variant(rep)
    cands = {n: _cand(b) for n, b in (rep.get("baselines") or {}).items()}
    return {"design": rep["design"], "baseline": c.get("baseline"),
            "conventional": {"luts": c["luts"], "ffs": c["ffs"], "depth": c["depth"],
                             "slices": (be.get("conventional") or {}).get("slices")},
            "tlut": {"luts": t["luts"], "tluts": t["tluts"], "ffs": t["ffs"], "depth": t["depth"], "slices": ts},
            "slices_saved": be.get("slices_saved"), "slices_saved_percent": be.get("slices_saved_percent"),
            "variants": {v: {"candidate": n, **cands[n],
                             "slices_saved": None if ts is None or cands[n]["slices"] is None
                             else cands[n]["slices"] - ts} for v, n in best.items()},
            "not_made": {**(rep.get("baselines_skipped") or {}), **(rep.get("baselines_failed") or {})},
            "candidates": cands}


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
              "depth / slices | slices saved | best per variant: LUTs / depth / slices |")
        print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        c, t = r["conventional"], r["tlut"]
        cands = "; ".join(f"{v}: {x['candidate']} {x['luts']}/{x['depth']}/{x['slices']}"
                          + ("" if x["eligible"] is not False else " (deeper)") for v, x in r["variants"].items())
        if a.markdown:
            print(f"| {r['design']} | `{r['baseline']}` | {c['luts']} / {c['ffs']} / {c['depth']} / {c['slices']} | "
                  f"{t['luts']} ({t['tluts']}) / {t['ffs']} / {t['depth']} / {t['slices']} | "
                  f"{r['slices_saved']} ({r['slices_saved_percent']:.1f}%) | {cands} |")
        else:
            print(f"{r['design']}: conventional = {r['baseline']} {c['luts']} LUTs / {c['ffs']} FFs / depth "
                  f"{c['depth']} / {c['slices']} slices; TLUT {t['luts']} ({t['tluts']} TLUTs) / {t['ffs']} / "
                  f"{t['depth']} / {t['slices']}; saved {r['slices_saved']} slices; best per variant: {cands}")
    if a.docs:
        docs_page(rows)
    print(json.dumps({"builds": rows}))


def _fig(x: dict | None) -> str | None:
    if x is None:
        return None
    return f"{x['luts']} / {x['ffs']} / {x['depth']} / {x['slices']}" + ("" if x["eligible"] is not False else " (deeper)")


def _saved(n, slices) -> str | None:
    if n is None or not slices:
        return None
    return f"{n} ({100.0 * n / slices:.1f}%)" + ("" if n > 0 else " — specialization does not pay")


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
          _saved(r["slices_saved"], r["conventional"]["slices"])]
         for r in rows])
    body += ("\n## The best candidate of each RTL variant\n\nThe TLUT build against the best candidate of each "
             "variant (fewest slices at no greater LUT depth than `yosys-abc`), so that what a precomputation "
             "or a register gives is apart from what specialization adds:\n\n"
             + "".join(f"- `{v}`: {d}\n" for v, d in VARIANTS.items()) + "\n")
    body += _results.table(
        ["design", "variant", "best candidate", "LUTs / FFs / depth / slices", "register bits (words per load)",
         "slices saved by the TLUT build"],
        [[r["design"], v, f"`{x['candidate']}`", _fig(x),
          None if x["register_bits"] is None else f"{x['register_bits']} ({x['load_words']})",
          _saved(x["slices_saved"], x["slices"])]
         for r in rows for v, x in r["variants"].items()])
    notes = sorted({(r["design"], why) for r in rows for why in r["not_made"].values()})
    if notes:
        body += "\nCandidates not made:\n\n" + "".join(f"- {d}: {why}\n" for d, why in notes)
    body += ("\n## Every candidate\n\nLUTs / FFs / LUT depth / slices (deeper than `yosys-abc`: not "
             "eligible):\n\n")
    body += _results.table(
        ["design", "candidate", "variant", "LUTs / FFs / depth / slices", "chosen"],
        [[r["design"], f"`{n}`", x["variant"], _fig(x), "yes" if n == r["baseline"] else ""]
         for r in rows for n, x in r["candidates"].items()])
    _results.write_page("baselines", "Conventional baselines", body,
                        "Which conventional candidate each build chose: the one with the fewest slices among those "
                        "whose LUT depth is no greater than `yosys-abc`'s (Yosys's own mapping), over every mapper "
                        "and every RTL variant. Read from the builds' `report.json`.")


if __name__ == "__main__":
    main()
