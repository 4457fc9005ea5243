"""Shared fixtures: the shared data folder and a runner for the dcsflow CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flow.paths import REPO_ROOT, shared_dir


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder (../shared beside the checkout, or $DCSFLOW_SHARED)."""
    return shared_dir()


@pytest.fixture
def dcsflow():
    """Run ``dcsflow ARGS...`` in a subprocess; returns the CompletedProcess (text mode)."""

    def run(*args, check=False, **kw):
        return subprocess.run([sys.executable, "-m", "flow", *map(str, args)], capture_output=True,
                              text=True, cwd=kw.pop("cwd", REPO_ROOT), check=check, **kw)

    return run
