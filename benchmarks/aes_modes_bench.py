"""AES-128 modes benchmark: the TLUT build of ``aes_modes`` (round keys, CMAC subkeys and GHASH's
multiplier by H specialized to the key; H = E_K(0^128) computed by the design's parameter transform,
which the SCG runs) against the strongest conventional candidate of the same build, and GHASH's
multiplier alone, built by the same flow.

Figures:
- the core (CMAC and GCM on one datapath, as the source design's multi-purpose core): LUTs,
  TLUTs, FFs, slices, LUT depth of both builds (conventional: ``report.json``
  ``conventional.baseline``, every candidate listed). The ``gcm_*`` and ``cmac_*`` slice figures
  are both this one core's;
- GHASH's multiplier alone: ``dcsflow build designs/aes_modes/rtl/gf128_mul.v --top gf128_mul
  --param y`` — the TLUT build with y = H as parameter input against the conventional candidates'
  generic GF(2^128) multiplier, LUTs and depth of each (the same flow and candidates as every
  build);
- cycles per 16-byte block of CMAC and GCM (the latency's slope between a 1-block and a 4-block
  message on the RTL of both builds, no stalls);
- known answers: without ``--all`` the check's fixed sample on the TLUT netlists, with ``--all``
  every kept record of the three NIST files (4 CMAC, 375 GCM encryption, 375 GCM decryption of which
  196 FAIL) on the TLUT netlists (one per key: ``dcsflow check --vectors FILE``); always every record
  of the three files plus every encryption record with a tampered tag on the conventional netlist
  (one Icarus run, the key port driven);
- SCG instructions per rekey on the Cortex-A9 (QEMU, as ``benchmarks/rekey_bench.py``: from the key
  alone, the parameter transform's AES encryption of 0^128 included, its share given too) and their
  spread over ``--keys`` pseudo-random keys; the build time.

The source design's published figures (GMU's AES side of the multi-purpose comparison, ISE, after
place and route) are printed beside ours: a different family, tool and slice packing.

Usage: python benchmarks/aes_modes_bench.py [--build aes_modes=DIR] [--build ghash=DIR] [--keys 100]
[--all] [--docs] (builds into a temporary folder when no build is given). Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: published figures of the source design, for the printed comparison only
PUBLISHED = [
    ("multi-purpose AES (CMAC, GCM)", "Spartan-6, ISE", "2801 slices, 123 MHz", "-"),
    ("AES-GCM, multi-purpose core", "Artix-7, ISE", "2852 slices", "2.0-2.5 Gbps"),
    ("AES-GCM, dedicated core", "Artix-7, ISE", "1425 slices", "2.0-2.5 Gbps"),
    ("AES-CMAC", "-", "-", "11 cycles per block"),
]


def _rekey_bench():
    spec = importlib.util.spec_from_file_location("rekey_bench", ROOT / "benchmarks" / "rekey_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ensure_ghash_build(given: dict, tmp: Path) -> tuple[Path, float | None]:
    """The multiplier-alone build: ``given["ghash"]``, else built into ``tmp``. Returns (folder,
    build seconds or None)."""
    build = Path(given["ghash"]) if "ghash" in given else tmp / "ghash_build"
    if (build / "report.json").exists():
        return build, None
    src = ROOT / "designs" / "aes_modes" / "rtl" / "gf128_mul.v"
    print("[ghash] building (dcsflow build gf128_mul.v --top gf128_mul --param y) ...", file=sys.stderr)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", str(src), "--top", "gf128_mul", "--param", "y",
                    "--out", str(build), "--quiet"], check=True, cwd=ROOT)
    return build, time.perf_counter() - t0


def cycles_per_block() -> dict:
    """Cycles per further 16-byte block of CMAC and GCM encryption on the RTL of both builds
    (1-block and 4-block messages, no stalls); None where the two builds disagree."""
    import random

    from dcsflow.designs.aes_modes import sim

    rng = random.Random(1)
    key, iv = rng.randbytes(16), rng.randbytes(12)
    reqs = [sim.Request(sim.MODE_CMAC, rng.randbytes(16 * n)) for n in (1, 4)]
    reqs += [sim.Request(sim.MODE_ENC, rng.randbytes(16 * n), iv) for n in (1, 4)]
    lat = {kt: [r.latency for r in sim.simulate([(key, reqs)], key_table=kt)[0]] for kt in (1, 0)}
    c = lat[1]
    same = lat[0] == lat[1]
    return {"cmac_cycles_per_block": (c[1] - c[0]) / 3 if same else None,
            "gcm_cycles_per_block": (c[3] - c[2]) / 3 if same else None,
            "cmac_cycles_one_block": c[0], "gcm_cycles_one_block": c[2]}


def all_records() -> list:
    """Every kept record of the three NIST files, and every encryption record with a tampered tag."""
    from dcsflow.designs.aes_modes import sim
    from dcsflow.designs.aes_modes import vectors as V

    enc = V.load_gcm_encrypt().records
    return [*V.load_cmac().records, *enc, *V.load_gcm_decrypt().records, *map(sim.tampered, enc)]


def tlut_checks(build: Path, everything: bool) -> tuple[int, int]:
    """TLUT netlists specialized per key and simulated: the check's default sample, or with
    ``everything`` each of the three NIST files whole. Returns (passed, total)."""
    from dcsflow.designs.aes_modes import vectors as V
    from dcsflow.flow.check import check_build
    from dcsflow.flow.design import CheckOptions

    if not everything:
        res = check_build(build, CheckOptions(), progress=False)
        return res.passed, res.total
    passed = total = 0
    for f in (V.CMAC_FILE, V.GCM_ENCRYPT_FILE, V.GCM_DECRYPT_FILE):
        res = check_build(build, CheckOptions(vectors=V.cavp_dir() / f), progress=False)
        passed, total = passed + res.passed, total + res.total
    return passed, total


def conventional_check(build: Path, tmp: Path) -> tuple[int, int]:
    """The chosen conventional netlist on :func:`all_records` (one Icarus run, the key port driven;
    the core computes H after each key's reset). Returns (passed, total)."""
    from dcsflow.designs.aes_modes import sim
    from dcsflow.flow.check import conventional_verilog
    from dcsflow.flow.yosys import cells_sim

    top, text = conventional_verilog(build)
    net = tmp / "conventional.v"
    net.write_text(text)
    rep = sim.check_rtl(all_records(), key_table=None, workdir=tmp / "conv_sim", sources=[net, cells_sim()], top=top)
    return rep.passed, rep.total


def fewest_luts(rep: dict) -> dict:
    """The conventional candidate of a report with the fewest LUTs at any depth: name, LUTs, depth,
    and the TLUT build's LUT reduction against it (``ghash_*`` keys)."""
    cands = {n: b for n, b in (rep.get("baselines") or {}).items() if b.get("luts")}
    if not cands:
        return {}
    name = min(cands, key=lambda n: (cands[n]["luts"], cands[n]["depth"]))
    b = cands[name]
    return {"ghash_luts_conventional_fewest": b["luts"], "ghash_depth_conventional_fewest": b["depth"],
            "ghash_conventional_fewest_baseline": name,
            "ghash_lut_reduction_vs_fewest": round(1 - rep["tlut"]["luts"] / b["luts"], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="aes_modes=DIR|ghash=DIR")
    ap.add_argument("--keys", type=int, default=100, help="parameter values for the SCG's spread")
    ap.add_argument("--all", action="store_true", help="every kept NIST record on the TLUT netlists")
    import _results
    _results.add_docs_option(ap, "docs/results/aes_modes.md")
    a = ap.parse_args()
    _results.check_docs(a)
    given = dict(x.split("=", 1) for x in a.build)
    rb = _rekey_bench()
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        build, secs = rb.ensure_build("aes_modes", given, tmp)
        gbuild, gsecs = ensure_ghash_build(given, tmp)
        rep = json.loads((build / "report.json").read_text())
        grep_ = json.loads((gbuild / "report.json").read_text())
        t0 = time.perf_counter()
        tp, tn = tlut_checks(build, a.all)
        t_check = time.perf_counter() - t0
        t0 = time.perf_counter()
        cp, cn = conventional_check(build, tmp)
        c_check = time.perf_counter() - t0
        cyc = cycles_per_block()
        scg = rb.bench("aes_modes", build, a.keys, tmp)
    c, t = rep["conventional"], rep["tlut"]
    be = rep.get("backend") or {}
    gc, gt = grep_["conventional"], grep_["tlut"]
    s_t, s_c = (be.get("tlut") or {}).get("slices"), (be.get("conventional") or {}).get("slices")
    res = {
        "ghash_luts_tlut": gt["luts"], "ghash_luts_conventional": gc["luts"],
        "ghash_tluts": gt["tluts"], "ghash_depth_tlut": gt["depth"], "ghash_depth_conventional": gc["depth"],
        "ghash_conventional_baseline": gc.get("baseline"),
        "ghash_lut_reduction": round(1 - gt["luts"] / gc["luts"], 3) if gc["luts"] else None,
        # the chosen candidate is the fewest slices at no greater depth; against the fewest LUTs of
        # any candidate, whatever its depth, too, so the reduction is never against a weak one
        **fewest_luts(grep_),
        "gcm_slices_tlut": s_t, "gcm_slices_conventional": s_c,
        "cmac_slices_tlut": s_t, "cmac_slices_conventional": s_c,
        "luts_tlut": t["luts"], "luts_conventional": c["luts"], "tluts": t["tluts"],
        "ffs_tlut": t["ffs"], "ffs_conventional": c["ffs"],
        "depth_tlut": t["depth"], "depth_conventional": c["depth"],
        "conventional_baseline": c.get("baseline"),
        "baselines": {n: {k: b.get(k) for k in ("luts", "ffs", "depth", "slices", "eligible", "chosen")}
                      for n, b in (rep.get("baselines") or {}).items()},
        **cyc,
        "vectors_tlut": f"{tp}/{tn}", "vectors_tlut_all_records": a.all, "vectors_conventional": f"{cp}/{cn}",
        "check_seconds_tlut": round(t_check, 1), "check_seconds_conventional": round(c_check, 1),
        "scg_instructions": scg["scg_instructions"], "scg_instructions_spread": scg["scg_instructions_spread"],
        "transform_instructions": scg["transform_instructions"],
        "scg_keys": scg["keys"], "frames_per_rekey": scg["frames"], "icap_words_per_rekey": scg["icap_words"],
        "ppc_ands": t["ppc_ands"],
        "build_seconds": None if secs is None else round(secs, 1),
        "build_seconds_report": (rep.get("timing") or {}).get("wall"),
        "ghash_build_seconds": None if gsecs is None else round(gsecs, 1),
        "ghash_build_seconds_report": (grep_.get("timing") or {}).get("wall"),
    }
    res["slices_fewer"] = s_t is not None and s_c is not None and s_t < s_c
    res["depth_not_greater"] = t["depth"] <= c["depth"]
    print(f"GHASH multiplier alone: {gt['luts']} LUTs ({gt['tluts']} TLUTs), depth {gt['depth']} TLUT vs "
          f"{gc['luts']} LUTs, depth {gc['depth']} conventional ({gc.get('baseline')}): "
          f"{res['ghash_lut_reduction']:.1%} fewer LUTs")
    if "ghash_luts_conventional_fewest" in res:
        print(f"  against the candidate with the fewest LUTs ({res['ghash_conventional_fewest_baseline']}: "
              f"{res['ghash_luts_conventional_fewest']} LUTs, depth {res['ghash_depth_conventional_fewest']}): "
              f"{res['ghash_lut_reduction_vs_fewest']:.1%} fewer LUTs")
    print(f"aes_modes core (CMAC + GCM): slices {s_t} TLUT vs {s_c} conventional ({c.get('baseline')}); "
          f"LUTs {t['luts']} ({t['tluts']} TLUTs) vs {c['luts']}; FFs {t['ffs']} vs {c['ffs']}; "
          f"depth {t['depth']} vs {c['depth']}")
    print(f"cycles per 16-byte block: CMAC {cyc['cmac_cycles_per_block']}, GCM {cyc['gcm_cycles_per_block']} "
          f"(one block: CMAC {cyc['cmac_cycles_one_block']}, GCM {cyc['gcm_cycles_one_block']} to the tag)")
    print(f"known answers: TLUT netlists {tp}/{tn}{' (every record)' if a.all else ' (the check sample)'}, "
          f"conventional netlist {cp}/{cn}; SCG {scg['scg_instructions']} A9 instructions per rekey "
          f"(spread {scg['scg_instructions_spread']} over {scg['keys']} values), {scg['frames']} frames")
    print("published (source design; different family and tool, for orientation only):")
    for row in PUBLISHED:
        print("  " + " | ".join(row))
    if a.docs:
        docs_page(res)
    print(json.dumps(res))


def docs_page(r: dict) -> None:
    """docs/results/aes_modes.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    rows = [
        ["GHASH multiplier alone: LUTs (TLUTs)", f"{r['ghash_luts_tlut']} ({r['ghash_tluts']})",
         f"{r['ghash_luts_conventional']} (`{r['ghash_conventional_baseline']}`)"],
        ["GHASH multiplier alone: LUT depth", r["ghash_depth_tlut"], r["ghash_depth_conventional"]],
        ["GHASH multiplier alone: candidate with the fewest LUTs", "",
         f"{r.get('ghash_luts_conventional_fewest')} LUTs, depth {r.get('ghash_depth_conventional_fewest')} "
         f"(`{r.get('ghash_conventional_fewest_baseline')}`)"],
        ["core: conventional candidate chosen", "", f"`{r['conventional_baseline']}`"],
        ["core (CMAC + GCM): slices", r["gcm_slices_tlut"], r["gcm_slices_conventional"]],
        ["core: LUTs (TLUTs)", f"{r['luts_tlut']} ({r['tluts']})", r["luts_conventional"]],
        ["core: FFs", r["ffs_tlut"], r["ffs_conventional"]],
        ["core: LUT depth", r["depth_tlut"], r["depth_conventional"]],
        ["CMAC cycles per 16-byte block", r["cmac_cycles_per_block"], r["cmac_cycles_per_block"]],
        ["GCM cycles per 16-byte block", r["gcm_cycles_per_block"], r["gcm_cycles_per_block"]],
        ["known answers passed (netlists)", r["vectors_tlut"], r["vectors_conventional"]],
        ["PPC AND nodes", r["ppc_ands"], "-"],
        ["frames / ICAP words per rekey", f"{r['frames_per_rekey']} / {r['icap_words_per_rekey']}", "-"],
        ["Cortex-A9 instructions per rekey from the key (QEMU), spread", f"{r['scg_instructions']}, "
         f"{r['scg_instructions_spread']} over {r['scg_keys']} keys", "-"],
        ["of them the parameter transform (H = E_K(0^128))", r.get("transform_instructions"), "-"],
        ["build seconds (whole build, both)", r["build_seconds"] or r["build_seconds_report"], ""],
    ]
    body = _results.table(["figure", "TLUT build", "conventional build"], rows)
    body += ("\n\nThe GHASH multiplier alone is `rtl/gf128_mul.v` built by the same flow with `y` (H) as "
             f"parameter input: {r['ghash_lut_reduction']:.1%} fewer LUTs than the chosen conventional "
             "candidate's generic GF(2^128) multiplier (fewest slices at the least depth), "
             f"{r.get('ghash_lut_reduction_vs_fewest', 0):.1%} fewer than the candidate with the fewest LUTs. "
             + ("Its LUT depth is greater than the conventional multiplier's. " if r["ghash_depth_tlut"] >
                r["ghash_depth_conventional"] else "") + "The core's CMAC and GCM share one datapath, so their "
             "slice figures are the same.")
    body += "\n\nPublished figures of the source design (different family, tool and packing):\n\n"
    body += _results.table(["core", "device, tool", "area, clock", "throughput"], [list(p) for p in PUBLISHED])
    body += "\n"
    _results.write_page("aes_modes", "AES-128-CMAC and AES-128-GCM core", body,
                        "The AES-128 modes core with the key as parameter input: the TLUT build takes H = "
                        "E_K(0^128) from the design's parameter transform, which the SCG runs with every rekey "
                        "(on the board in the firmware, counted in its instructions), and the round keys, "
                        "CMAC's subkeys and GHASH's multiplier by H from the PPC, against the strongest "
                        "conventional candidate, which computes H after reset and has a generic multiplier.")


if __name__ == "__main__":
    main()
