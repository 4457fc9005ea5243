"""A user's files are never written through: which folders a build may use, the build folder's
lock, and the group writes of ``codegen``.

- A folder is a build folder only if its own records say so (``build.json`` of dcsflow, or the
  record ``stages/folder.json`` a build writes before anything else): a user's folder that merely
  holds a ``stages/`` subfolder is refused by ``build --out`` (also with ``--from``), untouched.
- A build folder in use is locked (``.lock``, :mod:`dcsflow.scg.folderlock`): a second build,
  ``import`` or ``report`` fails at once with one line naming the holder's pid; the lock dies with
  its holder; the lock file is no output (not listed in ``build.json``, ignored by the reader).
- ``codegen --out A --firmware B`` writes every file of both folders as a temporary first: a
  failure on B leaves A's earlier files as they were.

Fast: no test here runs a whole build except the ones that use the session's shared keyxor build.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _buildcache import KEYXOR as KEYXOR_OPTIONS
from dcsflow.flow.build import BuildOptions, build
from dcsflow.scg import cli
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.buildfolder import FOLDER_RECORD, is_build_folder, load_build
from dcsflow.scg.folderlock import LOCK_FILE, FolderInUse, locked_folder
from _cli import one_line_error

DATA = Path(__file__).parent / "data"
KEYXOR = DATA / "flow" / "keyxor.v"


def _snapshot(folder: Path) -> dict:
    """Every entry under ``folder``: relative path -> bytes (files) or None (folders)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def _fake_yosys(tmp_path: Path) -> dict:
    """An environment whose Yosys fails at once (exit status 7): a build that gets past the folder
    checks fails in its front end within a second."""
    y = tmp_path / "fakeyosys"
    y.write_text("#!/bin/sh\necho 'fake yosys'\nexit 7\n")
    y.chmod(y.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "DCSFLOW_YOSYS": str(y)}


def _users_folder(tmp_path: Path) -> Path:
    out = tmp_path / "mine"
    (out / "stages").mkdir(parents=True)
    (out / "frontend").mkdir()
    (out / "report.json").write_text("my own report\n")
    (out / "frontend" / "pre.json").write_text('{"mine": true}\n')
    (out / "stages" / "notes.json").write_text('{"format": "my-notes"}\n')
    return out


# ------------------------------------------------------------------ which folders are build folders
def test_a_users_folder_with_stages_is_not_a_build_folder(tmp_path):
    out = _users_folder(tmp_path)
    assert not is_build_folder(out)
    (out / "build.json").write_text('{"format": "someone-elses-build"}\n')
    assert not is_build_folder(out)


def test_build_folders_are_known_by_their_records(tmp_path):
    a = tmp_path / "a"
    (a / "stages").mkdir(parents=True)
    (a / FOLDER_RECORD).write_text('{"format": "dcsflow-build-folder", "version": 1}\n')
    assert is_build_folder(a)
    b = tmp_path / "b"                     # a build of an earlier dcsflow: stage records only
    (b / "stages").mkdir(parents=True)
    (b / "stages" / "frontend.json").write_text('{"format": "dcsflow-stage", "version": 5}\n')
    assert is_build_folder(b)
    c = tmp_path / "c"
    c.mkdir()
    (c / "build.json").write_text('{"format": "dcsflow-build", "version": 1}\n')
    assert is_build_folder(c)


@pytest.mark.parametrize("extra", [[], ["--from", "tmap"], ["--from", "outputs"]])
def test_build_out_into_a_users_folder_with_stages_is_refused_untouched(dcsflow, tmp_path, extra):
    out = _users_folder(tmp_path)
    before = _snapshot(out)
    t0 = time.monotonic()
    line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", *extra))
    assert "not a dcsflow build folder" in line and "--force" in line and str(out) in line, line
    assert time.monotonic() - t0 < 30
    assert _snapshot(out) == before               # byte-identical, and no lock file or record added
    assert not (out / LOCK_FILE).exists()


