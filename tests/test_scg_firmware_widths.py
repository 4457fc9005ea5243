"""The C firmware (firmware/) at the parameter widths of the π32/π64-Cipher builds, on synthetic builds
(:func:`dcsflow.scg._synthetic.make_build`): 256 bits (``key_mn`` = Key‖PMN of ``picipher32`` and
``picipher64``), 832 bits (``cis_param`` of ``picipher32_cis``) and 1600 bits (``picipher64_cis``).

Per width: generated C, host binary against the C HWICAP model, rekey for parameter values computed
from official π32/π64 records (Key‖PMN, or the golden model's CIS parameters) and for the extreme
values; the frames must equal the Python SCG's plan byte for byte (second, independent
implementation), the QEMU build must report the same frame hashes, and a value of the wrong length
must be refused (``SCG_ERR_KEY``) with the previous frames intact. About 15 s for the three widths.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl
from dcsflow.scg._synthetic import make_build

FW = REPO_ROOT / "firmware"
ERR_KEY = -13                                    # SCG_ERR_KEY (firmware/scg_runtime.h, scg.rekey.ERROR_CODES)
#: parameter width -> (word size ω, CIS parameters instead of Key‖PMN)
WIDTHS = {256: (32, False), 832: (32, True), 1600: (64, True)}


@functools.lru_cache(maxsize=None)
def _values(bits: int) -> tuple[int, ...]:
    """Parameter values of width ``bits`` from official 128-bit-key records (module docstring), and
    all ones and the top bit alone (they catch a truncated or misordered parameter vector)."""
    from dcsflow.designs.picipher.check import select_vectors
    from dcsflow.designs.picipher.model import cipher
    from dcsflow.designs.picipher.vectors import load_official

    w, cis = WIDTHS[bits]
    out = []
    for ww in ((32, 64) if not cis else (w,)):
        for v in select_vectors(load_official(128, ww), 128, ww)[:2]:
            out.append(cipher(ww).cis_parameters(v.key, v.pmn).as_int() if cis
                       else int.from_bytes(v.key + v.pmn, "big"))
    assert all(0 < x < 1 << bits for x in out)
    return tuple(out + [(1 << bits) - 1, 1 << (bits - 1)])


@pytest.fixture(scope="module", params=sorted(WIDTHS), ids=lambda b: f"{b}bit")
def fw(request, tmp_path_factory):
    """Synthetic build with a ``request.param``-bit parameter, its generated C and host binary."""
    bits = request.param
    root = tmp_path_factory.mktemp(f"fw{bits}")
    b = make_build(root / "build", key_bits=bits)
    gen, out = root / "gen", root / "out"
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(b), "--out", str(gen)], cwd=REPO_ROOT,
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "host"], check=True, capture_output=True)
    return {"bits": bits, "build": bf.load_build(b), "gen": gen, "out": out}


def _rekey_lines(text: str) -> list[dict]:
    return [dict(kv.split("=") for kv in line.split()[1:]) for line in text.splitlines() if line.startswith("rekey ")]


def test_synthetic_ppc_reads_high_parameter_bits(fw):
    """The tests have power at this width: PPC outputs depend on parameter bits above 128 and in the
    top quarter (a truncated or misordered parameter vector changes the frames), and the values used
    give distinct frames."""
    b, bits = fw["build"], fw["bits"]
    assert len(b.ppc.inputs) == bits
    v = _values(bits)[0]
    base = b.ppc.evaluate({"key": v})
    flips = b.ppc.evaluate_many([{"key": v ^ (1 << i)} for i in range(128, bits)])
    read = [128 + i for i, y in enumerate(flips) if y != base]
    assert read and max(read) >= 3 * bits // 4, read
    vals = _values(bits)
    assert len({pl.frames_hash(pl.plan(b, {"key": x}).frames, b.device) for x in vals}) == len(vals)


def test_host_rekey_equals_python_scg_at_width(fw):
    b, bits = fw["build"], fw["bits"]
    digits = (bits + 3) // 4
    vals = _values(bits)
    cmds = ["verify on"]
    for v in vals:
        cmds += [f"rekey {v:0{digits}x}", "dump"]
    h = f"{vals[0]:0{digits}x}"
    cmds += [f"rekey {h[1:]}", f"rekey 0{h}"]                   # one digit short / long
    r = subprocess.run([str(fw["out"] / "host" / "scg_host"), *cmds], capture_output=True, text=True, check=True,
                       timeout=60)
    assert r.stdout.startswith("init rc=0")
    res = _rekey_lines(r.stdout)
    dumps = [[line.split() for line in blk.strip().splitlines()]
             for blk in re.split(r"^rekey .*$", r.stdout, flags=re.M)[1:]]
    assert len(res) == len(vals) + 2
    for v, d, dump in zip(vals, res, dumps):
        p = pl.plan(b, {"key": v})
        assert d["rc"] == "0" and int(d["frames"]) == len(b.fars)
        got = {int(x[1], 16): [int(w, 16) for w in x[2:]] for x in dump if x and x[0] == "frame"}
        assert got == p.frames                                   # byte for byte
        assert d["hash"] == pl.frames_hash(p.frames, b.device)
    for d in res[-2:]:                                           # refused, previous frames kept
        assert int(d["rc"]) == ERR_KEY and d["hash"] == res[len(vals) - 1]["hash"] and d["frames"] == "0"


@pytest.mark.skipif(not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
                    reason="needs qemu-system-arm and gcc-arm-none-eabi (scripts/setup.sh installs them)")
def test_qemu_rekey_equals_python_scg_at_width(fw):
    b, bits = fw["build"], fw["bits"]
    out = fw["out"]
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={fw['gen']}", f"BUILD={out}", "qemu"], check=True,
                   capture_output=True)
    digits = (bits + 3) // 4
    vals = _values(bits)[:3]
    cmds = ";".join(["verify on"] + [f"rekey {v:0{digits}x}" for v in vals] + [f"rekey {vals[0]:0{digits + 1}x}"])
    r = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}",
                        "-kernel", str(out / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=80)
    text = r.stdout + r.stderr
    assert "init rc=0" in text and "done" in text, text[-2000:]
    res = _rekey_lines(text)
    assert len(res) == len(vals) + 1
    for v, d in zip(vals, res):
        assert d["rc"] == "0"
        assert d["hash"] == pl.frames_hash(pl.plan(b, {"key": v}).frames, b.device)
    assert int(res[-1]["rc"]) == ERR_KEY and res[-1]["hash"] == res[-2]["hash"]
