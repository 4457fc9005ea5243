"""Small surfaces of hostile input: outputs all-or-nothing on a full disk, ``.bit`` header lengths,
numbers in ASCII digits, project names.

- ``codegen --out A --firmware B`` and ``map --out D`` on a file system that fills up while they write
  (a 256 KiB tmpfs, mounted for the test; skipped where mounting is not allowed): one line, exit 1,
  no folder they created left behind, the files of an earlier run unchanged.
- A ``.bit`` header whose length fields disagree with the file (field ``e`` 0, 0xFFFFFFFF, four bytes
  short or long; a string field longer than the file) is refused by ``bit info/lut/diff/frames`` of
  both command lines in one line.
- Integer options, ``--timeout``, ``--max-memory`` and ``DCSFLOW_JOBS`` take ASCII digits only
  (Python's ``int`` reads ``'２'`` as 2).
- A project's ``design.name`` names the build folder: 1 to 64 ASCII letters, digits and ``_-.+``.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path

import pytest

from dcsflow.scg import cli
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.bitstream import parse_bit_header

DATA = Path(__file__).parent / "data"


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.fixture
def full_disk(tmp_path):
    """A 256 KiB tmpfs at ``tmp_path/disk`` (unmounted afterwards)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("mounting a small tmpfs is not allowed here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` until about ``leave`` bytes are free."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    if free > leave:
        (disk / "filler").write_bytes(b"\0" * (free - leave))


def test_codegen_on_a_full_disk_leaves_no_folder_and_keeps_the_old_outputs(full_disk, tmp_path, capsys):
    syn = make_build(tmp_path / "syn")
    old = full_disk / "old"
    assert cli.main(["codegen", str(syn), "--out", str(old)]) == 0           # an earlier run's outputs
    before = _snapshot(old)
    _fill(full_disk, 20_000)
    capsys.readouterr()
    for args in (["--out", str(full_disk / "new" / "gen")],
                 ["--out", str(old)],
                 ["--out", str(full_disk / "a"), "--firmware", str(full_disk / "fw" / "b")]):
        assert cli.main(["codegen", str(syn), *args]) == 1, args
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "No space left on device" in err, err
        assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "old"], args
        assert _snapshot(old) == before


def test_map_on_a_full_disk_leaves_no_folder_and_keeps_the_old_outputs(full_disk, tmp_path, dcsflow):
    aig = tmp_path / "t.aag"            # y = a AND NOT key[0], key[0] a parameter input
    aig.write_text("aag 3 2 0 1 1\n2\n4\n6\n6 2 5\ni0 a\ni1 key[0]\no0 y\n")
    old = full_disk / "old"
    r = dcsflow("map", aig, "--params", _params(tmp_path), "--out", old, "--no-baseline", timeout=120)
    assert r.returncode == 0, r.stderr
    before = _snapshot(old)
    _fill(full_disk, 4096)
    for out in (full_disk / "new" / "m", old):
        r = dcsflow("map", aig, "--params", _params(tmp_path), "--out", out, "--no-baseline", timeout=120)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.returncode == 1 and "Traceback" not in r.stderr and lines[-1].startswith("error: "), r.stderr
        assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "old"], out
        assert _snapshot(old) == before


def _params(tmp_path: Path) -> Path:
    p = tmp_path / "params.txt"
    p.write_text("key[0]\n")
    return p


# ------------------------------------------------------------------------------ .bit header lengths

