"""Locator for the device data (Project X-Ray database extracts) used by :mod:`scg`.

``scg`` runs on a Zynq under Linux without the rest of the flow, so it has its own small locator
instead of importing ``flow.paths``. The shared data folder is searched, in order, at:

1. ``$DCSFLOW_SHARED``
2. ``<repo>/../shared`` (``<repo>`` = the folder that holds the ``scg`` package)
3. ``./shared`` and ``../shared`` relative to the current working directory

Device files live in ``<shared>/xc7/<part>/`` (see ``shared/xc7/FACTS.md`` and ``SOURCES.md``).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from .errors import DataMissing

_PKG_REPO = Path(__file__).resolve().parent.parent


def shared_candidates() -> list[Path]:
    """Return the folders searched for the shared data, in search order, without duplicates."""
    cands = []
    env = os.environ.get("DCSFLOW_SHARED")
    if env:
        cands.append(Path(env))
    cands += [_PKG_REPO.parent / "shared", Path.cwd() / "shared", Path.cwd().parent / "shared"]
    out, seen = [], set()
    for c in cands:
        r = c.resolve()
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


def shared_dir() -> Path:
    """Return the shared data folder.

    Raises:
        DataMissing: none of :func:`shared_candidates` exists (the message lists them).
    """
    cands = shared_candidates()
    for c in cands:
        if c.is_dir():
            return c
    raise DataMissing("shared data folder not found; looked in " + ", ".join(map(str, cands))
                      + " (set DCSFLOW_SHARED to its location)")


def data_file(*parts: str) -> Path:
    """Return ``<shared>/<parts...>``.

    Raises:
        DataMissing: the folder or the file does not exist (the message names the searched paths).
    """
    cands = shared_candidates()
    for c in cands:
        p = c.joinpath(*parts)
        if p.exists():
            return p
    raise DataMissing(f"device data file {'/'.join(parts)} not found; looked in "
                      + ", ".join(str(c.joinpath(*parts)) for c in cands)
                      + " (set DCSFLOW_SHARED to the shared data folder)")


@lru_cache(maxsize=None)
def load_json(*parts: str):
    """Load and cache a JSON file of the shared data folder (see :func:`data_file`).

    Raises:
        DataMissing: file not found or not valid JSON.
    """
    p = data_file(*parts)
    try:
        with open(p, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise DataMissing(f"cannot read device data file {p}: {e}") from None


@lru_cache(maxsize=None)
def load_text(*parts: str) -> str:
    """Load and cache a text file of the shared data folder (see :func:`data_file`)."""
    p = data_file(*parts)
    try:
        return p.read_text(encoding="utf-8")
    except OSError as e:
        raise DataMissing(f"cannot read device data file {p}: {e}") from None
