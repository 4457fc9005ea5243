"""Errors of the operating system and of hostile file names: one line, never a traceback or a
user's file written through.

Each test is a finding of a probe of the command lines: input nested too deeply to read, a file
the build lists that is now a folder, names too long for the file system, a full device (also as
standard output), folder names that are not UTF-8, a program that cannot be started, running out
of memory (every one a single line ``error: ...`` with exit status 1); outputs of a build folder that are symbolic links to a user's
files (the user's files stay unchanged); a rekey target in a folder that does not exist (refused,
nothing created).
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.fileio import write_bytes_atomic, write_files_atomic, write_text_atomic
from _cli import one_line_error

FLOW_DATA = Path(__file__).parent / "data" / "flow"
#: a small build: keyxor with one conventional candidate, no static re-map
SMALL = {"design": str(FLOW_DATA / "keyxor.v"), "baselines": ("yosys-abc",), "static_remap": False}
BUILD_ARGS = [str(FLOW_DATA / "keyxor.v"), "--baselines", "yosys-abc", "--no-static-remap", "-j", "1", "--quiet"]
LONG = "n" * 300                     # longer than NAME_MAX (255) of every Linux file system


def _scg(*args, **kw):
    return subprocess.run([sys.executable, "-m", "dcsflow.scg", *map(str, args)], capture_output=True,
                          text=True, **kw)


@pytest.fixture(scope="module")
def small(builds) -> Path:
    """A finished small build of keyxor (shared: tests alter copies)."""
    return builds.get("keyxor", **SMALL)


def _copy(src: Path, dst) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return Path(dst)


def _nest(path: Path, depth: int = 100_000) -> None:
    """Add a key holding ``depth`` nested arrays to the JSON object in ``path``."""
    text = path.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}")
    path.write_text(text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}\n", encoding="utf-8")


# ------------------------------------------------------------------------- input nested too deeply
def test_deeply_nested_build_json_is_one_line(small, tmp_path, dcsflow):
    b = _copy(small, tmp_path / "b")
    _nest(b / "build.json")
    one_line_error(dcsflow("report", b), "build.json", "nested too deeply")
    for args in (("check", b), ("rekey", b, "--param", "key=5a", "--to", "emulator")):
        one_line_error(dcsflow(*args), f"{b / 'build.json'}: input nested too deeply")
    one_line_error(_scg("rekey", b, "--param", "key=5a", "--to", "emulator"),
                    f"{b / 'build.json'}: input nested too deeply")


# ------------------------------------------------------------------------------- names too long
def test_output_names_too_long(small, tmp_path, dcsflow):
    long_out = tmp_path / LONG
    r = dcsflow("specialize", small, "--param", "key=5a", "--out", long_out / "x.v")
    one_line_error(r, LONG)
    r = dcsflow("specialize", small, "--param", "key=5a", "--out", tmp_path / (LONG + ".v"))
    one_line_error(r, LONG)
    from dcsflow.aig import write_aiger
    from dcsflow.tmap.generators import multiplier

    g, params = multiplier(2)
    f = tmp_path / "mul2.aig"
    write_aiger(g, f)
    one_line_error(dcsflow("map", f, "--no-baseline", "--no-verify", "--out", long_out), LONG)
    one_line_error(dcsflow("build", *BUILD_ARGS, "--out", long_out), LONG)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mul2.aig"]


# ------------------------------------------------------------------------------ a full device
def test_full_device_names_the_file(small, tmp_path, monkeypatch, capsys):
    """ENOSPC while writing: the atomic writer names the output, and the file stays as it was."""
    from dcsflow.flow.cli import main

    out = tmp_path / "spec.v"
    out.write_text("old\n")
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    monkeypatch.setattr("dcsflow.fileio.os.fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    rc = main(["specialize", str(small), "--param", "key=5a", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and err.startswith("error: "), err
    assert str(out) in err and os.strerror(errno.ENOSPC) in err
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["spec.v"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_standard_output_on_a_full_device(small):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "specialize", str(small), "--param", "key=5a"],
                           stdout=full, stderr=subprocess.PIPE, text=True)
    one_line_error(r, "standard output", os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("exc, needle", [
    (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/some/where/out.v"), "/some/where/out.v"),
    (OSError(errno.EROFS, os.strerror(errno.EROFS), "/ro/out.v"), os.strerror(errno.EROFS)),
    (PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/venv/bin/python"), "/venv/bin/python"),
    (IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), "/b/template.json"), "/b/template.json"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (MemoryError(), "out of memory"),
    (UnicodeEncodeError("utf-8", "/tmp/x\udcff", 6, 7, "surrogates not allowed"), "cannot encode"),
])
def test_last_resort_is_one_line(exc, needle, monkeypatch, capsys):
    """An error no command turned into its own message: one line in both command lines."""
    from dcsflow.flow import cli as flow_cli
    from dcsflow.flow import specialize
    from dcsflow.scg import cli as scg_cli
    from dcsflow.scg import commands

    def boom(*a, **k):
        raise exc

    monkeypatch.setattr(specialize, "specialize_to_file", boom)
    monkeypatch.setattr("dcsflow.flow.commands.specialize.specialize_to_file", boom, raising=False)
    rc = flow_cli.main(["specialize", "B", "--param", "key=5a"])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and err.startswith("error: ") and needle in err, err
    monkeypatch.setattr(commands, "run_command", boom)
    monkeypatch.setattr(scg_cli, "run_command", boom)
    rc = scg_cli.main(["rekey", "B", "--param", "key=5a"])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and err.startswith("error: ") and needle in err, err


def test_a_program_that_cannot_be_started_is_named(tmp_path):
    from dcsflow.tools import ToolStartError, run_tool

    prog = tmp_path / "vvp"
    prog.write_text("#!/bin/sh\n")
    prog.chmod(0o644)                                  # not executable
    with pytest.raises(ToolStartError) as e:
        run_tool([str(prog)], tool="vvp")
    assert str(e.value) == f"cannot start vvp ({prog}): {os.strerror(errno.EACCES)}"
    assert isinstance(e.value, OSError) and e.value.user_error


# --------------------------------------------------------------------- names that are not UTF-8
def test_folder_name_not_utf8_report(small, tmp_path):
    b = os.fsencode(tmp_path) + b"/b\xff"
    _copy(small, os.fsdecode(b))
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", b"report", b], capture_output=True)
    assert r.returncode == 0, r.stderr.decode("utf-8", "backslashreplace")[-3000:]
    assert b"Traceback" not in r.stderr
    page = (b + b"/report.html")
    with open(page, "rb") as f:
        html = f.read()
    assert b"b\xff" in html                                  # the name as the file system gives it
    assert b"b\\udcff/report.html" in r.stdout or b"b\\xff/report.html" in r.stdout


def test_build_out_not_utf8(tmp_path):
    out = os.fsencode(tmp_path) + b"/x\xff"
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", *BUILD_ARGS, "--out", out],
                       capture_output=True)
    assert r.returncode == 0, r.stderr.decode("utf-8", "backslashreplace")[-3000:]
    assert os.path.isfile(out + b"/report.html") and os.path.isfile(out + b"/build.json")


def test_write_text_atomic_passes_surrogates_through(tmp_path):
    write_text_atomic(tmp_path / "a.txt", "x\udcffy")
    assert (tmp_path / "a.txt").read_bytes() == b"x\xffy"
    write_files_atomic({tmp_path / "b.txt": "x\udcffy"})
    assert (tmp_path / "b.txt").read_bytes() == b"x\xffy"


# -------------------------------------------------------------- outputs never follow a symlink
def _user_files(tmp_path) -> Path:
    u = tmp_path / "user"
    (u / "figures").mkdir(parents=True)
    for name in ("page.html", "netlist.v", "figures/breakdown.png", "figures/mine.png", "data.bin"):
        (u / name).write_text(f"the user's {name}\n")
    return u


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_atomic_writers_replace_a_link_not_its_target(tmp_path):
    u = _user_files(tmp_path)
    before = _tree(u)
    d = tmp_path / "out"
    d.mkdir()
    for name, target in (("a.html", "page.html"), ("b.v", "netlist.v"), ("c.bin", "data.bin")):
        (d / name).symlink_to(u / target)
    write_text_atomic(d / "a.html", "new page\n")
    write_bytes_atomic(d / "c.bin", b"new data")
    write_files_atomic({d / "b.v": "new netlist\n"})
    assert _tree(u) == before
    assert not any(p.is_symlink() for p in d.iterdir())
    assert (d / "a.html").read_text() == "new page\n" and (d / "b.v").read_text() == "new netlist\n"
    assert (d / "c.bin").read_bytes() == b"new data"


def test_report_never_writes_through_links(small, tmp_path, dcsflow):
    u = _user_files(tmp_path)
    before = _tree(u)
    b = _copy(small, tmp_path / "b")
    (b / "report.html").unlink()
    (b / "report.html").symlink_to(u / "page.html")
    shutil.rmtree(b / "report")
    (b / "report").symlink_to(u / "figures")
    r = dcsflow("report", b)
    assert r.returncode == 0, r.stderr
    assert _tree(u) == before
    assert not (b / "report.html").is_symlink() and not (b / "report").is_symlink()
    assert (b / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert (b / "report" / "breakdown.png").read_bytes().startswith(b"\x89PNG")


def test_build_out_never_writes_through_links(small, tmp_path, dcsflow):
    u = _user_files(tmp_path)
    before = _tree(u)
    b = _copy(small, tmp_path / "b")
    for name, target in (("template.v", "netlist.v"), ("report.html", "page.html")):
        (b / name).unlink()
        (b / name).symlink_to(u / target)
    shutil.rmtree(b / "report")
    (b / "report").symlink_to(u / "figures")
    r = dcsflow("build", *BUILD_ARGS, "--out", b, "--from", "outputs")
    assert r.returncode == 0, r.stderr[-3000:]
    assert _tree(u) == before
    assert (b / "template.v").read_text().startswith("// dcsflow netlist")
    assert not any((b / n).is_symlink() for n in ("template.v", "report.html", "report"))


# ------------------------------------------------------------ a rekey target in a missing folder
def test_rekey_target_folder_is_not_created(small, tmp_path, dcsflow):
    for kind in ("bitfile", "partial"):
        target = tmp_path / "missing" / "deeper" / "x.bit"
        r = dcsflow("rekey", small, "--param", "key=5a", "--to", f"{kind}:{target}")
        one_line_error(r, f"{kind} target {target}", "does not exist")
        r = _scg("rekey", small, "--param", "key=5a", "--to", f"{kind}:{target}")
        one_line_error(r, "does not exist")
        assert not (tmp_path / "missing").exists()
    ok = tmp_path / "x.bit"
    r = dcsflow("rekey", small, "--param", "key=5a", "--to", f"bitfile:{ok}")
    assert r.returncode == 0 and ok.is_file(), r.stderr
