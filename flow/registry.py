"""Finding designs: installed ones (entry points), projects (``dcsflow.toml``), HDL files and folders.

Installed designs are the :class:`~dcsflow.flow.design.Design` objects registered under the
entry-point group ``dcsflow.designs`` by any installed distribution (the bundled ones in this
package's ``setup.py``, third-party packages the same way). An entry point that fails to load is
reported once, as one warning line naming it on stderr; the other designs still work.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .design import ENTRY_POINT_GROUP, Design, DesignError, is_vhdl

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
    files = sorted(folder.glob("*.v")) + sorted(folder.glob("*.sv"))
    if not files and (folder / _RTL_SUBFOLDER).is_dir():
        return _hdl_in(folder / _RTL_SUBFOLDER)
    return files


def resolve(design: str | None, top: str | None = None, more: list[str] | tuple = (),
            project: str | Path | None = None) -> Design:
    """The design a ``dcsflow build`` argument names.

    Args:
        design: an installed design's name, a Verilog file (``.v``/``.sv``), a folder of Verilog
            files (or with an ``rtl/`` folder), or the first of several VHDL files; None with
            ``project``.
        top: top module (overrides an installed design's); more: further VHDL files after
            ``design``; project: a ``dcsflow.toml`` (:func:`dcsflow.flow.project.load_project`).
    Raises:
        DesignError: nothing of that name, no HDL found, files of mixed kinds; ProjectError for a
            bad project file.
    """
    if project is not None:
        if design is not None or more:
            raise DesignError("give either a DESIGN or --project, not both")
        from .project import load_project

        d = load_project(project)
        return d if top is None else _with_top(d, top)
    if design is None:
        raise DesignError("no DESIGN given (a design name, HDL files or folder, or --project dcsflow.toml)")
    if is_vhdl(design) or more:
        files = [design, *more]
        for f in files:
            if not is_vhdl(f):
                raise DesignError(f"{f}: several design files must all be VHDL (.vhd, .vhdl)")
            if not Path(f).is_file():
                raise DesignError(f"{f}: no such file")
        return Design(Path(files[0]).stem, top, tuple(Path(f) for f in files))
    p = Path(design)
    if not p.exists():
        d = installed().get(design)
        if d is None:
            raise DesignError(f"{design}: no such file or folder, and not an installed design ("
                              + (", ".join(installed()) or "none installed") + ")")
        return d if top is None else _with_top(d, top)
    if p.is_file():
        return Design(p.stem, top, (p,))
    files = _hdl_in(p)
    if not files:
        raise DesignError(f"{design}: folder holds no .v/.sv files")
    return Design(p.name, top, tuple(files))


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
