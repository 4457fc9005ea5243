"""The ``dcsflow bit`` commands (info, lut, diff, frames) run as a user would."""

from __future__ import annotations

import json

import pytest

from dcsflow.scg import bitstream as B


@pytest.fixture(scope="module")
def pynq_path(shared):
    return shared / "bitstreams" / "pynq-z1_base.bit"


@pytest.fixture(scope="module")
def modified(pynq_path, tmp_path_factory):
    """A full bitstream with two LUTs changed, and a partial bitstream with the changed frames."""
    bs = B.parse(pynq_path.read_bytes())
    mem = bs.frames.copy()
    mem.set_lut("SLICE_X54Y10", "A6LUT", 0x0123456789ABCDEF)
    mem.set_lut("SLICE_X57Y120", "D6LUT", 0xFFFF00000000FFFF)
    d = tmp_path_factory.mktemp("bits")
    full = d / "mod.bit"
    full.write_bytes(B.to_bit(B.write_full(mem), design="mod"))
    part = d / "mod_partial.bin"
    part.write_bytes(B.write_partial(mem, mem.diff(bs.frames)))
    return full, part


def test_info_json(dcsflow, pynq_path):
    r = dcsflow("bit", "info", pynq_path, "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["part"] == "xc7z020" and s["idcode"] == "0x03727093"
    assert s["fdri_frames"] == 10008 and s["crc"] == "ok" and len(s["crc_checks"]) == 2
    assert s["header"]["b"] == "7z020clg400" and s["header"]["c"] == "2019/01/23"


def test_info_table(dcsflow, pynq_path):
    r = dcsflow("bit", "info", pynq_path, "--no-ecc")
    assert r.returncode == 0 and "0x03727093" in r.stdout and "xc7z020" in r.stdout


def test_lut(dcsflow, pynq_path, modified):
    full, part = modified
    r = dcsflow("bit", "lut", full, "SLICE_X54Y10/A6LUT")
    assert r.returncode == 0 and r.stdout.strip() == "0123456789ABCDEF"
    r = dcsflow("bit", "lut", part, "SLICE_X57Y120/D6LUT")
    assert r.stdout.strip() == "FFFF00000000FFFF"
    r = dcsflow("bit", "lut", pynq_path, "SLICE_X54Y10/A6LUT")
    assert r.returncode == 0 and len(r.stdout.strip()) == 16


def test_diff(dcsflow, pynq_path, modified):
    full, _ = modified
    r = dcsflow("bit", "diff", pynq_path, full, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {(x["site"], x["bel"]) for x in d["luts"]} == {("SLICE_X54Y10", "A6LUT"), ("SLICE_X57Y120", "D6LUT")}
    assert 2 <= len(d["frames"]) <= 8
    r = dcsflow("bit", "diff", pynq_path, pynq_path)
    assert r.returncode == 0 and "identical" in r.stdout
    r = dcsflow("bit", "diff", pynq_path, full)
    assert "SLICE_X54Y10/A6LUT" in r.stdout and "-> 0123456789ABCDEF" in r.stdout


def test_frames_dump(dcsflow, modified, tmp_path):
    _, part = modified
    out = tmp_path / "p.frm"
    r = dcsflow("bit", "frames", part, "-o", out)
    assert r.returncode == 0, r.stderr
    mem = B.FrameMemory.from_frm(out.read_text())
    assert mem.get_lut("SLICE_X54Y10", "A6LUT") == 0x0123456789ABCDEF


@pytest.mark.parametrize("args,msg", [
    (("lut", "{bit}", "SLICE_X54Y10"), "SITE/BEL"),
    (("lut", "{bit}", "SLICE_X0Y120/A6LUT"), "not a CLB slice site"),
    (("lut", "{bit}", "SLICE_X54Y10/Q6LUT"), "unknown LUT BEL"),
    (("info", "{missing}"), "cannot read"),
    (("info", "{trunc}"), "truncated"),
    (("lut", "{flipped}", "SLICE_X54Y10/A6LUT"), "CRC mismatch"),
])
def test_errors_are_one_line(dcsflow, pynq_path, tmp_path, args, msg):
    raw = pynq_path.read_bytes()
    (tmp_path / "t.bit").write_bytes(raw[:300000])
    flipped = bytearray(raw)
    flipped[500000] ^= 4
    (tmp_path / "f.bit").write_bytes(bytes(flipped))
    subst = {"bit": str(pynq_path), "missing": str(tmp_path / "nope.bit"), "trunc": str(tmp_path / "t.bit"),
             "flipped": str(tmp_path / "f.bit")}
    r = dcsflow("bit", *[a.format(**subst) for a in args])
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and msg in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_diff_partial_against_full(dcsflow, pynq_path, modified):
    full, part = modified
    r = dcsflow("bit", "diff", part, full, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["compared"] == "frames written by both" and d["frames"] == [] and d["luts"] == []
    r = dcsflow("bit", "diff", part, pynq_path, "--json")
    d = json.loads(r.stdout)
    assert {(x["site"], x["bel"]) for x in d["luts"]} == {("SLICE_X54Y10", "A6LUT"), ("SLICE_X57Y120", "D6LUT")}
