"""SCG on the host (scg.rekey), code generation (scg.codegen) and the C firmware (firmware/):
the C model against the Python models on identical register traces, the firmware's rekey against the
Python SCG byte for byte, fault injection in both, QEMU run of the cross-compiled firmware."""

from __future__ import annotations

import json
import sys
import os
import random
import re
import shutil
import stat
import struct
import subprocess

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, driver as drv, plan as pl, rekey as rk
from dcsflow.scg.device import get_device
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.bitstream import parse
from dcsflow.scg.codegen import blob_crc, make_blob, needed_outputs
from dcsflow.scg.emulator import ConfigEmulator
from dcsflow.scg.hwicap import CR, RF, RFO, SR, SZ, WF, WFV, AxiHwicap

from _scg_faults import FaultyHwicap, Recorder

FW = REPO_ROOT / "firmware"
KEY_BITS = 96


def _official_keys(n=4):
    from dcsflow.designs.picipher.vectors import load_official

    vs = load_official(96)
    return [v.key.hex() for v in vs[:n]]


def _fwbuild(root, style="auto"):
    b = make_build(root / "build", key_bits=KEY_BITS)
    gen = root / "gen"
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(b), "--out", str(gen), "--style", style], cwd=REPO_ROOT,
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    out = root / "out"
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "host"], check=True,
                   capture_output=True)
    return {"build": b, "gen": gen, "out": out, "host": out / "host" / "scg_host", "style": style}


@pytest.fixture(scope="session")
def fwbuild(tmp_path_factory):
    """Synthetic build (96-bit key), generated C (straight-line style), host binary: compiled once per
    session."""
    return _fwbuild(tmp_path_factory.mktemp("fw"))


@pytest.fixture(scope="session")
def fwbuild_table(tmp_path_factory):
    """The same synthetic build with table-driven generated C (``codegen --style table``)."""
    return _fwbuild(tmp_path_factory.mktemp("fwt"), "table")


@pytest.fixture(params=["straight", "table"])
def fwbuild_any(request):
    """Both code styles of the synthetic build."""
    return request.getfixturevalue("fwbuild" if request.param == "straight" else "fwbuild_table")


def _host(fw, *cmds):
    r = subprocess.run([str(fw["host"]), *cmds], capture_output=True, text=True, check=True, timeout=60)
    return r.stdout


def _rekey_lines(text):
    return [dict(kv.split("=") for kv in line.split()[1:]) for line in text.splitlines() if line.startswith("rekey ")]


# ---------------------------------------------------------------- C model == Python model
def _python_replay(records, raw_streams=()):
    hw = AxiHwicap(ConfigEmulator("xc7z020"))
    out = []
    for op, a, b in records:
        if op == 0:
            hw.write(a, b)
        elif op == 1:
            out.append(hw.read(a))
        elif op == 4:
            hw = AxiHwicap(hw.emulator, write_fifo_depth=a, read_fifo_depth=b)
    return hw, out


def _c_replay(fw, tmp_path, records):
    p = tmp_path / "trace.bin"
    p.write_bytes(b"".join(struct.pack("<3I", *r) for r in records))
    r = subprocess.run([str(fw["host"]), "--replay", str(p)], capture_output=True, text=True, check=True, timeout=60)
    lines = r.stdout.splitlines()
    reads = [int(x, 16) for x in lines if re.fullmatch(r"[0-9a-f]{8}", x)]
    stats = {}
    for x in lines:
        if x.startswith(("emu ", "hw ")):
            for kv in x.split()[1:]:
                k, v = kv.split("=")
                stats[k] = int(v, 16) if k == "far" else int(v)
    frames = {}
    for x in lines:
        if x.startswith("frame "):
            parts = x.split()
            frames[int(parts[1], 16)] = (int(parts[2]), [int(w, 16) for w in parts[3:]])
    return reads, stats, frames


def _compare(hw, reads_py, fw, tmp_path, records):
    reads_c, st, frames_c = _c_replay(fw, tmp_path, records)
    assert reads_c == reads_py
    emu = hw.emulator
    for k in ("words", "packets", "frames_written", "pad_frames", "dropped_frames", "readback_words", "crc_checks",
              "crc_errors", "bad_headers", "ignored_writes"):
        assert st[k] == emu.stats[k], k
    assert (st["synced"], st["id_error"], st["crc_error"], st["far"]) == \
        (int(emu.synced), int(emu.id_error), int(emu.crc_error), emu.far)
    for k in ("reg_reads", "reg_writes", "icap_words_in", "icap_words_out", "wf_overflows", "rf_underflows"):
        assert st[k] == hw.stats[k], k
    mem = emu.frames
    py = {f: (mem.written[mem.device.far_index[f]], mem.frame(f))
          for f in set(mem.nonzero_fars()) | set(mem.written_fars())}
    assert frames_c == py


