"""The runtime on hostile input: the regression suite of its findings.

1. output paths that are folders, files where a folder is expected, devices/FIFOs or not writable;
2. an output that is also an input (the same file, also through a symbolic link or ``..``);
3. floods of sync words and packets: linear time, bounded memory, one error line;
4. unchecked streams (no CRC check over the frame data, no START in a full stream, no DESYNC),
   damaged ``.bit`` magic;
5. ``rekey --json`` prints no key-dependent digest unless asked (``--frames-hash``);
7. text that is not UTF-8 (build-folder JSON, frame files, parameter values, output paths);
8. key-bearing temporaries: owner-only, removed on SIGTERM.
(6, tampered build folders: tests/test_buildfolder_fuzz.py and tests/test_scg_buildfolder.py.)

Every bad input must end in exactly one line ``error: ...`` on stderr, exit status 1, no traceback
and nothing half-written left looking valid.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest

from dcsflow import fileio, interrupts
from dcsflow.scg import bitstream as B
from dcsflow.scg import cli
from dcsflow.scg import plan as pl
from dcsflow.scg import rekey as rk
from dcsflow.scg import transports as tr
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.buildfolder import load_build
from dcsflow.scg.codegen import firmware_dir
from dcsflow.scg.errors import BitstreamError, RekeyError
from dcsflow.scg.vivado_import import VivadoImportError, import_vivado, synthetic_vivado_result

from _builds import reseal

DATA = Path(__file__).parent / "data" / "flow"
REPO = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------ helpers
def _run(capsys, *args) -> tuple[int, str, str]:
    rc = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def _one_error(rc: int, out: str, err: str, *words: str) -> None:
    lines = err.splitlines()
    assert rc == 1 and out == "", (rc, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for w in words:
        assert str(w) in lines[0], (w, lines[0])


def _scg(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcsflow.scg", *args], capture_output=True, **kw)


def _tree(root: Path) -> dict:
    """Every path under ``root`` -> (kind, content hash): to see that nothing was written. The
    build folder's lock file holds the process id of the last command that wrote into the folder
    (``import`` takes the lock before it finds it cannot write): only that it is a file counts."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.name == ".lock" and p.parent == root and p.is_file() and not p.is_symlink():
            out[p] = ("lock file",)
        elif p.is_symlink():
            out[p] = ("link", os.readlink(p))
        elif p.is_file():
            out[p] = ("file", hashlib.sha256(p.read_bytes()).hexdigest(), stat.S_IMODE(p.stat().st_mode))
        else:
            out[p] = ("dir" if p.is_dir() else "special",)
    return out


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    """The synthetic build (16-bit key, 20 frames): fast rekeys and codegen."""
    return make_build(tmp_path_factory.mktemp("hostile") / "syn")


@pytest.fixture(scope="module")
def pynq(shared):
    return shared / "bitstreams" / "pynq-z1_base.bit"


@pytest.fixture(scope="module")
def kxv(tmp_path_factory, pynq, builds):
    """keyxor built with the Vivado back end (shared: tests alter copies), and what Vivado would
    give back (a full routed bitstream made by the project's writer from pynq-z1_base.bit, and the
    TLUT dump)."""
    from _buildcache import KEYXOR_VIVADO

    root = tmp_path_factory.mktemp("kxv")
    out = builds.get("keyxor-vivado", **KEYXOR_VIVADO)
    bit, cells = synthetic_vivado_result(out, B.read_file(pynq).frames, root)
    return out, bit, cells


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


# ------------------------------------------------------------------------------------ 1. outputs
def _obstacles(tmp: Path) -> dict:
    (tmp / "afile").write_text("a user's file\n")
    (tmp / "adir.bin").mkdir()
    (tmp / "adir").mkdir()
    os.mkfifo(tmp / "fifo.bin")
    return {"tmp": tmp, "file": tmp / "afile", "dir": tmp / "adir", "dirbin": tmp / "adir.bin",
            "fifo": tmp / "fifo.bin"}


