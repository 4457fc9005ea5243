"""SIGINT and SIGTERM at any moment of a command line: one line and exit status 130 or 143.

Both command lines (``dcsflow``, :mod:`dcsflow.flow.cli`; ``python -m dcsflow.scg``,
:mod:`dcsflow.scg.cli`) run their work through :func:`run_main`, whose first instruction installs
the handlers of this module, before any import of the command's own modules. From then on:

- SIGINT (Ctrl-C) raises :class:`Interrupted`, SIGTERM :class:`Terminated` (both
  ``KeyboardInterrupt``, so every ``finally`` and cleanup block runs: temporary files that may hold
  key material are removed, external programs are ended by the caller's ``on_interrupt``);
- however the work then ends (the interrupt itself, or another exception raised while it unwound),
  the command prints one line on stderr, ``interrupted`` or ``terminated``, and its exit status is
  130 or 143 (128 + the signal's number, as a shell reports a process killed by it);
- the handler never raises inside :func:`run_main`'s own frame (its bookkeeping before and after
  the work), nor while the command is ending: a signal there is recorded and decides the status;
- a second signal within :data:`REPEAT_SECONDS` of the first does not interrupt the cleanup the
  first one started; a later one raises again (a cleanup that hangs can still be interrupted);
- an interruption raised where Python cannot let an exception out (a weakref callback of the import
  system, a ``__del__``: Python would print "Exception ignored in ..." and go on) is not printed: the
  signal is sent to the main thread again from another thread, to reach the code that runs next
  (``sys.unraisablehook``);
- once the command's result is in place (:func:`committed`: its output renamed over the
  destination), a signal no longer ends it: the command finishes with its own status and no line,
  and the whole output stays (an exit status 130 beside a finished output would say it failed);
- after :func:`run_main` returned in a program (``program=True``: the handlers stay installed), a
  signal during the interpreter's own shutdown prints the line and exits at once with its status;
  once the command committed its result, the signals are blocked instead until the process ends.

A handler is installed only where the signal has its default action (SIGTERM ``SIG_DFL``, SIGINT
``SIG_DFL`` or Python's :func:`signal.default_int_handler`): a signal the caller ignores stays
ignored (a background job started by a shell ignores Ctrl-C), an embedding program's own handler
stays, and an in-process caller (``program=False``) gets its handlers back when :func:`run_main`
returns. Only the main thread can install handlers; elsewhere the work runs as it is.

What Python runs before the first instruction of ``main`` (the interpreter's start-up, the
``site`` module, the import of the entry-point module) is outside this module's reach: a SIGTERM
there ends the process by the signal itself (status 143 to a shell, no line); a SIGINT there, after
the interpreter installed its own handler, is the interpreter's ``KeyboardInterrupt``.

Standard library only (the core layer: the runtime's command line uses it too).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Callable

__all__ = ["Interrupted", "Terminated", "REPEAT_SECONDS", "run_main", "committed", "received", "exit_status", "word"]

#: a second signal within this many seconds of the first does not interrupt the cleanup it started
REPEAT_SECONDS = 3.0


class Interrupted(KeyboardInterrupt):
    """Raised by the SIGINT handler :func:`run_main` installs (Ctrl-C): exit status 130, ``interrupted``."""

    signum = signal.SIGINT


class Terminated(Interrupted):
    """Raised by the SIGTERM handler :func:`run_main` installs: exit status 143, ``terminated``."""

    signum = signal.SIGTERM


_RUNNING, _ENDING, _FINISHED = "running", "ending", "finished"


class _State:
    """What the handler knows: the phase of the command, the first signal received (None: none),
    when it last raised, whether a :func:`run_main` is active in this process, and the handlers it
    replaced (signal -> handler, to put back)."""

    def __init__(self):
        self.active = False
        self.phase = _RUNNING
        self.first: int | None = None
        self.raised_at: float | None = None
        self.replaced: dict = {}
        self.hook = None               # the unraisable hook replaced (None: none replaced)
        self.in_hook = False           # the unraisable hook runs: the handler only records
        self.resend = False            # an interruption was swallowed: send the signal until one is raised
        self.committed = False         # the command's result is in place: signals are ignored

    def reset(self, active: bool) -> None:
        """A new command (``active``) or none."""
        self.active, self.phase, self.first, self.raised_at, self.replaced = active, _RUNNING, None, None, {}
        self.hook, self.in_hook, self.resend, self.committed = None, False, False, False


_STATE = _State()


def word(signum: int) -> str:
    """``terminated`` for SIGTERM, else ``interrupted``."""
    return "terminated" if signum == signal.SIGTERM else "interrupted"


def exit_status(signum: int) -> int:
    """128 + the signal's number: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(signum)


