"""The package is self-contained, and the runtime stands alone.

One wheel is built per module from a copy of the source tree (fixture ``wheel``). One test installs it
(not editable) with the ``flow`` extra into a fresh virtual environment and runs the CLI from an
empty temporary directory with ``DCSFLOW_SHARED``
unset and no ``shared``/``../shared`` folder: ``--version``, ``sim picipher`` (official vectors and
test bench from the package), and ``build`` + rekey check of a small design (device data from the
package), then ``codegen --firmware`` and ``make host-test`` of the shipped C firmware (the SCG
against the C model of AXI HWICAP). The small design's build runs every stage (front end, TMAP,
proof, back end on xc7z020, template configuration) and its configuration is checked by the host SCG
with read-back (``rekey --to emulator --verify``); ``dcsflow check`` knows only designs with
vectors (π16-Cipher, AES-128), so on the small design it must refuse with one clear line, and the
bundled ``picipher`` is built and checked on two official vectors.
Another installs it without extras (no third-party package at all) and runs the runtime alone,
``python -m dcsflow.scg``: rekey of a build folder made by the flow in the test process, ``bit info``,
with a check that no module outside the standard library and the installed dcsflow was imported;
there the ``dcsflow`` command answers with one line naming the ``flow`` extra.
Needs PyPI (or pip's cache) for the wheel's build backend and the dependencies of the ``flow`` extra.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dcsflow import __version__
from dcsflow.flow.paths import REPO_ROOT

#: package-data folders (relative to the repository) whose every file the wheel must contain
DATA_DIRS = ["scg/xc7", "designs/picipher/testvectors", "designs/picipher/rtl", "designs/picipher/tb",
             "designs/picipher/rtl_cis", "designs/aes128/rtl", "designs/aes128/tb", "designs/ppe/vectors",
             "designs/ppe/rtl", "designs/ppe/programs", "designs/ppe/tb", "designs/keccak/vectors",
             "designs/keccak/rtl", "designs/keccak/tb", "designs/aes_modes/rtl", "designs/aes_modes/tb",
             "flow/yosys_lib", "flow/boards", "flow/templates"]
_IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", "tests", "benchmarks",
                                 "docs", ".ci")


def _run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r


def _data_files() -> set[str]:
    out = set()
    for d in DATA_DIRS:
        for p in (REPO_ROOT / d).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                out.add("dcsflow/" + p.relative_to(REPO_ROOT).as_posix())
    return out


def _check_extended_sums(pkg_sums: Path, shared_sums: Path) -> None:
    """A shipped SHA256SUMS that is not a byte copy starts with every line of the shared one (the
    upstream hashes), and each further line states the SHA-256 of a shipped file that is itself a
    byte copy of the shared file of that name (the π32/π64 vectors, testvectors/SOURCES.md)."""
    ours, theirs = pkg_sums.read_text().splitlines(), shared_sums.read_text().splitlines()
    assert ours[:len(theirs)] == theirs, pkg_sums
    assert len(ours) > len(theirs), pkg_sums
    for line in ours[len(theirs):]:
        digest, name = line.split()
        shipped, source = pkg_sums.parent / name, shared_sums.parent / name
        assert hashlib.sha256(shipped.read_bytes()).hexdigest() == digest, line
        assert hashlib.sha256(source.read_bytes()).hexdigest() == digest, line


def test_package_data_is_a_byte_copy_of_the_shared_data(shared):
    """Copied, never retyped: every shipped device/vector file equals its source in ../shared."""
    pairs = [(REPO_ROOT / "scg" / "xc7", shared / "xc7"),
             (REPO_ROOT / "designs" / "picipher" / "testvectors", shared / "vectors" / "picipher"),
             (REPO_ROOT / "designs" / "keccak" / "vectors", shared / "vectors" / "keyak")]
    n = 0
    for pkg, src in pairs:
        for p in pkg.rglob("*"):
            if p.is_file() and p.name != "SOURCES.md":
                s = src / p.relative_to(pkg)
                assert s.is_file(), f"{p} has no source {s}"
                if p.name == "SHA256SUMS" and p.read_bytes() != s.read_bytes():
                    _check_extended_sums(p, s)
                else:
                    assert hashlib.sha256(p.read_bytes()).digest() == hashlib.sha256(s.read_bytes()).digest(), p
                n += 1
    assert n >= 20
    for folder in ("scg/xc7", "designs/picipher/testvectors", "designs/keccak/vectors"):
        text = (REPO_ROOT / folder / "SOURCES.md").read_text()
        assert "commit" in text and "license" in text, folder


def test_run_time_data_comes_from_the_package(monkeypatch, tmp_path):
    """With no shared folder anywhere, device data and a design's vectors are still found (in the
    runtime's package data and in the design's own folder)."""
    import dcsflow.scg as scg
    import dcsflow.scg.data
    from dcsflow.designs.picipher.vectors import official_file
    from dcsflow.flow.paths import shared_file

    monkeypatch.setattr(scg.data, "shared_candidates", lambda: [tmp_path / "nowhere"])
    p = shared_file("xc7", "xc7z020", "part.json")
    assert p.is_relative_to(Path(scg.__file__).parent)
    import dcsflow.designs.picipher as pi

    assert official_file(96).parent == Path(pi.__file__).parent / "testvectors"
    # test-only data is not shipped: the error names the file and the searched places
    with pytest.raises(scg.data.DataMissing, match="pynq-z1_base.bit.*nowhere"):
        shared_file("bitstreams", "pynq-z1_base.bit")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of a copy of the source tree, built once for the tests of this module."""
    root = tmp_path_factory.mktemp("wheel")
    src, wheels = root / "src", root / "wheels"
    shutil.copytree(REPO_ROOT, src, ignore=_IGNORE)
    # build backend (setuptools + wheel) in pip's isolated build environment
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
          "-w", wheels, src])
    (whl,) = wheels.glob("dcsflow-*.whl")
    return whl


