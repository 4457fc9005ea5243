"""Readers open only regular files and bound what they read (size, JSON nesting); reading a
bitstream stays within about twice its size in memory.

Each case was a finding: a file of a build folder replaced by a FIFO hung every reader, a link to
``/dev/zero`` spun at full CPU eating memory, JSON nested 100,000 levels deep reached the parser,
and a 64 MB flood of frame data in one FDRI write peaked at about ten times its size. Each refusal
is one line ``error: ...`` naming the file and the reason (no traceback), within seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from dcsflow import fileio as F
from dcsflow.scg import bitstream as B
from dcsflow.scg.errors import BitstreamError, BuildFolderError
from _cli import one_line_error

FLOW_DATA = Path(__file__).parent / "data" / "flow"
#: the small build of tests/test_oserrors.py (the session's build cache makes it once)
SMALL = {"design": str(FLOW_DATA / "keyxor.v"), "baselines": ("yosys-abc",), "static_remap": False}
#: every command here ends well within this (a hang fails the test instead of stalling the suite)
TIMEOUT = 20


def _run(*args, module="dcsflow.flow"):
    """``python -m module ARGS`` with a timeout (a hang raises TimeoutExpired: the test fails)."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=Path(__file__).parent.parent)


@pytest.fixture(scope="module")
def small(builds) -> Path:
    """A finished small build of keyxor (shared: tests alter copies)."""
    return builds.get("keyxor", **SMALL)


def _copy(src: Path, dst) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return Path(dst)


def _fifo(path: Path) -> Path:
    path.unlink()
    os.mkfifo(path)
    return path


# ----------------------------------------------------------------------------- the core readers
def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    try:
        for path, kind in ((fifo, "a FIFO"), (link, "a character device"), (tmp_path, "a folder"),
                           (sock_path, "a socket")):
            t = time.monotonic()
            with pytest.raises(F.InputError) as e:
                F.read_input_bytes(path, F.JSON_LIMIT, "build manifest")
            assert time.monotonic() - t < 2
            msg = str(e.value)
            assert "\n" not in msg and str(path) in msg and f"it is {kind}, not a regular file" in msg, msg
            assert "(build manifest)" in msg and e.value.user_error
    finally:
        sock.close()
    with pytest.raises(FileNotFoundError):            # a missing file stays what it was
        F.read_input_bytes(tmp_path / "none", 10)


