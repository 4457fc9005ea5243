"""The one simulator runner: compile Verilog with Icarus Verilog and run it.

Every test bench of the flow and of the designs (RTL on vectors, specialized netlists in
``dcsflow check``) goes through :func:`icarus`: ``iverilog -g2005 -o W/NAME.vvp -s TOP [-P...]
[-D...] SOURCES`` then ``vvp -n W/NAME.vvp +PLUSARGS`` in the work folder ``W``. A specialized
netlist holds key material: callers write it into a private folder (mode 0700) and delete it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Mapping, Sequence

from dcsflow.tools import ToolMissing, find_tool, last_line, run_tool

from .errors import FlowError


class SimulatorError(FlowError):
    """Icarus missing, the compile failed, or the simulation exited with an error."""


def _tail(text: str, n: int = 500) -> str:
    return text.strip().replace("\n", " | ")[-n:]


def last_output(r: subprocess.CompletedProcess) -> str:
    """What a finished simulation said last, for a message about a result it did not write:
    ``; last output line: '...'`` (standard error first, else standard output), or ``; it printed
    nothing`` (vvp reports a run-time error such as a missing file on its output and exits 0)."""
    tail = last_line(r.stderr or "") or last_line(r.stdout or "")
    return f"; last output line: {tail!r}" if tail else "; it printed nothing"


def icarus(sources: Sequence[Path | str], workdir: Path, *, top: str = "tb",
           parameters: Mapping[str, int | str] | None = None, defines: Mapping[str, object] | None = None,
           plusargs: Sequence[str] = (), name: str = "tb", generation: str = "2005",
           timeout: float | None = None, error: type[Exception] = SimulatorError,
           missing: type[Exception] | None = None, extra_args: Sequence[str] = (),
           cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """Compile ``sources`` (top module ``top``) and run the simulation; returns vvp's completed process
    (text mode; its stdout holds ``$display`` output).

    Args:
        sources: Verilog files, in order. workdir: folder for ``NAME.vvp`` (created).
        parameters: top-level parameter overrides (``-P<top>.<name>=<value>``).
        defines: macros (``-D<name>=<value>``; value None: ``-D<name>``).
        plusargs: arguments for vvp (``+in=...``). generation: Verilog standard (``-g``).
        timeout: this simulation run's own budget in seconds (None: the time limit of vvp,
            :mod:`dcsflow.limits`; the compile always has iverilog's).
        error: exception class raised for a failed compile or run (a design's own error type);
        missing: exception class raised (with the locator's message) when iverilog/vvp is missing
            (default: :class:`dcsflow.tools.ToolMissing` itself).
        extra_args: further iverilog arguments before the sources (e.g. ``-I<folder>``).
        cwd: folder both tools run in (relative source paths and the simulation's relative file
            names are relative to it; default: the current folder). Icarus writes source paths
            into the ``.vvp`` file unescaped, so a path with a double quote must be given relative
            to ``cwd`` (or through a link).
    Raises:
        ``error`` (default SimulatorError): the compile failed or vvp exited non-zero (message: the
            tool's output tail). :class:`dcsflow.tools.ToolTimeout`: either ran past its time
            limit (one line naming the run and the limit). ``missing`` / ToolMissing: iverilog/vvp
            not installed.
    """
    try:
        iverilog, vvp = find_tool("iverilog"), find_tool("vvp")
    except ToolMissing as e:
        if missing is None:
            raise
        raise missing(str(e)) from None
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    vvp_file = workdir / f"{name}.vvp"
    cmd = [iverilog, f"-g{generation}", "-o", str(vvp_file.resolve()), "-s", top]
    cmd += [f"-P{top}.{k}={v}" for k, v in (parameters or {}).items()]
    cmd += [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in (defines or {}).items()]
    cmd += [str(a) for a in extra_args]
    cmd += [str(s) for s in sources]
    r = run_tool(cmd, tool="iverilog", what=f"compile {top}", cwd=cwd)
    if r.returncode != 0:
        raise error("iverilog failed: " + _tail(r.stderr or r.stdout))
    r = run_tool([vvp, "-n", str(vvp_file.resolve()), *plusargs], tool="vvp", what=f"simulate {top}",
                 timeout=timeout, cwd=cwd)
    if r.returncode != 0:
        raise error("vvp failed: " + _tail(r.stderr or r.stdout))
    return subprocess.CompletedProcess(cmd, r.returncode, r.stdout, r.stderr)


def run_test_bench(sources: Sequence[Path | str], stimulus: str, workdir: Path | str | None = None, *,
                   prefix: str = "dcsflow-sim-", defines: Mapping[str, object] | None = None,
                   plusargs: Sequence[str] = (), error: type[Exception] = SimulatorError,
                   missing: type[Exception] | None = None) -> str:
    """One run of a file-driven test bench (the designs' ``tb_*.v``): write ``stimulus`` to
    ``stim.txt`` in ``workdir``, compile and run ``sources`` (the test bench last, top ``tb``) with
    ``+in=stim.txt +out=res.txt`` and the ``plusargs``, return the text of ``res.txt``.

    Args:
        workdir: folder for the files (created); None: a private temporary folder (prefix
            ``prefix``), removed afterwards. defines: macros, as :func:`icarus`.
        error, missing: the exception classes, as :func:`icarus`.
    Raises:
        ``error``: the compile or run failed, or the run wrote no result file (message: the
        simulator's last output line). ``missing`` / ToolMissing: Icarus not installed.
    """
    import tempfile

    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix=prefix)
        workdir = tmp.name
    try:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        stim, res = wd / "stim.txt", wd / "res.txt"
        stim.write_text(stimulus)
        r = icarus(sources, wd, defines=defines, plusargs=[f"+in={stim}", f"+out={res}", *plusargs],
                   error=error, missing=missing)
        if not res.exists():
            raise error("vvp wrote no result file" + last_output(r))
        return res.read_text()
    finally:
        if tmp is not None:
            tmp.cleanup()
