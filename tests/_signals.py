"""Signals sent to a command line at a chosen moment, and what it leaves behind (shared by
tests/test_signals.py and the hostile-input probe, tests/hostile_probe.py).

A command runs in a session of its own (so that every process it starts, its tools in their own
process groups included, can be found afterwards by session id) with SIGINT at its default action
(as a terminal gives it; a test run started as a background job would pass it on ignored). After
``delay`` seconds it gets the signal: SIGINT as a terminal's Ctrl-C sends it (to its whole process
group), SIGTERM as ``kill`` sends it (to the process alone). Before sending, the process's caught
signals are read from ``/proc``: dcsflow's handlers (:mod:`dcsflow.interrupts`) are the only
SIGTERM handler it has, so a signal sent while SIGTERM is not caught arrived before the first
instruction of ``main`` (the interpreter's start-up), which the module does not claim to handle.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

#: exit status and last line of a command ended by each signal
ENDED = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated")}


def session_processes(sid: int) -> list[int]:
    """Live processes of session ``sid`` other than its leader (zombies do not count)."""
    pids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == sid:
            continue
        try:
            fields = (p / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(p.name))
    return pids


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (its children, their children, ...), from ``/proc``."""
    kids: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int((p / "stat").read_text().rsplit(")", 1)[-1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(p.name))
    out, todo = set(), [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def alive(pid: int) -> bool:
    """True while process ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def catches_sigterm(pid: int) -> bool:
    """True when process ``pid`` has a handler for SIGTERM (``SigCgt`` of ``/proc/PID/status``)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    except (OSError, ValueError):
        pass
    return False


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Outcome:
    """What one signalled run gave: exit status, stderr, whether dcsflow's handlers were installed
    when the signal was sent (``handled``; False: before ``main``, or the command had ended), the
    processes of its session still alive a while after it ended, and the seconds it took."""

    returncode: int
    stderr: str
    handled: bool
    left: list
    seconds: float
    sent: bool

    def problems(self, sig: int, finished_ok: bool = True) -> list[str]:
        """What is wrong with this outcome for signal ``sig`` (empty: nothing). A run that had
        finished before the signal (``sent`` False) must have exited 0 when ``finished_ok``."""
        bad = []
        if self.left:
            bad.append(f"processes left running: {self.left}")
        if not self.sent:
            if finished_ok and self.returncode != 0:
                bad.append(f"ended {self.returncode} before the signal: {self.stderr[-300:]!r}")
            return bad
        if not self.handled:
            # before main: the interpreter's own start-up; killed by the signal, or Python's
            # KeyboardInterrupt from its start-up (SIGINT only)
            allowed = (-sig, 0, 1) if sig == signal.SIGINT else (-sig, 0)
            if self.returncode not in allowed:
                bad.append(f"before main: status {self.returncode}")
            return bad
        status, word = ENDED[sig]
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        if "Traceback" in self.stderr:
            bad.append("a traceback: " + self.stderr[-600:])
        elif self.returncode == 0 and not lines:
            pass                                   # finished in the moment the signal came
        elif self.returncode != status or not lines or lines[-1] != word:
            bad.append(f"status {self.returncode}, last line {lines[-1:]!r} (expected {status}, {word!r})")
        return bad


def run_and_signal(argv: list[str], sig: int, delay: float, env: dict | None = None, cwd=None,
                   timeout: float = 180.0) -> Outcome:
    """Start ``argv`` (module docstring), send ``sig`` after ``delay`` seconds unless it has ended,
    wait for it and for its session to empty (up to 10 s)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd,
                         start_new_session=True, preexec_fn=_default_sigint)
    sent = handled = False
    end = t0 + delay
    while time.monotonic() < end and p.poll() is None:
        time.sleep(min(0.01, max(0.0, end - time.monotonic())))
    if p.poll() is None:
        handled = catches_sigterm(p.pid)
        try:
            if sig == signal.SIGINT:
                os.killpg(p.pid, sig)
            else:
                os.kill(p.pid, sig)
            sent = True
        except ProcessLookupError:
            pass
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        err = (err or b"") + b"\n[hung: killed by the test]"
    seconds = time.monotonic() - t0
    left = session_processes(p.pid)
    deadline = time.monotonic() + 10
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = session_processes(p.pid)
    for pid in left:                               # never leave them to the next test
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return Outcome(p.returncode, err.decode("utf-8", "replace"), handled, left, seconds, sent)


def leftover_temporaries(folder: Path) -> list[str]:
    """Temporary files of the atomic writer (``.NAME.*.tmp``) under ``folder``."""
    if not folder.exists():
        return []
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".*.tmp"))