def test_build_force_refuses_a_users_stages_folder(dcsflow, tmp_path):
    out = _users_folder(tmp_path)
    (out / "report.json").unlink()
    before = _snapshot(out)
    line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", "--force"))
    assert "stages" in line and "frontend" in line and "already there" in line, line
    assert _snapshot(out) == before


def test_build_interrupted_before_its_first_stage_is_still_a_build_folder(dcsflow, tmp_path, monkeypatch):
    """The folder record is written before anything else: a build interrupted in its front end
    leaves a folder that the next build accepts (and resumes) without --force."""
    from dcsflow.flow.stages import frontend

    out = tmp_path / "b"

    def interrupted(*a, **k):
        assert is_build_folder(out) and (out / LOCK_FILE).is_file()
        raise KeyboardInterrupt

    monkeypatch.setattr(frontend, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(BuildOptions(design=str(KEYXOR), out=out, progress=False))
    monkeypatch.undo()
    assert is_build_folder(out) and not (out / "stages" / "frontend.json").exists()
    # accepted: the run reaches its front end (a Yosys that fails at once), no "not a build folder"
    line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", "--to", "frontend",
                                   env=_fake_yosys(tmp_path)))
    assert "not a dcsflow build folder" not in line and "yosys" in line, line


# ------------------------------------------------------------------ the lock
def _hold(folder: Path, pid_text: str | None = None):
    """Take the folder's lock in this process (as another dcsflow would: a lock on the folder itself,
    its pid in the lock file); returns the folder's fd."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    (folder / LOCK_FILE).write_text(pid_text if pid_text is not None else f"{os.getpid()}\nbuild\n")
    return fd


def _fake_finished(folder: Path) -> Path:
    """A folder a build has claimed and finished (records only; enough for the folder checks)."""
    (folder / "stages").mkdir(parents=True)
    (folder / FOLDER_RECORD).write_text('{"format": "dcsflow-build-folder", "version": 1}\n')
    (folder / "build.json").write_text('{"format": "dcsflow-build", "version": 2}\n')
    (folder / "report.json").write_text('{"the first build": "still writing"}\n')
    return folder


@pytest.mark.parametrize("kind", ["new", "held build folder"])
def test_second_build_into_a_held_folder_fails_at_once_in_one_line(dcsflow, tmp_path, kind):
    out = tmp_path / "b"
    if kind == "new":
        out.mkdir()
    else:
        _fake_finished(out)
    fd = _hold(out)
    try:
        before = {k: v for k, v in _snapshot(out).items() if k != LOCK_FILE}
        t0 = time.monotonic()
        r = dcsflow("build", KEYXOR, "--out", out, "--quiet", env=_fake_yosys(tmp_path))
        took = time.monotonic() - t0
    finally:
        os.close(fd)
    line = one_line_error(r)
    assert line == f"error: build folder {out} is in use by another dcsflow build (pid {os.getpid()})", line
    assert took < 30
    # nothing of the first build's was removed (the stale-file removal comes after the lock)
    assert {k: v for k, v in _snapshot(out).items() if k != LOCK_FILE} == before


def test_lock_in_process_twice_and_names_the_holder(tmp_path):
    with locked_folder(tmp_path, "import"):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\nimport\n"
        with pytest.raises(FolderInUse, match=rf"^build folder {tmp_path} is in use by another dcsflow import "
                                              rf"\(pid {os.getpid()}\)$"):
            with locked_folder(tmp_path):
                pass
    with locked_folder(tmp_path):           # released at the end of the block
        pass


def test_lock_dies_with_its_holder(tmp_path):
    code = ("import sys, time\nfrom dcsflow.scg.folderlock import locked_folder\n"
            "with locked_folder(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        with pytest.raises(FolderInUse, match=rf"\(pid {p.pid}\)"):
            with locked_folder(tmp_path):
                pass
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    with locked_folder(tmp_path):           # no stale lock after a SIGKILL
        pass


def _empty_folder(folder: Path) -> None:
    """Delete every file and subfolder in ``folder`` (the folder itself stays)."""
    for p in folder.iterdir():
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def test_deleting_every_file_of_a_held_folder_keeps_it_locked(dcsflow, tmp_path):
    """A build in its front end (a Yosys that waits) holds its folder; deleting every file in the
    folder, the lock file too, does not let a second build in."""
    out = tmp_path / "b"
    started = tmp_path / "yosys.started"
    slow = tmp_path / "slowyosys"
    slow.write_text(f"#!/bin/sh\ntouch '{started}'\nsleep 60\n")
    slow.chmod(slow.stat().st_mode | stat.S_IXUSR)
    first = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", str(KEYXOR), "--out", str(out),
                              "--quiet"], env={**os.environ, "DCSFLOW_YOSYS": str(slow)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), first.stderr.read() if first.poll() is not None else "no yosys run"
        assert (out / LOCK_FILE).is_file() and (out / FOLDER_RECORD).is_file()
        _empty_folder(out)
        assert list(out.iterdir()) == []
        line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", env=_fake_yosys(tmp_path)))
        assert line == f"error: build folder {out} is in use by another dcsflow build", line
        with pytest.raises(FolderInUse):
            with locked_folder(out, "import"):
                pass
        assert first.poll() is None, "the first build ended"
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    with locked_folder(out):               # released once the first build ended
        pass


def test_lock_file_that_is_a_link_is_never_followed(tmp_path):
    target = tmp_path / "users_file"
    target.write_text("keep\n")
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / LOCK_FILE).symlink_to(target)
    with pytest.raises(Exception, match="lock file"):
        with locked_folder(folder):
            pass
    assert target.read_text() == "keep\n"


def test_lock_file_does_not_make_a_build_look_tampered(tmp_path):
    b = make_build(tmp_path / "syn")
    with locked_folder(b):
        load_build(b)                      # the reader ignores it, also while it is held
    assert (Path(b) / LOCK_FILE).is_file()
    load_build(b)


def test_import_into_a_held_folder_is_one_line(tmp_path):
    from dcsflow.scg.vivado_import import import_vivado

    b = Path(make_build(tmp_path / "syn"))
    with locked_folder(b, "build"):
        with pytest.raises(FolderInUse, match=r"in use by another dcsflow build \(pid \d+\)$"):
            import_vivado(b, tmp_path / "none.bit", tmp_path / "none.json")


def test_import_never_creates_a_lock_in_a_users_folder(tmp_path):
    from dcsflow.scg.errors import BuildFolderError
    from dcsflow.scg.vivado_import import import_vivado

    out = _users_folder(tmp_path)
    before = _snapshot(out)
    with pytest.raises(BuildFolderError):
        import_vivado(out, tmp_path / "none.bit", tmp_path / "none.json")
    assert _snapshot(out) == before


@pytest.fixture(scope="module")
def finished(builds) -> Path:
    """The session's finished keyxor build (read-only: tests copy it)."""
    return builds.get("keyxor", **KEYXOR_OPTIONS)


