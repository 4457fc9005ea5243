"""Rekey of a ``--tlut cfglut5`` build (:mod:`dcsflow.scg.cfglut_loader`, ``dcsflow rekey --to
cfglut-words:PATH | cfglut:devmem:BASE[@DEV]``): the words file, the loader driver against a Python
model of the loader's registers and against a regular file standing in for /dev/mem, the refusals.
Expected words come from :meth:`Layout.words_for` (tested against Yosys's CFGLUT5 model in
tests/test_cfglut_loader.py) of the flow's own PPC evaluation (:func:`dcsflow.flow.specialize.tlut_values`)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.specialize import tlut_values
from dcsflow.scg import cfglut as cf
from dcsflow.scg import codegen as cg
from dcsflow.scg import rekey as rk
from dcsflow.scg.buildfolder import load_build
from dcsflow.scg.cfglut_loader import (BUILD_ID, BUSY, DONE, ERROR, INFO, STATUS, STRIDE_LOG2, WORDS, LoaderModel,
                                       LoaderSession, words_for_values)
from dcsflow.scg.errors import RekeyError
from dcsflow.scg.plan import words_hash

DATA = Path(__file__).parent / "data" / "cfglut"


@pytest.fixture(scope="module")
def built(builds):
    """The cfglut5 build of keysbox that tests/test_cfglut_flow.py checks too (one build, read-only)."""
    return builds.get("keysbox-cfglut5", design=str(DATA / "keysbox.v"), tlut="cfglut5", chain_luts=3,
                      baselines=("yosys-abc",), frontend_check=False)


def expected_words(b, key: int) -> list[int]:
    """The words of ``key`` from the flow's PPC evaluation and the layout's word order."""
    inits = tlut_values(b, [{"key": key}])[0]
    return b.cfglut_layout.words_for(inits, {c: len(e) for c, e in b.tlut_entries.items()})


def test_words_file_holds_the_words_of_the_key(built, tmp_path, dcsflow):
    b = load_build(built)
    lay = b.cfglut_layout
    seen = set()
    for key in (0x00, 0x5A, 0xC3):
        out = tmp_path / f"w{key:02x}.txt"
        r = dcsflow("rekey", built, "--param", f"key={key:02x}", "--to", f"cfglut-words:{out}")
        assert r.returncode == 0, r.stderr
        assert f"{lay.words} chain words" in r.stdout
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
        wf = cf.read_words_file(out, build_id=lay.build_id, n_chains=lay.n_chains, n_chain_luts=lay.chain_luts)
        assert wf.words == expected_words(b, key)
        seen.add(tuple(wf.words))
        # every CFGLUT5 gets the PPC's truth table of its TLUT (repeated over unused inputs)
        inits = tlut_values(b, [{"key": key}])[0]
        back = cf.inits_from_words(lay.chains, wf.words)
        regs = lay.register_map
        for cell, v in back.items():
            if cell in regs:         # a parameter-bit register: FF_b holds member b's bit
                assert all((v >> i) & 1 == inits[m] for i, m in enumerate(regs[cell])), cell
                continue
            n = len(b.tlut_entries[cell])
            assert all((v >> a) & 1 == (inits[cell] >> (a % n)) & 1 for a in range(32)), cell
    assert len(seen) == 3        # the words depend on the key


def test_words_file_refusals_write_nothing(built, tmp_path, dcsflow):
    inside = built / "w.txt"
    r = dcsflow("rekey", built, "--param", "key=01", "--to", f"cfglut-words:{inside}")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "inside the build folder" in r.stderr
    assert not inside.exists()
    r = dcsflow("rekey", built, "--param", "key=01", "--to", f"cfglut-words:{tmp_path / 'no' / 'w.txt'}")
    assert r.returncode == 1 and "does not exist" in r.stderr and "Traceback" not in r.stderr
    r = dcsflow("rekey", built, "--param", "key=01", "--to", f"cfglut-words:{tmp_path / 'v.txt'}", "--verify")
    assert r.returncode == 1 and "--verify" in r.stderr and not (tmp_path / "v.txt").exists()


@pytest.mark.parametrize("target", ["emulator", "partial:{tmp}/p.bit", "devmem:0x40000000"])
def test_frames_target_on_a_cfglut5_build_is_refused(built, tmp_path, dcsflow, target):
    r = dcsflow("rekey", built, "--param", "key=01", "--to", target.format(tmp=tmp_path))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and "cfglut5 build" in r.stderr
    assert "cfglut-words:PATH" in r.stderr and not (tmp_path / "p.bit").exists()


@pytest.mark.parametrize("target", ["cfglut-words:{tmp}/w.txt", "cfglut:devmem:0x43C00000"])
def test_cfglut_target_on_a_frames_build_is_refused(tmp_path, dcsflow, target):
    from dcsflow.scg._synthetic import make_build

    root = make_build(tmp_path / "b")
    r = dcsflow("rekey", root, "--param", "key=0001", "--to", target.format(tmp=tmp_path))
    assert r.returncode == 1 and r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert "--tlut frames build" in r.stderr and not (tmp_path / "w.txt").exists()


def test_parse_targets():
    t = rk.parse_target("cfglut:devmem:0x43C00000@/dev/uio1")
    assert (t.kind, t.base, t.device) == ("cfglut", 0x43C00000, "/dev/uio1")
    t = rk.parse_target("cfglut:devmem:0x43C00000")
    assert (t.kind, t.base, t.device) == ("cfglut", 0x43C00000, "")
    assert rk.parse_target("cfglut-words:a/b.txt").path == Path("a/b.txt")
    for bad in ("cfglut:devmem:zz", "cfglut-words:", "cfglut:0x1"):
        with pytest.raises(RekeyError):
            rk.parse_target(bad)
    assert "cfglut:devmem:BASE" in rk.target_help() and "cfglut-words:PATH" in rk.target_help()


# ---------------------------------------------------------------- the driver against the loader model
def test_driver_loads_the_words_into_the_model(built):
    b = load_build(built)
    lay = b.cfglut_layout
    for key in (0x3C, 0xA5):
        model = LoaderModel.of(lay, shift_polls=5)
        words = words_for_values(b, {"key": key})
        assert words == expected_words(b, key)
        res = rk.rekey_cfglut(b, words, "cfglut:devmem:0", bus=model)
        assert model.loads == [words] and model.done and not model.error
        assert res["polls"] == 5 and res["register_accesses"] > lay.words
    # a second load after the first: DONE and ERROR cleared, the new words shifted
    w2 = words_for_values(b, {"key": 0x11})
    rk.rekey_cfglut(b, w2, "cfglut:devmem:0", bus=model)
    assert model.loads[-1] == w2 != words


@pytest.mark.parametrize("what, field", [("build_id", "BUILD_ID"), ("n_chains", "INFO"), ("chain_luts", "INFO")])
def test_driver_refuses_a_loader_of_another_build(built, what, field):
    lay = load_build(built).cfglut_layout
    kw = {"n_chains": lay.n_chains, "chain_luts": lay.chain_luts, "build_id": lay.build_id,
          "addr_width": lay.addr_width}
    kw[what] = kw[what] ^ 1 if what == "build_id" else kw[what] + 1
    model = LoaderModel(**kw)
    with pytest.raises(RekeyError) as ei:
        rk.rekey_cfglut(load_build(built), [0] * lay.words, "cfglut:devmem:0", bus=model)
    assert ei.value.code == "design" and field in str(ei.value) and "\n" not in str(ei.value)
    assert model.memory == {} and model.loads == []


def test_driver_refuses_busy_and_reports_error_and_timeout(built):
    b = load_build(built)
    lay = b.cfglut_layout
    words = words_for_values(b, {"key": 7})
    model = LoaderModel.of(lay)
    model.busy = model.stuck = True          # a load is running (of another program)
    with pytest.raises(RekeyError, match="busy") as ei:
        LoaderSession(model, lay).load(words)
    assert ei.value.code == "write" and model.memory == {}
    model = LoaderModel.of(lay)
    model.fault_error = True                 # START answered with ERROR
    with pytest.raises(RekeyError, match="ERROR") as ei:
        LoaderSession(model, lay).load(words)
    assert ei.value.code == "config" and model.loads == []
    model = LoaderModel.of(lay)
    model.stuck = True                       # never DONE
    with pytest.raises(RekeyError, match="no DONE after 50") as ei:
        LoaderSession(model, lay, polls=50).load(words)
    assert ei.value.code == "timeout"
    # a loader of another ADDR_WIDTH: the words land outside its used window -> ERROR, not started
    model = LoaderModel(lay.n_chains, lay.chain_luts, lay.build_id, lay.addr_width - 1)
    with pytest.raises(RekeyError, match="while the words were written"):
        LoaderSession(model, lay).load(words)
    assert model.loads == [] and not model.busy


def test_model_follows_the_loader_rules():
    """The model itself: window errors, CLEAR, registers (so the driver tests above can fail)."""
    m = LoaderModel(37, 3, 0xC0DE, cf.addr_width(37, 3), shift_polls=1)
    assert m.read(INFO) == 3 << 16 | 37 and m.read(BUILD_ID) == 0xC0DE
    assert m.read(WORDS) == cf.word_count(37, 3) and m.read(STRIDE_LOG2) == cf.stride_log2(3)
    m.write(cf.word_address(2, 0, cf.stride_log2(3), m.addr_width), 1)      # g = 2 >= G = 2
    assert m.read(STATUS) & ERROR and m.memory == {}
    m.write(0, 4)
    assert m.read(STATUS) == 0
    m.write(0, 1)
    assert m.read(STATUS) == DONE and len(m.loads) == 1
    m.busy = True
    m.write(0, 1)
    assert m.read(STATUS) & ERROR


# ---------------------------------------------------------------- /dev/mem stand-in (a regular file)
def _regfile(path: Path, lay, status: int = DONE, build_id: int | None = None) -> Path:
    data = bytearray(1 << lay.addr_width)
    for off, v in ((STATUS, status), (INFO, lay.chain_luts << 16 | lay.n_chains),
                   (BUILD_ID, lay.build_id if build_id is None else build_id), (WORDS, lay.words),
                   (STRIDE_LOG2, lay.stride_log2)):
        data[off:off + 4] = v.to_bytes(4, "little")
    path.write_bytes(bytes(data))
    return path


def _window(path: Path, lay) -> list[int]:
    data = path.read_bytes()
    out = []
    for i in range(lay.words):
        a = cf.word_address(i // lay.shift_cycles, i % lay.shift_cycles, lay.stride_log2, lay.addr_width)
        out.append(int.from_bytes(data[a:a + 4], "little"))
    return out


def test_devmem_file_gets_the_words_in_the_window(built, tmp_path, dcsflow):
    b = load_build(built)
    lay = b.cfglut_layout
    assert lay.addr_width == 16
    regs = _regfile(tmp_path / "regs", lay)
    r = dcsflow("rekey", built, "--param", "key=c3", "--to", f"cfglut:devmem:0@{regs}", "--json")
    assert r.returncode == 0, r.stderr
    assert _window(regs, lay) == expected_words(b, 0xC3)
    assert int.from_bytes(regs.read_bytes()[0:4], "little") & 1       # CONTROL = START was written


@pytest.mark.parametrize("case", ["build_id", "busy", "error", "no_done", "small"])
def test_devmem_file_refusals(built, tmp_path, dcsflow, case):
    lay = load_build(built).cfglut_layout
    regs = _regfile(tmp_path / "regs", lay, status={"busy": BUSY, "error": ERROR, "no_done": 0}.get(case, DONE),
                    build_id=lay.build_id ^ 0x100 if case == "build_id" else None)
    if case == "small":
        regs.write_bytes(regs.read_bytes()[:4096])          # the HWICAP's size, not the loader's
    before = regs.read_bytes()
    r = dcsflow("rekey", built, "--param", "key=c3", "--to", f"cfglut:devmem:0@{regs}")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    want = {"build_id": "BUILD_ID reads", "busy": "busy", "error": "ERROR", "no_done": "no DONE",
            "small": "cannot map"}[case]
    assert want in r.stderr
    if case in ("build_id", "busy", "small"):
        assert regs.read_bytes() == before                 # nothing written
    os.remove(regs)


# ---------------------------------------------------------------- firmware (C, host and Cortex-A9 in QEMU)
FW = Path(__file__).resolve().parents[1] / "firmware"
KEYS = (0x00, 0x5A, 0xC3, 0xFF)
HAS_ARM = bool(shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc"))


def test_codegen_word_sources_match_the_layout(built):
    """The generated word computation as data (codegen.cfglut_bit_sources, mirrored in Python) gives
    Layout.words_for's words for every key."""
    b = load_build(built)
    sources = cg.cfglut_bit_sources(b)
    for key in KEYS:
        ybits = b.ppc.evaluate_many([{"key": key}])[0]
        assert cg.cfglut_words_model(sources, ybits) == expected_words(b, key)


