"""Locations of the project's data: run-time data in the package, test-only data in the shared folder.

Run-time data (device data ``xc7/<part>/...``, official vectors ``vectors/picipher/...``) ships as
package data and is found through :mod:`importlib.resources`; the shared folder (``shared/``: the
PYNQ bitstream, the EPFL circuits, used by tests and benchmarks) lives beside the repository checkout
(``<repo>/../shared``); ``$DCSFLOW_SHARED`` overrides the location. The search itself is
:mod:`dcsflow.scg.data`'s (the runtime package cannot import ``flow``); this module re-exports it for the flow.
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.scg.data import data_file, shared_candidates, shared_dir
from dcsflow.scg.errors import DataMissing as SharedDataMissing

#: Root of the source checkout (the folder that holds setup.py); in a wheel install: site-packages.
#: Tests and benchmarks only; run-time code finds its data through :func:`shared_file`.
REPO_ROOT = Path(__file__).resolve().parent.parent

__all__ = ["REPO_ROOT", "SharedDataMissing", "shared_candidates", "shared_dir", "shared_file"]


def shared_file(*parts: str) -> Path:
    """Return the path of a data file: package data first, then the shared data folder (:func:`dcsflow.scg.data.data_file`).

    Raises:
        SharedDataMissing: the file was found in none of the searched folders (the message lists them).
    """
    return data_file(*parts)