def test_a_file_larger_than_its_limit_is_refused_naming_the_limit(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as f:
        f.truncate(F.JSON_LIMIT + 1)                    # sparse: nothing is written
    with pytest.raises(F.InputError, match=r"big\.json: larger than the limit of 64 MiB"):
        F.load_json_file(p)
    p.write_bytes(b"x" * 101)
    with pytest.raises(F.InputError, match="larger than the limit of 100 bytes"):
        F.read_input_bytes(p, 100)
    assert F.read_input_bytes(p, 101) == b"x" * 101
    assert F.read_input_text(p, 101) == "x" * 101


@pytest.mark.parametrize("depth,refused", [(F.JSON_MAX_DEPTH, False), (F.JSON_MAX_DEPTH + 1, True),
                                           (100_000, True)])
def test_json_nesting_is_bounded(tmp_path, depth, refused):
    p = tmp_path / "n.json"
    p.write_text("[" * depth + "]" * depth)
    if refused:
        with pytest.raises(F.InputError, match=rf"n\.json: input nested too deeply: JSON deeper than "
                                               rf"{F.JSON_MAX_DEPTH} levels"):
            F.load_json_file(p)
    else:
        assert F.load_json_file(p) is not None


def test_brackets_in_strings_do_not_count_as_nesting():
    deep_text = {"name": "[" * 1000 + "{" * 1000, "esc": '\\"[[[' * 300, "cells": [[["x[3]"]]] * 1000}
    assert not F.json_depth_exceeds(json.dumps(deep_text))
    assert F.json_depth_exceeds('{"a": "]]]]", "b": ' + "[" * 300 + "]" * 300 + "}")
    assert F.json_depth_exceeds('["]",' * 300 + "1" + "]" * 300)


# ----------------------------------------------------------------------------- build folders
def test_a_build_record_replaced_by_a_fifo_is_one_line(small, tmp_path):
    b = _copy(small, tmp_path / "b")
    _fifo(b / "ppc.json")
    for args in (("rekey", b, "--param", "key=5a", "--to", "emulator"), ("report", b), ("check", b)):
        one_line_error(_run(*args), "ppc.json", "FIFO")
    one_line_error(_run("rekey", b, "--param", "key=5a", "--to", "emulator", module="dcsflow.scg"),
                    "ppc.json", "FIFO")


def test_build_json_replaced_by_a_fifo_is_one_line(small, tmp_path):
    b = _copy(small, tmp_path / "b")
    _fifo(b / "build.json")
    for args in (("rekey", b, "--param", "key=5a", "--to", "emulator"), ("check", b)):
        one_line_error(_run(*args), f"{b / 'build.json'}", "FIFO")


def test_a_record_linked_to_dev_zero_is_refused_quickly(small, tmp_path):
    b = _copy(small, tmp_path / "b")
    (b / "template.json").unlink()
    (b / "template.json").symlink_to("/dev/zero")
    t = time.monotonic()
    one_line_error(_run("rekey", b, "--param", "key=5a", "--to", "emulator"), "template.json",
                    "character device")
    assert time.monotonic() - t < TIMEOUT
    with pytest.raises(BuildFolderError, match="template.json.*character device"):
        from dcsflow.scg.buildfolder import read_json
        read_json(b / "template.json", "template netlist")


def test_deeply_nested_build_json_names_the_file_and_the_limit(small, tmp_path):
    b = _copy(small, tmp_path / "b")
    text = (b / "build.json").read_text().rstrip()
    (b / "build.json").write_text(text[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    line = one_line_error(_run("rekey", b, "--param", "key=5a", "--to", "emulator"),
                           f"{b / 'build.json'}: input nested too deeply", f"{F.JSON_MAX_DEPTH} levels")
    assert "build manifest" in line


def test_a_too_large_build_json_is_refused_naming_the_limit(small, tmp_path):
    b = _copy(small, tmp_path / "b")
    with open(b / "build.json", "r+b") as f:
        f.truncate(F.JSON_LIMIT + 1)                    # sparse
    one_line_error(_run("rekey", b, "--param", "key=5a", "--to", "emulator"), "build.json",
                    "larger than the limit of 64 MiB")


# ----------------------------------------------------------------------------- other inputs
def test_a_bitstream_fifo_or_device_is_refused(tmp_path):
    fifo = tmp_path / "t.bit"
    os.mkfifo(fifo)
    one_line_error(_run("bit", "info", fifo, module="dcsflow.scg"), str(fifo), "FIFO")
    one_line_error(_run("bit", "info", "/dev/zero", module="dcsflow.scg"), "/dev/zero", "character device")
    with pytest.raises(BitstreamError, match="FIFO"):
        B.read_file(fifo)


def test_a_too_large_bitstream_is_refused_naming_the_limit(tmp_path):
    p = tmp_path / "big.bin"
    with open(p, "wb") as f:
        f.truncate(F.BITSTREAM_LIMIT + 4)               # sparse
    one_line_error(_run("bit", "info", p, module="dcsflow.scg"), str(p), "larger than the limit of 256 MiB")


def test_project_file_and_hdl_source_fifos(tmp_path):
    toml = tmp_path / "dcsflow.toml"
    os.mkfifo(toml)
    one_line_error(_run("build", "-p", toml, "--out", tmp_path / "out"), str(toml), "FIFO")
    src = tmp_path / "keyxor.v"
    os.mkfifo(src)
    one_line_error(_run("build", src, "--out", tmp_path / "out2"), str(src), "FIFO")


def test_aiger_and_parameter_file_fifos(tmp_path):
    from dcsflow.aig import AigerError, read_aiger
    from dcsflow.tmap.errors import ParamError
    from dcsflow.tmap.params import read_param_file

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(AigerError, match="FIFO"):
        read_aiger(fifo)
    with pytest.raises(ParamError, match="FIFO"):
        read_param_file(fifo)


# ----------------------------------------------------------------------------- bitstream memory
def _fdri_flood(mb: int) -> bytes:
    """A raw stream whose one FDRI write carries about ``mb`` MB of whole frames, CRC-checked."""
    n = (mb << 18) // B.FRAME_WORDS * B.FRAME_WORDS
    data = B._new_words(n)
    for i in range(0, n, 4099):
        data[i] = i
    w = B.PacketWriter()
    w.raw(B.DUMMY, B.SYNC_WORD).write(B.R_IDCODE, 0x03727093).write(B.R_FAR, 0).cmd(B.CMD_WCFG).nop()
    w.fdri(data)
    w.crc_check().cmd(B.CMD_DESYNC)
    return w.to_bytes()


def test_a_flood_of_frame_data_is_read_within_about_its_size():
    B.parse(_fdri_flood(1))                 # the device model is loaded once, outside the measurement
    data = _fdri_flood(8)
    tracemalloc.start()
    try:
        bs = B.parse(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert bs.crc_ok and bs.frames_written > 9000
    # the stream's word array (1x the data), the frame memory and the CRC's pieces (a few MiB,
    # whatever the size): no copy of the frame data per step (about 9x the data before)
    frame_memory = bs.device.n_frames * B.FRAME_WORDS * 4
    assert peak < len(data) + frame_memory + (8 << 20), (peak, len(data))


def test_crc_in_pieces_is_the_crc_in_one_go():
    words = B._new_words(3 * B.CRC_PIECE_WORDS + 5)
    for i in range(0, len(words), 997):
        words[i] = (i * 2654435761) & 0xFFFFFFFF
    one = B._crc_words_tree(0x1234, B.R_FDRI, words)
    assert B.crc_words(0x1234, B.R_FDRI, words) == one
    with memoryview(words) as mv:
        assert B.crc_words(0x1234, B.R_FDRI, mv) == one


def test_read_file_reads_the_stream_straight_into_its_words(tmp_path):
    """``read_file`` reads the stream into the word array without the file's bytes: the same
    result as :func:`parse` of the bytes, and the same refusals."""
    stream = _fdri_flood(1)
    bit = B.to_bit(stream, design="t;design_hash=00")
    for name, data in (("t.bin", stream), ("t.bit", bit)):
        p = tmp_path / name
        p.write_bytes(data)
        got, want = B.read_file(p), B.parse(data)
        assert got.words == want.words and got.frames == want.frames and got.header == want.header
        assert got.crc_ok and got.frames_written == want.frames_written > 0
    p = tmp_path / "tail.bit"
    p.write_bytes(bit + b"\0")
    with pytest.raises(BitstreamError, match="1 bytes after the configuration data"):
        B.read_file(p)
    p.write_bytes(bit[:-4])
    with pytest.raises(BitstreamError, match="truncated: field 'e' announces"):
        B.read_file(p)
    p.write_bytes(stream[:-2])
    with pytest.raises(BitstreamError, match="not a whole number of 32-bit words"):
        B.read_file(p)


def test_package_folder_finds_an_installed_package_and_names_a_missing_one(monkeypatch):
    from dcsflow.fileio import package_folder

    assert package_folder("json", "x", "y", error=ValueError, need="v") == \
        Path(json.__file__).resolve().parent / "x" / "y"

    class Missing(Exception):
        pass

    monkeypatch.setitem(sys.modules, "cryptography_vectors", None)      # as if not installed
    with pytest.raises(Missing) as e:
        package_folder("cryptography_vectors", "hashes", error=Missing, need="the NIST SHA-3 vectors")
    assert str(e.value) == ("the NIST SHA-3 vectors come from the Python package cryptography_vectors: "
                            "pip install 'dcsflow[test]'")
    from dcsflow.designs.keccak import hashvec
    from dcsflow.designs.keccak.errors import VectorFileError

    with pytest.raises(VectorFileError, match="cryptography_vectors"):
        hashvec.cavp_dir()