@pytest.fixture(scope="module", params=["straight", "table"])
def fw(built, tmp_path_factory, request):
    """codegen of the cfglut5 build and the firmware built for the host (and QEMU)."""
    root = tmp_path_factory.mktemp(f"fw{request.param}")
    gen, out = root / "gen", root / "out"
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(built), "--out", str(gen),
                        "--style", request.param], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"({request.param} code)" in r.stdout and "chain words" in r.stdout
    h = (gen / "scg_gen.h").read_text()
    assert "#define SCG_GEN_CFGLUT 1" in h and f'SCG_GEN_STYLE "{request.param}"' in h
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "host",
                    *(["qemu"] if HAS_ARM else [])], check=True, capture_output=True)
    return {"gen": gen, "out": out, "style": request.param}


def _fw_results(text: str) -> list[tuple[dict, list[int]]]:
    """(rekey line's fields, the dumped words) of every "rekey" + "dump" pair in the firmware's output."""
    out, cur = [], None
    for ln in text.splitlines():
        if ln.startswith("rekey "):
            cur = (dict(kv.split("=", 1) for kv in ln.split()[1:]), [])
            out.append(cur)
        elif ln.startswith("word ") and cur is not None:
            cur[1].append(int(ln.split()[1], 16))
    return out


def _qemu(elf: Path, cmds: list[str]) -> str:
    r = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={';'.join(cmds)}",
                        "-kernel", str(elf)], capture_output=True, text=True, timeout=120)
    return r.stdout + r.stderr