def test_c_model_matches_python_on_driver_trace(fwbuild, tmp_path):
    """A full rekey with read-back, recorded at the register level on the Python model, replayed
    through the C model: every read value, counter and frame identical."""
    b = bf.load_build(fwbuild["build"])
    rec = Recorder(AxiHwicap(ConfigEmulator("xc7z020")))
    s = drv.HwicapSession(rec, b.idcode)
    s.init()
    p = pl.plan(b, {"key": 0x5A5A << 80 | 12345})
    rk.apply_hwicap(s, b, p.frames, p.frames, verify=True)
    assert len(rec.records) > 5000
    hw, reads = _python_replay(rec.records)
    assert reads == rec.reads
    _compare(hw, reads, fwbuild, tmp_path, rec.records)


@pytest.mark.parametrize("seed", range(6))
def test_c_model_matches_python_on_random_traces(fwbuild, tmp_path, seed):
    """Random register traces: packet streams with FDRI bursts across rows, FDRO/STAT/IDCODE/CRC reads,
    wrong IDCODEs, CRC checks, aborts, resets, FIFO overflows and underflows, small FIFO depths."""
    rnd = random.Random(seed)
    dev = get_device("xc7z020")
    recs = [(4, rnd.choice([16, 64, 1024]), rnd.choice([8, 32, 256]))]
    t1 = lambda op, reg, n: (1 << 29) | (op << 27) | (reg << 13) | n  # noqa: E731
    for _ in range(60):
        words = []
        kind = rnd.randrange(8)
        words += [0xFFFFFFFF, 0xAA995566] if rnd.random() < 0.9 else []
        if kind <= 2:
            far = rnd.choice(dev.frame_addresses[:200] + dev.frame_addresses[3500:3600] + (0x12345678 & 0x3FFFFFF,))
            n = rnd.randrange(1, 5) * 101 + rnd.choice([0, 0, 37])
            words += [t1(2, 1, 1), far, t1(2, 4, 1), 1, t1(2, 2, 0), (2 << 29) | (2 << 27) | n]
            words += [rnd.getrandbits(32) for _ in range(n)]
        elif kind == 3:
            words += [t1(2, 1, 1), rnd.choice(dev.frame_addresses), t1(1, 3, 0),
                      (2 << 29) | (1 << 27) | rnd.randrange(1, 400)]
        elif kind == 4:
            words += [t1(1, rnd.choice([7, 12, 1, 0, 5, 9, 4]), rnd.randrange(1, 4))]
        elif kind == 5:
            words += [t1(2, 12, 1), rnd.choice([dev.idcode, 0x0362D093])]
        elif kind == 6:
            words += [t1(2, 0, 1), rnd.getrandbits(32), t1(2, 6, 1), rnd.getrandbits(32), t1(2, 5, 1),
                      rnd.getrandbits(32), t1(2, 7, 1), 3]
        else:
            words += [rnd.getrandbits(32) for _ in range(rnd.randrange(1, 20))]
        if rnd.random() < 0.5:
            words += [t1(2, 4, 1), 13]
        i = 0
        while i < len(words):
            k = rnd.randrange(1, 300)
            for w in words[i:i + k]:
                recs.append((0, WF, w))
            i += k
            recs.append((1, WFV, 0))
            recs.append((0, CR, 1))
            recs.append((1, CR, 0))
        recs.append((1, SR, 0))
        if rnd.random() < 0.4:
            recs.append((0, SZ, rnd.randrange(1, 300)))
            recs.append((0, CR, 2))
            for _ in range(rnd.randrange(0, 40)):
                recs.append((1, rnd.choice([RFO, RF, RF, SR, CR]), 0))
        if rnd.random() < 0.1:
            recs.append((0, CR, rnd.choice([4, 8, 16])))
        if rnd.random() < 0.1:
            recs.append((0, rnd.choice([0x1C, 0x20, 0x28]), rnd.getrandbits(32)))
            recs.append((1, rnd.choice([0x1C, 0x20, 0x28]), 0))
    hw, reads = _python_replay(recs)
    _compare(hw, reads, fwbuild, tmp_path, recs)


