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
:class:`ToolTimeout`) and a memory limit (``RLIMIT_AS``, set in the child before the program starts;
a run that fails for want of memory raises :class:`ToolMemoryLimit`), prints a line of progress
(:func:`set_progress`) every :data:`PROGRESS_SECONDS` while it runs, and keeps a list of the programs
running so that :func:`terminate_children` can end them all when the flow is interrupted (Ctrl-C,
SIGTERM) — also in parallel branches. Each program runs in a process group of its own, and ending it
(time limit, interruption) ends the whole group: what it started itself (a simulator under cocotb, a
shell's children) ends with it.

The programs die with the process that started them however it dies, also by SIGKILL: each gets
``PR_SET_PDEATHSIG`` = SIGKILL (Linux ``prctl``, set in the child before the program starts), and a
watchdog process (started with the first run, in a session of its own so that a signal to the
caller's process group does not reach it) holds the process groups of the programs running and kills
them when the caller's end of its pipe closes, i.e. when the caller has ended in any way (so also
what a program started, which the parent-death signal does not reach).

Standard library only (the core layer).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from . import limits, steps

try:
    import resource
except ImportError:          # not a POSIX system: no memory limit (the flow targets Linux)
    resource = None

__all__ = ["ToolMissing", "ToolStartError", "Tool", "TOOLS", "find_tool", "which_tool", "has_tool", "tool_env_var",
           "exit_description", "last_line", "failure_message", "ToolRun", "ToolTimeout", "ToolMemoryLimit",
           "run_tool", "terminate_children", "on_terminate", "PROGRESS_SECONDS", "set_progress", "progress",
           "progress_enabled", "query_tool"]


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


class ToolMemoryLimit(Exception):
    """An external program failed for want of memory under its memory limit (:mod:`dcsflow.limits`;
    it and what it started have ended). The message is one line naming the tool, the step it ran in
    (or what it did), the limit and where it came from, and how to raise it, e.g. ``yosys
    (frontend: synth) ran out of its memory limit of 2 GiB (--max-memory); raise it with
    --max-memory SIZE or [build] max_memory in dcsflow.toml``. ``user_error``: the command lines
    print it as ``error: ...`` (exit status 1). Attributes: ``tool``, ``where``, ``limit`` (bytes),
    ``source``."""

    user_error = True

    def __init__(self, tool: str, where: str, limit: int, source: str):
        super().__init__(tool, where, limit, source)
        self.tool, self.where, self.limit, self.source = tool, where, limit, source

    def __str__(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return (f"{self.tool}{where} ran out of its memory limit of {limits.format_bytes(self.limit)} "
                f"({self.source}); {limits.HOW_TO_RAISE_MEMORY}")


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


#: seconds between two progress lines of a program that is still running (the first after as many)
PROGRESS_SECONDS = 60.0


def _print_progress(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


_PROGRESS: list = [_print_progress]


def set_progress(hook: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Where the progress lines of long runs go (:data:`PROGRESS_SECONDS`): ``hook(line)`` (default:
    a line on stderr), None for nowhere. Process-wide (the runs may be in any thread); returns the
    hook it replaces."""
    with _LOCK:
        before, _PROGRESS[0] = _PROGRESS[0], hook
    return before


def progress_enabled() -> bool:
    """True when progress lines go somewhere (:func:`set_progress`)."""
    return _PROGRESS[0] is not None


@contextmanager
def progress(hook: Callable[[str], None] | None) -> Iterator[None]:
    """:func:`set_progress` for the block, then the earlier hook again."""
    before = set_progress(hook)
    try:
        yield
    finally:
        set_progress(before)


def _say_progress(line: str) -> None:
    hook = _PROGRESS[0]
    if hook is not None:
        try:
            hook(line)
        except Exception:  # noqa: BLE001 - a progress display never stops a tool
            pass


#: the watchdog (module docstring): reads "+PGID" / "-PGID" lines; at the end of its input it kills
#: the process groups still listed. Runs as ``python -I -S -c`` (no site, no user path).
_WATCHDOG_CODE = """
import os, signal
groups, buf = set(), b""
while True:
    try:
        data = os.read(0, 4096)
    except InterruptedError:
        continue
    except OSError:
        data = b""
    if not data:
        break
    buf += data
    *lines, buf = buf.split(b"\\n")
    for ln in lines:
        try:
            (groups.add if ln[:1] == b"+" else groups.discard)(int(ln[1:]))
        except ValueError:
            pass
for g in groups:
    try:
        os.killpg(g, signal.SIGKILL)
    except OSError:
        pass
"""


class _Watchdog:
    """This process's watchdog (module docstring): started with the first program, told every
    process group it starts and every one that ended."""

    def __init__(self):
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._pid = 0                          # the process that started it (a forked child starts its own)
        self._broken = False

    def _ensure(self) -> subprocess.Popen | None:
        if self._proc is not None and self._pid == os.getpid():
            return self._proc
        if self._broken or not sys.executable:
            return None
        try:
            self._proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True)
            self._pid = os.getpid()
        except OSError:
            self._broken = True                # the parent-death signal still ends each program
            return None
        return self._proc

    def _send(self, line: str) -> None:
        with self._lock:
            proc = self._ensure()
            if proc is None:
                return
            try:
                proc.stdin.write(line.encode("ascii"))
                proc.stdin.flush()
            except (OSError, ValueError):
                self._broken = True

    def add(self, pgid: int) -> None:
        """Kill the process group ``pgid`` should this process end before it does."""
        self._send(f"+{pgid}\n")

    def discard(self, pgid: int) -> None:
        """The process group ``pgid`` has ended (or was ended by this process)."""
        self._send(f"-{pgid}\n")

    def start(self) -> None:
        """Start the watchdog now (before the first program is started)."""
        with self._lock:
            self._ensure()


_WATCHDOG = _Watchdog()

#: ``prctl`` option that sets the signal a process gets when its parent thread ends (linux/prctl.h)
_PR_SET_PDEATHSIG = 1
_PRCTL: list = []


def _prctl():
    """libc's ``prctl`` (ctypes), looked up once; None where there is none."""
    if not _PRCTL:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                fn = ctypes.CDLL(None, use_errno=True).prctl
                fn.restype = ctypes.c_int
            except (OSError, AttributeError, ImportError):
                fn = None
        _PRCTL.append(fn)
    return _PRCTL[0]


def _child_setup(memory: int, parent: int) -> Callable[[], None]:
    """The function the child runs between fork and exec (it may not take a lock another thread of
    the parent might hold: no import, no allocation of Python locks): the parent-death signal
    (SIGKILL; exit at once when the parent is already gone), then the memory limit (soft and hard
    ``RLIMIT_AS``, at most the hard limit in force)."""
    prctl = _prctl()
    setrlimit, rlimit_as = (resource.setrlimit, resource.RLIMIT_AS) if resource is not None else (None, None)
    hard = None
    if resource is not None:
        try:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        except (OSError, ValueError):
            setrlimit = None
    if hard is not None and hard != getattr(resource, "RLIM_INFINITY", -1):
        memory = min(memory, hard)

    def setup() -> None:
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(127)
        if setrlimit is not None:
            try:
                setrlimit(rlimit_as, (memory, memory))
            except (OSError, ValueError):
                pass
    return setup


def _vm_peak(pid: int) -> int:
    """The peak virtual memory size of process ``pid`` in bytes (``VmPeak``), 0 when unknown."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


#: what programs print when an allocation fails (C++ ``std::bad_alloc``, C ``ENOMEM``, Python, GHDL)
_NO_MEMORY = re.compile(r"bad_alloc|out of memory|cannot allocate memory|MemoryError|memory exhausted|"
                        r"failed to allocate|allocation failed|insufficient memory", re.I)


def _out_of_memory(returncode: int, tail: str, peak: int, limit: int) -> bool:
    """Whether a failed run failed for want of memory: it printed an allocation failure in its last
    lines, or its sampled peak virtual size reached 90 % of its limit."""
    if returncode == 0:
        return False
    return (peak > 0 and peak >= 0.9 * limit) or bool(_NO_MEMORY.search(tail))


def _where(what: str) -> str:
    """The current step and what the run does (the messages of the limits and of progress)."""
    path = steps.current_path()
    doing = what if len(what) <= 60 else what[:57] + "..."
    return f"{path}: {doing}" if path and doing else path or doing


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


def query_tool(argv: list[str], *, tool: str, timeout: float = 10.0) -> str | None:
    """The output (standard output, then standard error) of a short query of a program, such as
    ``yosys -V``, run under the guards of :func:`run_tool` (a process group of its own, the
    parent-death signal, the watchdog, ``tool``'s memory limit) but not recorded as a tool run of a
    step. None when it cannot be started, fails or takes longer than ``timeout`` seconds (it and
    what it started are then killed)."""
    memory, _ = limits.memory_limit_for(tool)
    _WATCHDOG.start()
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=_child_setup(memory, os.getpid()), encoding="utf-8", errors="replace",
                             **_OWN_GROUP)
    except OSError:
        return None
    _WATCHDOG.add(p.pid)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException:                      # too slow, or Ctrl-C: the whole group goes
        _signal_group(p, signal.SIGKILL)
        p.wait()
        _WATCHDOG.discard(p.pid)
        if sys.exc_info()[0] is subprocess.TimeoutExpired:
            return None
        raise
    _signal_group(p, signal.SIGKILL)           # what it may have left behind
    _WATCHDOG.discard(p.pid)
    return out + err if p.returncode == 0 else None


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
        ToolMemoryLimit: it failed for want of memory under its memory limit
            (:func:`dcsflow.limits.memory_limit_for`); one line naming the tool, the step and the limit.
    """
    seconds, source = limits.limit_for(tool, timeout)
    memory, memory_source = limits.memory_limit_for(tool)
    t0 = time.perf_counter()
    kw = {"encoding": "utf-8", "errors": "replace"} if text else {}
    _WATCHDOG.start()
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env,
                             stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                             preexec_fn=_child_setup(memory, os.getpid()), **_OWN_GROUP, **kw)
    except OSError as e:
        if e.filename is not None and cwd is not None and os.fsdecode(e.filename) == os.fsdecode(cwd):
            raise                      # the working folder, not the program: the caller's error
        raise ToolStartError(tool, argv[0], e) from None
    _WATCHDOG.add(p.pid)
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
    done = threading.Event()
    peak = [0]

    def monitor() -> None:
        """Every second: the program's peak virtual size; every PROGRESS_SECONDS: a progress line."""
        next_line = PROGRESS_SECONDS
        while not done.wait(1.0):
            peak[0] = max(peak[0], _vm_peak(p.pid))
            elapsed = time.perf_counter() - t0
            if elapsed >= next_line:
                next_line += PROGRESS_SECONDS
                _say_progress(f"{tool} ({_where(what) or 'running'}): still running after {elapsed:.0f} s (time limit "
                              f"{limits.format_seconds(seconds)} s, memory limit {limits.format_bytes(memory)})")
    watcher = threading.Thread(target=steps.bind(monitor), daemon=True)
    watcher.start()
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
        done.set()
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
    _WATCHDOG.discard(p.pid)
    res = ToolRun(p.returncode, join.join(out), join.join(err), wall, cpu)
    tail = "\n".join(_text(res.stdout).splitlines()[-20:] + _text(res.stderr).splitlines()[-20:])
    no_memory = not timed_out.is_set() and _out_of_memory(res.returncode, tail, peak[0], memory)
    failed = None
    if timed_out.is_set():
        failed = f"timed out after {limits.format_seconds(seconds)} s"
    elif no_memory:
        failed = f"out of its memory limit of {limits.format_bytes(memory)}"
    elif res.returncode != 0:
        failed = exit_description(res.returncode)
    steps.record_tool(tool, what, t0, wall, cpu, failed)
    if timed_out.is_set():
        raise ToolTimeout(tool, _where(what), seconds, source)
    if no_memory:
        _signal_group(p, signal.SIGKILL)   # what it started, should that outlive it
        raise ToolMemoryLimit(tool, _where(what), memory, memory_source)
    return res


def _text(out: str | bytes) -> str:
    return out if isinstance(out, str) else out[-65536:].decode("utf-8", "replace")