OUTPUT_CASES = {
    "rekey bitfile under a file": (["rekey", "{syn}", "--param", "key=beef", "--to", "bitfile:{file}/k.bit"],
                                   ["bitfile target {file}/k.bit: cannot write", "{file} is a file, not a folder"]),
    "rekey partial onto a folder": (["rekey", "{syn}", "--param", "key=beef", "--to", "partial:{dirbin}"],
                                    ["partial target {dirbin}: cannot write (it is a folder)"]),
    "rekey bitfile onto a FIFO": (["rekey", "{syn}", "--param", "key=beef", "--to", "bitfile:{fifo}"],
                                  ["bitfile target {fifo}", "not a regular file"]),
    "codegen --out a file": (["codegen", "{syn}", "--out", "{file}"],
                             ["cannot write {file}: it is a file, not a folder"]),
    "codegen --out under a file": (["codegen", "{syn}", "--out", "{file}/gen"],
                                   ["cannot write {file}/gen: {file} is a file, not a folder"]),
    "codegen --firmware a file": (["codegen", "{syn}", "--out", "{tmp}/gen", "--firmware", "{file}"],
                                  ["cannot write {file}: it is a file, not a folder"]),
    "codegen --synthetic --firmware under a file": (["codegen", "--synthetic", "--out", "{tmp}/gen", "--firmware",
                                                     "{file}/fw"], ["{file} is a file, not a folder"]),
    "bit frames onto a folder": (["bit", "frames", "{pynq}", "-o", "{dir}"], ["cannot write {dir}: it is a folder"]),
    "bit frames under a file": (["bit", "frames", "{pynq}", "-o", "{file}/x.frm"],
                                ["cannot write {file}/x.frm: {file} is a file, not a folder"]),
    "bit frames onto a FIFO": (["bit", "frames", "{pynq}", "-o", "{fifo}"],
                               ["cannot write {fifo}: it is not a regular file"]),
}


@pytest.mark.parametrize("case", sorted(OUTPUT_CASES))
def test_bad_output_path_is_one_line_and_nothing_is_written(syn, pynq, tmp_path, capsys, case):
    subst = dict(_obstacles(tmp_path), syn=syn, pynq=pynq)
    before = _tree(tmp_path)
    args, words = OUTPUT_CASES[case]
    rc, out, err = _run(capsys, *[a.format(**subst) for a in args])
    _one_error(rc, out, err, *[w.format(**subst) for w in words])
    assert _tree(tmp_path) == before                      # no file, no folder, no temporary
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.bin").st_mode)


def _deny_mkstemp(monkeypatch):
    def deny(*a, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio.tempfile, "mkstemp", deny)


@pytest.mark.parametrize("args,words", [
    (["rekey", "{syn}", "--param", "key=beef", "--to", "partial:{tmp}/ro/k.bin"],
     ["partial target {tmp}/ro/k.bin: cannot write (Permission denied)"]),
    (["codegen", "{syn}", "--out", "{tmp}/ro/gen"], ["cannot write {tmp}/ro/gen/scg_gen.h: Permission denied"]),
    (["bit", "frames", "{pynq}", "-o", "{tmp}/ro/x.frm"], ["cannot write {tmp}/ro/x.frm: Permission denied"]),
])
def test_unwritable_output_is_one_line(syn, pynq, tmp_path, capsys, monkeypatch, args, words):
    """A read-only folder (simulated: tests run as root, which writes anywhere)."""
    (tmp_path / "ro").mkdir()
    _deny_mkstemp(monkeypatch)
    subst = {"syn": syn, "pynq": pynq, "tmp": tmp_path}
    rc, out, err = _run(capsys, *[a.format(**subst) for a in args])
    _one_error(rc, out, err, *[w.format(**subst) for w in words])
    assert not any((tmp_path / "ro").rglob("*.*"))


