#!/usr/bin/env python3
"""Benchmark of BMW-512 on the PPE (designs/ppe/programs/bmw512.s): KAT records and cycles.

ISS: every record of ``designs/ppe/vectors/ShortMsgKAT_BMW512.txt`` (256, SHA-256 checked), the
digest against the file's MD and against the golden model ``bmw512.py``; cycles per run (init, each
block, final). ``--rtl``: the same records on the RTL (top ``ppe``, IMEM_DEPTH 1024, Icarus via
``designs/ppe/sim.py``, no stalls; runs back to back on one PE, ``--chunk`` messages per simulation),
digests against the file and cycles per run against the ISS (~3 s per message on a loaded 2-core
machine: ~12 min for all 256). ``--records N``: the first N records only.

Usage: python benchmarks/ppe_bmw.py [--rtl] [--records N] [--chunk 32] [--docs]
Last line: one JSON object (``bmw512_cycles_per_block``, ``bmw512_kat_passed``, ``bmw512_kat_total``,
and with ``--rtl`` ``bmw512_rtl_kat_passed``, ``bmw512_rtl_kat_total``, ``bmw512_rtl_cycles_agree``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.designs.ppe import bmw512, bmw512_kat, bmw512_prog, iss  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtl", action="store_true", help="also simulate the records on the RTL (Icarus)")
    ap.add_argument("--records", type=int, default=None, help="the first N records only (default: all)")
    ap.add_argument("--chunk", type=int, default=32, help="messages per RTL simulation (default 32)")
    import _results
    _results.add_docs_option(ap, "docs/results/ppe_bmw.md")
    a = ap.parse_args(argv)
    _results.check_docs(a)
    recs = bmw512_kat.load_kat()
    if a.records is not None:
        if a.records < 1:
            print("error: --records must be >= 1", file=sys.stderr)
            return 2
        recs = recs[:a.records]
    prog = bmw512_prog.load()
    m = iss.Machine(prog.words, prog.coef, bmw512_prog.IMEM_DEPTH)
    t0 = time.time()
    iss_runs, passed = [], 0
    block, init, final = set(), set(), set()
    for rec in recs:
        r = bmw512_prog.hash_iss(rec.msg, prog, m)
        iss_runs.append(r)
        passed += r.digest == rec.md == bmw512.bmw512(rec.msg)
        init.add(r.cycles[0])
        block.update(r.cycles[1:-1])
        final.add(r.cycles[-1])
    iss_s = time.time() - t0
    words = len(prog.words)
    print(f"bmw512.s: {words} instruction words (IMEM_DEPTH {bmw512_prog.IMEM_DEPTH}), "
          f"{sum(1 for v in prog.coef if v)} coefficient words")
    print(f"ISS: {passed}/{len(recs)} KAT records ({iss_s:.1f} s); cycles per block {sorted(block)}, "
          f"init {sorted(init)}, final {sorted(final)}")
    one_block = max(init) + max(block) + max(final)
    print(f"one-block message: {one_block} cycles (init + block + final); each further block {max(block)}")
    out = {"bmw512_cycles_per_block": max(block), "bmw512_cycles_per_block_min": min(block),
           "bmw512_init_cycles": max(init), "bmw512_final_cycles": max(final),
           "bmw512_one_block_message_cycles": one_block, "bmw512_instruction_words": words,
           "bmw512_kat_passed": passed, "bmw512_kat_total": len(recs), "bmw512_target_cycles_per_block": 1000,
           "bmw512_meets_target": max(block) <= 1000}
    if a.rtl:
        t0 = time.time()
        rpass, agree = 0, True
        for k in range(0, len(recs), a.chunk):
            part = recs[k:k + a.chunk]
            rtl = bmw512_prog.hash_rtl([r.msg for r in part], prog)
            for rec, r, i in zip(part, rtl, iss_runs[k:k + a.chunk]):
                rpass += r.digest == rec.md
                agree &= r.cycles == i.cycles
            print(f"RTL: records {k + 1}..{k + len(part)}: {rpass}/{k + len(part)} passed so far "
                  f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        print(f"RTL (Icarus): {rpass}/{len(recs)} KAT records, cycles per run "
              f"{'equal to' if agree else 'DIFFERENT from'} the ISS ({time.time() - t0:.0f} s)")
        out.update(bmw512_rtl_kat_passed=rpass, bmw512_rtl_kat_total=len(recs), bmw512_rtl_cycles_agree=agree)
    if a.docs:
        docs_page(out)
    print(json.dumps(out))
    ok = passed == len(recs) and (not a.rtl or (out["bmw512_rtl_kat_passed"] == len(recs) and agree))
    return 0 if ok else 1


def docs_page(out: dict) -> None:
    """docs/results/ppe_bmw.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    pairs = [("program", f"`programs/bmw512.s`, {out['bmw512_instruction_words']} instruction words"),
             ("KAT records passed (ISS)", f"{out['bmw512_kat_passed']}/{out['bmw512_kat_total']}"),
             ("cycles per 1024-bit block", out["bmw512_cycles_per_block"]),
             ("cycles: init / final", f"{out['bmw512_init_cycles']} / {out['bmw512_final_cycles']}"),
             ("one-block message", out["bmw512_one_block_message_cycles"])]
    if "bmw512_rtl_kat_passed" in out:
        pairs += [("KAT records passed (RTL, Icarus)", f"{out['bmw512_rtl_kat_passed']}/{out['bmw512_rtl_kat_total']}"),
                  ("RTL cycles equal to the ISS's", out["bmw512_rtl_cycles_agree"])]
    _results.write_page("ppe_bmw", "BMW-512 on the PPE", _results.figures(pairs),
                        "The BMW-512 hash on the PPE (the `ppe` top with a 1024-word instruction memory), every "
                        "record of the ShortMsgKAT file against its digest and the golden model.")


if __name__ == "__main__":
    sys.exit(main())