@pytest.mark.parametrize("where", ["host", pytest.param("qemu", marks=pytest.mark.skipif(
    not HAS_ARM, reason="needs qemu-system-arm and gcc-arm-none-eabi (scripts/setup.sh installs them)"))])
def test_firmware_words_equal_the_host_scg(built, fw, where):
    """The firmware computes the words on the board's CPU and writes them through the HAL into the
    loader model (word window, START, DONE polled): the words the model shifted == Layout.words_for."""
    b = load_build(built)
    cmds = [c for k in KEYS for c in (f"rekey {k:02x}", "dump")]
    text = (subprocess.run([str(fw["out"] / "host" / "scg_host"), *cmds], capture_output=True, text=True,
                           timeout=60).stdout if where == "host" else _qemu(fw["out"] / "qemu" / "scg_qemu.elf", cmds))
    res = _fw_results(text)
    assert len(res) == len(KEYS), text[-800:]
    for key, (fields, words) in zip(KEYS, res):
        want = expected_words(b, key)
        assert fields["rc"] == "0" and int(fields["words"]) == len(want)
        assert words == want, key
        assert fields["hash"] == words_hash(want)


@pytest.mark.parametrize("fault, code", [("id", -11), ("busy", -14), ("error", -3), ("stall", -1), ("blob", -10)])
def test_firmware_refuses_and_reports(fw, fault, code):
    """A loader of another build, a busy loader, the ERROR bit, no DONE, a corrupted blob: the rc of
    scg/rekey.py's ERROR_CODES, and no load reaches the chains."""
    text = subprocess.run([str(fw["out"] / "host" / "scg_host"), f"fault {fault}", "rekey 5a", "dump"],
                          capture_output=True, text=True, timeout=60).stdout
    (fields, words), = _fw_results(text)
    assert int(fields["rc"]) == code and rk.ERROR_CODES[{-11: "design", -14: "write", -3: "config", -1: "timeout",
                                                          -10: "blob"}[code]] == code
    assert "words 0" in text and set(words) == {0}