def test_readonly_folder_for_real(syn, tmp_path):
    """The same through the operating system when the tests do not run as root."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = _scg("rekey", str(syn), "--param", "key=beef", "--to", f"partial:{ro}/k.bin", text=True)
        if os.geteuid() != 0:
            assert r.returncode == 1 and r.stderr.startswith(f"error: partial target {ro}/k.bin: cannot write (")
            assert len(r.stderr.splitlines()) == 1 and not list(ro.iterdir())
        else:
            assert r.returncode == 0 and (ro / "k.bin").is_file()        # root: the folder is writable
    finally:
        ro.chmod(0o755)


def test_codegen_writes_its_files_as_a_group(syn, tmp_path, monkeypatch, capsys):
    """A failure on the last file leaves the earlier ones as they were (no mixed set)."""
    gen = tmp_path / "gen"
    gen.mkdir()
    for n in ("scg_gen.h", "scg_gen.c", "scg_devtab.c"):
        (gen / n).write_text(f"old {n}\n")
    before = _tree(gen)
    real = fileio.tempfile.mkstemp

    def fail_third(*a, prefix="", **kw):
        if prefix.startswith(".scg_devtab.c."):
            raise OSError(28, "No space left on device")
        return real(*a, prefix=prefix, **kw)

    monkeypatch.setattr(fileio.tempfile, "mkstemp", fail_third)
    rc, out, err = _run(capsys, "codegen", syn, "--out", gen)
    _one_error(rc, out, err, f"cannot write {gen}/scg_devtab.c: No space left on device")
    assert _tree(gen) == before


def test_import_into_an_unwritable_build_folder(kxv, tmp_path, capsys, monkeypatch):
    out = _copy(kxv[0], tmp_path)
    before = _tree(out)

    def deny(*a, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("dcsflow.scg.vivado_import.tempfile.mkdtemp", deny)
    rc, o, err = _run(capsys, "import", out, "--bit", kxv[1], "--cells", kxv[2])
    _one_error(rc, o, err, f"cannot write into the build folder {out}/tlut: Permission denied")
    assert _tree(out) == before
    monkeypatch.undo()

    def fail(path, *a, **kw):
        raise fileio.OutputError(path, "Read-only file system")

    monkeypatch.setattr("dcsflow.scg.vivado_import.write_text_atomic", fail)
    rc, o, err = _run(capsys, "import", out, "--bit", kxv[1], "--cells", kxv[2])
    _one_error(rc, o, err, f"cannot write {out}/build.json", "the build folder is unchanged")
    assert _tree(out) == before


# ------------------------------------------------------------------------------------ 2. output = input
def test_bit_frames_never_overwrites_its_input(pynq, tmp_path, capsys):
    x = tmp_path / "x.bit"
    shutil.copyfile(pynq, x)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.bit").symlink_to(x)
    os.link(x, tmp_path / "hard.bit")
    before = _tree(tmp_path)
    for outp in (x, tmp_path / "sub" / ".." / "x.bit", tmp_path / "link.bit", tmp_path / "hard.bit"):
        rc, out, err = _run(capsys, "bit", "frames", x, "-o", outp)
        _one_error(rc, out, err, f"cannot write {outp}: it is also an input of this command")
        rc, out, err = _run(capsys, "bit", "frames", tmp_path / "link.bit", "-o", outp)
        _one_error(rc, out, err, "it is also an input")
    assert _tree(tmp_path) == before


def test_rekey_never_writes_over_a_file_of_the_build(kxv, tmp_path, capsys):
    out = _copy(kxv[0], tmp_path)
    before = _tree(out)
    (tmp_path / "t.bit").symlink_to(out / "tlut" / "template.bit")
    for target in (f"bitfile:{out}/tlut/template.bit", f"partial:{out}/tlut/../tlut/template.bit",
                   f"bitfile:{tmp_path}/t.bit", f"partial:{out}/conv/template.bit"):
        rc, o, err = _run(capsys, "rekey", out, "--param", "key=a5", "--to", target)
        _one_error(rc, o, err, "cannot write (it is also an input of this command")
    assert _tree(out) == before
    # a new file in the build folder is no input, but it would hold key material there: refused too
    rc, o, err = _run(capsys, "rekey", out, "--param", "key=a5", "--to", f"bitfile:{out}/specialized.bit")
    _one_error(rc, o, err, "inside the build folder")
    assert _tree(out) == before


def test_codegen_never_writes_into_the_firmware_sources(syn, tmp_path, capsys):
    before = _tree(firmware_dir())
    rc, out, err = _run(capsys, "codegen", syn, "--out", tmp_path / "gen", "--firmware", firmware_dir())
    _one_error(rc, out, err, "it is also an input of this command")
    assert _tree(firmware_dir()) == before and not (tmp_path / "gen").exists()


def test_fpgamgr_never_overwrites_or_removes_a_firmware_file(syn, tmp_path):
    sysfs, fw = tmp_path / "sys", tmp_path / "fw"
    sysfs.mkdir()
    fw.mkdir()
    (sysfs / "flags").write_text("0\n")
    (sysfs / "firmware").write_text("")
    (fw / "base.bin").write_bytes(b"the user's base overlay")
    b = load_build(syn)
    for name in ("base.bin", "..", "."):
        with pytest.raises(RekeyError, match="fpgamgr: ") as e:
            rk.rekey(b, {"key": 0xBEEF}, f"fpgamgr:{name}", fpga_manager=tr.FpgaManager(str(sysfs), str(fw)))
        assert e.value.code == "arg"
    assert (fw / "base.bin").read_bytes() == b"the user's base overlay" and sorted(os.listdir(fw)) == ["base.bin"]


# ------------------------------------------------------------------------------------ 3. floods
def _flood(unit: list[int], mb: int, head: list[int] = ()) -> bytes:
    n = (mb << 18) - len(head)
    return B.words_to_bytes(list(head)) + B.words_to_bytes(unit) * (n // len(unit))


SYNC_DESYNC = [B.SYNC_WORD, B.type1(B.OP_WRITE, B.R_CMD, 1), B.CMD_DESYNC]


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sync_flood_is_one_error_line_in_bounded_memory(tmp_path, capsys):
    data = _flood(SYNC_DESYNC, 4)
    (tmp_path / "f.bin").write_bytes(data)
    rc, out, err = _run(capsys, "bit", "info", tmp_path / "f.bin")
    _one_error(rc, out, err, "more than 1024 sync words", "UG470")

    def parse():
        with pytest.raises(BitstreamError, match="sync words"):
            B.parse(data)

    assert _peak(parse) < 1.5 * len(data)          # the word array and little else, not objects per packet


def test_streams_below_the_limits_are_read(tmp_path, capsys):
    """1,024 sync words are read; the command list of bit info is capped, not the count."""
    data = B.words_to_bytes(SYNC_DESYNC * B.MAX_SYNCS)
    bs = B.parse(data)
    assert bs.syncs == B.MAX_SYNCS and len(bs.commands) == B.MAX_SYNCS and bs.desynced
    (tmp_path / "f.bin").write_bytes(data)
    rc, out, err = _run(capsys, "bit", "info", tmp_path / "f.bin", "--json")
    s = json.loads(out)
    assert rc == 0 and s["commands_total"] == B.MAX_SYNCS and len(s["commands"]) == B.SUMMARY_LIST_LIMIT
    assert s["checked"] is False and "no frame data" in s["unchecked"]


def test_packet_floods_stop_at_the_packet_limit():
    with pytest.raises(BitstreamError, match="more than 4096 packets .*IDCODE"):
        B.parse(_flood([B.type1(B.OP_WRITE, B.R_CMD, 1), 0], 1, [B.DUMMY, B.SYNC_WORD]))
    dev_head = [B.DUMMY, B.SYNC_WORD, B.type1(B.OP_WRITE, B.R_IDCODE, 1), 0x03727093]
    limit = B.PACKETS_BEFORE_PART + B.PACKETS_PER_FRAME * 9996
    with pytest.raises(BitstreamError, match=f"more than {limit} packets .*9996 frames"):
        B.parse(_flood([B.type1(B.OP_WRITE, B.R_MASK, 1), 0], 4, dev_head))


def test_noop_flood_is_read_in_memory_proportional_to_its_size():
    peaks = {}
    for mb in (1, 4):
        data = _flood([B.NOOP], mb, [B.DUMMY, B.SYNC_WORD])
        peaks[mb] = _peak(lambda: B.parse(data))
        assert peaks[mb] < 1.5 * len(data)
    assert peaks[4] < 5 * peaks[1]


# ------------------------------------------------------------------------------------ 4. unchecked streams
def _patched(raw: bytes, fn) -> bytes:
    """``raw`` (a .bit) with its stream words changed by ``fn(words, bitstream)``, header kept."""
    bs = B.parse(raw, strict=False)
    words = B.words_from_bytes(B.words_to_bytes(bs.words))
    words = fn(words, bs)
    h = bs.header
    return B.to_bit(B.words_to_bytes(words), design=h.get("a", ""), part=h.get("b"), date=h.get("c", ""),
                    time=h.get("d", ""))


def _cut_after_frames(words, bs):
    p = max((p for p in bs.packets if p.reg == B.R_FDRI), key=lambda p: p.start)
    return words[:p.start + p.count]


def _crc_to_noop(words, bs):
    for p in bs.packets:
        if p.reg == B.R_CRC:
            words[p.index] = words[p.start] = B.NOOP
    return words


def _crc_to_rcrc(words, bs):
    """The check after the frame data becomes CMD RCRC (as Project X-Ray suggests for removing a
    check); the later check (START, parked FAR, ...) stays and passes."""
    p = next(p for p in bs.packets if p.reg == B.R_CRC)
    words[p.index], words[p.start] = B.type1(B.OP_WRITE, B.R_CMD, 1), B.CMD_RCRC
    return words


def _no_desync(words, bs):
    p = [p for p in bs.packets if p.reg == B.R_CMD and words[p.start] == B.CMD_DESYNC][-1]
    return words[:p.index]


def _reseal(words):
    """Recompute every CRC check word of a stream (as a writer would)."""
    bs = B.parse(B.words_to_bytes(words), strict=False)
    crc = 0
    for p in bs.packets:
        if p.opcode != B.OP_WRITE:
            continue
        if p.reg == B.R_CRC:
            words[p.start] = crc
            crc = 0
            continue
        crc = B.crc_words(crc, p.reg, words[p.start:p.start + p.count])
        if p.reg == B.R_CMD and B.CMD_RCRC in words[p.start:p.start + p.count]:
            crc = 0
    return words


def _no_start(words, bs):
    p = next(p for p in bs.packets if p.reg == B.R_CMD and words[p.start] == B.COMMANDS["START"])
    words[p.start] = B.COMMANDS["NULL"]
    return _reseal(words)


UNCHECKED = {"cut after the frame data": (_cut_after_frames, "no CRC check, no START command, no DESYNC at the end"),
             "CRC packets replaced by NOOPs": (_crc_to_noop, "no CRC check"),
             "CRC check replaced by RCRC": (_crc_to_rcrc, "frame data not covered by a CRC check"),
             "no DESYNC": (_no_desync, "no DESYNC at the end"),
             "full stream without START": (_no_start, "no START command")}


@pytest.fixture(scope="module")
def routed(kxv):
    return kxv[1].read_bytes()


@pytest.mark.parametrize("case", sorted(UNCHECKED))
def test_unchecked_streams_are_reported_refused_or_read_on_request(routed, tmp_path, capsys, case):
    fn, reasons = UNCHECKED[case]
    f = tmp_path / "u.bit"
    f.write_bytes(_patched(routed, fn))
    bs = B.parse(f.read_bytes())
    assert not bs.checked and ", ".join(bs.unchecked_reasons) == reasons
    rc, out, err = _run(capsys, "bit", "info", f, "--no-ecc")
    assert rc == 0 and f"  checked                  no ({reasons})\n" in out, out
    rc, out, err = _run(capsys, "bit", "info", f, "--json", "--no-ecc")
    s = json.loads(out)
    assert s["checked"] is False and ", ".join(s["unchecked"]) == reasons
    for args in (["lut", f, "SLICE_X54Y10/A6LUT"], ["diff", f, f], ["frames", f, "-o", tmp_path / "u.frm"]):
        rc, out, err = _run(capsys, "bit", *args)
        _one_error(rc, out, err, f"{f}: unchecked stream: {reasons}", "--allow-unchecked reads it anyway")
        assert not (tmp_path / "u.frm").exists()
        rc, out, err = _run(capsys, "bit", *args, "--allow-unchecked")
        assert rc == 0 and err == "", err


@pytest.mark.parametrize("case", ["cut after the frame data", "CRC packets replaced by NOOPs",
                                  "CRC check replaced by RCRC", "full stream without START"])
def test_import_refuses_unchecked_streams(kxv, routed, tmp_path, capsys, case):
    out = _copy(kxv[0], tmp_path)
    fn, reasons = UNCHECKED[case]
    f = tmp_path / "u.bit"
    f.write_bytes(_patched(routed, fn))
    before = _tree(out)
    rc, o, err = _run(capsys, "import", out, "--bit", f, "--cells", kxv[2])
    _one_error(rc, o, err, f"{f}: not a complete, checked bitstream ({reasons})")
    assert _tree(out) == before


def test_checked_streams(routed, pynq, syn, tmp_path, capsys):
    """Vivado's bitstream, dcsflow's full and partial streams (bitfile:, partial:, fpgamgr) are checked."""
    assert B.parse(routed).checked and B.read_file(pynq).checked
    rc, out, _ = _run(capsys, "bit", "info", pynq, "--no-ecc")
    assert "  checked                  yes\n" in out
    for t in ("bitfile:{}/k.bit", "partial:{}/p.bin"):
        assert _run(capsys, "rekey", syn, "--param", "key=beef", "--to", t.format(tmp_path))[0] == 0
    for f in ("k.bit", "p.bin"):
        bs = B.read_file(tmp_path / f)
        assert bs.checked and bs.is_partial and not bs.started, f       # a partial stream has no START
    sysfs, fw = tmp_path / "sys", tmp_path / "fw"
    sysfs.mkdir()
    fw.mkdir()
    (sysfs / "flags").write_text("0\n")
    (sysfs / "firmware").write_text("")
    rk.rekey(load_build(syn), {"key": 0xBEEF}, "fpgamgr:k.bin", fpga_manager=tr.FpgaManager(sysfs, fw, keep=True))
    le = (fw / "k.bin").read_bytes()
    assert B.parse(b"".join(le[i:i + 4][::-1] for i in range(0, len(le), 4))).checked


@pytest.mark.parametrize("byte", range(13))
def test_damaged_bit_magic_is_an_error(routed, byte):
    data = bytearray(routed)
    data[byte] ^= 0x40
    with pytest.raises(BitstreamError, match="damaged .bit header"):
        B.parse(bytes(data))


def test_raw_stream_with_junk_before_the_sync_word(routed, tmp_path, capsys):
    _, off, _ = B.parse_bit_header(routed)
    raw = routed[off:]
    assert B.parse(raw).checked                                      # a .bin: padding before the sync
    for junk in (b"dcsflow!", routed[4:off - (off % 4)][-16:]):
        f = tmp_path / "j.bin"
        f.write_bytes(junk + raw)
        rc, out, err = _run(capsys, "bit", "info", f)
        _one_error(rc, out, err, "before the sync word is 0x", "not a raw configuration stream")
    zeroed = bytes(len(B.BIT_MAGIC)) + routed[len(B.BIT_MAGIC):]     # the whole magic wiped
    with pytest.raises(BitstreamError):
        B.parse(zeroed)


# ------------------------------------------------------------------------------------ 5. frames_hash
def test_rekey_json_prints_no_key_dependent_digest_unless_asked(syn, capsys):
    rc, out, _ = _run(capsys, "rekey", syn, "--param", "key=beef", "--json")
    d = json.loads(out)
    assert rc == 0 and "frames_hash" not in d and not any("hash" in k for k in d)
    rc, out, _ = _run(capsys, "rekey", syn, "--param", "key=beef", "--json", "--frames-hash")
    b = load_build(syn)
    assert json.loads(out)["frames_hash"] == pl.frames_hash(pl.plan(b, {"key": 0xBEEF}).frames, b.device)
    rc, out, _ = _run(capsys, "rekey", syn, "--param", "key=beef")
    assert rc == 0 and pl.frames_hash(pl.plan(b, {"key": 0xBEEF}).frames, b.device) not in out
    assert "frames_hash" not in rk.rekey(b, {"key": 0xBEEF}).as_dict()


# ------------------------------------------------------------------------------------ 7. not UTF-8
def _insert_ff(path: Path, after: bytes) -> None:
    data = path.read_bytes()
    k = data.index(after) + len(after)
    path.write_bytes(data[:k] + b"\xff\xfe" + data[k:])


@pytest.mark.parametrize("name,after,seal,words", [
    ("build.json", b'"design": "', False, ["build.json: corrupted build manifest"]),
    ("ppc.json", b'"aiger": "', "files", ["ppc.json: corrupted PPC manifest"]),
    ("tlut/framemap.json", b'"device": "', "files", ["framemap.json: corrupted frame map"]),
    ("tlut/template.frm", b"# dcsflow-frames 1 ", "files", ["template.frm: "]),
])
def test_build_folder_text_that_is_not_utf8(syn, tmp_path, capsys, name, after, seal, words):
    root = _copy(syn, tmp_path)
    _insert_ff(root / name, after)
    if seal:
        reseal(root, ppc_hash=False)                  # build.json records the changed file
    for args in (["rekey", root, "--param", "key=beef"], ["codegen", root, "--out", tmp_path / "gen"]):
        rc, out, err = _run(capsys, *args)
        _one_error(rc, out, err, *words)
    assert not (tmp_path / "gen").exists()


def test_parameter_values_and_paths_that_are_not_utf8(syn, pynq, tmp_path, kxv):
    for arg, msg in ((b"key=\xff\xfe", "not hex"), (b"k\xffy=beef", "not a parameter of this build"),
                     (b"key", "expected NAME=HEX")):
        r = _scg(b"rekey", str(syn).encode(), b"--param", arg)
        assert r.returncode == 1 and r.stdout == b"", r.stdout
        assert r.stderr.startswith(b"error: ") and msg.encode() in r.stderr and len(r.stderr.splitlines()) == 1
    out = os.fsencode(tmp_path) + b"/\xff\xfe.frm"
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")      # as under an en_US.UTF-8 locale
    r = _scg(b"bit", b"frames", os.fsencode(pynq), b"-o", out, env=env)
    assert r.returncode == 0 and r.stderr == b"" and r.stdout.startswith(b"wrote ") and os.path.exists(out)
    bad = tmp_path / "cells.json"
    bad.write_bytes(b'{"format": "\xff"}')
    r = _scg("import", str(kxv[0]), "--bit", str(kxv[1]), "--cells", str(bad), text=True)
    assert r.returncode == 1 and r.stderr.startswith("error: ") and "malformed TLUT dump" in r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_the_runtime_runs_no_external_tool():
    """No module of the runtime starts a process (codegen --firmware only copies files), so no tool
    can crash under it."""
    for f in sorted((REPO / "scg").glob("*.py")):
        text = f.read_text()
        for word in ("subprocess", "os.system", "os.popen", "os.exec", "os.spawn", "Popen"):
            assert word not in text, (f.name, word)


# ------------------------------------------------------------------------------------ 8. temporaries
_CHILD = """
import sys
from dcsflow.scg import cli, transports
transports.FpgaManager.__init__.__defaults__ = (sys.argv[1], sys.argv[2], False)
sys.exit(cli.main(["rekey", sys.argv[3], "--param", "key=beef", "--to", "fpgamgr:k.bin"]))
"""


def test_sigterm_removes_the_key_bearing_firmware_file(syn, tmp_path):
    """The FPGA manager's firmware file (key material) is 0600 and removed when the runtime gets
    SIGTERM while the kernel loads it (the sysfs 'firmware' file here is a FIFO nobody reads, so the
    write blocks)."""
    sysfs, fw = tmp_path / "sys", tmp_path / "fw"
    sysfs.mkdir()
    fw.mkdir()
    (sysfs / "flags").write_text("0\n")
    os.mkfifo(sysfs / "firmware")
    p = subprocess.Popen([sys.executable, "-c", _CHILD, str(sysfs), str(fw), str(syn)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (fw / "k.bin").exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (fw / "k.bin").exists(), p.poll()
        assert stat.S_IMODE((fw / "k.bin").stat().st_mode) == 0o600
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 143 and out == "" and err == "terminated\n", (p.returncode, out, err)
    assert os.listdir(fw) == []                                   # no firmware file, no temporary


# Ctrl-C raises KeyboardInterrupt only where SIGINT has Python's handler; a child started from a
# background job inherits SIGINT ignored, so it is set here as a terminal would have it.
_SIGNAL_CHILD = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from dcsflow.scg import transports
transports.FpgaManager.__init__.__defaults__ = (sys.argv[1], sys.argv[2], False)
if sys.argv[4] == "dcsflow":
    from dcsflow.flow.cli import main
else:
    from dcsflow.scg.cli import main
sys.exit(main(["rekey", sys.argv[3], "--param", "key=beef", "--to", "fpgamgr:k.bin"]))
"""


