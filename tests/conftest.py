"""Shared fixtures: the shared data folder (test-only data) and a runner for the dcsflow CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.paths import REPO_ROOT, SharedDataMissing, shared_dir

#: test-only data that is not shipped in the package (too large); tests using it need ../shared
TEST_ONLY_DATA = ["bitstreams/pynq-z1_base.bit", "benchmarks/epfl/*.aig"]


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder (../shared beside the checkout, or $DCSFLOW_SHARED).

    Fails (never skips) the test when the folder is missing, naming what is missing.
    """
    try:
        return shared_dir()
    except SharedDataMissing as e:
        pytest.fail(f"test-only data missing ({', '.join(TEST_ONLY_DATA)}, or the copies of the package "
                    f"data this test compares): {e}", pytrace=False)


def pytest_configure(config):
    config.addinivalue_line("markers", "main_job: runs the main job (dcsflow demo), whose builds other tests read")
    config.addinivalue_line("markers", "demo_builds: reads a build the main job makes (tests/_buildcache.py)")
    # one job cache for the session (dcsflow.flow.cache), shared by every xdist worker and every
    # dcsflow subprocess (they inherit the environment): tests that build the same design with the
    # same options compute each job once; removed when the session ends
    if not hasattr(config, "workerinput"):
        import os
        import tempfile

        config._dcsflow_cache = tempfile.mkdtemp(prefix="dcsflow-test-cache-")
        os.environ["DCSFLOW_CACHE"] = config._dcsflow_cache


def pytest_unconfigure(config):
    path = getattr(config, "_dcsflow_cache", None)
    if path:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """The main job (minutes) first and the tests that read its builds last: under pytest-xdist one
    worker starts it at once and no worker waits for it while other tests are left."""
    def rank(item) -> int:
        if item.get_closest_marker("main_job"):
            return 0
        return 2 if item.get_closest_marker("demo_builds") else 1
    items.sort(key=rank)


@pytest.fixture(scope="session", autouse=True)
def _one_job_per_worker():
    """Under pytest-xdist every core already runs a test: builds run their steps in turn
    (``DCSFLOW_JOBS=1``, inherited by the CLI's subprocesses) unless a test gives ``-j``/``jobs``
    or the environment sets ``DCSFLOW_JOBS``; one process per core instead of one pool per build."""
    import os

    if os.environ.get("PYTEST_XDIST_WORKER") and "DCSFLOW_JOBS" not in os.environ:
        os.environ["DCSFLOW_JOBS"] = "1"
        yield
        os.environ.pop("DCSFLOW_JOBS", None)
    else:
        yield


@pytest.fixture(autouse=True)
def _no_job_cache_where_code_is_patched(request):
    """A test that patches the flow's code in this process (``monkeypatch``) computes every job of
    its in-process builds and stores none: a job's key holds dcsflow's source as installed, not the
    patch, so a cached result would hide the patch and a patched result would reach other tests
    (tests/test_cache.py tests the cache itself and is left alone)."""
    if "monkeypatch" in request.fixturenames and request.module.__name__.rsplit(".", 1)[-1] != "test_cache":
        from dcsflow.flow import cache

        mp = request.getfixturevalue("monkeypatch")
        mp.setattr(cache, "lookup", lambda *a, **k: cache.MISS)
        mp.setattr(cache, "store", lambda *a, **k: None)
    yield


@pytest.fixture(scope="session")
def builds(tmp_path_factory):
    """Builds shared by the tests of this session and by every xdist worker of it
    (:class:`_buildcache.BuildCache`): ``builds.get("keyxor", design=...)`` makes a build once."""
    import os

    from _buildcache import BuildCache

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent                  # the folder all workers of this session share
    return BuildCache(root / "dcsflow-builds")


@pytest.fixture
def dcsflow():
    """Run ``dcsflow ARGS...`` in a subprocess; returns the CompletedProcess (text mode)."""

    def run(*args, check=False, **kw):
        return subprocess.run([sys.executable, "-m", "dcsflow.flow", *map(str, args)], capture_output=True,
                              text=True, cwd=kw.pop("cwd", REPO_ROOT), check=check, **kw)

    return run
