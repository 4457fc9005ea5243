"""Host transports of the rekey that reach the configuration port without the AXI HWICAP: the ICAP
stream controller (``--to icap-dma:BASE``, against the Python register model of the controller over a
fake memory and the configuration-memory emulator) and Linux's xilinx_hwicap character device
(``--to hwicap-dev:PATH``, against fake device files). Expected frames come from the Python SCG's plan
(:func:`dcsflow.scg.plan.plan`); the words the fake device received are decoded independently of the
transport (the driver's native byte order) and fed to the emulator."""

from __future__ import annotations

import array
import errno
import os
import re

import pytest

from dcsflow.scg import buildfolder as bf, icapdma as ic, plan as pl, rekey as rk, transports as tr
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.driver import DriverError, rekey_icap_words
from dcsflow.scg.emulator import ConfigEmulator

BUF = 0x1F000000


@pytest.fixture
def build(tmp_path):
    return bf.load_build(make_build(tmp_path / "b"))


def controller(b, *, build_id=None, rekey_words=None, size=1 << 16, phys=BUF):
    """The model of ``b``'s controller in front of an emulator holding the template, and its buffer."""
    emu = ConfigEmulator(b.device, b.template.copy())
    mem = ic.PhysMemory(phys, size)
    model = ic.IcapDmaModel(emu, mem, ic.build_id_of(b.design_hash) if build_id is None else build_id,
                            rekey_icap_words(b.runs, b.idcode) if rekey_words is None else rekey_words)
    return model, mem, emu


def device_frames(b, emu) -> dict:
    return {f: emu.frames.frame(f) for f in b.fars}


def template_frames(b) -> dict:
    return {f: b.template.frame(f) for f in b.fars}


# ------------------------------------------------------------------------------------ icap-dma
def test_icap_dma_rekey_writes_the_plans_frames(build):
    """One transfer of the rekey's words (the AXI HWICAP driver's sequence, run by run) from the buffer:
    the device holds the plan's frames, word for word; counts in the result."""
    b = build
    model, mem, emu = controller(b)
    r = rk.rekey(b, {"key": 0x1234}, "icap-dma:0x43C10000", icap_dma=(model, mem))
    assert device_frames(b, emu) == pl.plan(b, {"key": 0x1234}).frames
    n = rekey_icap_words(b.runs, b.idcode)
    d = r.as_dict()
    assert (d["icap_words"], d["frames"], d["runs"], d["transport"]) == (n, len(b.fars), len(b.runs), "icap-dma")
    assert model.starts == 1 and model.sent == ic.rekey_stream(b, pl.plan(b, {"key": 0x1234}).frames).words
    assert d["buffer"] == f"0x{BUF:08X}" and d["register_accesses"] < 20
    assert emu.stats["frames_written"] == len(b.fars) and not emu.synced


@pytest.mark.parametrize("case", ["other_build", "other_length", "no_controller", "small_buffer", "misaligned",
                                  "busy", "stream_input"])
def test_icap_dma_refuses_before_writing(build, case):
    """A controller of another build (BUILD_ID) or word count (REKEY_WORDS), no controller (MAGIC), a
    buffer the stream does not fit (the DMA address would leave it) or not 64-byte aligned, a busy
    controller, one fed by an AXI4-Stream: one RekeyError, no START, the template untouched."""
    b = build
    n = rekey_icap_words(b.runs, b.idcode)
    kw = {"other_build": {"build_id": 0x12345678}, "other_length": {"rekey_words": n + 101},
          "small_buffer": {"size": ic.buffer_bytes(n) - 64}, "misaligned": {"phys": BUF + 32}}.get(case, {})
    model, mem, emu = controller(b, **kw)
    bus = model
    if case == "no_controller":
        bus = ic.PhysMemory(0, 4096)                      # registers that read 0
        bus.read = lambda off: 0
    if case == "busy":
        model.status = ic.BUSY
        model.stuck = True
    if case == "stream_input":
        model.stream_input = True
    with pytest.raises(rk.RekeyError) as ei:
        rk.rekey(b, {"key": 7}, "icap-dma:0x43C10000", icap_dma=(bus, mem))
    e = ei.value
    want = {"other_build": ("design", "another build"), "other_length": ("design", f"expects {n + 101} words"),
            "no_controller": ("design", "no ICAP stream controller"), "small_buffer": ("arg", "leave the buffer"),
            "misaligned": ("arg", "64-byte aligned"), "busy": ("write", "busy"),
            "stream_input": ("design", "AXI4-Stream")}[case]
    assert (e.code, want[1] in str(e)) == (want[0], True), str(e)
    assert str(e).startswith("refusing to rekey") and "\n" not in str(e) and not e.rolled_back
    assert model.starts == 0 and device_frames(b, emu) == template_frames(b)


