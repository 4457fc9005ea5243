"""AES-128 benchmark: both cores, TLUT build against the conventional build of the same run.

Per core (``aes128_pipe``, ``aes128_iter``): LUTs, TLUTs, FFs, slices, LUT depth, PPC AND nodes,
frames per rekey (and the lower bound 4 × ⌈TLUTs/200⌉), ICAP words per rekey, SCG instructions per
rekey on the Cortex-A9 (QEMU, measured as in ``benchmarks/rekey_bench.py``: executed translation
blocks of ``scg_evaluate``) and their spread over ``--keys`` pseudo-random keys, build time.
Targets: pipe TLUT LUTs <= 0.7 × conventional at no greater depth; spread 0; pipe SCG <= 200k
instructions; frames <= 1.2 × bound. Against the strongest conventional candidate (its figures,
``report.json`` ``conventional.baseline``; every candidate is listed): aes128_iter conventional
<= 2,500 LUTs, aes128_pipe conventional <= 12,000 LUTs, aes128_pipe TLUT <= 6,800 LUTs at LUT depth
<= 4 (``targets_21`` in the JSON line).

Usage: python benchmarks/aes_bench.py [--build NAME=DIR ...] [--keys 100] [--designs aes128_iter,aes128_pipe] [--docs]
(builds into a temporary folder what is not given: aes128_pipe's build takes ~20 min on 2 cores).
Measured 2026-11-23 (100 keys each): aes128_pipe 747,397 instructions (straight style: its 6400
affine TLUTs are patched from their frontier, only the 37,760-node key expansion of its PPC is
evaluated; ~4 min), aes128_iter 151,494. Table-style code is counted on as many keys (its QEMU log
streams through a FIFO: ``rekey_bench.qemu_counts``). Last line: one JSON object; its top-level target figures are
those of aes128_pipe when it was benchmarked (the targets are about the pipelined core), else of
the first design.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _rekey_bench():
    spec = importlib.util.spec_from_file_location("rekey_bench", ROOT / "benchmarks" / "rekey_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def figures(name: str, build: Path, keys: int, tmp: Path, build_seconds: float | None) -> dict:
    """Figures of one core from its build folder (report.json) and the QEMU SCG run."""
    rep = json.loads((build / "report.json").read_text())
    c, t = rep["conventional"], rep["tlut"]
    be = rep.get("backend") or {}
    r = be.get("rekey") or {}
    scg = _rekey_bench().bench(name, build, keys, tmp)
    return {
        "design": name,
        "conventional": {"luts": c["luts"], "ffs": c["ffs"], "depth": c["depth"],
                         "slices": (be.get("conventional") or {}).get("slices"), "baseline": c.get("baseline")},
        "baselines": {n: {k: b.get(k) for k in ("luts", "ffs", "depth", "slices", "eligible", "chosen")}
                      for n, b in (rep.get("baselines") or {}).items()},
        "tlut": {"luts": t["luts"], "tluts": t["tluts"], "ffs": t["ffs"], "depth": t["depth"],
                 "slices": (be.get("tlut") or {}).get("slices"), "ppc_ands": t["ppc_ands"]},
        "lut_reduction_percent": round(100 * (1 - t["luts"] / c["luts"]), 1),
        "depth_not_greater": t["depth"] <= c["depth"],
        "frames_per_rekey": r.get("frames_per_rekey"), "frames_lower_bound": r.get("frames_lower_bound"),
        "icap_words_per_rekey": scg["icap_words"],
        "scg_instructions": scg["scg_instructions"], "scg_instructions_spread": scg["scg_instructions_spread"],
        "ppc_instructions": scg["ppc_instructions"], "keys": scg["keys"], "code_style": scg["code_style"],
        "text_bytes": scg["text_bytes"], "rodata_bytes": scg["rodata_bytes"],
        "modelled_rekey_us_axi": scg["modelled_rekey_us_axi"], "modelled_rekey_us_icap": scg["modelled_rekey_us_icap"],
        "build_seconds": None if build_seconds is None else round(build_seconds, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--designs", default="aes128_iter,aes128_pipe", help="comma-separated")
    ap.add_argument("--keys", type=int, default=100)
    import _results
    _results.add_docs_option(ap, "docs/results/aes.md")
    a = ap.parse_args()
    _results.check_docs(a)
    given = dict(x.split("=", 1) for x in a.build)
    results = {}
    rb = _rekey_bench()
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        for name in a.designs.split(","):
            build, secs = rb.ensure_build(name, given, tmp)
            f = figures(name, build, a.keys, tmp, secs)
            results[name] = f
            c, t = f["conventional"], f["tlut"]
            print(f"{name}: LUTs {t['luts']} ({t['tluts']} TLUTs) vs {c['luts']} conventional ({c['baseline']}) "
                  f"({f['lut_reduction_percent']}% fewer), FFs {t['ffs']} vs {c['ffs']}, slices {t['slices']} vs "
                  f"{c['slices']}, depth {t['depth']} vs {c['depth']}, PPC {t['ppc_ands']} AND nodes; "
                  f"{f['frames_per_rekey']} frames per rekey (bound {f['frames_lower_bound']}), "
                  f"{f['icap_words_per_rekey']} ICAP words; SCG {f['scg_instructions']} A9 instructions "
                  f"(spread over {f['keys']} keys: {f['scg_instructions_spread']})"
                  + ("" if secs is None else f"; build {secs:.0f} s"))
    first = results.get("aes128_pipe") or results[a.designs.split(",")[0]]
    t21 = {}
    if "aes128_iter" in results:
        t21["iter_conventional_luts_le_2500"] = results["aes128_iter"]["conventional"]["luts"] <= 2500
    if "aes128_pipe" in results:
        p = results["aes128_pipe"]
        t21["pipe_conventional_luts_le_12000"] = p["conventional"]["luts"] <= 12000
        t21["pipe_tlut_luts_le_6800_depth_le_4"] = p["tlut"]["luts"] <= 6800 and p["tlut"]["depth"] <= 4
    if a.docs:
        docs_page(results)
    print(json.dumps({"design": first["design"], "lut_reduction_percent": first["lut_reduction_percent"],
                      "depth_not_greater": first["depth_not_greater"],
                      "scg_instructions": first["scg_instructions"],
                      "scg_instructions_spread": first["scg_instructions_spread"],
                      "frames_per_rekey": first["frames_per_rekey"], "frames_lower_bound": first["frames_lower_bound"],
                      "targets_21": t21, "designs": results}))


def docs_page(results: dict) -> None:
    """docs/results/aes.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    names = list(results)

    def both(f):
        return [f(results[n]) for n in names]

    rows = [
        ["conventional candidate chosen", *both(lambda r: f"`{r['conventional']['baseline']}`")],
        ["LUTs (TLUTs): TLUT / conventional", *both(lambda r: f"{r['tlut']['luts']} ({r['tlut']['tluts']}) / {r['conventional']['luts']}")],
        ["FFs: TLUT / conventional", *both(lambda r: f"{r['tlut']['ffs']} / {r['conventional']['ffs']}")],
        ["LUT depth: TLUT / conventional", *both(lambda r: f"{r['tlut']['depth']} / {r['conventional']['depth']}")],
        ["slices: TLUT / conventional", *both(lambda r: f"{r['tlut']['slices']} / {r['conventional']['slices']}")],
        ["PPC AND nodes", *both(lambda r: r["tlut"]["ppc_ands"])],
        ["frames per rekey (bound)", *both(lambda r: f"{r['frames_per_rekey']} ({r['frames_lower_bound']})")],
        ["ICAP words per rekey", *both(lambda r: r["icap_words_per_rekey"])],
        ["Cortex-A9 instructions per rekey (QEMU)", *both(lambda r: r["scg_instructions"])],
        ["spread over keys", *both(lambda r: f"{r['scg_instructions_spread']} over {r['keys']}")],
        ["code style, .text bytes", *both(lambda r: f"{r['code_style']}, {r['text_bytes']}")],
        ["modelled rekey µs: AXI HWICAP / raw ICAP", *both(lambda r: f"{r['modelled_rekey_us_axi']} / {r['modelled_rekey_us_icap']}")],
        ["build seconds", *both(lambda r: r["build_seconds"])],
    ]
    body = _results.table(["figure", *(f"`{n}`" for n in names)], rows)
    _results.write_page("aes", "AES-128", body,
                        "The key-specialized AES-128 cores: TLUT build against the strongest conventional "
                        "candidate of the same build, and the firmware SCG's cost per rekey (QEMU).")


if __name__ == "__main__":
    main()
