"""Builds that several tests use, made once per test session (shared by the xdist workers).

:class:`BuildCache` makes a build the first time a test asks for it (under a file lock, so that two
workers never make the same build) and hands every later test the same finished folder. A build
is named by what it is (``BuildOptions`` fields, the design's sources by content through the design
hash the flow records), so two tests asking for the same build get one. A test that alters a build
folder takes a copy (:meth:`BuildCache.copy`); the shared folder must stay as the flow wrote it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
from contextlib import contextmanager
from pathlib import Path


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
        ``options`` (e.g. ``start="backend", seed=2``). Read-only: see :meth:`copy`."""
        from dcsflow.flow.build import BuildOptions, build

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