# ---------------------------------------------------------------- firmware rekey == Python SCG
def test_host_rekey_equals_python_scg_byte_for_byte(fwbuild_any):
    """Both code styles: frames after each rekey equal the Python SCG's plan, word for word."""
    fwbuild = fwbuild_any
    b = bf.load_build(fwbuild["build"])
    keys = _official_keys(3) + ["0" * 24]
    cmds = ["verify on"]
    for k in keys:
        cmds += [f"rekey {k}", "dump"]
    out = _host(fwbuild, *cmds)
    assert out.startswith("init rc=0")
    results = _rekey_lines(out)
    dumps = [[line.split() for line in blk.strip().splitlines()] for blk in re.split(r"^rekey .*$", out, flags=re.M)[1:]]
    for k, res, dump in zip(keys, results, dumps):
        assert res["rc"] == "0"
        p = pl.plan(b, {"key": int(k, 16)})
        got = {int(d[1], 16): [int(w, 16) for w in d[2:]] for d in dump if d and d[0] == "frame"}
        assert got == p.frames  # byte for byte
        assert res["hash"] == pl.frames_hash(p.frames, b.device)
        py = rk.rekey(b, {"key": int(k, 16)}, "emulator", verify=True)
        assert int(res["icap_words"]) == py.icap_words
        assert int(res["reg_accesses"]) == py.reg_accesses
        assert int(res["frames"]) == py.frames == len(b.fars)


def test_plan_equals_set_lut_semantics(tmp_path):
    """The shadow-frame patch (ECC by the ECC of the change) equals FrameMemory.set_lut(update_ecc=True)
    applied LUT by LUT to the template (independent implementation in scg.bitstream)."""
    b = bf.load_build(make_build(tmp_path / "b"))
    a = {"key": 0xBEEF}
    bits = b.ppc.evaluate(a)
    mem = b.template.copy()
    fm = json.loads((tmp_path / "b" / "tlut" / "framemap.json").read_text())
    for t in fm["tluts"]:
        locs = b.device.lut_bits(t["site"], t["bel"])
        ent = {(e[0], e[1], e[2]): e[3] for e in b.entries}
        init = sum(bits[ent[tuple(l)]] << i for i, l in enumerate(locs))
        mem.set_lut(t["site"], t["bel"], init, update_ecc=True)
    p = pl.plan(b, a)
    assert {f: mem.frame(f) for f in b.fars} == p.frames
    assert not [f for f in mem.ecc_mismatches() if f in b.fars]