@pytest.mark.parametrize("fault", ["bus_error", "abort"])
def test_icap_dma_failure_names_the_last_frame_and_rolls_back(build, fault):
    """A bus error inside an FDRI packet (the controller aborts the port) or ABORT in mid-stream (it
    finishes the packet): one error naming the last frame written (as the emulator wrote them), the
    previous frames written back."""
    b = build
    model, mem, emu = controller(b)
    prev = pl.plan(b, {"key": 0x1111}).frames
    rk.rekey(b, {"key": 0x1111}, "icap-dma:0x43C10000", icap_dma=(model, mem))
    new = ic.rekey_stream(b, pl.plan(b, {"key": 0x2222}).frames)
    k = new.frames[len(b.runs[0]) + 1][1] - 50                  # inside the second run's frames
    setattr(model, f"{fault}_at", k)
    written_before = emu.stats["frames_written"]
    with pytest.raises(rk.RekeyError) as ei:
        rk.rekey(b, {"key": 0x2222}, "icap-dma:0x43C10000", icap_dma=(model, mem), previous=prev)
    e = ei.value
    assert e.code == "config" and e.rolled_back and "previous frames restored" in str(e) and "\n" not in str(e)
    sent = int(re.search(r"(\d+) of \d+ words sent", str(e)).group(1))
    wrote = emu.stats["frames_written"] - written_before - len(b.fars)   # the rollback wrote every frame
    last = ic.frames_written(new, sent)
    assert wrote > 0 and len(last) == wrote
    assert f"last frame written: FAR 0x{last[-1]:08X} ({wrote} of {len(b.fars)} frames)" in str(e)
    if fault == "abort":
        assert "aborted" in str(e) and len(last) == sum(len(r) for r in b.runs[:2])   # whole runs
    else:
        assert "bus error" in str(e)
    assert device_frames(b, emu) == prev


def test_icap_dma_timeout_aborts_and_says_the_state_is_unknown(build):
    b = build
    model, mem, emu = controller(b)
    model.stuck = True
    s = ic.IcapDmaSession(model, mem, ic.build_id_of(b.design_hash), rekey_icap_words(b.runs, b.idcode), polls=20)
    with pytest.raises(DriverError) as ei:
        s.send(ic.rekey_stream(b, pl.plan(b, {"key": 3}).frames))
    assert ei.value.code == "timeout" and "unknown" in str(ei.value)


def test_icap_dma_session_refuses_a_stream_of_another_length(build):
    """A stream whose word count is not the build's (a blob of another build): nothing written."""
    b = build
    model, mem, emu = controller(b)
    s = ic.IcapDmaSession(model, mem, ic.build_id_of(b.design_hash), rekey_icap_words(b.runs, b.idcode))
    lay = ic.rekey_stream(b, pl.plan(b, {"key": 3}).frames)
    lay.words = lay.words[:-1]
    with pytest.raises(DriverError) as ei:
        s.send(lay)
    assert ei.value.code == "arg" and "nothing written" in str(ei.value) and model.starts == 0


def test_icap_dma_verify_is_refused(build):
    model, mem, emu = controller(build)
    with pytest.raises(rk.RekeyError, match="write only") as ei:
        rk.rekey(build, {"key": 3}, "icap-dma:0x43C10000", icap_dma=(model, mem), verify=True)
    assert ei.value.code == "arg" and model.starts == 0


