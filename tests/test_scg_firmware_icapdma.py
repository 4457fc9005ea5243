"""The firmware built for the ICAP stream controller (``make -C firmware TRANSPORT=icap-dma``, or a
``--transport icap-dma`` build whose scg_gen.h says so): its driver (firmware/icapdma.c) against the C
model of the controller's registers (firmware/icapdma_model.c) over the C configuration-memory model,
natively and on the Cortex-A9 in QEMU. Expected frames: the Python SCG's plan; the frames a failed
transfer wrote: the Python model of the controller (scg.icapdma.IcapDmaModel) fed the same words (made
by the Python runtime, scg.icapdma.rekey_stream, not by the C code) with the same fault."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, icapdma as ic, plan as pl
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.driver import rekey_icap_words
from dcsflow.scg.emulator import ConfigEmulator

FW = REPO_ROOT / "firmware"
KEY_BITS = 96
KEYS = ["0123456789abcdef01234567", "fedcba9876543210fedcba98", "000000000000000000000000"]
QEMU = bool(shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc"))


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    """Synthetic build (96-bit key), its generated C, the host binary and (where the tools are) the
    QEMU image, built for the stream controller."""
    root = tmp_path_factory.mktemp("fwdma")
    b = make_build(root / "build", key_bits=KEY_BITS)
    gen, out = root / "gen", root / "out"
    subprocess.run([sys.executable, "-m", "dcsflow.scg", "codegen", str(b), "--out", str(gen)], check=True,
                   capture_output=True, cwd=REPO_ROOT)
    targets = ["host"] + (["qemu"] if QEMU else [])
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "TRANSPORT=icap-dma", *targets],
                   check=True, capture_output=True)
    return {"build": bf.load_build(b), "gen": gen, "out": out}


def host(fw, *cmds) -> str:
    return subprocess.run([str(fw["out"] / "host" / "scg_host"), *cmds], capture_output=True, text=True,
                          check=True, timeout=60).stdout


def rekey_lines(text: str) -> list[dict]:
    return [dict(kv.split("=") for kv in ln.split()[1:]) for ln in text.splitlines() if ln.startswith("rekey ")]


def dumped(text: str) -> list[dict]:
    """The frames of every ``dump`` in order: FAR -> words."""
    out, cur = [], None
    for ln in text.splitlines():
        if ln.startswith("frame "):
            f = ln.split()
            if cur is None:
                cur = {}
                out.append(cur)
            cur[int(f[1], 16)] = [int(w, 16) for w in f[2:]]
        else:
            cur = None
    return out


def test_rekeys_write_the_plans_frames(fw):
    """Three rekeys through the controller model: the configuration memory holds the plan's frames word
    for word after each; the words per rekey are the runtime's count (one transfer of every run)."""
    b = fw["build"]
    cmds = []
    for k in KEYS:
        cmds += [f"rekey {k}", "dump"]
    out = host(fw, *cmds)
    assert out.startswith("init rc=0")
    res, dumps = rekey_lines(out), dumped(out)
    assert len(res) == len(dumps) == len(KEYS)
    for k, r, d in zip(KEYS, res, dumps):
        p = pl.plan(b, {"key": int(k, 16)})
        assert r["rc"] == "0" and d == p.frames
        assert int(r["icap_words"]) == rekey_icap_words(b.runs, b.idcode) and "hw_error" not in r
        assert r["hash"] == pl.frames_hash(p.frames, b.device)