@pytest.mark.parametrize("command_line", ["python -m dcsflow.scg", "dcsflow"])
@pytest.mark.parametrize("sig,status,word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_both_command_lines_give_the_same_status_for_a_signal(syn, tmp_path, command_line, sig, status, word):
    """``rekey`` in either command line, stopped while the kernel loads the firmware file (a FIFO
    nobody reads): SIGTERM exits 143 ('terminated'), Ctrl-C 130 ('interrupted'), the firmware file
    (key material) removed either way."""
    sysfs, fw = tmp_path / "sys", tmp_path / "fw"
    sysfs.mkdir()
    fw.mkdir()
    (sysfs / "flags").write_text("0\n")
    os.mkfifo(sysfs / "firmware")
    which = "dcsflow" if command_line == "dcsflow" else "scg"
    p = subprocess.Popen([sys.executable, "-c", _SIGNAL_CHILD, str(sysfs), str(fw), str(syn), which],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (fw / "k.bin").exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (fw / "k.bin").exists(), p.poll()
        time.sleep(0.2)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == status and out == "", (p.returncode, out, err)
    assert err.strip().splitlines()[-1:] == [word] and "Traceback" not in err, err
    assert os.listdir(fw) == []


def test_sigterm_handler_is_scoped(pynq, capsys):
    """main() installs its handler only where SIGTERM has its default action, and restores it."""
    seen = []
    real = cli._main

    def spy(*a):
        seen.append(signal.getsignal(signal.SIGTERM))
        return real(*a)

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    cli._main = spy
    try:
        assert cli.main(["bit", "info", str(pynq), "--no-ecc"]) == 0
        assert seen == [interrupts._handler]                         # installed while the command runs
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL    # and restored
        signal.signal(signal.SIGTERM, lambda *a: None)
        mine = signal.getsignal(signal.SIGTERM)
        assert cli.main(["bit", "info", str(pynq), "--no-ecc"]) == 0
        assert seen[1] is mine and signal.getsignal(signal.SIGTERM) is mine   # the embedder's handler stays
    finally:
        cli._main = real
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    capsys.readouterr()


def test_interrupted_writes_leave_no_temporary(tmp_path):
    for exc in (cli.Terminated, KeyboardInterrupt):
        with pytest.raises(exc):
            with fileio.atomic_open(tmp_path / "k.bin", "wb", private=True) as f:
                f.write(b"key material")
                raise exc()
        assert os.listdir(tmp_path) == []
    fileio.write_bytes_atomic(tmp_path / "k.bin", b"x", private=True)
    assert stat.S_IMODE((tmp_path / "k.bin").stat().st_mode) == 0o600


def test_frames_of_a_private_bitstream_stay_private(syn, tmp_path, capsys):
    assert _run(capsys, "rekey", syn, "--param", "key=beef", "--to", f"partial:{tmp_path}/k.bin")[0] == 0
    assert stat.S_IMODE((tmp_path / "k.bin").stat().st_mode) == 0o600
    assert _run(capsys, "bit", "frames", tmp_path / "k.bin", "-o", tmp_path / "k.frm")[0] == 0
    assert stat.S_IMODE((tmp_path / "k.frm").stat().st_mode) == 0o600
    (tmp_path / "k.bin").chmod(0o644)
    assert _run(capsys, "bit", "frames", tmp_path / "k.bin", "-o", tmp_path / "p.frm")[0] == 0
    assert stat.S_IMODE((tmp_path / "p.frm").stat().st_mode) == 0o644
