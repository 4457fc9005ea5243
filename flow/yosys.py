"""Running Yosys: script execution with progress, error extraction, data-directory lookup.

Yosys (tested with 0.23) is run as a subprocess on a script file; its log goes to a file beside the
outputs. An ``ERROR:`` line becomes a one-line :class:`YosysError` that keeps Yosys's own message
(for HDL syntax errors it names the file and line, e.g. ``kx.v:3: ERROR: syntax error ...``).
The executables come from the one tool locator :mod:`dcsflow.tools` (``$DCSFLOW_YOSYS``,
``$DCSFLOW_YOSYS_CONFIG``); :class:`ToolMissing` here is :class:`dcsflow.tools.ToolMissing`.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Callable

from dcsflow.tools import ToolMissing, find_tool, tool_env_var, which_tool

from .errors import FlowError

__all__ = ["YosysError", "ToolMissing", "yosys_binary", "datdir", "cells_sim", "run_script"]


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
            out = subprocess.run([cfg, "--datdir"], capture_output=True, text=True, check=True).stdout.strip()
            if out and Path(out).is_dir():
                return Path(out)
        except (OSError, subprocess.CalledProcessError):
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
               status: Callable[[str], None] | None = None) -> float:
    """Run a Yosys script in ``workdir``; return the wall time in seconds.

    Args:
        script: the Yosys commands (one per line).
        workdir: folder that receives ``<name>.ys`` and the log ``<name>.log``.
        name: base name of the script and log.
        status: optional callback receiving the name of each pass as Yosys starts it (progress).
    Raises:
        YosysError: Yosys exited non-zero; the message is its first ERROR line.
    """
    workdir = Path(workdir).resolve()      # Yosys runs in workdir: paths given to it must be absolute
    workdir.mkdir(parents=True, exist_ok=True)
    ys = workdir / f"{name}.ys"
    log = workdir / f"{name}.log"
    ys.write_text(script)
    t0 = time.perf_counter()
    proc = subprocess.Popen([yosys_binary(), "-Q", "-T", "-l", str(log), "-s", str(ys)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=workdir, bufsize=1)
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        tail.append(line.rstrip("\n"))
        if len(tail) > 200:
            del tail[:100]
        if status:
            m = _PASS_RE.match(line)
            if m:
                status(m.group(1))
    rc = proc.wait()
    if rc != 0:
        errs = [ln.strip() for ln in tail if "ERROR" in ln]
        msg = errs[0] if errs else (tail[-1].strip() if tail else f"exit status {rc}")
        raise YosysError(f"yosys: {msg} (log: {log})")
    return time.perf_counter() - t0
