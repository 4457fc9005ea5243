"""Peak memory of reading a bitstream whose FDRI write carries a flood of frame data.

Builds a synthetic raw stream (``.bin``) of ``--mb`` MB (default 64): sync, an IDCODE write
(xc7z020), FAR 0, CMD WCFG, one FDRI write (type-1 count 0 + type-2) carrying whole frames of
pseudo-random words — far more frames than the device has — and a CRC check over them (UG470
words), so the whole path runs: stream words, CRC of the frame data, frames into the frame memory.
Then measures three child processes (peak RSS from ``os.wait4``, the figure ``/usr/bin/time -v``
prints as "Maximum resident set size"), each started from a small launcher process so that the
benchmark's own image is not counted:

- ``import``: the interpreter with ``dcsflow.scg.bitstream`` imported (the floor);
- ``read``: the same, then only reading the file's bytes (the baseline: holding the file once);
- ``parse``: :func:`dcsflow.scg.bitstream.read_file` of the file (read, parse, CRC, frames).

Prints each peak, and the ratios ``(parse - import) / size`` (target <= 2: reading a bitstream
stays within about twice its size) and ``(read - import) / size`` (about 1, the baseline measured
in the same run). Last line: one JSON object with all figures.

Usage: ``python benchmarks/bitstream_memory.py [--mb N] [--keep FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _launcher import LAUNCHER  # noqa: E402
from dcsflow.scg import bitstream as B  # noqa: E402

#: target of the ratio (parse - import) / size
TARGET_RATIO = 2.0


_CHILD = {
    "import": "import sys; from dcsflow.scg import bitstream as B",
    "read": "import sys; from dcsflow.scg import bitstream as B; data = open(sys.argv[1], 'rb').read()",
    "parse": "import sys; from dcsflow.scg import bitstream as B; bs = B.read_file(sys.argv[1]); "
             "assert bs.crc_ok and bs.frames_written",
}


def flood_file(path: Path, mb: int) -> int:
    """Write the FDRI flood of about ``mb`` MB to ``path`` (module docstring); returns its size."""
    n_frames = (mb << 18) // B.FRAME_WORDS
    rnd = random.Random(7)
    frame = [rnd.getrandbits(32) for _ in range(B.FRAME_WORDS * 64)]     # 64 frames, repeated
    data = B._new_words()
    data.extend(frame)
    reps, rest = divmod(n_frames, 64)
    data = data * reps + data[:rest * B.FRAME_WORDS]
    w = B.PacketWriter()
    w.raw(B.DUMMY, B.SYNC_WORD)
    w.write(B.R_IDCODE, 0x03727093)
    w.write(B.R_FAR, 0).cmd(B.CMD_WCFG).nop()
    w.fdri(data)
    del data
    w.crc_check().cmd(B.CMD_DESYNC)
    out = w.to_bytes()
    path.write_bytes(out)
    return len(out)


def measure(kind: str, path: Path) -> dict:
    """Run the child ``kind`` (:data:`_CHILD`) on ``path``: seconds, peak RSS (MB), exit status."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-c", _CHILD[kind], str(path)],
                       capture_output=True, text=True, check=True, env=env)
    d = json.loads(r.stdout)
    if d["exit"] != 0:
        raise SystemExit(f"child {kind} failed: {d['stderr'].strip()[-500:]}")
    return {"seconds": round(d["seconds"], 3), "max_rss_mb": round(d["max_rss_kb"] / 1024, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=64, help="size of the flood in MB (default 64)")
    ap.add_argument("--keep", default=None, help="write the flood to this file and keep it")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(a.keep) if a.keep else Path(d) / "fdri_flood.bin"
        t = time.perf_counter()
        size = flood_file(path, a.mb)
        print(f"flood: {path.name}, {size / 2**20:.1f} MB of FDRI frame data ({time.perf_counter() - t:.1f} s to build)")
        res = {"mb": round(size / 2**20, 2), "bytes": size}
        for kind in ("import", "read", "parse"):
            res[kind] = measure(kind, path)
            print(f"{kind:>6}: peak {res[kind]['max_rss_mb']:.0f} MB, {res[kind]['seconds']:.2f} s")
    size_mb = size / 2**20
    res["parse_ratio"] = round((res["parse"]["max_rss_mb"] - res["import"]["max_rss_mb"]) / size_mb, 2)
    res["read_ratio"] = round((res["read"]["max_rss_mb"] - res["import"]["max_rss_mb"]) / size_mb, 2)
    res["parse_over_read"] = round(res["parse"]["max_rss_mb"] / res["read"]["max_rss_mb"], 2)
    res["target_ratio"] = TARGET_RATIO
    res["ok"] = res["parse_ratio"] <= TARGET_RATIO
    print(f"parse: (peak - import) / size = {res['parse_ratio']} (target <= {TARGET_RATIO}); "
          f"baseline read: {res['read_ratio']}; parse peak / read peak = x{res['parse_over_read']}")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
