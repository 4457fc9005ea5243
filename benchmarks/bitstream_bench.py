"""Benchmark of scg's bitstream path on pynq-z1_base.bit (xc7z020, 4 MB, 1,011,391 words).

Prints, each the best of ``--repeat`` runs:
- parse + both CRC checks of the .bit file (target <= 2 s), against a baseline in the same run: the
  CRC over the same words with the plain per-word table loop;
- configuration-memory emulator throughput with the bulk API (target >= 2 M words/s), against the
  one-word-at-a-time API on a slice of the stream;
- AXI HWICAP model throughput driven register access by register access (WF writes + CR);
- full bitstream write time.
Last line: one JSON object with all figures.

Usage: ``python benchmarks/bitstream_bench.py [--repeat N] [--bit FILE]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.scg import bitstream as B  # noqa: E402
from dcsflow.scg.data import data_file  # noqa: E402
from dcsflow.scg.emulator import ConfigEmulator  # noqa: E402
from dcsflow.scg.hwicap import CR, CR_WRITE, WF, AxiHwicap  # noqa: E402


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bit", default=None, help="bitstream (default: shared/bitstreams/pynq-z1_base.bit)")
    a = ap.parse_args()
    path = Path(a.bit) if a.bit else data_file("bitstreams", "pynq-z1_base.bit")
    raw = path.read_bytes()

    t_parse, bs = best(lambda: B.parse(raw), a.repeat)
    assert bs.crc_ok
    n = len(bs.words)
    print(f"parse + CRC of {path.name} ({len(raw)} bytes, {n} words): {t_parse:.3f} s (target <= 2 s)")

    words = bs.words.tolist()

    def loop_crc():
        c = 0
        for w in words:
            c = B.crc_update(c, 2, w)
        return c

    t_crc_loop, _ = best(loop_crc, 1)
    t_crc_fast, _ = best(lambda: B.crc_words(0, 2, bs.words), a.repeat)
    print(f"CRC over all words: per-word loop {t_crc_loop:.3f} s, scg.crc_words {t_crc_fast:.3f} s "
          f"(x{t_crc_loop / t_crc_fast:.1f})")

    def emulate():
        e = ConfigEmulator(bs.device)
        e.write_words(bs.words)
        return e

    t_emu, emu = best(emulate, a.repeat)
    assert emu.frames == bs.frames and not emu.crc_error
    wps = n / t_emu
    print(f"emulator, bulk API: {t_emu:.3f} s = {wps / 1e6:.2f} M words/s (target >= 2 M words/s)")

    k = 100_000
    head = words[:k]

    def one_by_one():
        e = ConfigEmulator(bs.device)
        for w in head:
            e.write_word(w)
        return e

    t_one, _ = best(one_by_one, 1)
    wps_one = k / t_one
    print(f"emulator, one word per call (first {k} words): {wps_one / 1e6:.2f} M words/s "
          f"(bulk x{wps / wps_one:.1f})")

    def via_hwicap():
        hw = AxiHwicap()
        wr = hw.write
        for i in range(0, k, 1024):
            for w in head[i:i + 1024]:
                wr(WF, w)
            wr(CR, CR_WRITE)
        return hw

    t_hw, hw = best(via_hwicap, 1)
    print(f"AXI HWICAP model, register by register (first {k} words): {k / t_hw / 1e6:.2f} M words/s, "
          f"{hw.stats['reg_writes']} register writes")

    t_write, out = best(lambda: B.write_full(bs.frames), a.repeat)
    print(f"full bitstream write: {t_write:.3f} s ({len(out)} bytes)")

    res = {
        "bitstream": path.name, "words": n,
        "parse_crc_s": round(t_parse, 4), "parse_target_s": 2.0, "parse_ok": t_parse <= 2.0,
        "crc_loop_s": round(t_crc_loop, 4), "crc_fast_s": round(t_crc_fast, 4),
        "crc_speedup": round(t_crc_loop / t_crc_fast, 2),
        "emulator_words_per_s": round(wps), "emulator_target_words_per_s": 2_000_000,
        "emulator_ok": wps >= 2e6, "emulator_one_word_words_per_s": round(wps_one),
        "emulator_bulk_speedup": round(wps / wps_one, 2),
        "hwicap_words_per_s": round(k / t_hw), "write_full_s": round(t_write, 4),
    }
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