def _venv(path: Path) -> Path:
    """A fresh virtual environment without pip and without the system's site-packages; its python."""
    _run([sys.executable, "-m", "venv", "--without-pip", path])
    return path / "bin" / "python"


def _clean_env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DCSFLOW_SHARED", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_wheel_installs_and_runs_from_an_empty_directory(wheel, tmp_path):
    whl, venv = wheel, tmp_path / "venv"
    names = set(zipfile.ZipFile(whl).namelist())
    missing = _data_files() - names
    fw = {f.name for f in (REPO_ROOT / "firmware").iterdir() if f.is_file()}
    missing |= {f"dcsflow/scg/firmware/{n}" for n in fw} - names
    assert not missing, f"wheel lacks package data: {sorted(missing)}"
    assert any(n.startswith("dcsflow/tmap/_cutsc") and n.endswith(".so") for n in names), "no compiled tmap._cutsc"

    # fresh environment (no system site-packages), pip of this interpreter installs into it
    py = _venv(venv)
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--disable-pip-version-check",
          "--no-compile", f"{whl}[flow]"])
    work = tmp_path / "empty" / "cwd"
    work.mkdir(parents=True)
    assert not (work / "shared").exists() and not (work.parent / "shared").exists()
    env = _clean_env(venv)
    exe = venv / "bin" / "dcsflow"

    def cli(*args, ok=True):
        r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, cwd=work, env=env)
        if ok:
            assert r.returncode == 0, f"dcsflow {args}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        return r

    # the installed package, not the checkout, is what runs
    r = _run([py, "-c", "import dcsflow.flow, dcsflow.tmap._cutsc; print(dcsflow.flow.__file__)"], cwd=work, env=env)
    assert str(venv) in r.stdout and str(REPO_ROOT) not in r.stdout
    assert __version__ in cli("--version").stdout
    r = cli("sim", "picipher")
    assert "passed 75/75" in r.stdout            # 25 no-AD/no-SMN vectors x (encrypt, decrypt, bad tag)

    shutil.copy(REPO_ROOT / "tests" / "data" / "flow" / "keyxor.v", work / "keyxor.v")
    r = cli("build", "keyxor.v", "--out", "kx", "--quiet")
    assert "keyxor" in r.stdout and (work / "kx" / "tlut" / "template.bit").is_file()
    r = cli("rekey", "kx", "--param", "key=a5", "--to", "emulator", "--verify")
    assert "read-back verified" in r.stdout
    r = cli("check", "kx", ok=False)
    assert r.returncode != 0 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    # build + check of the bundled π16-Cipher design on the first two official vectors: check compares
    # the specialized netlist's output with their CIPHER fields
    text = (REPO_ROOT / "designs" / "picipher" / "testvectors" / "pi16cipher096v2_4.test-vectors").read_text()
    head, *records = text.split("\n[vector ")
    usable = [r for r in records if "NSEC (0) =" in r and "\nAD (0) =" in r][:2]   # no SMN, no AD
    (work / "two.test-vectors").write_text("\n[vector ".join([head, *usable]))
    # its RTL and vectors are what comes from the package here: one conventional candidate, no
    # static re-mapping and no front-end check (the keyxor build above ran them from the package)
    cli("build", "picipher", "--out", "pi", "--quiet", "--baselines", "yosys-abc", "--no-static-remap",
        "--no-frontend-check")
    r = cli("check", "pi", "--vectors", "two.test-vectors")
    assert "passed 2/2" in r.stdout, r.stdout
    # the firmware ships too: generated SCG + firmware sources, built and run against the C model
    r = cli("codegen", "kx", "--out", "gen", "--firmware", "fw")
    assert "firmware files" in r.stdout
    r = _run(["make", "-C", work / "fw", "host-test", f"GEN={work / 'gen'}"], cwd=work, env=env)
    assert "host-test: 2 passed, 0 failed" in r.stdout