def test_finished_build_keeps_its_lock_file_unlisted_and_reports_are_locked(finished, dcsflow, tmp_path):
    out = tmp_path / "kx"
    shutil.copytree(finished, out, symlinks=True)
    assert (out / LOCK_FILE).is_file() and (out / FOLDER_RECORD).is_file()
    files = json.loads((out / "build.json").read_text())["files"]
    assert not any(LOCK_FILE in n or n.startswith("stages/") for n in files)
    page = (out / "report.html").read_bytes()
    fd = _hold(out, f"{os.getpid()}\nbuild\n")
    try:
        line = one_line_error(dcsflow("report", out))
        assert "in use by another dcsflow build" in line, line
        assert (out / "report.html").read_bytes() == page
        r = dcsflow("rekey", out, "--param", "key=a5", "--to", "emulator")   # readers do not lock
        assert r.returncode == 0, r.stderr
    finally:
        os.close(fd)
    r = dcsflow("report", out)
    assert r.returncode == 0, r.stderr


def test_retargeting_a_build_folder_is_refused_without_force(finished, dcsflow, tmp_path):
    """A folder built for xc7z020, run again from the back end for the Arty's xc7a35t: refused in one
    line naming both devices, nothing of the folder touched; with --force it is re-targeted, a note
    says what was replaced, and the page then models only the Artix-7's transports."""
    out = tmp_path / "kx"
    shutil.copytree(finished, out, symlinks=True)
    assert json.loads((out / "build.json").read_text())["device"] == "xc7z020"
    before = _snapshot(out)
    line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--from", "backend", "--board", "arty-a7-35",
                                  "--backend", "vivado", "--quiet"))
    assert f"--out {out}: built for xc7z020; this run targets xc7a35t (--board arty-a7-35)" in line, line
    assert "--force" in line
    assert _snapshot(out) == before
    r = dcsflow("build", KEYXOR, "--out", out, "--from", "backend", "--device", "xc7a35t", "--force", "--quiet")
    assert r.returncode == 0, r.stderr
    assert f"note: {out}: re-targeted from xc7z020 to xc7a35t" in r.stderr
    assert json.loads((out / "build.json").read_text())["device"] == "xc7a35t"
    page = (out / "report.html").read_text()
    assert "<td>PCAP</td>" not in page and "Cortex-A9 instructions" not in page and "has no Cortex-A9" in page
    assert "<td>AXI HWICAP</td>" in page and "<td>raw ICAP</td>" in page
    # the same device again: no question asked
    r = dcsflow("build", KEYXOR, "--out", out, "--from", "backend", "--device", "xc7a35t", "--quiet")
    assert r.returncode == 0 and "re-targeted" not in r.stderr, r.stderr


