"""The whole flow on the π32- and π64-Cipher message processors (``picipher32``, ``picipher64``: W = 32 / 64,
128-bit key, Key‖PMN = 256-bit parameter ``key_mn``): build, ``check`` and ``check --frames`` against
official records (independent reference: the reference implementation's CIPHER fields) with a
corrupted record reported, ``rekey`` (CLI, to the emulator and to a bit file), ``codegen``, the firmware
on the host (frames byte for byte equal to the Python SCG's plan) and in QEMU (same frame hashes), and
keys or nonces of the wrong size refused with one line by check, rekey and the firmware; the Vivado
export for the PYNQ-Z1 (block design, AXI4-Lite wrapper) of the placed build, its wrapper driven in
Icarus around a specialized netlist (an official record's Key‖PMN in the TLUTs).

Opt-in: the builds take ~7 min (π32) and ~14 min (π64) on 2 idle cores, the steps after each a few
minutes. ``DCSFLOW_SLOW_TESTS=1`` builds and runs both; ``DCSFLOW_PICIPHER32_BUILD=DIR`` /
``DCSFLOW_PICIPHER64_BUILD=DIR`` run every step after the build on a finished
``dcsflow build picipher32 --out DIR`` / ``picipher64``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from _axi_tb import run_wrapper

from _picipher_records import record_text as _record
from dcsflow.designs.picipher.board import BOARD_PORTS
from dcsflow.designs.picipher.check import select_vectors
from dcsflow.designs.picipher.vectors import load_official
from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl
from dcsflow.scg.bitstream import parse

FW = REPO_ROOT / "firmware"
GIVEN = {w: os.environ.get(f"DCSFLOW_PICIPHER{w}_BUILD") for w in (32, 64)}


def _rekey_lines(text: str) -> list[dict]:
    return [dict(kv.split("=") for kv in line.split()[1:]) for line in text.splitlines() if line.startswith("rekey ")]


@pytest.mark.parametrize("w", [32, 64])
def test_picipher_wide_whole_flow(w, tmp_path, dcsflow):
    if os.environ.get("DCSFLOW_SLOW_TESTS") != "1" and not GIVEN[w]:
        pytest.skip(f"picipher{w}'s build takes {'~7' if w == 32 else '~14'} min on 2 cores: set DCSFLOW_SLOW_TESTS=1 "
                    f"(or DCSFLOW_PICIPHER{w}_BUILD=DIR for a finished build)")
    design = f"picipher{w}"
    if GIVEN[w]:
        out = Path(GIVEN[w])
        rep = json.loads((out / "report.json").read_text())
        assert rep["design"] == design
    else:
        from dcsflow.flow.build import BuildOptions, build

        out = tmp_path / design
        rep = build(BuildOptions(design=design, out=out, progress=False)).report
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == {"key_mn": 256}
    assert t["tluts"] > 0 and t["luts"] + t["ffs"] < c["luts"] + c["ffs"]
    assert t["ffs"] <= c["ffs"] - 256                    # BUFFER_KEY=1 key buffer folded away

    # check and check --frames: two official records pass, one with a flipped tag bit is reported
    vecs = select_vectors(load_official(128, w), 128, w)
    pick = [v for v in vecs if len(v.msg) in (5, w + 1)]
    bad = pick[0]
    vf = tmp_path / "v.txt"
    vf.write_text("".join(_record(v) for v in pick) + _record(bad, bad.cipher[:-1] + bytes([bad.cipher[-1] ^ 1])))
    for mode in ([], ["--frames"]):
        r = dcsflow("check", out, "--vectors", vf, "--quiet", *mode)
        assert "passed 2/3" in r.stdout and r.returncode == 1, r.stdout + r.stderr
        assert f"vector #{bad.number}" in r.stdout
    k256 = select_vectors(load_official(256, w), 256, w)[0]     # a π{w} key the 128-bit design cannot take
    vf.write_text(_record(pick[0]) + _record(k256))
    r = dcsflow("check", out, "--vectors", vf, "--quiet")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"error: vector #{k256.number} has a 256-bit key; design expects 128"

    # rekey (CLI): figures and frames equal the SCG plan; a Key‖PMN of the wrong length is one line
    b = bf.load_build(out)
    keys = [(v.key + v.pmn).hex() for v in pick]
    plans = [pl.plan(b, {"key_mn": int(k, 16)}) for k in keys]
    assert plans[0].frames != plans[1].frames
    r = dcsflow("rekey", out, "--param", f"key_mn={keys[0]}", "--to", "emulator", "--verify", "--json",
                "--frames-hash")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["verified"] and d["frames"] == len(b.fars) == rep["backend"]["rekey"]["frames_per_rekey"]
    assert d["frames_hash"] == pl.frames_hash(plans[0].frames, b.device)
    bit = tmp_path / "k.bit"
    r = dcsflow("rekey", out, "--param", f"key_mn={keys[1]}", "--to", f"bitfile:{bit}", "--json")
    assert r.returncode == 0, r.stderr
    bs = parse(bit.read_bytes())
    assert bs.crc_ok and {f: bs.frames.frame(f) for f in b.fars} == plans[1].frames
    for bad_hex in (keys[0][:32], keys[0] + "00", pick[0].key.hex() + pick[0].pmn[:4].hex()):
        r = dcsflow("rekey", out, "--param", f"key_mn={bad_hex}", "--to", "emulator")
        assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
        assert r.stderr.startswith("error: parameter key_mn: expected 256 bits (64 hex digits)"), r.stderr

    # codegen, firmware on the host (byte for byte) and in QEMU (hashes); a wrong length: SCG_ERR_KEY
    gen, fw = tmp_path / "gen", tmp_path / "fw"
    r = dcsflow("codegen", out, "--out", gen)
    assert r.returncode == 0, r.stderr
    targets = ["host"] + (["qemu"] if shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc") else [])
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={fw}", *targets], check=True,
                   capture_output=True)
    cmds = ["verify on"]
    for k in keys:
        cmds += [f"rekey {k}", "dump"]
    cmds.append(f"rekey {keys[0][:32]}")
    host = subprocess.run([str(fw / "host" / "scg_host"), *cmds], capture_output=True, text=True, check=True,
                          timeout=300).stdout
    res = _rekey_lines(host)
    dumps = [[x.split() for x in blk.strip().splitlines()] for blk in re.split(r"^rekey .*$", host, flags=re.M)[1:]]
    assert len(res) == len(keys) + 1, host[-500:]
    for p, d, dump in zip(plans, res, dumps):
        assert d["rc"] == "0" and int(d["frames"]) == len(b.fars)
        assert {int(x[1], 16): [int(y, 16) for y in x[2:]] for x in dump if x and x[0] == "frame"} == p.frames
        assert d["hash"] == pl.frames_hash(p.frames, b.device)
    assert res[-1]["rc"] == "-13" and res[-1]["hash"] == res[-2]["hash"]
    if "qemu" in targets:
        q = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                            "-serial", "null", "-semihosting-config",
                            f"enable=on,target=native,arg=scg,arg={';'.join(c for c in cmds if c != 'dump')}",
                            "-kernel", str(fw / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=300)
        qres = _rekey_lines(q.stdout + q.stderr)
        assert [(d["rc"], d["hash"]) for d in qres] == [(d["rc"], d["hash"]) for d in res], q.stdout[-500:]

    # Vivado export for the PYNQ-Z1 (no Vivado here): block design and a wrapper of this word size,
    # which runs the specialized netlist of an official record through its AXI registers
    from dcsflow.flow.backend.vivado import export_vivado, load_board
    from dcsflow.flow.specialize import specialized_verilog
    from dcsflow.flow.yosys import cells_sim

    mod = json.loads((out / "tlut" / "netlist.json").read_text())["modules"]["picipher_mp"]
    fm = json.loads((out / "tlut" / "framemap.json").read_text())
    viv = tmp_path / "viv"
    files = export_vivado(viv, mod, "picipher_mp", fm["tluts"], b.device, b.design_hash, load_board("pynq-z1"),
                          ["key_mn"], board_ports=BOARD_PORTS)
    assert "vivado/block_design.tcl" in files and "vivado/dcs_axil_wrapper.v" in files
    v = pick[1]
    (tmp_path / "spec.v").write_text(specialized_verilog(b, {"key_mn": int.from_bytes(v.key + v.pmn, "big")}))
    r = run_wrapper(tmp_path, w, [viv / "vivado" / "dcs_axil_wrapper.v", tmp_path / "spec.v", cells_sim()],
                    v.key, v.pmn, v.msg, rtl=False)
    assert r["expected"] == v.cipher and r["cipher"] == v.cipher
    assert r["plain"] == v.msg and r["tag_ok"] == [0, 1, 0]