@pytest.mark.skipif(not HAS_ARM, reason="needs qemu-system-arm and gcc-arm-none-eabi (scripts/setup.sh installs them)")
def test_word_computation_is_key_independent_on_the_a9(fw, tmp_path):
    """Cortex-A9 instructions of scg_cfglut_evaluate (PPC evaluation + chain words) in QEMU, counted
    from the executed translation blocks (benchmarks/rekey_bench.py) for 3 pseudo-random keys: the
    same count for every key."""
    sys.path.insert(0, str(FW.parent / "benchmarks"))
    try:
        from rekey_bench import qemu_counts
    finally:
        sys.path.pop(0)
    c = qemu_counts(fw["gen"], tmp_path / "bench", 3, root="scg_cfglut_evaluate")
    print(f"\ncfglut5 word computation ({fw['style']}): A9 instructions per key {c['all']}, PPC part {c['ppc']}")
    assert c["keys"] == 3 and c["all"][0] > c["ppc"][0] > 0
    assert max(c["all"]) - min(c["all"]) == 0 and max(c["ppc"]) - min(c["ppc"]) == 0


def _keysbox_transform(built, root: Path) -> Path:
    """A copy of the cfglut5 build whose 8-bit ``key`` comes from a parameter transform program:
    ``key = rotl8(k ^ 0x5A, 3)`` from the user parameter ``k`` (8 bits), refusing ``k`` = 0xFF
    (tests/_transform_build.py's way of adding a program)."""
    import json

    from dcsflow.scg import transform as tf
    from dcsflow.scg.buildfolder import sha256_file

    d = root / "keysbox-tf"
    shutil.copytree(built, d)
    b = tf.Builder({"k": 8}, {"key": 8})
    k = b.input("k")[0]
    b.check(b.eq(k, b.const(0xFF)), "k may not be ff")
    x = b.xori(k, 0x5A)
    b.andi(b.or_(b.shl(x, 3), b.shr(x, 5)), 0xFF, out=b.output("key")[0])
    bj = json.loads((d / "build.json").read_text())
    (d / tf.FILE).write_text(json.dumps(b.program().with_design_hash(bj["design_hash"]).to_json()))
    bj.update(user_params={"k": 8}, transform=tf.FILE)
    bj["files"][tf.FILE] = sha256_file(d / tf.FILE)
    (d / "build.json").write_text(json.dumps(bj))
    return d