# ------------------------------------------------------------------ codegen's two folders
@pytest.fixture
def gen_folders(tmp_path):
    """A and B written once by codegen --synthetic --out A --firmware B (the user's earlier outputs)."""
    a, b = tmp_path / "A", tmp_path / "B"
    assert cli.main(["codegen", "--synthetic", "--out", str(a), "--firmware", str(b)]) == 0
    for f in a.iterdir():                      # mark them, so that a rewrite is seen
        f.write_bytes(b"/* earlier */\n" + f.read_bytes())
    return a, b


def _no_temporaries(*folders: Path) -> None:
    for d in folders:
        assert not [p.name for p in d.iterdir() if p.name.endswith(".tmp")], d


def test_codegen_full_disk_on_the_firmware_folder_keeps_the_old_outputs(gen_folders, monkeypatch, capsys):
    import tempfile as tf

    a, b = gen_folders
    before_a, before_b = _snapshot(a), _snapshot(b)
    real = tf.mkstemp

    def full_on_b(*args, dir=None, **kw):
        if dir is not None and Path(dir).resolve() == b.resolve():
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, dir=dir, **kw)

    monkeypatch.setattr("dcsflow.fileio.tempfile.mkstemp", full_on_b)
    capsys.readouterr()
    assert cli.main(["codegen", "--synthetic", "--out", str(a), "--firmware", str(b), "--style", "table"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "No space left on device" in err and err.count("\n") == 1, err
    assert _snapshot(a) == before_a and _snapshot(b) == before_b
    _no_temporaries(a, b)


def test_codegen_write_failing_inside_a_firmware_file_keeps_the_old_outputs(gen_folders, monkeypatch, capsys):
    """ENOSPC while the firmware's Makefile is written (after A's temporaries are complete)."""
    import dcsflow.fileio as fileio

    a, b = gen_folders
    before_a, before_b = _snapshot(a), _snapshot(b)
    real = fileio.os.fdopen

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd, mode="r", *args, **kw):
        f = real(fd, mode, *args, **kw)
        name = os.readlink(f"/proc/self/fd/{fd}")
        return Full(f) if Path(name).parent == b.resolve() and ".Makefile." in name else f

    monkeypatch.setattr(fileio.os, "fdopen", fdopen)
    assert cli.main(["codegen", "--synthetic", "--out", str(a), "--firmware", str(b), "--style", "table"]) == 1
    assert "No space left on device" in capsys.readouterr().err
    monkeypatch.undo()
    assert _snapshot(a) == before_a and _snapshot(b) == before_b
    _no_temporaries(a, b)


def test_codegen_folder_where_a_firmware_file_goes_keeps_the_old_outputs(gen_folders, capsys):
    a, b = gen_folders
    (b / "Makefile").unlink()
    (b / "Makefile").mkdir()                   # the user's folder where a firmware file goes
    before_a = _snapshot(a)
    assert cli.main(["codegen", "--synthetic", "--out", str(a), "--firmware", str(b), "--style", "table"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Makefile" in err and "folder" in err, err
    assert _snapshot(a) == before_a and (b / "Makefile").is_dir()
    _no_temporaries(a, b)


def test_codegen_both_folders_written_when_all_is_well(gen_folders):
    a, b = gen_folders
    assert cli.main(["codegen", "--synthetic", "--out", str(a), "--firmware", str(b)]) == 0
    assert not (a / "scg_gen.c").read_bytes().startswith(b"/* earlier */")
    assert (b / "Makefile").is_file()
    _no_temporaries(a, b)


# ------------------------------------------------------------------ stage outputs written whole
HALF_WRITING_YOSYS = """#!/bin/sh
# the real Yosys, except for the run that writes NAME: half of a JSON file there, then SIGKILL
for a; do case "$a" in *.ys) ys="$a";; esac; done
out=$(sed -n 's/^write_json \\(.*NAME.*\\)$/\\1/p' "$ys" | tail -1)
if [ -n "$out" ]; then printf '{"creator": "Yosys 0.23", "modules": {"t' > "$out"; kill -KILL $$; fi
exec yosys "$@"
"""


def _half_writing_yosys(tmp_path: Path, name: str) -> dict:
    y = tmp_path / "halfyosys"
    y.write_text(HALF_WRITING_YOSYS.replace("NAME", name.replace(".", "\\.")))
    y.chmod(y.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "DCSFLOW_YOSYS": str(y)}


def test_yosys_killed_while_writing_pre_json_leaves_no_partial_file(dcsflow, tmp_path):
    out = tmp_path / "b"
    (out / "frontend").mkdir(parents=True)
    (out / FOLDER_RECORD).parent.mkdir()
    (out / FOLDER_RECORD).write_text('{"format": "dcsflow-build-folder", "version": 1}\n')
    (out / "frontend" / "pre.json").write_text('{"an earlier run": true}\n')
    line = one_line_error(dcsflow("build", KEYXOR, "--out", out, "--quiet", "--to", "frontend",
                                   env=_half_writing_yosys(tmp_path, "pre.json")))
    assert "SIGKILL" in line or "signal 9" in line, line
    assert not (out / "frontend" / "pre.json").exists()        # neither half a file nor the earlier run's
    assert not [p.name for p in (out / "frontend").iterdir() if p.name.endswith(".tmp")]


def test_yosys_killed_while_writing_post_json_leaves_no_partial_file(tmp_path, monkeypatch):
    from dcsflow.flow import frontend as fe
    from dcsflow.flow.errors import FlowError

    wd = tmp_path / "w"
    wd.mkdir()
    src = wd / "in.json"
    src.write_text("{}\n")
    monkeypatch.setenv("DCSFLOW_YOSYS", _half_writing_yosys(tmp_path, "post.json")["DCSFLOW_YOSYS"])
    with pytest.raises(FlowError):
        fe.continue_synthesis(src, "t", "", wd / "post.json", wd, "yosys")
    assert not (wd / "post.json").exists()
    assert not [p.name for p in wd.iterdir() if p.name.endswith(".tmp")]
