"""The figures of finished builds that a change of the flow's speed must not move.

For each build folder: the TLUT build's LUTs, TLUTs, FFs, slices and LUT depth; the conventional
implementation's (and which candidate it is); every candidate's LUTs, FFs, LUT depth and slices;
frames and ICAP words per rekey; the PPC's AND nodes; and the SHA-256 of the C the runtime
generates for it (``dcsflow codegen``: same C, same SCG instructions on the Cortex-A9).

Usage:
    python scripts/figures.py BUILD [BUILD ...]                 print the figures (JSON)
    python scripts/figures.py BUILD ... --update FILE --note TEXT
        write them into FILE (tests/data/build_figures.json: the table tests/test_build_figures.py
        compares builds with), replacing the entries of these designs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from _build_figures import figures  # noqa: E402  (the same figures the tests compare)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+", type=Path)
    ap.add_argument("--update", type=Path, help="the table to write the figures into")
    ap.add_argument("--note", default="", help="where the builds came from (stored in the table)")
    args = ap.parse_args()
    figs = {}
    for b in args.builds:
        f = figures(b)
        figs[f["design"]] = f
    if not args.update:
        print(json.dumps(figs, indent=1))
        return
    table = json.loads(args.update.read_text()) if args.update.exists() else {"format": "dcsflow-build-figures",
                                                                              "version": 1, "designs": {}}
    for name, f in figs.items():
        table["designs"][name] = {**f, "source": args.note}
    table["designs"] = dict(sorted(table["designs"].items()))
    args.update.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {len(figs)} design(s) into {args.update}")


if __name__ == "__main__":
    main()