def test_firmware_of_a_cfglut5_build_with_a_parameter_transform(built, tmp_path):
    """A cfglut5 build with a parameter transform: the firmware takes the user parameter, runs the
    transform, loads the words of the key it computes (independent model: rotl8(k ^ 0x5A, 3)); a value
    the transform refuses: rc SCG_ERR_TRANSFORM (-17), nothing loaded."""
    d = _keysbox_transform(built, tmp_path)
    gen, out = tmp_path / "gen", tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(d), "--out", str(gen)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "#define SCG_GEN_TRANSFORM 1" in (gen / "scg_gen.h").read_text()
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "host"], check=True, capture_output=True)
    b = load_build(built)
    ks = [0x00, 0x37, 0xFF, 0xC3]
    text = subprocess.run([str(out / "host" / "scg_host"), *[c for k in ks for c in (f"rekey {k:02x}", "dump")]],
                          capture_output=True, text=True, timeout=60).stdout
    res = _fw_results(text)
    assert len(res) == len(ks), text[-800:]
    loads = 0
    for k, (fields, words) in zip(ks, res):
        if k == 0xFF:
            assert int(fields["rc"]) == -17 == rk.ERROR_CODES["transform"] and fields["words"] == "0"
            assert fields["transform_failed"] == "00000001" and f"words {loads}" in text
            continue
        loads += 1
        key = (((k ^ 0x5A) << 3) | ((k ^ 0x5A) >> 5)) & 0xFF
        assert fields["rc"] == "0" and words == expected_words(b, key), k
