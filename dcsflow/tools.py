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

Every external program the flow runs goes through :func:`run_tool`: it records the run (wall and
CPU seconds, what it did) under the current step (:mod:`dcsflow.steps`), enforces a time limit
(:mod:`dcsflow.limits`: a default per tool, one override for the process; a run past it raises
:class:`ToolTimeout`), and keeps a list of the programs running so that :func:`terminate_children`
can end them all when the flow is interrupted (Ctrl-C, SIGTERM) — also in parallel branches. Each
program runs in a process group of its own, and ending it (time limit, interruption) ends the whole
group: what it started itself (a simulator under cocotb, a shell's children) ends with it.

Standard library only (the core layer).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from . import limits, steps

__all__ = ["ToolMissing", "ToolStartError", "Tool", "TOOLS", "find_tool", "which_tool", "has_tool", "tool_env_var",
           "exit_description", "last_line", "failure_message", "ToolRun", "ToolTimeout", "run_tool",
           "terminate_children", "on_terminate"]


class ToolStartError(OSError):
    """An external program was found but could not be started (not executable, a bad interpreter
    line, out of memory, ...). An ``OSError`` (``errno``, ``strerror``, ``filename``: the program)
    whose message is one line naming the tool, the program and the reason; ``user_error``: the
    command lines print it as ``error: ...`` (exit status 1)."""

    user_error = True

    def __init__(self, tool: str, program, err: OSError):
        super().__init__(err.errno, err.strerror or str(err), program)
        self.tool = tool

    def __str__(self) -> str:
        return f"cannot start {self.tool} ({self.filename}): {self.strerror}"


class ToolTimeout(Exception):
    """An external program ran past its time limit (:mod:`dcsflow.limits`) and was ended, with
    everything it started. The message is one line naming the tool, the step it ran in (or what it
    did), the limit and where the limit came from, and how to raise it, e.g. ``yosys (frontend:
    synth) ran past its time limit of 3600 s (the default for yosys); raise it with --timeout
    SECONDS or [build] timeout in dcsflow.toml``. ``user_error``: the command lines print it as
    ``error: ...`` (exit status 1). Attributes: ``tool``, ``where``, ``seconds``, ``source``."""

    user_error = True

    def __init__(self, tool: str, where: str, seconds: float, source: str):
        super().__init__(tool, where, seconds, source)
        self.tool, self.where, self.seconds, self.source = tool, where, seconds, source

    def __str__(self) -> str:
        where = f" ({self.where})" if self.where else ""
        hint = "" if self.source.startswith("the flow's budget") else f"; {limits.HOW_TO_RAISE}"
        return (f"{self.tool}{where} ran past its time limit of {limits.format_seconds(self.seconds)} s "
                f"({self.source}){hint}")


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


@dataclass
class ToolRun:
    """Result of :func:`run_tool`: exit status (negative: killed by that signal, as :mod:`subprocess`
    reports it), standard output and standard error (``stderr`` is "" when merged into ``stdout``),
    wall and CPU seconds (the child's user + system time). ``timed_out`` is always False: a run past
    its time limit raises :class:`ToolTimeout` instead of returning."""

    returncode: int
    stdout: str | bytes
    stderr: str | bytes
    wall: float
    cpu: float
    timed_out: bool = False


#: Popen arguments that start a program as the leader of a process group of its own, in this
#: process's session (Python 3.10 has no ``process_group``: a session of its own instead)
_OWN_GROUP = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}

_RUNNING: set = set()
_HOOKS: list = []
_LOCK = threading.Lock()


def on_terminate(hook: Callable[[], None]) -> Callable[[], None]:
    """Register ``hook`` (e.g. ending a pool of worker processes) to be called by
    :func:`terminate_children`; returns a function that unregisters it."""
    with _LOCK:
        _HOOKS.append(hook)

    def remove() -> None:
        with _LOCK:
            if hook in _HOOKS:
                _HOOKS.remove(hook)
    return remove


def terminate_children(grace: float = 2.0) -> None:
    """End every program :func:`run_tool` started that still runs (SIGTERM, then SIGKILL after
    ``grace`` seconds) and call the hooks of :func:`on_terminate`. Safe to call from any thread, and
    more than once."""
    with _LOCK:
        procs, hooks = list(_RUNNING), list(_HOOKS)
    for hook in hooks:
        try:
            hook()
        except Exception:  # noqa: BLE001 - ending the others matters more
            pass
    for p in procs:
        _signal_group(p, signal.SIGTERM)
    end = time.monotonic() + grace
    for p in procs:
        while p.returncode is None and time.monotonic() < end and _alive(p.pid):
            time.sleep(0.02)
        _signal_group(p, signal.SIGKILL)       # also what it started, should that outlive it


