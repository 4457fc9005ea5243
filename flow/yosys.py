"""Running Yosys: script execution with progress, error extraction, data-directory lookup.

Yosys (tested with 0.23) is run as a subprocess on a script file; its log goes to a file beside the
outputs. An ``ERROR:`` line becomes a one-line :class:`YosysError` that keeps Yosys's own message
(for HDL syntax errors it names the file and line, e.g. ``kx.v:3: ERROR: syntax error ...``).
A Yosys that crashes or is killed (no ERROR line) is the one line of
:func:`dcsflow.tools.failure_message`: its exit status or signal and the last line it printed.
Yosys's output is read as UTF-8 with undecodable bytes replaced (a non-UTF-8 identifier in an error
message never stops the flow with a decoding error).
The executables come from the one tool locator :mod:`dcsflow.tools` (``$DCSFLOW_YOSYS``,
``$DCSFLOW_YOSYS_CONFIG``); :class:`ToolMissing` here is :class:`dcsflow.tools.ToolMissing`.

File names in Yosys scripts (Yosys 0.23, checked): a command's arguments are split at white space;
an argument that starts with ``"`` runs to the next ``"`` that is followed by white space (or the
end of the line), and file-name arguments of ``read_verilog``, ``read_json``, ``write_json`` and
``techmap -map`` lose those quotes again. There is no escape character. :func:`quote` writes a
file name as such an argument; a name that cannot be written so (a ``"`` followed by white space,
a line break) is reached through a relative path or a symbolic link in the script's folder
(:func:`script_path`). ``tee -o`` keeps the quotes: give it plain names relative to the folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path
from typing import Callable

from dcsflow.fileio import write_text_atomic
from dcsflow.tools import ToolMissing, failure_message, find_tool, run_tool, tool_env_var, which_tool

from .errors import FlowError

__all__ = ["YosysError", "ToolMissing", "yosys_binary", "datdir", "cells_sim", "run_script", "quote",
           "quotable", "script_path"]


class YosysError(FlowError):
    """Yosys failed; the message is Yosys's ERROR line (with file:line when Yosys gives one)."""


def yosys_binary() -> str:
    """Path of the ``yosys`` executable (``$DCSFLOW_YOSYS``, else PATH: :func:`dcsflow.tools.find_tool`).
    Raises ToolMissing."""
    return find_tool("yosys")


def datdir() -> Path:
    """Yosys's data directory (``yosys-config --datdir``, ``$DCSFLOW_YOSYS_CONFIG`` overriding where
    yosys-config is; without yosys-config ``<prefix>/share/yosys`` beside the yosys executable).
    Raises ToolMissing when neither gives a directory."""
    cfg = which_tool("yosys-config")
    if cfg:
        try:
            r = run_tool([cfg, "--datdir"], tool="yosys-config", what="--datdir")
            out = r.stdout.strip() if r.returncode == 0 else ""
            if out and Path(out).is_dir():
                return Path(out)
        except OSError:
            pass
    exe = Path(yosys_binary()).resolve()
    cand = exe.parent.parent / "share" / "yosys"
    if not cand.is_dir():
        raise ToolMissing(f"Yosys data directory not found (looked at {cand}): install the Debian package "
                          f"'yosys-dev' or set {tool_env_var('yosys-config')} to yosys-config")
    return cand


def cells_sim() -> Path:
    """Yosys's Xilinx simulation library ``<datdir>/xilinx/cells_sim.v``."""
    p = datdir() / "xilinx" / "cells_sim.v"
    if not p.exists():
        raise ToolMissing(f"Yosys Xilinx simulation models not found: {p}")
    return p


_PASS_RE = re.compile(r"^\d+(?:\.\d+)*\. (?:Executing|Printing) (.*?)(?: pass)?[.(]")


