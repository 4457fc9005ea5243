"""Builds that several tests use, made once per test session (shared by the xdist workers).

:class:`BuildCache` makes a build the first time a test asks for it (under a file lock, so that two
workers never make the same build) and hands every later test the same finished folder. A build
is named by what it is (``BuildOptions`` fields, the design's sources by content through the design
hash the flow records), so two tests asking for the same build get one. A test that alters a build
folder takes a copy (:meth:`BuildCache.copy`); the shared folder must stay as the flow wrote it.

The main job (``dcsflow demo``) is run once too (:meth:`BuildCache.demo`), as a user runs it, and
its build folders are the session's builds of the designs it builds with default options: the
test of the main job and the tests of those designs share one build of each.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


#: the pinned figures the main job's builds are made against (their CI form)
PINNED = Path(__file__).parent / "data" / "build_figures.json"


@dataclass(frozen=True)
class DemoRun:
    """One run of ``dcsflow demo --out out``: its exit status and output (text)."""

    out: Path
    returncode: int
    stdout: str
    stderr: str


class BuildCache:
    """Finished build folders under ``root`` (one per key), made on first use."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def _lock(self, key: str):
        with open(self.root / f"{key}.lock", "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    @staticmethod
    def key(name: str, options: dict) -> str:
        digest = hashlib.sha256(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:12]
        return f"{name}-{digest}"

    def get(self, name: str, base: tuple[str, dict] | None = None, **options) -> Path:
        """The finished build ``name`` made with ``BuildOptions(**options)`` (``out`` is the cache's);
        with ``base`` = (name, options) of another cached build, a copy of that build continued with
        ``options`` (e.g. ``start="backend", seed=2``). A design the main job builds, asked for with
        ``design=name`` only, is the main job's build folder (:meth:`demo`). Read-only: see
        :meth:`copy`."""
        from dcsflow.flow.build import BuildOptions, build

        if base is None and set(options) == {"design"} and options["design"] == name and name in _demo_names():
            return self._from_demo(name)
        if base is not None and base[1] == {"design": base[0]} and base[0] in _demo_names():
            # a continuation of the main job's build keeps its CI form (its depth bounds stand in
            # for the candidates it did not make)
            options = {**_ci_form(base[0]), **options}
        key = self.key(name, {"base": base, **options})
        out = self.root / key
        with self._lock(key):
            if (out / "build.json").is_file() or (out / "stages" / f"{options.get('stop', 'outputs')}.json").is_file():
                return out
            shutil.rmtree(out, ignore_errors=True)
            if base is not None:
                shutil.copytree(self.get(base[0], **base[1]), out, symlinks=True)
            build(BuildOptions(out=out, progress=False, **options))
        return out

    def demo(self) -> DemoRun:
        """The main job, ``dcsflow demo --out <root>/demo`` in a subprocess of the CLI (the README's
        first command after the installs) in the CI form (``--pinned``), run on first use; later
        calls get the same run."""
        out = self.root / "demo"
        logs = {k: self.root / f"demo.{k}" for k in ("returncode", "stdout", "stderr")}
        with self._lock("demo"):
            if not logs["returncode"].is_file():
                shutil.rmtree(out, ignore_errors=True)
                env = {k: v for k, v in os.environ.items() if k != "DCSFLOW_JOBS"}   # the user's default -j
                # in the CI form: each design's TLUT build and only the conventional candidate its
                # pinned figures name (tests/data/build_figures.json; tests/test_build_figures.py)
                r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "demo", "--out", str(out),
                                    "--pinned", str(PINNED)],
                                   capture_output=True, text=True, env=env)
                logs["stdout"].write_text(r.stdout)
                logs["stderr"].write_text(r.stderr)
                logs["returncode"].write_text(str(r.returncode))
        return DemoRun(out, int(logs["returncode"].read_text()), logs["stdout"].read_text(),
                       logs["stderr"].read_text())

    def _from_demo(self, name: str) -> Path:
        run = self.demo()
        out = run.out / name
        if not (out / "build.json").is_file():
            raise RuntimeError(f"dcsflow demo did not build {name} (exit status {run.returncode}): "
                               + run.stderr[-2000:])
        return out

    def copy(self, name: str, dest: Path, base: tuple[str, dict] | None = None, **options) -> Path:
        """A private copy of :meth:`get` at ``dest`` (for a test that alters the folder)."""
        shutil.copytree(self.get(name, base, **options), dest, symlinks=True)
        return Path(dest)


#: the test designs of tests/data/flow
FLOW_DATA = Path(__file__).parent / "data" / "flow"
#: the small design most flow tests build: an 8-bit key XOR-ed and multiplied into the data path
KEYXOR = {"design": str(FLOW_DATA / "keyxor.v")}
#: the same, placed with seed 2 (other frames, same design hash)
KEYXOR_SEED2 = {"base": ("keyxor", KEYXOR), "start": "backend", "seed": 2, "design": KEYXOR["design"]}
#: the same through the Vivado back end
KEYXOR_VIVADO = {"base": ("keyxor", KEYXOR), "start": "backend", "backend": "vivado", "design": KEYXOR["design"]}


def _ci_form(design: str) -> dict:
    """The CI-form options of ``design`` (:func:`dcsflow.flow.ciform.ci_form` of its pinned figures)."""
    from dcsflow.flow.ciform import ci_form, read_figures

    return ci_form(read_figures(PINNED)[design])


def _demo_names() -> set[str]:
    """The designs ``dcsflow demo`` builds (with default options)."""
    from dcsflow.flow.demo import demo_designs

    return {d.name for d in demo_designs()}
