"""Finding designs: installed ones (entry points), projects (``dcsflow.toml``), HDL files and folders.

Installed designs are the :class:`~dcsflow.flow.design.Design` objects registered under the
entry-point group ``dcsflow.designs`` by any installed distribution (the bundled ones in this
package's ``setup.py``, third-party packages the same way). An entry point that fails to load is
reported once, as one warning line naming it on stderr; the other designs still work.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from dcsflow.fileio import open_input

from .design import ENTRY_POINT_GROUP, HDL_SUFFIXES, Design, DesignError

#: folder names searched for HDL when DESIGN is a folder without HDL at its top
_RTL_SUBFOLDER = "rtl"


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)


@lru_cache(maxsize=None)
def installed() -> dict[str, Design]:
    """Installed designs by name (entry-point group ``dcsflow.designs``), sorted by name.

    An entry point may name a :class:`Design` or a list/tuple of them. One that fails to import, or
    gives something else, or a name already taken, is skipped with one warning line on stderr.
    """
    out: dict[str, Design] = {}
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as e:  # noqa: BLE001 - any failure of a third-party import is reported, not fatal
            _warn(f"design entry point {ep.name} ({ep.value}) failed to load: {type(e).__name__}: {e}")
            continue
        items = obj if isinstance(obj, (list, tuple)) else [obj]
        for d in items:
            if not isinstance(d, Design):
                _warn(f"design entry point {ep.name} ({ep.value}) is not a dcsflow Design description")
                continue
            if d.name in out:
                _warn(f"design {d.name} registered twice (entry point {ep.name}); the first one is used")
                continue
            out[d.name] = replace(d, origin=f"entry point {ep.name} ({ep.value})")
    return dict(sorted(out.items()))


def get(name: str) -> Design:
    """The installed design ``name``.

    Raises:
        DesignError: no installed design of that name (the message lists the installed ones).
    """
    d = installed().get(name)
    if d is None:
        raise DesignError(f"no installed design {name!r}; installed: {', '.join(installed()) or 'none'}")
    return d


def _hdl_in(folder: Path) -> list[Path]:
    """The HDL files (:data:`~dcsflow.flow.design.HDL_SUFFIXES`, any case)
    directly in ``folder``, sorted by name; those of its ``rtl/`` folder when it has none.
    Raises DesignError when the folder cannot be read."""
    try:
        files = sorted(p for p in folder.iterdir()
                       if p.suffix.lower() in HDL_SUFFIXES and p.is_file())
    except OSError as e:
        raise DesignError(f"{folder}: cannot read the folder ({e.strerror or e})") from None
    if not files and (folder / _RTL_SUBFOLDER).is_dir():
        return _hdl_in(folder / _RTL_SUBFOLDER)
    return files


def resolve(design: str | None, top: str | None = None, more: list[str] | tuple = (),
            project: str | Path | None = None) -> Design:
    """The design a ``dcsflow build`` argument names.

    Args:
        design: an installed design's name, an HDL file (Verilog ``.v``/``.sv``, VHDL
            ``.vhd``/``.vhdl``) or a folder of them (or with an ``rtl/`` folder); further files and
            folders in ``more`` (any order, both languages); None with ``project``.
        top: top module (overrides an installed design's; names a design given as files, else the
            first file's stem or folder's name does); project: a ``dcsflow.toml``
            (:func:`dcsflow.flow.project.load_project`).
    Raises:
        DesignError: nothing of that name, a file that is not HDL, a folder without HDL files, a
            file given twice; ProjectError for a bad project file.
    """
    if project is not None:
        if design is not None or more:
            raise DesignError("give either a DESIGN or --project, not both")
        from .project import load_project

        d = load_project(project)
        return d if top is None else _with_top(d, top)
    if design is None:
        raise DesignError("no DESIGN given (a design name, HDL files or folder, or --project dcsflow.toml)")
    p = Path(design)
    if not more and not p.exists():
        d = installed().get(design)
        if d is None:
            raise DesignError(f"{design}: no such file or folder, and not an installed design ("
                              + (", ".join(installed()) or "none installed") + ")")
        return d if top is None else _with_top(d, top)
    files: list[Path] = []
    for arg in [design, *more]:
        q = Path(arg)
        if q.is_dir():
            found = _hdl_in(q)
            if not found:
                raise DesignError(f"{arg}: folder holds no HDL file (.v, .sv, .vhd, .vhdl)")
            files += found
        elif q.is_file():
            if q.suffix.lower() not in HDL_SUFFIXES:
                raise DesignError(f"{arg}: not an HDL file (.v, .sv, .vhd, .vhdl)")
            files.append(q)
        elif q.exists():                     # a FIFO, device or socket: named, never read
            try:
                open_input(q).close()
            except OSError as e:
                raise DesignError(f"{arg}: {e.strerror or e}") from None
            raise DesignError(f"{arg}: not a regular file")
        else:
            raise DesignError(f"{arg}: no such file or folder")
    seen: set[Path] = set()
    for f in files:
        r = f.resolve()
        if r in seen:
            raise DesignError(f"{f}: given twice")
        seen.add(r)
    return Design(_files_design_name(p, top), top, tuple(files))


#: a top name that can name a design and its build folder (a VHDL or Verilog identifier)
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def _files_design_name(first: Path, top: str | None) -> str:
    """The name of a design given as HDL files and folders (``first``: the first of them): the
    ``--top`` given, else the first file's stem or the first folder's name (of the folder itself for
    ``.`` or ``..``), else ``design``."""
    if top is not None and _PLAIN_NAME.match(top):
        return top
    if first.is_dir():
        return first.name if first.name not in ("", ".", "..") else (first.resolve().name or "design")
    return first.stem or "design"


def _with_top(d: Design, top: str) -> Design:
    return replace(d, top=top)


def identity(d: Design) -> dict:
    """How a build folder names its design so that ``check``/``specialize`` find it again
    (build.json key ``design_source``): ``{"kind": "installed", "name": ...}``,
    ``{"kind": "project", "path": ...}`` or ``{"kind": "files"}``."""
    if d.project is not None:
        return {"kind": "project", "path": str(d.project)}
    if d.origin.startswith("entry point") and d.name in installed():
        return {"kind": "installed", "name": d.name}
    return {"kind": "files"}


def design_of(manifest: dict, path: Path | str = "") -> Design | None:
    """The design of a finished build (its build.json ``manifest``), or None for a design given as
    HDL files (no description to find).

    Raises:
        DesignError: the build's design is no longer installed, or its project file is gone or bad.
    """
    src = manifest.get("design_source") or {}
    kind = src.get("kind")
    if kind == "installed":
        name = src.get("name", "")
        d = installed().get(name)
        if d is None:
            raise DesignError(f"{path}: built from design {name!r}, which is not installed here")
        return d
    if kind == "project":
        from .project import load_project

        return load_project(src.get("path", ""))
    return None