def _signal_group(p: subprocess.Popen, sig: int) -> None:
    """Send ``sig`` to the process group of ``p`` (:func:`run_tool` starts each program as the
    leader of its own group), or to ``p`` alone when that group is gone or not its own."""
    try:
        os.killpg(p.pid, sig)          # also when the leader is gone and the rest of its group runs on
        return
    except OSError:
        pass
    if p.returncode is None:
        try:
            p.send_signal(sig)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:                                      # a zombie is not running any more
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True


def _reader(stream, sink: list, on_line) -> Callable[[], None]:
    def read() -> None:
        for line in stream:
            sink.append(line)
            if on_line is not None:
                try:
                    on_line(line)
                except Exception:  # noqa: BLE001 - a progress display never stops a tool
                    pass
        stream.close()
    return read


def run_tool(argv: list[str], *, tool: str, what: str = "", cwd=None, env: dict | None = None,
             input: str | bytes | None = None, timeout: float | None = None, merge_stderr: bool = False,
             text: bool = True, on_line: Callable[[str], None] | None = None) -> ToolRun:
    """Run external program ``argv`` to its end and record it (:func:`dcsflow.steps.record_tool`).

    The program runs as the leader of a process group of its own; when it reaches its time limit,
    or the caller is interrupted while waiting for it (Ctrl-C), the whole group is ended.

    Args:
        tool: the program's short name in the records (``yosys``, ``abc``, ``ghdl``, ``iverilog``, ...);
            it also picks the default time limit (:data:`dcsflow.limits.DEFAULT_LIMITS`);
        what: what the run does, in a few words (e.g. the script); cwd, env: as :class:`subprocess.Popen`;
        input: written to its standard input (else it reads nothing); timeout: this run's own budget in
        seconds (None: the process's limit, :func:`dcsflow.limits.limit_for`; a lower process-wide
        override still applies); merge_stderr: standard error into standard output; text: decode
        output as UTF-8 (undecodable bytes replaced) instead of bytes; on_line: called with each line of
        standard output as it arrives (progress).
    Returns:
        :class:`ToolRun`.
    Raises:
        ToolStartError: the program could not be started (an ``OSError`` naming the tool and program).
        ToolTimeout: it ran past its time limit (it and what it started have been killed); one line
            naming the tool, the current step (:func:`dcsflow.steps.current_path`) or ``what``, and
            the limit.
    """
    seconds, source = limits.limit_for(tool, timeout)
    t0 = time.perf_counter()
    kw = {"encoding": "utf-8", "errors": "replace"} if text else {}
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env,
                             stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                             **_OWN_GROUP, **kw)
    except OSError as e:
        if e.filename is not None and cwd is not None and os.fsdecode(e.filename) == os.fsdecode(cwd):
            raise                      # the working folder, not the program: the caller's error
        raise ToolStartError(tool, argv[0], e) from None
    with _LOCK:
        _RUNNING.add(p)
    out: list = []
    err: list = []
    threads = [threading.Thread(target=_reader(p.stdout, out, on_line), daemon=True)]
    if not merge_stderr:
        threads.append(threading.Thread(target=_reader(p.stderr, err, None), daemon=True))
    if input is not None:
        def feed() -> None:
            try:
                p.stdin.write(input)
                p.stdin.close()
            except OSError:
                pass
        threads.append(threading.Thread(target=feed, daemon=True))
    for t in threads:
        t.start()
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        _signal_group(p, signal.SIGKILL)
    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        while True:
            try:
                _, status, usage = os.wait4(p.pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:          # reaped elsewhere (should not happen)
                status, usage = 0, None
                break
    except BaseException:                      # Ctrl-C while waiting: the program is in a group of its own
        timer.cancel()
        _signal_group(p, signal.SIGTERM)
        end = time.monotonic() + 2.0
        while time.monotonic() < end and _alive(p.pid):
            time.sleep(0.02)
        _signal_group(p, signal.SIGKILL)
        raise
    finally:
        timer.cancel()
        with _LOCK:
            _RUNNING.discard(p)
    p.returncode = os.waitstatus_to_exitcode(status) if usage is not None else 0
    if timed_out.is_set():
        _signal_group(p, signal.SIGKILL)       # what it started, also if it started it after the kill
    for t in threads:
        t.join(5.0 if timed_out.is_set() else None)   # a program that left its group keeps no pipe waiting
    wall = time.perf_counter() - t0
    cpu = usage.ru_utime + usage.ru_stime if usage is not None else 0.0
    join = "" if text else b""
    res = ToolRun(p.returncode, join.join(out), join.join(err), wall, cpu)
    failed = None
    if timed_out.is_set():
        failed = f"timed out after {limits.format_seconds(seconds)} s"
    elif res.returncode != 0:
        failed = exit_description(res.returncode)
    steps.record_tool(tool, what, t0, wall, cpu, failed)
    if timed_out.is_set():
        path = steps.current_path()
        doing = what if len(what) <= 60 else what[:57] + "..."
        where = f"{path}: {doing}" if path and doing else path or doing
        raise ToolTimeout(tool, where, seconds, source)
    return res
