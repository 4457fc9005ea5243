"""Benchmark of ``dcsflow import``: decode + check of every TLUT of a routed 4 MB
xc7z020 bitstream, and the size of the partial bitstream of a picipher rekey.

Stand-in for Vivado: pynq-z1_base.bit with the build's template INITs written at the planned sites
(``scg.vivado_import.synthetic_vivado_result``). Baseline measured in the same run: parsing
the same bitstream alone (``scg.bitstream.read_file``). Targets: import (decode + check) <= 2 s;
partial = touched frames + 1 pad frame per run + packet overhead, nothing else.
Last line: one JSON object.

Usage: python benchmarks/import_bench.py [--build DIR] [--docs]   (DIR: a picipher build made with
``--backend vivado``; default: build one in a temporary folder, about 1-2 minutes)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.scg.vivado_import import import_vivado, synthetic_vivado_result  # noqa: E402
from dcsflow.flow.build import BuildOptions, build  # noqa: E402
from dcsflow.flow.paths import shared_file  # noqa: E402
from dcsflow.scg import buildfolder as bf, rekey as rk  # noqa: E402
from dcsflow.scg.bitstream import parse, read_file  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, help="existing picipher build with --backend vivado")
    import _results
    _results.add_docs_option(ap, "docs/results/import.md")
    args = ap.parse_args()
    _results.check_docs(args)
    tmp = Path(tempfile.mkdtemp(prefix="import-bench-"))
    try:
        src = args.build
        if src is None:
            src = tmp / "src"
            build(BuildOptions(design="picipher", out=src, progress=False, backend="vivado", board="pynq-z1"))
        out = tmp / "pi"
        shutil.copytree(src, out)
        base = shared_file("bitstreams", "pynq-z1_base.bit")
        bit, cells = synthetic_vivado_result(out, base, tmp)
        t0 = time.perf_counter()
        read_file(bit)
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = import_vivado(out, bit, cells)
        total_s = time.perf_counter() - t0
        b = bf.load_build(out)
        r = rk.rekey(b, {"key_mn": 0x0123456789ABCDEF0011223344556677}, f"partial:{tmp / 'p.bin'}")
        part = parse((tmp / "p.bin").read_bytes())
        fig = {"bitstream_bytes": bit.stat().st_size, "tluts": res.tluts, "parse_s": round(parse_s, 3),
               "import_decode_check_s": round(res.seconds, 3), "import_total_s": round(total_s, 3),
               "import_vs_parse": round(res.seconds / parse_s, 2), "target_s": 2.0,
               "partial_bytes": r.extra["bytes"], "partial_frames": len(b.fars), "partial_runs": len(b.runs),
               "partial_fdri_frames": part.fdri_frames,
               "partial_overhead_words": len(part.words) - part.fdri_frames * 101}
        print(f"bitstream {fig['bitstream_bytes']} bytes, {fig['tluts']} TLUTs: parse {parse_s:.2f} s, "
              f"import decode+check {res.seconds:.2f} s (target <= 2 s), import incl. linking {total_s:.2f} s")
        print(f"partial bitstream of a rekey: {fig['partial_bytes']} bytes = {len(b.fars)} frames + "
              f"{part.fdri_frames - len(b.fars)} pad frame(s) + {fig['partial_overhead_words']} packet words")
        if args.docs:
            docs_page(fig)
        print(json.dumps(fig))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def docs_page(fig: dict) -> None:
    """docs/results/import.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.figures([
        ("bitstream", f"{fig['bitstream_bytes']:,} bytes, {fig['tluts']} TLUTs"),
        ("parsing the bitstream alone", f"{fig['parse_s']} s"),
        ("import: decode + check of every TLUT (target <= 2 s)", f"{fig['import_decode_check_s']} s"),
        ("import including linking the template", f"{fig['import_total_s']} s"),
        ("partial bitstream of a rekey", f"{fig['partial_bytes']:,} bytes = {fig['partial_frames']} frames + "
                                         f"{fig['partial_fdri_frames'] - fig['partial_frames']} pad frame(s) + "
                                         f"{fig['partial_overhead_words']} packet words"),
    ])
    _results.write_page("import", "Vivado import", body,
                        "`dcsflow import` of a picipher build made with `--backend vivado --board pynq-z1`. No "
                        "Vivado here: the routed bitstream is a stand-in, a real Vivado bitstream for the xc7z020 "
                        "(`pynq-z1_base.bit`, shared data) with the build's template INITs written at the planned "
                        "sites.")


if __name__ == "__main__":
    main()