def test_parse_icap_dma_targets():
    t = rk.parse_target("icap-dma:0x43C10000@/dev/uio1:/dev/udmabuf2")
    assert (t.kind, t.base, t.device, t.buffer) == ("icap-dma", 0x43C10000, "/dev/uio1", "/dev/udmabuf2")
    t = rk.parse_target("icap-dma:0x43C10000:0x1F000000+0x10000")
    assert (t.base, t.device, t.buffer) == (0x43C10000, "", "0x1F000000+0x10000")
    with pytest.raises(rk.RekeyError, match="bad base address"):
        rk.parse_target("icap-dma:zz")
    assert rk.parse_target("hwicap-dev:/dev/icap0").path.as_posix() == "/dev/icap0"


def test_udmabuf_buffer_from_sysfs(tmp_path):
    """A u-dma-buf device: its bus address and size from sysfs, the words stored little endian."""
    sysfs = tmp_path / "sys"
    (sysfs / "udmabuf3").mkdir(parents=True)
    (sysfs / "udmabuf3" / "phys_addr").write_text("0x1e000000\n")
    (sysfs / "udmabuf3" / "size").write_text("4096\n")
    dev = tmp_path / "udmabuf3"
    dev.write_bytes(bytes(4096))
    buf = tr.open_dma_buffer(str(dev), 64, sysfs_roots=(str(sysfs),))
    assert (buf.phys, buf.size) == (0x1E000000, 4096)
    buf.write_words([0xAA995566, 1])
    del buf
    assert dev.read_bytes()[:8] == bytes([0x66, 0x55, 0x99, 0xAA, 1, 0, 0, 0])
    with pytest.raises(rk.RekeyError, match="no u-dma-buf device"):
        tr.open_dma_buffer(str(tmp_path / "udmabuf9"), 64, sysfs_roots=(str(sysfs),))
    with pytest.raises(rk.RekeyError, match="must start on a page"):
        tr.open_dma_buffer("0x1F000040", 64)
    with pytest.raises(rk.RekeyError, match="expected 0xPHYS"):
        tr.open_dma_buffer("nowhere", 64)


def test_cli_icap_dma_no_controller_and_verify(tmp_path, dcsflow):
    """On the command line: a file mapped as the register space is no controller (MAGIC reads 0):
    one line, exit 1, nothing written; --verify refused; both command lines alike."""
    root = make_build(tmp_path / "b")
    regs = tmp_path / "regs"
    regs.write_bytes(bytes(4096))
    sysfs_dev = tmp_path / "udmabuf0"
    sysfs_dev.write_bytes(bytes(1 << 16))
    for argv in (["rekey", root], ["-m", "dcsflow.scg", "rekey", root]):
        if argv[0] == "-m":
            import subprocess
            import sys

            run = subprocess.run([sys.executable, *map(str, argv), "--param", "key=0001", "--to",
                                  f"icap-dma:0@{regs}:{sysfs_dev}"], capture_output=True, text=True)
        else:
            run = dcsflow(*argv, "--param", "key=0001", "--to", f"icap-dma:0@{regs}:{sysfs_dev}")
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.startswith("error:") and run.stderr.count("\n") == 1
        assert "u-dma-buf" in run.stderr or "no ICAP stream controller" in run.stderr
    r = dcsflow("rekey", root, "--param", "key=0001", "--to", f"icap-dma:0@{regs}", "--verify")
    assert r.returncode == 1 and "write only" in r.stderr