def received() -> int | None:
    """The first signal the active :func:`run_main` received (its number), or None."""
    return _STATE.first if _STATE.active else None


def committed(on: bool = True) -> None:
    """Say that the active command's result is in place (its last output renamed over the
    destination; module docstring): from here a SIGINT or SIGTERM is ignored and the command ends
    with its own status. Called just before that rename (:func:`dcsflow.fileio.atomic_open` with
    ``commit``; ``committed(False)`` when the rename failed), so that no signal can be taken between
    the two, or by a command line's own code once its work is done; never by a function other
    commands call on their way (their later work would no longer be interruptible). Does nothing
    when no :func:`run_main` is active, or once a signal was received (that one decides)."""
    st = _STATE
    if not on:
        st.committed = False
    elif st.active and st.first is None:
        st.committed = True


def _say(signum: int) -> None:
    """The command's last line, written straight to file descriptor 2 (no Python buffer that a
    signal could find half-flushed)."""
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a broken stderr: the line below may still get through
        pass
    try:
        os.write(2, (word(signum) + "\n").encode())
    except OSError:
        pass


def _handler(signum, frame):
    st = _STATE
    if st.committed:                       # the result is in place: the command ends as it is
        return
    if st.first is None:
        st.first = signum
    if st.phase == _FINISHED:              # the command ended; the interpreter is shutting down
        _say(st.first)
        os._exit(exit_status(st.first))
    if st.phase != _RUNNING or st.in_hook or (frame is not None and frame.f_code in _SHIELDED):
        return                             # decided by run_main once the work has ended
    now = time.monotonic()
    if st.raised_at is not None and now - st.raised_at < REPEAT_SECONDS:
        return                             # the first signal's cleanup is running
    st.raised_at = now
    st.resend = False
    raise Terminated() if signum == signal.SIGTERM else Interrupted()


def _is_default(signum: int, current) -> bool:
    if current is signal.SIG_DFL:
        return True
    return signum == signal.SIGINT and current is signal.default_int_handler


def _unraisable(info) -> None:
    """``sys.unraisablehook`` while a command runs: an interruption raised where Python could not let
    it out is raised again (the signal sent anew) instead of printed; anything else goes to the hook
    that was in place."""
    st = _STATE
    exc = getattr(info, "exc_value", None)
    if isinstance(exc, Interrupted) and st.active and st.phase == _RUNNING:
        st.in_hook = True
        try:
            st.raised_at, st.resend = None, True
            # from another thread, to the main thread, until the handler raises it where it reaches
            # the code (also a sleep or a wait), outside this hook
            threading.Thread(target=_resend, args=(threading.main_thread().ident, exc.signum), daemon=True).start()
        finally:
            st.in_hook = False
        return
    (st.hook or sys.__unraisablehook__)(info)


def _resend(thread_id: int, signum: int) -> None:
    """Send ``signum`` to the main thread every 20 ms while an interruption is still to be raised
    (at most 5 s)."""
    st = _STATE
    for _ in range(250):
        time.sleep(0.02)
        if not st.resend or st.phase != _RUNNING:
            return
        try:
            signal.pthread_kill(thread_id, signum)
        except (ValueError, OSError):
            return


