"""The pipeline on hostile input: interrupted and stale builds, the user's files, key material.

Each test is one finding of a hostile probe of the pipeline: a build interrupted at any point leaves a
folder every later command refuses and ``--from`` reruns what is missing or stale; ``build --out``
never destroys a user's files; a specialized netlist is never written inside a build folder; a
check killed by SIGTERM or SIGKILL leaves no specialized netlist behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _buildcache import KEYXOR as KEYXOR_OPTIONS
from dcsflow.flow.build import BuildOptions, build

DATA = Path(__file__).parent / "data"
KEYXOR = DATA / "flow" / "keyxor.v"


@pytest.fixture(scope="module")
def finished(builds) -> Path:
    """A finished build of keyxor (all stages; shared: tests alter copies)."""
    return builds.get("keyxor", **KEYXOR_OPTIONS)


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _one_line_error(r) -> str:
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def _refused_everywhere(dcsflow, out: Path) -> None:
    """Every command that reads a build folder refuses ``out`` with one line."""
    for args in (("rekey", out, "--param", "key=a5", "--to", "emulator"), ("codegen", out, "--out", out.parent / "g"),
                 ("specialize", out, "--param", "key=a5"), ("check", out)):
        _one_line_error(dcsflow(*args))


def test_interrupted_back_end_leaves_a_refused_folder_and_from_outputs_reruns_it(dcsflow, finished, tmp_path,
                                                                                 monkeypatch, capsys):
    """Ctrl-C during `build --from backend --seed 2` on a finished folder: no build.json, every reader
    refuses the folder, and `--from outputs` runs the back end again before it certifies anything."""
    from dcsflow.flow.stages import backend

    out = _copy(finished, tmp_path / "kx")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(backend, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(BuildOptions(design=str(KEYXOR), out=out, start="backend", seed=2, progress=False))
    monkeypatch.undo()
    assert not (out / "build.json").exists() and not (out / "stages" / "backend.json").exists()
    _refused_everywhere(dcsflow, out)
    capsys.readouterr()
    rep = build(BuildOptions(design=str(KEYXOR), out=out, start="outputs", seed=2, progress=False)).report
    assert "no result of the 'backend' stage: running from the 'backend' stage" in capsys.readouterr().err
    assert rep["backend"]["seed"] == 2
    r = dcsflow("rekey", out, "--param", "key=a5", "--to", "emulator", "--verify")
    assert r.returncode == 0 and "read-back verified" in r.stdout, r.stderr


def test_killed_back_end_leaves_a_refused_folder(dcsflow, finished, tmp_path):
    """SIGKILL at a moment during `build --from backend`: either the run finished (a valid folder) or
    every reader refuses what it left."""
    out = _copy(finished, tmp_path / "kx")
    p = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", str(KEYXOR), "--out", str(out), "--from",
                          "backend", "--seed", "3", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while (out / "stages" / "backend.json").exists() and time.time() < deadline:
        time.sleep(0.02)                      # the run removes the old record first
    time.sleep(0.3)
    p.send_signal(signal.SIGKILL)
    rc = p.wait()
    if rc == 0:                               # finished before the kill: a valid folder
        r = dcsflow("rekey", out, "--param", "key=a5", "--to", "emulator", "--verify")
        assert r.returncode == 0, r.stderr
    else:
        assert not (out / "build.json").exists()
        _refused_everywhere(dcsflow, out)


def test_changed_stage_output_makes_from_rerun_that_stage(finished, tmp_path, capsys):
    out = _copy(finished, tmp_path / "kx")
    pre = out / "frontend" / "pre.json"
    pre.write_text(pre.read_text().replace('"keyxor"', '"keyxor" ', 1))
    capsys.readouterr()
    rep = build(BuildOptions(design=str(KEYXOR), out=out, start="backend", progress=False)).report
    err = capsys.readouterr().err
    assert "frontend/pre.json changed since the frontend stage: running from the 'frontend' stage" in err
    assert rep["tlut"]["tluts"] > 0 and json.loads((out / "frontend" / "pre.json").read_text())


def test_out_into_a_users_folder_is_refused_and_force_keeps_their_files(dcsflow, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.json").write_text("my own report\n")
    (out / "notes.txt").write_text("mine\n")
    line = _one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet"))
    assert "not empty and not a dcsflow build folder" in line and "--force" in line
    # --force: the user's report.json would be replaced by the build's: still refused, nothing touched
    line = _one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", "--force"))
    assert "report.json already there" in line
    assert (out / "report.json").read_text() == "my own report\n" and sorted(p.name for p in out.iterdir()) == \
        ["notes.txt", "report.json"]
    (out / "report.json").unlink()
    r = dcsflow("build", KEYXOR, "--out", out, "--quiet", "--force")
    assert r.returncode == 0, r.stderr
    assert (out / "notes.txt").read_text() == "mine\n" and (out / "build.json").is_file()
    # once it is a build folder, building again needs no --force
    assert dcsflow("build", KEYXOR, "--out", out, "--quiet", "--from", "outputs").returncode == 0


def test_a_file_where_the_build_needs_a_folder_is_one_line(dcsflow, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.json").write_text("keep\n")
    (out / "frontend").write_text("a file of the user's\n")
    line = _one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", "--force"))
    assert "frontend" in line and "report.json" in line
    assert (out / "report.json").read_text() == "keep\n" and (out / "frontend").is_file()
    f = tmp_path / "afile"
    f.write_text("x")
    assert "is a file" in _one_line_error(dcsflow("build", KEYXOR, "--out", f, "--quiet"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_out_is_one_line(dcsflow, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        _one_line_error(dcsflow("build", KEYXOR, "--out", ro / "b", "--quiet"))
    finally:
        ro.chmod(0o700)


def test_specialized_netlist_never_inside_a_build_folder(dcsflow, finished, tmp_path):
    out = _copy(finished, tmp_path / "kx")
    before = (out / "template.v").read_bytes()
    for target in (out / "template.v", out / "tlut" / "spec.v", out / "new" / "spec.v"):
        line = _one_line_error(dcsflow("specialize", out, "--param", "key=a5", "--out", target))
        assert "inside the build folder" in line
    assert (out / "template.v").read_bytes() == before and not (out / "tlut" / "spec.v").exists()
    f = tmp_path / "spec.v"
    assert dcsflow("specialize", out, "--param", "key=a5", "--out", f).returncode == 0
    assert f.stat().st_mode & 0o777 == 0o600
    d = tmp_path / "adir"
    d.mkdir()
    assert "is a directory" in _one_line_error(dcsflow("specialize", out, "--param", "key=a5", "--out", d))
    (tmp_path / "afile").write_text("x")     # a file where a folder is expected
    line = _one_line_error(dcsflow("specialize", out, "--param", "key=a5", "--out", tmp_path / "afile" / "spec.v"))
    assert "cannot write" in line and "afile" in line


def test_specialized_bitstream_never_inside_a_build_folder(dcsflow, finished, tmp_path):
    out = _copy(finished, tmp_path / "kx")
    for target in (f"bitfile:{out / 'k.bit'}", f"partial:{out / 'tlut' / 'p.bin'}"):
        line = _one_line_error(dcsflow("rekey", out, "--param", "key=a5", "--to", target))
        assert "inside the build folder" in line
    assert not (out / "k.bit").exists() and not (out / "tlut" / "p.bin").exists()
    r = dcsflow("rekey", out, "--param", "key=a5", "--to", f"partial:{tmp_path / 'p.bin'}")
    assert r.returncode == 0 and (tmp_path / "p.bin").stat().st_mode & 0o777 == 0o600, r.stderr


def _work_folders(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("dcsflow-check-*"))


def test_check_killed_leaves_no_specialized_netlist(finished, tmp_path):
    """SIGTERM: the check removes its private work folder on the way out; SIGKILL: the next check
    removes the folder the killed one left."""
    from dcsflow.flow.check import remove_stale_work_folders

    proj = tmp_path / "proj"
    shutil.copytree(DATA / "project", proj)
    shutil.copytree(DATA / "flow", tmp_path / "flow")
    out = tmp_path / "b"
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", "-p", proj / "dcsflow.toml", "--out", out, "--quiet"],
                   check=True, capture_output=True)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "check", str(out), "--keys", "20", "--quiet"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while not any((d / "g0" / "netlist.v").exists() for d in _work_folders(tmp)) and time.time() < deadline:
            time.sleep(0.05)
        assert _work_folders(tmp), "the check never wrote its work folder"
        p.send_signal(sig)
        err = p.communicate(timeout=120)[1]
        if sig == signal.SIGTERM:
            assert p.returncode == 143 and "terminated" in err and "Traceback" not in err, err
            assert not _work_folders(tmp), "SIGTERM left a work folder with key material"
        else:
            assert _work_folders(tmp)         # nothing can clean up after SIGKILL ...
            assert remove_stale_work_folders(str(tmp)) and not _work_folders(tmp)   # ... the next check does