def test_firmware_refuses_a_bad_key_by_reason_and_position_without_echo(fwbuild):
    """A refused rekey value is reported by the reason and the position (or the digit count), never
    by its digits: the value is a key. The previous frames stay."""
    k1 = _official_keys(1)[0]
    digits = (KEY_BITS + 3) // 4
    secret = "c0ffee5ec7e7" * (digits // 12) + "c" * (digits % 12)
    bad = {"not_hex": secret[:7] + "q" + secret[8:], "digits": secret + "5", "prefixed": "0x" + secret[:-1] + "z"}
    out = _host(fwbuild, f"rekey {k1}", *(f"rekey {v}" for v in bad.values()))
    r0, r1, r2, r3 = _rekey_lines(out)
    assert r0["rc"] == "0"
    assert all(int(r["rc"]) == -13 and r["hash"] == r0["hash"] for r in (r1, r2, r3))
    assert (r1["key_error"], r1["at"]) == ("not_hex", "8")
    assert (r2["key_error"], r2["got"], r2["expected"]) == ("digits", str(digits + 1), str(digits))
    assert (r3["key_error"], r3["at"]) == ("not_hex", str(digits + 2))
    for v in bad.values():
        assert v not in out and v[:8] not in out and "c0ffee5e" not in out


# ---------------------------------------------------------------- fault injection, both models
@pytest.mark.parametrize("fault,code", [("stall 700", -14), ("abort 1500", -14), ("idcode", -12), ("blob", -10)])
def test_firmware_faults_keep_previous_frames(fwbuild, fault, code):
    k1, k2 = _official_keys(2)
    out = _host(fwbuild, "verify on", f"rekey {k1}", f"fault {fault}", f"rekey {k2}", f"rekey {k2}")
    r1, r2, r3 = _rekey_lines(out)
    assert r1["rc"] == "0"
    assert int(r2["rc"]) == code
    assert r2["hash"] == r1["hash"]  # previous key's frames intact
    if fault.startswith(("stall", "abort")):  # transient faults: the next rekey succeeds
        assert r3["rc"] == "0" and r3["hash"] != r1["hash"]
    else:
        assert int(r3["rc"]) == code and r3["hash"] == r1["hash"]


@pytest.mark.parametrize("fault", ["stall", "abort"])
def test_python_faults_roll_back(tmp_path, fault):
    b = bf.load_build(make_build(tmp_path / "b"))
    hw = FaultyHwicap(ConfigEmulator(b.device, b.template.copy()))
    r1 = rk.rekey(b, {"key": 0x1111}, hwicap=hw, verify=True)
    prev = pl.plan(b, {"key": 0x1111}).frames
    s = drv.HwicapSession(hw, b.idcode)
    s.init()  # (a SW reset disarms the fault hooks, as in the C model: arm them after init)
    setattr(hw, f"fault_{fault}_words", hw.stats["icap_words_in"] + (700 if fault == "stall" else 1500))
    with pytest.raises(rk.RekeyError) as ei:
        rk.apply_hwicap(s, b, pl.plan(b, {"key": 0x2222}).frames, prev, verify=True)
    assert ei.value.code == "write" and ei.value.rolled_back
    mem = hw.emulator.frames
    assert {f: mem.frame(f) for f in b.fars} == prev
    assert pl.frames_hash(prev, b.device) == r1.frames_hash


def test_python_refuses_idcode_and_hash_mismatch(tmp_path, dcsflow):
    root = make_build(tmp_path / "b")
    b = bf.load_build(root)
    before = b.template.copy()
    other = AxiHwicap(ConfigEmulator("xc7a35t"))
    with pytest.raises(rk.RekeyError) as ei:
        rk.rekey(b, {"key": 1}, hwicap=other)
    assert ei.value.code == "idcode"
    assert not other.emulator.frames.written_fars()
    bj = json.loads((root / "build.json").read_text())
    bj["design_hash"] = "0" * 64
    (root / "build.json").write_text(json.dumps(bj))
    r = dcsflow("rekey", root, "--param", "key=0001")
    assert r.returncode == 1 and r.stderr.startswith("error:") and "design hash" in r.stderr
    assert b.template == before


def test_corrupted_ppc_blob_is_refused(tmp_path, dcsflow):
    root = make_build(tmp_path / "b")
    b = bf.load_build(root)
    blob = make_blob(b)
    assert blob_crc(blob[:-1]) == blob[-1]
    bad = list(blob)
    bad[100] ^= 1
    assert blob_crc(bad[:-1]) != bad[-1]
    data = bytearray((root / "ppc.aig").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (root / "ppc.aig").write_bytes(bytes(data[: len(data) // 2]))
    r = dcsflow("rekey", root, "--param", "key=0001", "--json")
    assert r.returncode == 1 and r.stderr.startswith("error:") and "Traceback" not in r.stderr


# ---------------------------------------------------------------- CLI
def test_cli_rekey_json_and_bitfile(tmp_path, dcsflow):
    root = make_build(tmp_path / "b")
    b = bf.load_build(root)
    r = dcsflow("rekey", root, "--param", "key=beef", "--to", "emulator", "--verify", "--json", "--frames-hash")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["frames"] == len(b.fars) and d["verified"] and d["icap_words"] > 0 and d["register_accesses"] > 0
    p = pl.plan(b, {"key": 0xBEEF})
    assert d["frames_hash"] == pl.frames_hash(p.frames, b.device)
    for ext in (".bit", ".bin"):
        out = tmp_path / f"k{ext}"
        r = dcsflow("rekey", root, "--param", "key=beef", "--to", f"bitfile:{out}", "--json")
        assert r.returncode == 0, r.stderr
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
        bs = parse(out.read_bytes())
        assert bs.crc_ok
        assert sorted(bs.frames.written_fars(), key=b.device.far_index.get) == b.fars
        assert {f: bs.frames.frame(f) for f in b.fars} == p.frames
    r = dcsflow("rekey", root, "--param", "key=beef", "--to", "nowhere")
    assert r.returncode == 1 and r.stderr.startswith("error: unknown target")
    r = dcsflow("rekey", root, "--param", "nokey=1")
    assert r.returncode == 1 and "not a parameter" in r.stderr


def test_codegen_eval_matches_python_bit_sliced(fwbuild_any, tmp_path):
    """The generated evaluator (straight-line and table style), compiled natively, for 32 parameter
    sets per word, equals scg.ppc's bit-parallel evaluation on the outputs the frame patch reads."""
    fwbuild = fwbuild_any
    src = (fwbuild["gen"] / "scg_gen.c").read_text()
    table = fwbuild["style"] == "table"
    assert ("scg_tab_and[" in src) == table and (f'SCG_GEN_STYLE "{"table" if table else "straight"}"'
                                                 in (fwbuild["gen"] / "scg_gen.h").read_text())
    b = bf.load_build(fwbuild["build"])
    rnd = random.Random(5)
    keys = [rnd.getrandbits(KEY_BITS) for _ in range(32)]
    x = []
    for i, name in enumerate(b.ppc.inputs):
        bit = int(name.split("[")[1][:-1])
        x.append(sum(((k >> bit) & 1) << lane for lane, k in enumerate(keys)))
    main = tmp_path / "m.c"
    main.write_text('#include <stdio.h>\n#include "scg_gen.h"\nstatic const uint32_t X[] = {'
                    + ",".join(f"{v}u" for v in x) + '};\nint main(void){static uint32_t y[SCG_GEN_YWORDS];'
                    'scg_ppc_eval(X, y); for (unsigned j = 0; j < SCG_GEN_YWORDS; j++) printf("%u\\n", y[j]);'
                    'return 0;}\n')
    exe = tmp_path / "m"
    subprocess.run(["cc", "-std=c99", "-O1", f"-I{fwbuild['gen']}", "-o", exe, main, fwbuild["gen"] / "scg_gen.c"],
                   check=True)
    ys = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    want = b.ppc.evaluate_many([{"key": k} for k in keys])
    # only the outputs the patch reads are computed (affine TLUTs' entries are not: their frontier is),
    # y[k] = the k-th of them in output order
    need = sorted(needed_outputs(b))
    assert len(need) == len(ys) < b.ppc.num_outputs
    assert ys == [sum(want[lane][j] << lane for lane in range(32)) for j in need]


@pytest.mark.parametrize("chunk", [1, 37, 100000])
def test_chunked_straight_eval_matches_python(fwbuild, tmp_path, monkeypatch, chunk):
    """The straight style split into noinline functions of ``EVAL_CHUNK`` nodes (nodes read across
    chunks go through ``scg_nv``), compiled natively: every PPC output equals scg.ppc's evaluation."""
    import dcsflow.scg.codegen as cg

    monkeypatch.setattr(cg, "EVAL_CHUNK", chunk)
    b = bf.load_build(fwbuild["build"])
    n_out = b.ppc.num_outputs
    src = cg.eval_source(b.ppc.aig, needed=set(range(n_out)))
    assert ("scg_nv" in src) == (chunk < b.ppc.aig.num_ands)
    rnd = random.Random(8)
    keys = [rnd.getrandbits(KEY_BITS) for _ in range(32)]
    x = [sum(((k >> int(n.split("[")[1][:-1])) & 1) << lane for lane, k in enumerate(keys)) for n in b.ppc.inputs]
    c = tmp_path / "e.c"
    c.write_text("#include <stdint.h>\n#include <stdio.h>\n" + src + "static const uint32_t X[] = {"
                 + ",".join(f"{v}u" for v in x) + f"}};\nint main(void){{static uint32_t y[{n_out}];"
                 f'scg_ppc_eval(X, y); for (unsigned j = 0; j < {n_out}u; j++) printf("%u\\n", y[j]); return 0;}}\n')
    exe = tmp_path / "e"
    subprocess.run(["cc", "-std=c99", "-O1", "-Wall", "-Werror", "-o", exe, c], check=True)
    ys = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    want = b.ppc.evaluate_many([{"key": k} for k in keys])
    assert ys == [sum(want[lane][j] << lane for lane in range(32)) for j in range(n_out)]


# ---------------------------------------------------------------- QEMU
@pytest.mark.skipif(not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
                    reason="needs qemu-system-arm and gcc-arm-none-eabi (scripts/setup.sh installs them)")
def test_qemu_firmware_hash_equals_host_scg(fwbuild):
    out = fwbuild["out"]
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={fwbuild['gen']}", f"BUILD={out}", "qemu"], check=True,
                   capture_output=True)
    keys = _official_keys(4)
    cmds = ";".join(["verify on"] + [f"rekey {k}" for k in keys])
    r = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}",
                        "-kernel", str(out / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=80)
    text = r.stdout + r.stderr
    assert "init rc=0" in text and "done" in text
    res = _rekey_lines(text)
    assert len(res) == len(keys)
    b = bf.load_build(fwbuild["build"])
    for k, d in zip(keys, res):
        assert d["rc"] == "0"
        assert d["hash"] == pl.frames_hash(pl.plan(b, {"key": int(k, 16)}).frames, b.device)


def test_firmware_init_selects_icap_over_pcap(fwbuild):
    """hwicap_init clears devcfg CTRL bit 27 (PCAP_PR; FACTS.md) of the model's devcfg register."""
    out = _host(fwbuild, "pcap")
    ctrl = int(re.search(r"devcfg_ctrl=([0-9a-f]{8})", out).group(1), 16)
    assert out.startswith("init rc=0") and ctrl == 0x0C006000 & ~(1 << 27)  # only PCAP_PR cleared


def test_devmem_target_shares_the_driver(tmp_path, dcsflow):
    """devmem:BASE@FILE maps FILE like a UIO device: a file is no HWICAP (write FIFO vacancy reads 0),
    so the shared driver times out in its IDCODE check and the rekey is refused with one line."""
    root = make_build(tmp_path / "b")
    regs = tmp_path / "regs"
    regs.write_bytes(bytes(4096))
    r = dcsflow("rekey", root, "--param", "key=0001", "--to", f"devmem:0@{regs}")
    assert r.returncode == 1 and r.stderr.startswith("error: refusing to rekey") and "timeout" in r.stderr
    with pytest.raises(rk.RekeyError) as ei:
        rk.rekey(bf.load_build(root), {"key": 1}, f"devmem:0@{regs}", timeout=5)
    assert ei.value.code == "timeout"


def test_rekey_and_codegen_run_without_flow():
    """The runtime runs on a Zynq's Linux: importing all of it imports no flow, no tmap and no
    third-party package (the installed wheel's own check: tests/test_wheel.py)."""
    import sys

    code = ("import sys, pkgutil, importlib, dcsflow.scg as s;"
            "[importlib.import_module('dcsflow.scg.' + m.name) for m in pkgutil.iter_modules(s.__path__)"
            " if m.name != '__main__'];"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('click', 'rich', 'numpy', 'networkx', 'matplotlib')"
            " or m.startswith(('dcsflow.flow', 'dcsflow.tmap', 'dcsflow.designs'))];"
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr


def test_backend_rekey_model_counts_the_words_the_driver_sends(tmp_path):
    """The back end's 'ICAP words/rekey: batched' figure (flow.backend.report.rekey_model) is the
    count the host driver really writes through the emulated AXI HWICAP."""
    from dcsflow.flow.backend.report import rekey_model

    b = bf.load_build(make_build(tmp_path / "b"))
    res = rk.rekey(b, {"key": 0x1234}, "emulator")
    assert res.icap_words == drv.rekey_icap_words(b.runs, b.idcode)
    assert rekey_model(1, list(b.fars), b.device)["icap_words_batched"] == res.icap_words


@pytest.mark.parametrize("with_and", [False, True])
def test_table_style_eval_compiles_cleanly_and_computes(tmp_path, with_and):
    """eval_table_source on tiny AIGs (none and one AND node): compiles with -Wall -Wextra -Werror, and
    y equals the AIG's outputs (computed here by hand) for all four input pairs in four lanes."""
    from dcsflow.scg.codegen import eval_table_source
    from dcsflow.aig import Aig

    g = Aig()
    a, b = g.add_input("k[0]"), g.add_input("k[1]")
    g.add_output(a ^ 1, "e0")                  # NOT k0
    g.add_output(1, "e1")                      # constant 1
    if with_and:
        g.add_output(g.add_and(a, b ^ 1), "e2")  # k0 AND NOT k1
    src = tmp_path / "t.c"
    src.write_text("#include <stdint.h>\n#include <stdio.h>\n" + eval_table_source(g) +
                   "int main(void){const uint32_t x[2] = {0xAu, 0xCu}; uint32_t y[3] = {0, 0, 0};\n"
                   "scg_ppc_eval(x, y); printf(\"%x %x %x\\n\", y[0] & 15u, y[1] & 15u, y[2] & 15u); return 0;}\n")
    exe = tmp_path / "t"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, src], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    # lanes 0..3: k0 = 0,1,0,1 (0xA), k1 = 0,0,1,1 (0xC)
    assert out == ["5", "f", "2" if with_and else "0"]