#: runs ``python -m dcsflow.scg ARGS`` and, at exit, prints on stderr one line ``LOADED-OUTSIDE: [...]``:
#: every imported module whose file lies neither in the standard library nor in the installed dcsflow
_WRAPPER = r"""
import atexit, os, runpy, sys, sysconfig

def _report():
    paths = sysconfig.get_paths()
    std = [os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib")]
    pkg = os.path.realpath(os.path.dirname(sys.modules["dcsflow"].__file__)) + os.sep
    out = []
    for name, mod in sorted(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if not f or name == "__main__":
            continue
        f = os.path.realpath(f)
        if not f.startswith(pkg) and not any(f.startswith(s) for s in std):
            out.append(f"{name}={f}")
    print("LOADED-OUTSIDE: " + repr(out), file=sys.stderr)

atexit.register(_report)
sys.argv = ["python -m dcsflow.scg", *sys.argv[1:]]
runpy.run_module("dcsflow.scg", run_name="__main__", alter_sys=True)
"""


def test_runtime_alone_without_extras(wheel, tmp_path, shared):
    """``pip install dcsflow`` (no extras): the runtime rekeys a build folder the flow made and reads a
    bitstream, importing nothing but the standard library and dcsflow; ``dcsflow`` names the extra."""
    from dcsflow.flow.build import BuildOptions, build

    made = tmp_path / "made" / "kx"
    build(BuildOptions(design=str(REPO_ROOT / "tests" / "data" / "flow" / "keyxor.v"), out=made, progress=False))
    py = _venv(tmp_path / "venv")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--disable-pip-version-check",
          "--no-compile", "--no-index", wheel])
    env = _clean_env(tmp_path / "venv")
    work = tmp_path / "empty" / "cwd"
    work.mkdir(parents=True)
    shutil.copytree(made, work / "kx")
    (work / "wrap.py").write_text(_WRAPPER)
    r = _run([py, "-c", "import importlib.util as u; print([m for m in ('click', 'rich', 'networkx', "
                        "'matplotlib', 'cryptography', 'pytest') if u.find_spec(m)])"], cwd=work, env=env)
    assert r.stdout.strip() == "[]"                          # nothing third-party installed at all

    def scg(*args):
        r = _run([py, "wrap.py", *args], cwd=work, env=env)
        tail = [ln for ln in r.stderr.splitlines() if ln.startswith("LOADED-OUTSIDE: ")]
        assert tail == ["LOADED-OUTSIDE: []"], r.stderr
        return r

    r = scg("rekey", "kx", "--param", "key=a5", "--to", "emulator", "--verify")
    assert r.stdout.startswith("rekey via emulator: ") and "read-back verified" in r.stdout
    r = scg("bit", "info", shared / "bitstreams" / "pynq-z1_base.bit")
    assert "0x03727093" in r.stdout and "xc7z020" in r.stdout
    r = _run([py, "-c", "import dcsflow.scg.cli as c; print(c.__file__)"], cwd=work, env=env)
    assert str(tmp_path / "venv") in r.stdout and str(REPO_ROOT) not in r.stdout
    r = subprocess.run([str(tmp_path / "venv" / "bin" / "dcsflow"), "--help"], capture_output=True, text=True,
                       cwd=work, env=env)
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert "pip install 'dcsflow[flow]'" in r.stderr and "Traceback" not in r.stderr
