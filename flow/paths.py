"""Locations of the project's data: the repository root and the shared data folder.

The shared folder (``shared/``: official vectors, device data, bitstreams, benchmarks) lives beside
the repository checkout (``<repo>/../shared``); ``$DCSFLOW_SHARED`` overrides the location. The
search itself is :mod:`scg.data`'s (the runtime package cannot import ``flow``); this module
re-exports it for the flow.
"""

from __future__ import annotations

from pathlib import Path

from scg.data import data_file, shared_candidates, shared_dir
from scg.errors import DataMissing as SharedDataMissing

#: Root of the source checkout (the folder that holds setup.py).
REPO_ROOT = Path(__file__).resolve().parent.parent

__all__ = ["REPO_ROOT", "SharedDataMissing", "shared_candidates", "shared_dir", "shared_file"]


def shared_file(*parts: str) -> Path:
    """Return the path of a file inside the shared data folder.

    Raises:
        SharedDataMissing: the file was found in none of the searched folders (the message lists them).
    """
    return data_file(*parts)
