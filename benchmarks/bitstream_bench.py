"""Benchmark of scg's bitstream path on pynq-z1_base.bit (xc7z020, 4 MB, 1,011,391 words).

Prints, each the best of ``--repeat`` runs:
- parse + both CRC checks of the .bit file (target <= 2 s), against a baseline in the same run: the
  CRC over the same words with the plain per-word table loop;
- configuration-memory emulator throughput with the bulk API (target >= 2 M words/s), against the
  one-word-at-a-time API on a slice of the stream;
- AXI HWICAP model throughput driven register access by register access (WF writes + CR);
- full bitstream write time;
- hostile input: ``python -m dcsflow.scg bit info`` as a separate process on 64 MB floods
  (``--flood-mb``) of sync + DESYNC pairs (target <= 5 s and <= 300 MB peak memory; the parser's
  limits, ``scg.bitstream.MAX_SYNCS`` ..., end it with one error line), of NOOPs (parsed, linear) and
  of CMD packets after an IDCODE (stopped by the packet limit), each against the same command on
  the real 4 MB bitstream measured in the same run (time and peak RSS from ``os.wait4``, the
  figures ``/usr/bin/time -v`` prints).
Last line: one JSON object with all figures.

Usage: ``python benchmarks/bitstream_bench.py [--repeat N] [--bit FILE] [--flood-mb N] [--docs]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _launcher import LAUNCHER  # noqa: E402
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




def run_measured(args: list[str]) -> dict:
    """Run ``python -m dcsflow.scg ARGS`` as a separate process: wall seconds, peak RSS (MB, the
    maximum resident set size ``/usr/bin/time -v`` reports, from ``os.wait4``), exit status and the
    first line of stderr."""
    r = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-m", "dcsflow.scg", *args],
                       capture_output=True, text=True, check=True)
    d = json.loads(r.stdout)
    return {"seconds": round(d["seconds"], 3), "max_rss_mb": round(d["max_rss_kb"] / 1024, 1), "exit": d["exit"],
            "stderr": d["stderr"].splitlines()[:1]}


def flood_files(folder: Path, mb: int) -> dict[str, Path]:
    """Hostile streams of ``mb`` MB: sync + CMD DESYNC pairs, NOOPs after one sync, CMD NULL
    packets after a sync and an IDCODE write (UG470 words)."""
    n = mb << 18                     # words
    pats = {"sync_desync": ([], [B.SYNC_WORD, B.type1(B.OP_WRITE, B.R_CMD, 1), B.CMD_DESYNC]),
            "noop": ([B.DUMMY, B.SYNC_WORD], [B.NOOP]),
            "cmd_null": ([B.DUMMY, B.SYNC_WORD, B.type1(B.OP_WRITE, B.R_IDCODE, 1), 0x03727093],
                         [B.type1(B.OP_WRITE, B.R_CMD, 1), 0])}
    out = {}
    for name, (head, unit) in pats.items():
        body = B.words_to_bytes(unit) * ((n - len(head)) // len(unit))
        f = folder / f"{name}.bin"
        f.write_bytes(B.words_to_bytes(head) + body)
        out[name] = f
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bit", default=None, help="bitstream (default: shared/bitstreams/pynq-z1_base.bit)")
    ap.add_argument("--flood-mb", type=int, default=64, help="size of the hostile streams (0: skip them)")
    import _results
    _results.add_docs_option(ap, "docs/results/bitstream.md")
    a = ap.parse_args()
    _results.check_docs(a)
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

    floods = {}
    if a.flood_mb:
        base = run_measured(["bit", "info", str(path)])
        assert base["exit"] == 0, base
        print(f"bit info {path.name} ({len(raw) / 2**20:.1f} MB, baseline): {base['seconds']:.2f} s, "
              f"{base['max_rss_mb']:.0f} MB")
        floods["baseline"] = dict(base, mb=round(len(raw) / 2**20, 2))
        with tempfile.TemporaryDirectory() as d:
            for name, f in flood_files(Path(d), a.flood_mb).items():
                r = run_measured(["bit", "info", str(f)])
                r["mb"] = a.flood_mb
                r["time_ratio"] = round(r["seconds"] / base["seconds"], 2)
                r["rss_ratio"] = round(r["max_rss_mb"] / base["max_rss_mb"], 2)
                floods[name] = r
                print(f"bit info on {a.flood_mb} MB of {name}: {r['seconds']:.2f} s, {r['max_rss_mb']:.0f} MB "
                      f"(x{r['time_ratio']} / x{r['rss_ratio']} the baseline), exit {r['exit']}: "
                      f"{(r['stderr'] or [''])[0][:110]}")
        sd = floods["sync_desync"]
        floods["sync_desync_target"] = {"seconds": 5.0, "max_rss_mb": 300.0}
        floods["sync_desync_ok"] = sd["seconds"] <= 5.0 and sd["max_rss_mb"] <= 300.0 and \
            sd["exit"] == 1 and len(sd["stderr"]) == 1

    res = {
        "bitstream": path.name, "words": n,
        "parse_crc_s": round(t_parse, 4), "parse_target_s": 2.0, "parse_ok": t_parse <= 2.0,
        "crc_loop_s": round(t_crc_loop, 4), "crc_fast_s": round(t_crc_fast, 4),
        "crc_speedup": round(t_crc_loop / t_crc_fast, 2),
        "emulator_words_per_s": round(wps), "emulator_target_words_per_s": 2_000_000,
        "emulator_ok": wps >= 2e6, "emulator_one_word_words_per_s": round(wps_one),
        "emulator_bulk_speedup": round(wps / wps_one, 2),
        "hwicap_words_per_s": round(k / t_hw), "write_full_s": round(t_write, 4),
        "hostile_bit_info": floods,
    }
    if a.docs:
        docs_page(res)
    print(json.dumps(res))
    return 0


def docs_page(res: dict) -> None:
    """docs/results/bitstream.md from this run's figures."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.figures([
        ("bitstream", f"`{res['bitstream']}`, {res['words']:,} words"),
        ("parse + CRC checks (target <= 2 s)", f"{res['parse_crc_s']} s"),
        ("CRC over all words: per-word loop / scg.crc_words", f"{res['crc_loop_s']} s / {res['crc_fast_s']} s"),
        ("emulator, bulk API (target >= 2 M words/s)", f"{res['emulator_words_per_s'] / 1e6:.2f} M words/s"),
        ("emulator, one word per call", f"{res['emulator_one_word_words_per_s'] / 1e6:.2f} M words/s"),
        ("AXI HWICAP model, register by register", f"{res['hwicap_words_per_s'] / 1e6:.2f} M words/s"),
        ("full bitstream write", f"{res['write_full_s']} s"),
    ])
    floods = {k: v for k, v in res["hostile_bit_info"].items() if isinstance(v, dict) and "seconds" in v
              and "exit" in v}
    if floods:
        body += ("\n`python -m dcsflow.scg bit info` as a separate process on hostile streams, against the real "
                 "bitstream (time and peak memory):\n\n")
        body += _results.table(["input", "MB", "seconds", "peak MB", "exit", "first line on stderr"],
                               [[k, v.get("mb"), v["seconds"], round(v["max_rss_mb"]), v["exit"],
                                 (v.get("stderr") or [""])[0][:100]] for k, v in floods.items()])
    _results.write_page("bitstream", "Bitstreams", body,
                        "The runtime's bitstream path (`dcsflow.scg`: parser, CRC, emulator, AXI HWICAP model) on "
                        "a real Vivado bitstream for the xc7z020, each figure the best of several runs.")


if __name__ == "__main__":
    sys.exit(main())
