"""The one external-tool locator: Yosys, ABC, GHDL, Icarus Verilog, Verilator.

Modelled on Amaranth's ``_toolchain.require_tool``: every tool has one environment variable that
overrides where it is found (:data:`TOOLS`); without it the tool is looked up on ``PATH`` under its
command names, in order (ABC: ``yosys-abc``, then ``abc``, ``berkeley-abc``). A tool that cannot
be found raises :class:`ToolMissing`, one line naming the tool, its environment variable and the
Debian package that installs it. An override naming a file that does not exist (or is not
executable) is itself that error: it is never silently replaced by a tool on ``PATH``.

The variable holds a path (``/opt/yosys/bin/yosys``) or a command name looked up on ``PATH``
(``yosys-0.23``).

A tool that fails without a message of its own (a crash, a signal) is reported with
:func:`failure_message`: one line naming the tool, its exit status or signal and the last line it
printed (the Yosys, ABC and GHDL runners of the flow and of ``tmap`` all use it).

| tool | variable | commands on PATH | Debian package |
| --- | --- | --- | --- |
| ``yosys`` | ``DCSFLOW_YOSYS`` | ``yosys`` | ``yosys`` |
| ``yosys-config`` | ``DCSFLOW_YOSYS_CONFIG`` | ``yosys-config`` | ``yosys-dev`` |
| ``abc`` | ``DCSFLOW_ABC`` | ``yosys-abc``, ``abc``, ``berkeley-abc`` | ``yosys`` or ``berkeley-abc`` |
| ``ghdl`` | ``DCSFLOW_GHDL`` | ``ghdl`` | ``ghdl`` |
| ``iverilog`` | ``DCSFLOW_IVERILOG`` | ``iverilog`` | ``iverilog`` |
| ``vvp`` | ``DCSFLOW_VVP`` | ``vvp`` | ``iverilog`` |
| ``verilator`` | ``DCSFLOW_VERILATOR`` | ``verilator`` | ``verilator`` |

Standard library only (the core layer).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

__all__ = ["ToolMissing", "Tool", "TOOLS", "find_tool", "which_tool", "has_tool", "tool_env_var",
           "exit_description", "last_line", "failure_message"]


class ToolMissing(Exception):
    """An external tool is not installed, or its environment override names no executable file.

    The message is one line naming the tool, its environment variable and the Debian package;
    ``user_error``: the ``dcsflow`` CLI prints it as ``error: ...`` (exit status 1).
    """

    user_error = True


@dataclass(frozen=True)
class Tool:
    """An external tool: ``name`` (the key of :data:`TOOLS`), ``env`` (the overriding environment
    variable), ``commands`` (names looked up on PATH, in order), ``packages`` (Debian packages that
    install it), ``what`` (a few words on what the flow uses it for)."""

    name: str
    env: str
    commands: tuple
    packages: tuple
    what: str

    def missing_message(self) -> str:
        """One line: the tool is not on PATH; install its package or set its variable."""
        looked = ", ".join(self.commands)
        pkgs = " or ".join(f"'{p}'" for p in self.packages)
        return (f"{self.name} ({self.what}) not found on PATH (looked for {looked}): install the Debian "
                f"package {pkgs}, or set {self.env} to its path")


#: tool name -> :class:`Tool`
TOOLS = {t.name: t for t in (
    Tool("yosys", "DCSFLOW_YOSYS", ("yosys",), ("yosys",), "synthesis"),
    Tool("yosys-config", "DCSFLOW_YOSYS_CONFIG", ("yosys-config",), ("yosys-dev",), "Yosys data directory"),
    Tool("abc", "DCSFLOW_ABC", ("yosys-abc", "abc", "berkeley-abc"), ("yosys", "berkeley-abc"),
         "ABC, AIG optimization and equivalence proofs"),
    Tool("ghdl", "DCSFLOW_GHDL", ("ghdl",), ("ghdl",), "VHDL front end"),
    Tool("iverilog", "DCSFLOW_IVERILOG", ("iverilog",), ("iverilog",), "Icarus Verilog compiler"),
    Tool("vvp", "DCSFLOW_VVP", ("vvp",), ("iverilog",), "Icarus Verilog simulator"),
    Tool("verilator", "DCSFLOW_VERILATOR", ("verilator",), ("verilator",), "Verilator simulator"),
)}


def _tool(name: str) -> Tool:
    try:
        return TOOLS[name]
    except KeyError:
        raise ValueError(f"unknown tool {name!r}; known: {', '.join(TOOLS)}") from None


def tool_env_var(name: str) -> str:
    """The environment variable that overrides tool ``name`` (e.g. ``DCSFLOW_YOSYS``). Raises
    ValueError for a tool not in :data:`TOOLS`."""
    return _tool(name).env


def which_tool(name: str) -> str | None:
    """Path of tool ``name``, or None when it is neither overridden nor on PATH.

    Raises:
        ToolMissing: the tool's environment variable is set but names no executable file.
        ValueError: ``name`` is not in :data:`TOOLS`.
    """
    tool = _tool(name)
    override = os.environ.get(tool.env)
    if override:
        path = shutil.which(override)
        if path is None:
            raise ToolMissing(f"{tool.env}={override}: no such executable file (it overrides where "
                              f"{tool.name} is found; fix or unset it)")
        return path
    for command in tool.commands:
        path = shutil.which(command)
        if path:
            return path
    return None


def find_tool(name: str) -> str:
    """Path of tool ``name`` (its environment variable, else the first of its commands on PATH).

    Raises:
        ToolMissing: not found, or the override names no executable file (one line naming the tool,
            its environment variable and Debian package).
        ValueError: ``name`` is not in :data:`TOOLS`.
    """
    path = which_tool(name)
    if path is None:
        raise ToolMissing(TOOLS[name].missing_message())
    return path


def has_tool(name: str) -> bool:
    """True when :func:`find_tool` would find tool ``name`` (a broken override still raises
    ToolMissing, so that it is not mistaken for an absent tool)."""
    return which_tool(name) is not None


#: Names of the signals whose numbers are the same on Linux (every architecture) and the BSDs
_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 8: "SIGFPE",
            9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}


def exit_description(returncode: int) -> str:
    """How a process ended, in words: ``exited with status 3``, or for a negative ``returncode`` (as
    :mod:`subprocess` reports a process killed by a signal) ``was killed by signal 11 (SIGSEGV)``
    (the name for the common signals)."""
    if returncode < 0:
        name = _SIGNALS.get(-returncode)
        return f"was killed by signal {-returncode}" + (f" ({name})" if name else "")
    return f"exited with status {returncode}"


def last_line(output: str, limit: int = 200) -> str:
    """The last non-blank line of ``output``, stripped and cut to ``limit`` characters ("" when
    there is none)."""
    for ln in reversed(output.splitlines()):
        s = ln.strip()
        if s:
            return s if len(s) <= limit else s[:limit - 3] + "..."
    return ""


def failure_message(tool: str, returncode: int, output: str, doing: str = "") -> str:
    """One line saying that external tool ``tool`` failed: how it ended (:func:`exit_description`),
    what it was doing (``doing``, optional) and the last line it printed (:func:`last_line` of
    ``output``), e.g. ``yosys-abc was killed by signal 11 (SIGSEGV) running '&r in.aig; &if -K 6';
    last output line: 'Segmentation fault'``."""
    what = f" {doing}" if doing else ""
    tail = last_line(output)
    said = f"last output line: {tail!r}" if tail else "it printed nothing"
    return f"{tool} {exit_description(returncode)}{what}; {said}"