@pytest.mark.parametrize("fault", ["dma-bus", "dma-abort"])
def test_failed_transfer_names_the_frames_it_wrote_and_rolls_back(fw, fault):
    """A bus error or ABORT in the second run's frames: rc -14 (previous frames written back), the
    port's error, and the frames the failed transfer wrote as the Python model of the controller finds
    them for the same words and the same fault."""
    b = fw["build"]
    new_frames = pl.plan(b, {"key": int(KEYS[1], 16)}).frames
    lay = ic.rekey_stream(b, new_frames)
    k = lay.frames[len(b.runs[0]) + 1][1] - 40
    out = host(fw, f"rekey {KEYS[0]}", f"fault {fault} {k}", f"rekey {KEYS[1]}", "dump")
    r0, r1 = rekey_lines(out)
    assert r0["rc"] == "0" and r1["rc"] == "-14" and r1["hw_error"] == "-3"
    assert dumped(out)[0] == pl.plan(b, {"key": int(KEYS[0], 16)}).frames          # rolled back
    emu = ConfigEmulator(b.device, b.template.copy())
    mem = ic.PhysMemory(0x10000000, ic.buffer_bytes(len(lay.words)))
    model = ic.IcapDmaModel(emu, mem, ic.build_id_of(b.design_hash), len(lay.words))
    mem.write_words(lay.words)
    setattr(model, "bus_error_at" if fault == "dma-bus" else "abort_at", k)
    for off, v in ((ic.ADDRESS, mem.phys), (ic.LENGTH, len(lay.words)), (ic.CONTROL, ic.START)):
        model.write(off, v)
    done = ic.frames_written(lay, model.words_sent)
    assert int(r1["frames_done"]) == len(done) > 0 and int(r1["last_far"], 16) == done[-1]


@pytest.mark.parametrize("fault, rc, extra", [
    ("dma-stuck", "-16", {"hw_error": "-1"}),          # no DONE: the port state is unknown, said so
    ("dma-length", "-14", {"hw_error": "-5", "frames_done": "0", "last_far": "ffffffff"}),  # refused: nothing sent
    ("dma-build", "-11", {}),                           # the controller of another build (BUILD_ID)
    ("blob", "-10", {}),                                # a corrupted blob
])
def test_refusals_and_an_unknown_state(fw, fault, rc, extra):
    b = fw["build"]
    out = host(fw, f"rekey {KEYS[0]}", f"fault {fault}", f"rekey {KEYS[1]}", "dump")
    r0, r1 = rekey_lines(out)
    assert r0["rc"] == "0" and r1["rc"] == rc
    assert {k: r1.get(k) for k in extra} == extra
    if fault != "dma-stuck":                            # the previous frames are untouched
        assert dumped(out)[0] == pl.plan(b, {"key": int(KEYS[0], 16)}).frames


def test_verify_is_refused(fw):
    out = host(fw, "verify on", f"rekey {KEYS[0]}")
    assert rekey_lines(out)[0]["rc"] == "-5"


@pytest.mark.skipif(not QEMU, reason="needs qemu-system-arm and gcc-arm-none-eabi (scripts/setup.sh installs them)")
def test_qemu_rekeys_equal_the_plan(fw):
    """The same firmware cross-compiled for the Cortex-A9 in qemu-system-arm -M xilinx-zynq-a9; a bus
    error in between is rolled back."""
    b = fw["build"]
    lay = ic.rekey_stream(b, pl.plan(b, {"key": int(KEYS[1], 16)}).frames)
    k = lay.frames[2][1] - 10
    cmds = ";".join([f"rekey {KEYS[0]}", f"fault dma-bus {k}", f"rekey {KEYS[1]}", f"rekey {KEYS[1]}"])
    r = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}",
                        "-kernel", str(fw["out"] / "qemu" / "scg_qemu.elf")], capture_output=True, text=True,
                       timeout=120)
    text = r.stdout + r.stderr
    assert "init rc=0" in text and "done" in text
    r0, r1, r2 = rekey_lines(text)
    want = [pl.frames_hash(pl.plan(b, {"key": int(x, 16)}).frames, b.device) for x in KEYS[:2]]
    assert (r0["rc"], r0["hash"]) == ("0", want[0])
    assert (r1["rc"], r1["hash"]) == ("-14", want[0])
    assert (r2["rc"], r2["hash"]) == ("0", want[1])