@pytest.fixture(scope="module")
def small_bit(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bit")
    syn = make_build(d / "syn")
    out = d / "k.bit"
    assert cli.main(["rekey", str(syn), "--param", "key=beef", "--to", f"bitfile:{out}"]) == 0
    return out


def _with_e_length(data: bytes, n: int) -> bytes:
    _, off, _ = parse_bit_header(data)
    return data[:off - 4] + struct.pack(">I", n & 0xFFFFFFFF) + data[off:]


@pytest.mark.parametrize("change", ["e=0", "e=ffffffff", "e short", "e long", "a longer than the file",
                                    "header only"])
@pytest.mark.parametrize("command", ["info", "lut", "diff", "frames"])
@pytest.mark.parametrize("command_line", ["runtime", "dcsflow"])
def test_bit_header_lengths_are_checked_against_the_file(small_bit, tmp_path, capsys, dcsflow, change, command,
                                                         command_line):
    data = small_bit.read_bytes()
    _, off, n = parse_bit_header(data)
    bad = {"e=0": lambda: _with_e_length(data, 0), "e=ffffffff": lambda: _with_e_length(data, 0xFFFFFFFF),
           "e short": lambda: _with_e_length(data, n - 4), "e long": lambda: _with_e_length(data, n + 4),
           "a longer than the file": lambda: data[:14] + b"\xff\xff" + data[16:],
           "header only": lambda: _with_e_length(data, 0)[:off]}[change]()
    p = tmp_path / "bad.bit"
    p.write_bytes(bad)
    args = {"info": ["bit", "info", str(p)], "lut": ["bit", "lut", str(p), "SLICE_X56Y34/A6LUT"],
            "diff": ["bit", "diff", str(p), str(small_bit)],
            "frames": ["bit", "frames", str(p), "-o", str(tmp_path / "f.frm")]}[command]
    if command_line == "runtime":
        rc = cli.main(args)
        out, err = capsys.readouterr()
    else:
        r = dcsflow(*args, timeout=60)
        rc, out, err = r.returncode, r.stdout, r.stderr
    assert rc == 1 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (rc, out, err)
    assert not (tmp_path / "f.frm").exists()


# ------------------------------------------------------------------------------ ASCII digits

@pytest.mark.parametrize("args", [
    ["build", "x.v", "--seed", "２"], ["build", "x.v", "--lut-size", "４"], ["build", "x.v", "-j", "２"],
    ["build", "x.v", "--frontend-cycles", "١٠"], ["check", "b", "--keys", "３"], ["check", "b", "--seed", "٣"],
    ["map", "x.aag", "-K", "６"], ["build", "x.v", "--timeout", "６０"], ["build", "x.v", "--max-memory", "２G"],
    ["sim", "aes128_iter", "--stall", "７"],
])
def test_numbers_in_other_scripts_digits_are_refused(dcsflow, args):
    r = dcsflow(*args, timeout=60)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode in (1, 2) and len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("value", ["２", "٣", "1２", "+", "", " "])
def test_jobs_from_the_environment_take_ascii_digits_only(dcsflow, tmp_path, value):
    from dcsflow.flow.jobs import JobsError, default_jobs

    os.environ["DCSFLOW_JOBS"] = value
    try:
        if value.strip():
            with pytest.raises(JobsError, match="ASCII digits"):
                default_jobs()
        else:
            assert default_jobs() >= 1
    finally:
        del os.environ["DCSFLOW_JOBS"]
    if value.strip():
        r = dcsflow("build", DATA / "flow" / "keyxor.v", "--out", tmp_path / "b", env={**os.environ, "DCSFLOW_JOBS": value},
                    timeout=60)
        assert r.returncode == 1 and "DCSFLOW_JOBS" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_ascii_numbers_still_work():
    from dcsflow import limits
    from dcsflow.flow.clitypes import int_range
    from dcsflow.flow.jobs import check_jobs

    assert int_range(1, 9).convert(" 7 ", None, None) == 7 and check_jobs("2") == 2
    assert limits.check_time_limit("60") == 60.0 and limits.check_memory_limit("2G") == 2 << 30


# ------------------------------------------------------------------------------ project names

@pytest.mark.parametrize("name", ["a\\nb", "../x", "", "a/b", " x", "é", "-x", "x" * 65, "a b", "a\\u0000b"])
def test_project_names_outside_the_safe_set_are_refused(tmp_path, name):
    from dcsflow.flow.project import ProjectError, load_project

    (tmp_path / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    p.write_text(f'[design]\nname = "{name}"\nsources = ["t.v"]\n')
    with pytest.raises(ProjectError, match="design.name must be 1 to 64 ASCII letters"):
        load_project(p)


def test_project_names_inside_the_safe_set_are_read(tmp_path):
    from dcsflow.flow.project import load_project

    (tmp_path / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    p.write_text('[design]\nname = "keyxor_1.2-b+c"\nsources = ["t.v"]\n')
    assert load_project(p).name == "keyxor_1.2-b+c"


def test_bit_frames_never_writes_inside_a_build_folder(small_bit, tmp_path, capsys):
    syn = make_build(tmp_path / "syn")
    before = _snapshot(syn)
    for target in (syn / "ppc.json", syn / "tlut" / "mine.frm"):
        assert cli.main(["bit", "frames", str(small_bit), "-o", str(target)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"error: cannot write {target}: it is inside the build folder {syn}") \
            and err.count("\n") == 1, err
    assert _snapshot(syn) == before


@pytest.mark.parametrize("rel, shown", [("a\nb.py", "'a\\nb.py'"), ("A" * 5000, "'" + "A" * 200 + "'")])
def test_project_paths_that_cannot_be_files_are_one_line(tmp_path, rel, shown):
    import tomllib

    from dcsflow.flow.project import ProjectError, load_project

    (tmp_path / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    p.write_text('[design]\nname = "t"\nsources = ["t.v"]\n[check]\ncocotb = ' + json.dumps(rel) + "\n")
    assert tomllib.loads(p.read_text())["check"]["cocotb"] == rel
    with pytest.raises(ProjectError) as ei:
        load_project(p)
    assert "\n" not in str(ei.value) and f"cocotb test {shown}" in str(ei.value), str(ei.value)
