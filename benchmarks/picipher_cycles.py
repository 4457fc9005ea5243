#!/usr/bin/env python3
"""Benchmark of the π16-Cipher message processor (picipher_mp).

Prints: clock cycles per message (first s_valid to done, no stalls) for 0, 16, 64, 256 and 1024-byte
messages measured in RTL simulation (Icarus), cycles per byte for long messages (marginal, from the
256- and 1024-byte runs), the ratio against the published message processor (2165 cycles for a
128-bit message, the baseline of this comparison), and Yosys ``synth_xilinx`` (xc7) LUT / FF / CARRY4 counts for
both key sizes x both BUFFER_KEY settings, plus the picipher_cis_mp variant.
Last line: one JSON object (cycles_16B, cycles_per_byte_long, luts, ffs for KEY_BITS=96,
BUFFER_KEY=0, and every figure above).
Usage: python benchmarks/picipher_cycles.py [--docs]   (--docs: also write docs/results/picipher_cycles.md)
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.designs.picipher import model, sim  # noqa: E402
from dcsflow.designs.picipher.synth import synth_counts  # noqa: E402

SIZES = (0, 16, 64, 256, 1024)
PUBLISHED_CYCLES_16B = 2165


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    import _results
    _results.add_docs_option(ap, "docs/results/picipher_cycles.md")
    a = ap.parse_args()
    _results.check_docs(a)
    t0 = time.time()
    cycles = {}
    for bits in (96, 128):
        key, pmn = bytes(range(bits // 8)), b"\x00\x01\x02\x03"
        msgs = [sim.SimMessage(key, pmn, bytes(range(256)) * (n // 256) + bytes(range(n % 256)))
                for n in SIZES]
        res = sim.simulate(msgs, bits)
        for m, r in zip(msgs, res):
            if r.output + r.tag != model.encrypt(key, pmn, m.data):
                print(f"error: RTL output differs from the golden model ({bits}-bit key, {len(m.data)} B)")
                return 1
        cycles[bits] = {n: r.cycles for n, r in zip(SIZES, res)}
    c = cycles[96]
    cpb_long = (c[1024] - c[256]) / (1024 - 256)
    print("cycles per message (picipher_mp, first s_valid to done):")
    print(f"  {'bytes':>6} {'96-bit key':>11} {'128-bit key':>12} {'cycles/byte':>12}")
    for n in SIZES:
        cpb = f"{c[n] / n:.2f}" if n else "-"
        print(f"  {n:>6} {c[n]:>11} {cycles[128][n]:>12} {cpb:>12}")
    print(f"  cycles/byte for long messages (marginal 256->1024 B): {cpb_long:.3f}")
    print(f"  16-byte message: {c[16]} cycles vs {PUBLISHED_CYCLES_16B} published "
          f"(speed-up x{PUBLISHED_CYCLES_16B / c[16]:.2f})")

    configs = [(96, 0, False), (96, 1, False), (128, 0, False), (128, 1, False), (None, 0, True)]
    with ThreadPoolExecutor(max_workers=2) as ex:
        counts = list(ex.map(lambda a: synth_counts(*a), configs))
    print("Yosys synth_xilinx (xc7), baseline ABC mapping, key as ordinary input:")
    print(f"  {'top':<16} {'KEY_BITS':>8} {'BUFFER_KEY':>10} {'LUT':>6} {'FF':>6} {'CARRY4':>7}")
    synth = {}
    for s in counts:
        kb = "-" if s.key_bits is None else s.key_bits
        bk = "-" if s.buffer_key is None else s.buffer_key
        print(f"  {s.top:<16} {kb:>8} {bk:>10} {s.luts:>6} {s.ffs:>6} {s.carry4:>7}")
        name = "cis" if s.key_bits is None else f"k{s.key_bits}_buf{s.buffer_key}"
        synth[name] = {"luts": s.luts, "ffs": s.ffs, "carry4": s.carry4}
    base = synth["k96_buf0"]
    print(f"  elapsed {time.time() - t0:.1f} s")
    if a.docs:
        docs_page(c, cycles[128], cpb_long, counts)
    print(json.dumps({
        "cycles_16B": c[16], "cycles_per_byte_long": round(cpb_long, 4),
        "luts": base["luts"], "ffs": base["ffs"], "carry4": base["carry4"],
        "cycles": {str(n): c[n] for n in SIZES}, "cycles_128": {str(n): cycles[128][n] for n in SIZES},
        "speedup_vs_published_16B": round(PUBLISHED_CYCLES_16B / c[16], 3),
        "synth": synth,
    }))
    return 0


def docs_page(c96: dict, c128: dict, cpb_long: float, counts: list) -> None:
    """docs/results/picipher_cycles.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(["message bytes", "cycles, 96-bit key", "cycles, 128-bit key", "cycles per byte"],
                          [[n, c96[n], c128[n], round(c96[n] / n, 2) if n else None] for n in SIZES])
    body += (f"\nCycles per byte for long messages (marginal, 256 to 1024 bytes): {cpb_long:.3f}. A 16-byte "
             f"message: {c96[16]} cycles against {PUBLISHED_CYCLES_16B} for the published message processor "
             f"(×{PUBLISHED_CYCLES_16B / c96[16]:.2f}).\n")
    body += "\nYosys `synth_xilinx` (key as ordinary input):\n\n" + _results.table(
        ["top", "KEY_BITS", "BUFFER_KEY", "LUTs", "FFs", "CARRY4"],
        [[s.top, s.key_bits, s.buffer_key, s.luts, s.ffs, s.carry4] for s in counts])
    _results.write_page("picipher_cycles", "π-Cipher cycles", body,
                        "The π16-Cipher message processor's RTL (`picipher_mp`) in Icarus: clock cycles per message "
                        "from the first `s_valid` to `done` without stalls, outputs checked against the golden "
                        "model.")


if __name__ == "__main__":
    sys.exit(main())