def run_script(script: str, workdir: Path, name: str,
               status: Callable[[str], None] | None = None, what: str = "") -> float:
    """Run a Yosys script in ``workdir``; return the wall time in seconds.

    Args:
        script: the Yosys commands (one per line).
        workdir: folder that receives ``<name>.ys`` and the log ``<name>.log``.
        name: base name of the script and log.
        status: optional callback receiving the name of each pass as Yosys starts it (progress).
        what: what the script does, in a few words, for the build's timing records
            (:mod:`dcsflow.steps`; default: the script's name).
    Raises:
        YosysError: Yosys exited non-zero: the message is its first ERROR line, or when there is
            none (a crash, a signal) its exit status or signal and the last line it printed; or
            Yosys could not be started.
    """
    workdir = Path(workdir).resolve()      # Yosys runs in workdir: paths given to it must be absolute
    workdir.mkdir(parents=True, exist_ok=True)
    ys = workdir / f"{name}.ys"
    log = workdir / f"{name}.log"
    # atomic, and surrogate escapes as their bytes: a file name that is not UTF-8 reaches Yosys as
    # the bytes it has on disk
    write_text_atomic(ys, script)
    t0 = time.perf_counter()
    exe = yosys_binary()

    def on_line(line: str) -> None:
        m = _PASS_RE.match(line)
        if m:
            status(m.group(1))

    try:
        r = run_tool([exe, "-Q", "-T", "-l", str(log), "-s", str(ys)], tool="yosys", what=what or name,
                     cwd=workdir, merge_stderr=True, on_line=on_line if status else None)
    except OSError as e:
        raise YosysError(f"yosys ({exe}) could not be started: {e.strerror or e}") from None
    tail = r.stdout.splitlines()[-200:]
    rc = r.returncode
    if rc != 0:
        errs = [ln.strip() for ln in tail if "ERROR" in ln]
        if rc > 0 and errs:
            raise YosysError(f"yosys: {errs[0]} (log: {log})")
        raise YosysError(f"{failure_message('yosys', rc, chr(10).join(tail), f'running {ys.name}')} "
                         f"(log: {log})")
    return time.perf_counter() - t0


_BARE = re.compile(r"^[A-Za-z0-9_./+=,:@%-]+$")
_SEPARATORS = " \t\r\n"


def quotable(name: str) -> bool:
    """True when ``name`` can be written as one argument of a Yosys script line (:func:`quote`):
    ASCII only, no line break or NUL, and no ``"`` followed by white space or by ``;`` and white
    space. (ASCII: Yosys 0.23 writes every non-ASCII byte of a file name that ends up in a ``src``
    attribute as a ``\\uFFFFFFxx`` escape that its own JSON reader then rejects.)"""
    if not name.isascii() or any(ch in name for ch in "\n\r\0"):
        return False
    for i, ch in enumerate(name):
        if ch != '"':
            continue
        nxt, after = name[i + 1:i + 2], name[i + 2:i + 3]
        if (nxt and nxt in _SEPARATORS) or (nxt == ";" and after and after in _SEPARATORS):
            return False
    return True


def quote(name: str) -> str:
    """``name`` as one argument of a Yosys script line: unchanged when it is plain (letters, digits,
    ``_./+=,:@%-``), else in double quotes (Yosys removes them again for file names). Yosys still
    expands a file name starting with ``+/`` (its data folder) or ``~/`` (the home folder), quoted
    or not; :func:`script_path` never returns such a name.

    Raises:
        YosysError: the name cannot be written in a Yosys script (see :func:`quotable`); use
            :func:`script_path` for file names.
    """
    name = str(name)
    if _BARE.match(name) and not name.startswith(("~", "+/")):
        return name
    if not quotable(name):
        raise YosysError(f"{name!r} cannot be written in a Yosys script (a line break, or a double "
                         "quote followed by a space)")
    return f'"{name}"'


def script_path(path: str | os.PathLike, workdir: Path) -> str:
    """A name for file or folder ``path`` that a Yosys script run in ``workdir`` can use (pass it
    through :func:`quote`): ``path`` itself when :func:`quotable`, else its path relative to
    ``workdir`` when that is, else a symbolic link ``workdir/_paths/<hash>`` to it (created here;
    to the folder holding it when the file name itself is quotable, so that Verilog ``include``
    files beside it are still found)."""
    path = Path(path)
    s = str(path)
    if s.startswith(("~/", "+/")):
        s = f"./{s}"
    if quotable(s):
        return s
    workdir = Path(workdir).resolve()
    target = path.resolve() if path.is_absolute() else (workdir / path).resolve()
    rel = os.path.relpath(target, workdir)
    if quotable(rel):
        return rel if rel.startswith(("/", ".")) else f"./{rel}"
    links = workdir / "_paths"
    links.mkdir(parents=True, exist_ok=True)
    if quotable(target.name):
        link, tail = _link(links, target.parent), target.name
    else:
        link, tail = _link(links, target, target.suffix if quotable(target.suffix) else ""), ""
    return os.path.join("_paths", link.name, tail) if tail else os.path.join("_paths", link.name)


def _link(links: Path, target: Path, suffix: str = "") -> Path:
    """Symbolic link ``links/<hash of target><suffix>`` -> ``target`` (replaced if it points elsewhere)."""
    raw = os.fsencode(str(target))
    link = links / (hashlib.sha256(raw).hexdigest()[:16] + suffix)
    if link.is_symlink() and os.readlink(link) == str(target):
        return link
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(target, link)
    return link
