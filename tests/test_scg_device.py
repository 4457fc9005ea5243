"""Device model (scg.device) against FACTS.md and the Project X-Ray data files."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.scg.device import (FrameAddress, decode_far, device_for_idcode, encode_far, get_device, lut_init_bit,
                        normalize_part, parse_bel, word_offset_of_y)
from dcsflow.scg.errors import DeviceError

PARTS = ("xc7z020", "xc7a35t")


# ---- FACTS.md worked examples and figures -----------------------------------------------------
def test_facts_worked_example_xc7a35t():
    dev = get_device("xc7a35t")
    s = dev.slice("SLICE_X12Y34")
    assert s.tile == "CLBLM_L_X10Y34" and s.site_index == 0 and s.kind == "SLICEM"
    assert dev.clb_columns[6] == 10
    assert s.base_far == 0x00400500 and s.word_offset == 69
    bits = dev.lut_bits("SLICE_X12Y34", "A6LUT")
    assert tuple(bits[0]) == (0x00400522, 69, 15)
    assert tuple(bits[63]) == (0x00400521, 69, 0)


def test_facts_worked_example_xc7z020():
    s = get_device("xc7z020").slice("SLICE_X56Y34")
    assert s.tile == "CLBLL_L_X38Y34"
    assert s.base_far == 0x00421300 and s.word_offset == 69


def test_facts_idcodes_and_counts():
    z = get_device("xc7z020")
    a = get_device("xc7a35t")
    assert z.idcode == 0x03727093 and a.idcode == 0x0362D093
    assert z.n_frames == 9996  # pynq-z1_base.bit: 10008 FDRI frames = 9996 real + 12 pad (FACTS.md)
    assert len(z.clb_columns) == 57 and len(a.clb_columns) == 33
    # datasheet totals quoted in FACTS.md: 13,300 slices, 4,350 SLICEMs
    assert len(z.sites) == 13300
    assert sum(1 for s in z.sites.values() if s.kind == "SLICEM") == 4350
    # Y ranges of FACTS.md: Y0-49 bottom row 1, Y50-99 bottom row 0, Y100-149 top row 0
    assert (z.slice("SLICE_X30Y10").bottom, z.slice("SLICE_X30Y10").row) == (1, 1)
    assert (z.slice("SLICE_X30Y60").bottom, z.slice("SLICE_X30Y60").row) == (1, 0)
    assert (z.slice("SLICE_X30Y110").bottom, z.slice("SLICE_X30Y110").row) == (0, 0)
    # odd-X slices are SLICEL everywhere
    assert all(s.kind == "SLICEL" for s in z.sites.values() if s.x % 2)
    assert all(s.kind == "SLICEL" for s in a.sites.values() if s.x % 2)


def test_lut_minors_and_4_frame_sets():
    dev = get_device()
    for site, minors in (("SLICE_X57Y10", (26, 27, 28, 29)), ("SLICE_X56Y10", (32, 33, 34, 35))):
        got = {decode_far(b.far).minor for bel in "ABCD" for b in dev.lut_bits(site, bel + "6LUT")}
        assert got == set(minors)
        for bel in "ABCD":
            by_minor = {}
            for b in dev.lut_bits(site, bel + "6LUT"):
                by_minor[decode_far(b.far).minor] = by_minor.get(decode_far(b.far).minor, 0) + 1
            assert sorted(by_minor.values()) == [16, 16, 16, 16]


# ---- segbits: every LUT INIT entry --------------------------------------------------------------
_SEG_RE = re.compile(r"^(CLBL[LM]_[LR])\.(SLICE[LM])_X([01])\.([ABCD])LUT\.INIT\[(\d+)\] (\d+)_(\d+)$")


@pytest.mark.parametrize("part", PARTS)
def test_every_segbits_lut_init_entry(shared, part):
    n = 0
    for kind in ("clbll_l", "clbll_r", "clblm_l", "clblm_r"):
        text = (shared / "xc7" / part / f"segbits_{kind}.db").read_text()
        for line in text.splitlines():
            if ".INIT[" not in line or "LUT.INIT" not in line:
                continue
            m = _SEG_RE.match(line.strip())
            assert m, line
            tile_type, slice_kind, site, lut, i, minor, bit = m.groups()
            assert tile_type.lower() == kind
            # SLICEM only at X0 of CLBLM (FACTS.md)
            assert (slice_kind == "SLICEM") == (tile_type.startswith("CLBLM") and site == "0")
            got = lut_init_bit(slice_kind, int(site), "ABCD".index(lut), int(i))
            assert got == (int(minor), int(bit)), line
            n += 1
    assert n == 2048  # FACTS.md: all 2048 LUT INIT entries of the four files


@pytest.mark.parametrize("part", PARTS)
def test_segbits_through_sites(shared, part):
    """The full site -> (FAR, word, bit) path agrees with segbits for one site of every tile type."""
    dev = get_device(part)
    seen = {}
    for s in dev.sites.values():
        seen.setdefault((s.tile_type, s.site_index), s)
    assert len(seen) == 8
    for (tile_type, idx), s in seen.items():
        text = (shared / "xc7" / part / f"segbits_{tile_type.lower()}.db").read_text()
        for lut in "ABCD":
            bits = dev.lut_bits(s.name, lut + "6LUT")
            for line in text.splitlines():
                m = _SEG_RE.match(line.strip())
                if not m or m.group(3) != str(idx) or m.group(4) != lut:
                    continue
                i, minor, b = int(m.group(5)), int(m.group(6)), int(m.group(7))
                assert bits[i].far == s.base_far + minor
                assert bits[i].word == s.word_offset + b // 32 and bits[i].bit == b % 32


# ---- tile grids: every baseaddr/offset ----------------------------------------------------------
_TILE_RE = re.compile(r"^(CLBL[LM]_[LR]|INT_[LR])_X(\d+)Y(\d+)$")


@pytest.mark.parametrize("part,path", [("xc7z020", ("xc7", "xc7z020", "roi_tilegrid", "tilegrid.json")),
                                       ("xc7a35t", ("xc7", "xc7a35t", "tilegrid.json"))])
def test_every_tilegrid_baseaddr_offset(shared, part, path):
    dev = get_device(part)
    grid = json.loads(shared.joinpath(*path).read_text())
    n_clb = n_int = n_hclk = 0
    for name, t in grid.items():
        if "baseaddr" not in t:
            continue
        base, off = int(t["baseaddr"], 16), int(t["offset"])
        m = _TILE_RE.match(name)
        if m:
            x, y = int(m.group(2)), int(m.group(3))
            assert dev.tile_base(x, y) == (base, off), name
            if name.startswith("CLB"):
                n_clb += 1
                for site, kind in t["sites"].items():
                    s = dev.slice(site)
                    assert (s.tile, s.kind, s.base_far, s.word_offset) == (name, kind, base, off)
                    assert dev.column_of_slice_x(s.x) == x
            else:
                n_int += 1
        elif t["type"].startswith("HCLK"):
            # the HCLK row of a clock region is word 50 of the column's frames
            assert off == 50 and base in dev.far_index
            n_hclk += 1
    assert n_clb == 400 and n_int == 400 and n_hclk == 8


def test_clb_tile_types_columns_match_part_json(shared):
    """Tile X of every CLB column in clb_tile_types.json equals C[x // 2] derived from part.json."""
    d = json.loads((shared / "xc7" / "xc7z020" / "clb_tile_types.json").read_text())
    dev = get_device("xc7z020")
    assert len(d["columns"]) == 57
    for col in d["columns"]:
        x0 = col["slice_x_pair"][0]
        assert dev.column_of_slice_x(x0) == col["tile_x"]
        assert col["side"] == ("L" if col["tile_x"] % 2 == 0 else "R")


@pytest.mark.parametrize("part", PARTS)
def test_all_sites_lut_frames_exist(part):
    dev = get_device(part)
    for s in dev.sites.values():
        for m in s.lut_minors:
            assert encode_far(0, s.bottom, s.row, s.column, m) in dev.far_index


# ---- FAR -----------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 7), st.integers(0, 1), st.integers(0, 31), st.integers(0, 1023), st.integers(0, 127))
def test_far_roundtrip(block, bottom, row, column, minor):
    far = encode_far(block, bottom, row, column, minor)
    assert decode_far(far) == FrameAddress(block, bottom, row, column, minor)
    assert FrameAddress(block, bottom, row, column, minor).encode() == far


def test_far_field_errors():
    with pytest.raises(DeviceError):
        encode_far(0, 0, 0, 1024, 0)
    with pytest.raises(DeviceError):
        encode_far(0, 2, 0, 0, 0)


@pytest.mark.parametrize("part", PARTS)
def test_fdri_order_follows_part_json(shared, part):
    dev = get_device(part)
    p = json.loads((shared / "xc7" / part / "part.json").read_text())
    total = 0
    for half in p["global_clock_regions"].values():
        for row in half["rows"].values():
            for bus in row["configuration_buses"].values():
                total += sum(c["frame_count"] for c in bus["configuration_columns"].values())
    assert dev.n_frames == total
    fa = dev.frame_addresses
    # increment order: minor, then column, then row, then half, then block
    for a, b in zip(fa, fa[1:]):
        da, db = decode_far(a), decode_far(b)
        assert (da.block, da.bottom, da.row, da.column, da.minor) < (db.block, db.bottom, db.row, db.column, db.minor)
    # row_end marks exactly the last frame of each (block, half, row)
    ends = [i for i in range(len(fa) - 1) if (fa[i] >> 17) != (fa[i + 1] >> 17)] + [len(fa) - 1]
    assert set(ends) == dev.row_end
    nxt, crossed = dev.next_far(fa[ends[0]])
    assert crossed and nxt == fa[ends[0] + 1]
    assert dev.next_far(fa[-1]) == (None, True)


def test_names_and_errors():
    assert normalize_part("7z020clg400") == "xc7z020"
    assert normalize_part("XC7A35T-CSG324") == "xc7a35t"
    assert device_for_idcode(0x13727093).name == "xc7z020"  # revision bits ignored
    assert parse_bel("c6lut") == 2 and parse_bel("DLUT") == 3
    assert word_offset_of_y(24) == 48 and word_offset_of_y(25) == 51 and word_offset_of_y(75) == 51
    for bad in ("xc7k325t",):
        with pytest.raises(DeviceError):
            normalize_part(bad)
    with pytest.raises(DeviceError):
        device_for_idcode(0x12345678)
    with pytest.raises(DeviceError, match="not a CLB slice site"):
        get_device().slice("SLICE_X0Y100")  # PS7 hole
    with pytest.raises(DeviceError, match="bad site name"):
        get_device().slice("SLICEX0Y0")
    with pytest.raises(DeviceError):
        parse_bel("A5LUT")


def test_data_locator_lists_where_it_looked(monkeypatch, tmp_path):
    from dcsflow.scg.data import data_file, shared_candidates
    from dcsflow.scg.errors import DataMissing

    monkeypatch.setenv("DCSFLOW_SHARED", str(tmp_path / "elsewhere"))
    assert shared_candidates()[0] == (tmp_path / "elsewhere").resolve()
    with pytest.raises(DataMissing) as e:
        data_file("xc7", "no_such_part", "part.json")
    msg = str(e.value)
    assert "elsewhere" in msg and "DCSFLOW_SHARED" in msg and "\n" not in msg
    assert DataMissing.user_error


def test_scg_runs_without_flow():
    """scg is the runtime package for the Zynq: it must not import flow (nor anything outside stdlib)."""
    import subprocess
    import sys

    code = ("import sys, scg.device, scg.bitstream, scg.emulator, scg.hwicap, scg.data;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('flow', 'click', 'rich', 'numpy')];"
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
