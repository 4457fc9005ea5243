"""Locations of the project's data: the repository root and the shared data folder.

The shared folder (``shared/``: official vectors, device data, bitstreams, benchmarks) lives beside
the repository checkout (``<repo>/../shared``). ``DCSFLOW_SHARED`` overrides the location.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import FlowError

#: Root of the source checkout (the folder that holds setup.py).
REPO_ROOT = Path(__file__).resolve().parent.parent


class SharedDataMissing(FlowError):
    """The shared data folder (or a file in it) was not found where it was looked for."""


def shared_candidates() -> list[Path]:
    """Folders searched for the shared data, in order: $DCSFLOW_SHARED, <repo>/../shared, ./shared, ../shared."""
    cands = []
    env = os.environ.get("DCSFLOW_SHARED")
    if env:
        cands.append(Path(env))
    cands += [REPO_ROOT.parent / "shared", Path.cwd() / "shared", Path.cwd().parent / "shared"]
    seen, out = set(), []
    for c in cands:
        r = c.resolve()
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


def shared_dir() -> Path:
    """Return the shared data folder.

    Raises:
        SharedDataMissing: no candidate folder exists; the message lists where it was looked for.
    """
    cands = shared_candidates()
    for c in cands:
        if c.is_dir():
            return c
    raise SharedDataMissing(
        "shared data folder not found; looked in " + ", ".join(str(c) for c in cands)
        + " (set DCSFLOW_SHARED to its location)"
    )


def shared_file(*parts: str) -> Path:
    """Return the path of a file inside the shared data folder.

    Raises:
        SharedDataMissing: the folder or the file does not exist (message names the full path).
    """
    p = shared_dir().joinpath(*parts)
    if not p.exists():
        raise SharedDataMissing(f"shared data file not found: {p}")
    return p
