"""Locator for the data the flow reads at run time (device data, official vectors) and for test-only data.

``scg`` runs on a Zynq under Linux without the rest of the flow, so it has its own small locator
instead of importing ``flow.paths``. A relative data path (``"xc7", "xc7z020", "part.json"``) is
looked up, in order:

1. **package data** (:mod:`importlib.resources`): the first path part names the folder and the
   package that ships it (:data:`PACKAGE_DATA`): ``xc7/<part>/...`` (Project X-Ray extracts,
   ``scg/xc7/``, with a ``SOURCES.md``: source repository, path, commit, licence); a design's own
   data (e.g. its official vectors) ships in the design's folder and is found by the design;
2. the shared data folder, for large test-only data (the PYNQ bitstream, the EPFL circuits):
   ``$DCSFLOW_SHARED``, ``<repo>/../shared`` (``<repo>`` = the folder that holds the ``scg``
   package), then ``./shared`` and ``../shared`` relative to the current working directory.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .errors import DataMissing

_PKG_REPO = Path(__file__).resolve().parent.parent

#: first part of a data path -> package whose folder of that name holds the run-time data
PACKAGE_DATA = {"xc7": "dcsflow.scg"}


def package_file(*parts: str) -> Path | None:
    """Return the package-data file ``<package>/<parts...>`` (see :data:`PACKAGE_DATA`), or None.

    None when the first part names no package data, the package is not installed, or the file is
    not shipped (then the shared data folder is searched).
    """
    pkg = PACKAGE_DATA.get(parts[0]) if parts else None
    if pkg is None:
        return None
    try:
        t = resources.files(pkg).joinpath(*parts)
    except ModuleNotFoundError:
        return None
    # installed wheels and editable installs are plain folders: the Traversable is a Path
    return t if isinstance(t, Path) and t.is_file() else None


def package_devices() -> list[str]:
    """Parts with device data shipped in the package (``scg/xc7/<part>/part.json``), sorted."""
    root = resources.files("dcsflow.scg").joinpath("xc7")
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and p.joinpath("part.json").is_file())


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
    """Return the path of a data file: package data first (:func:`package_file`), then ``<shared>/<parts...>``.

    Raises:
        DataMissing: the file exists in none of those places (the message names the searched paths).
    """
    p = package_file(*parts)
    if p is not None:
        return p
    cands = shared_candidates()
    for c in cands:
        p = c.joinpath(*parts)
        if p.exists():
            return p
    pkg = PACKAGE_DATA.get(parts[0]) if parts else None
    where = [f"package data {pkg.rpartition('.')[2]}/{'/'.join(parts)}"] if pkg else []
    raise DataMissing(f"data file {'/'.join(parts)} not found; looked in "
                      + ", ".join(where + [str(c.joinpath(*parts)) for c in cands])
                      + " (set DCSFLOW_SHARED to the shared data folder)")


@lru_cache(maxsize=None)
def load_json(*parts: str):
    """Load and cache a JSON data file (package data or shared folder, see :func:`data_file`).

    Raises:
        DataMissing: file not found, not valid JSON, not a regular file, larger than
            :data:`dcsflow.fileio.NETLIST_LIMIT` or nested deeper than :data:`dcsflow.fileio.JSON_MAX_DEPTH`.
    """
    from dcsflow.fileio import NETLIST_LIMIT, load_json_file

    p = data_file(*parts)
    try:
        return load_json_file(p, NETLIST_LIMIT, what="device data")
    except (OSError, ValueError) as e:
        raise DataMissing(f"cannot read device data file {p}: {e}") from None