def _install() -> None:
    """Install the handler for SIGINT and SIGTERM where each has its default action (module
    docstring), and the unraisable hook; each handler replaced is kept in the state at once (to be
    put back)."""
    if threading.current_thread() is not threading.main_thread():
        return
    _STATE.hook = sys.unraisablehook
    sys.unraisablehook = _unraisable
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            current = signal.getsignal(signum)
            if _is_default(signum, current):
                _STATE.replaced[signum] = current
                signal.signal(signum, _handler)
        except (ValueError, OSError):
            _STATE.replaced.pop(signum, None)


def _call(body: Callable[[], int]) -> int:
    """``body()``, unless a signal arrived before it started (then its exception at once)."""
    first = _STATE.first
    if first is not None:
        raise Terminated() if first == signal.SIGTERM else Interrupted()
    return body()


def run_main(body: Callable[[], int], on_interrupt: Callable[[], None] | None = None,
             program: bool = False) -> int:
    """Run a command line's work ``body()`` (returns its exit status) with the handlers of this
    module (module docstring); returns the exit status.

    Args:
        body: the command's work; its exceptions other than an interruption pass through (a
            ``SystemExit``, an error the command does not turn into a line of its own).
        on_interrupt: called once when a signal ended the work (e.g. ending the external programs
            still running, :func:`dcsflow.tools.terminate_children`); its own exceptions are ignored.
        program: the caller is the program's entry point: the handlers stay installed after the
            return (a signal during the interpreter's shutdown exits at once with its status);
            otherwise the earlier handlers are put back.
    Returns:
        ``body()``'s status, or 130 / 143 (after one line ``interrupted`` / ``terminated`` on
        stderr) when SIGINT / SIGTERM arrived while it ran, or a ``KeyboardInterrupt`` ended it.
    """
    st = _STATE
    if st.active:                          # a command line run by another's run_main: that one decides
        return body()
    status = None
    try:
        st.reset(True)
        _install()
        status = _call(body)
        st.phase = _ENDING
    except BaseException as e:             # noqa: BLE001 - decided below; anything else is raised again
        st.phase = _ENDING
        if st.first is None and not isinstance(e, KeyboardInterrupt):
            _leave(program)
            raise
        signum = st.first if st.first is not None else signal.SIGINT
        status = _interrupted(signum, on_interrupt)
    else:
        if st.first is not None:           # arrived after the work had returned
            status = _interrupted(st.first, on_interrupt)
    _leave(program)
    return status


def _interrupted(signum: int, on_interrupt: Callable[[], None] | None) -> int:
    """End an interrupted command: ``on_interrupt``, the line, the status."""
    if on_interrupt is not None:
        try:
            on_interrupt()
        except BaseException:  # noqa: BLE001 - the status and the line matter more
            pass
    _say(signum)
    return exit_status(signum)


def _leave(program: bool) -> None:
    """After the work: a program keeps the handlers (phase finished); an in-process caller gets
    its handlers back."""
    st = _STATE
    if program and st.replaced:
        st.phase = _FINISHED
        if st.committed:
            _hold_signals()
        return
    for signum, handler in st.replaced.items():
        try:
            signal.signal(signum, handler)
        except (ValueError, OSError):
            pass
    if st.hook is not None and sys.unraisablehook is _unraisable:
        sys.unraisablehook = st.hook
    st.reset(False)


def _hold_signals() -> None:
    """Block SIGINT and SIGTERM in this thread until the process ends: a committed command's end.
    The interpreter's shutdown puts the signals' default action back (CPython's signal module,
    finalization), so a signal in its last moments would kill the process with its result in place
    (status -2 / -15); blocked, it stays pending and is dropped at exit."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, ValueError, OSError):
        pass


#: the code objects in whose frames the handler never raises: :func:`run_main` (its bookkeeping) and
#: :func:`_unraisable` (it sends the signal again)
_SHIELDED = frozenset({run_main.__code__, _unraisable.__code__})