# ------------------------------------------------------------------------------------ hwicap-dev
def native_words(data: bytes) -> list:
    """The 32-bit words the xilinx_hwicap driver hands to the write FIFO: each 4 bytes as the CPU's word."""
    return list(array.array("I", data[:len(data) // 4 * 4]))


def test_hwicap_dev_writes_the_stream_in_native_words(build, tmp_path):
    """A regular file as the device: it receives the rekey's words, one frame per write, in the CPU's byte
    order; replayed into the emulator they give the plan's frames."""
    b = build
    dev = tmp_path / "icap0"
    dev.write_bytes(b"")
    r = rk.rekey(b, {"key": 0xABCD}, f"hwicap-dev:{dev}")
    p = pl.plan(b, {"key": 0xABCD})
    got = native_words(dev.read_bytes())
    assert got == ic.rekey_stream(b, p.frames).words
    emu = ConfigEmulator(b.device, b.template.copy())
    emu.write_words(got)
    assert device_frames(b, emu) == p.frames
    d = r.as_dict()
    assert d["transport"] == "hwicap-dev" and d["writes"] == -(-len(got) // 101) and d["icap_words"] == len(got)


def test_hwicap_dev_write_failure_names_the_last_frame(build, tmp_path, monkeypatch):
    """The driver fails a write (EIO) in the middle of the second run: one error naming the last frame
    confirmed written and saying that the state is unknown (the driver cannot abort a frame packet, so
    nothing more is written). A fake write: the bytes of the calls that returned go to an emulator, as
    the driver's FIFO would take them; the emulator holds exactly the frames the error names."""
    b = build
    emu = ConfigEmulator(b.device, b.template.copy())
    calls = {"n": 0}
    fail_at = 8

    def write(fd, data):
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(errno.EIO, "Input/output error")
        emu.write_words(native_words(data))
        return len(data)

    monkeypatch.setattr(tr.HwicapDevice, "_write", staticmethod(write))
    dev = tmp_path / "icap0"
    dev.write_bytes(b"")
    with pytest.raises(rk.RekeyError) as ei:
        rk.rekey(b, {"key": 0x7777}, f"hwicap-dev:{dev}")
    e = ei.value
    new_frames = pl.plan(b, {"key": 0x7777}).frames
    new = ic.rekey_stream(b, new_frames)
    confirmed = (fail_at - 1) * 101
    last = ic.frames_written(new, confirmed)
    assert e.code == "write" and not e.rolled_back and "\n" not in str(e) and calls["n"] == fail_at
    assert f"{confirmed} of {len(new.words)} words sent; last frame written: FAR 0x{last[-1]:08X}" in str(e)
    assert "Input/output error" in str(e) and "state unknown" in str(e)
    assert device_frames(b, emu) == {f: new_frames[f] if f in last else b.template.frame(f) for f in b.fars}


def test_hwicap_dev_missing_and_full_devices(build, tmp_path, dcsflow):
    """A device that does not exist: nothing written, one line; a device that takes nothing (/dev/full:
    ENOSPC at once): no frame written, said so."""
    b = build
    with pytest.raises(rk.RekeyError, match="cannot open") as ei:
        rk.rekey(b, {"key": 1}, f"hwicap-dev:{tmp_path / 'nothing'}")
    assert ei.value.code == "arg"
    if os.path.exists("/dev/full"):
        with pytest.raises(rk.RekeyError) as ei:
            rk.rekey(b, {"key": 1}, "hwicap-dev:/dev/full")
        assert ei.value.code == "write" and "no frame written" in str(ei.value) and "unknown" in str(ei.value)
    r = dcsflow("rekey", b.path, "--param", "key=0001", "--to", f"hwicap-dev:{tmp_path / 'nothing'}", "--json")
    assert r.returncode == 1 and r.stderr.startswith("error: hwicap-dev") and r.stderr.count("\n") == 1
    assert r.stdout == ""


def test_rekey_line_names_the_words_of_both_transports(build, tmp_path):
    """``rekey``'s line for icap-dma and hwicap-dev splits the ICAP words as the AXI HWICAP's does:
    frame data with one pad frame per run (101 words a frame), the rest configuration packets."""
    from dcsflow.scg.commands import rekey_report

    b = build
    n = rekey_icap_words(b.runs, b.idcode)
    data = sum(len(run) + 1 for run in b.runs) * 101
    model, mem, _ = controller(b)
    dev = tmp_path / "icap0"
    dev.write_bytes(b"")
    for r in (rk.rekey(b, {"key": 0x1234}, "icap-dma:0x43C10000", icap_dma=(model, mem)),
              rk.rekey(b, {"key": 0x1234}, f"hwicap-dev:{dev}")):
        assert r.as_dict()["frame_words"] == data
        assert f"{n} ICAP words ({data} of frame data with pad frames, {n - data} of configuration packets)" \
            in rekey_report(r)
