"""The build's independent steps, run on up to ``-j N`` cores.

A :class:`Jobs` runner takes named jobs (a module-level function and its arguments, picklable) and
returns a :class:`concurrent.futures.Future` for each. A job may wait for others (``after``): it is
started once they have finished, and it fails with their error when one of them failed.

- ``jobs == 1``: every job runs at once in this process, in the order it was submitted (the serial
  reference: a job's dependencies were submitted, hence run, before it).
- ``jobs > 1``: jobs run in a pool of that many worker processes (``spawn``: no state is inherited
  from a multi-threaded parent), at most that many at a time; each external tool a job runs is a
  child of its worker, so at most ``jobs`` cores are busy (besides the short work of this process).

Every job's steps and tool runs are recorded under the step that submitted it
(:mod:`dcsflow.steps`, path ``<submitting step>/<job name>/...``), its CPU seconds added to that
step, in both modes. Results do not depend on the mode: a job is a deterministic function of its
arguments and the files it reads, and writes only its own files.

Interruption (Ctrl-C, SIGTERM: :func:`dcsflow.tools.terminate_children`) ends the worker processes
and every tool they run; :meth:`Jobs.close` (also on leaving a ``with`` block by an exception)
cancels what has not started. A worker whose parent process has gone (killed, also by SIGKILL)
ends its tools and itself (:func:`_watch_parent`); the workers run their tools under the parent's
time and memory limits and progress setting.
"""

from __future__ import annotations

import multiprocessing
import os
import heapq
import signal
import sys
import threading
import time
import types
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Callable, Iterator

from dcsflow import limits, steps
from dcsflow.tools import on_terminate, progress_enabled, set_progress, terminate_children

from .errors import FlowError

__all__ = ["Jobs", "JobsError", "default_jobs", "check_jobs", "machine_cores", "JOBS_ENV"]


class JobsError(FlowError):
    """A bad ``-j`` value."""


#: environment variable giving the number of parallel jobs when ``-j`` is not given (e.g. a CI
#: machine whose cores already run other work: ``DCSFLOW_JOBS=1``)
JOBS_ENV = "DCSFLOW_JOBS"


def machine_cores() -> int:
    """The machine's cores available to this process (``os.sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_jobs() -> int:
    """The number of parallel jobs when none is given: ``$DCSFLOW_JOBS`` if set, else
    :func:`machine_cores`.

    Raises:
        JobsError: one line, when ``DCSFLOW_JOBS`` is not a whole number >= 1 in ASCII digits.
    """
    value = os.environ.get(JOBS_ENV, "").strip()
    return _parse_jobs(value, f"{JOBS_ENV}={value}") if value else machine_cores()


def check_jobs(value) -> int:
    """``value`` as a number of parallel jobs (an int >= 1; None: :func:`default_jobs`).

    Raises:
        JobsError: one line, for 0, a negative number or something that is not a whole number.
    """
    return default_jobs() if value is None else _parse_jobs(value, f"-j {value}")


def _parse_jobs(value, what: str) -> int:
    text = str(value).strip()
    digits = text[1:] if text[:1] in "+-" else text
    if isinstance(value, bool) or not (isinstance(value, int) or (digits.isascii() and digits.isdigit()
                                                                  and len(digits) <= 9)):
        # ASCII digits only: int() also reads other scripts' digits ('２')
        raise JobsError(f"{what}: not a number of parallel jobs; give a whole number >= 1 in ASCII digits "
                        f"(this machine has {machine_cores()} cores)")
    n = int(text)
    if n < 1:
        raise JobsError(f"{what}: at least 1 job is needed (1 runs every step in turn; this machine has "
                        f"{machine_cores()} cores)")
    return n


#: seconds between two looks of a worker at its parent (a worker whose parent has gone ends itself)
PARENT_POLL_SECONDS = 0.5


def _worker_init(time_limit: tuple[float, str] | None = None, memory_limit: tuple[int, str] | None = None,
                 progress: bool = True, parent: int = 0, cache_settings=None) -> None:
    """A worker ends the tools it runs when the build ends it (SIGTERM), then exits; Ctrl-C reaches
    the whole process group, the build handles it (a worker starts with SIGINT blocked,
    :func:`_blocked_sigint`, so that a Ctrl-C during its start-up is no traceback of its own; here it
    is ignored, then unblocked). ``time_limit``, ``memory_limit``, ``progress``: the time-limit and
    memory-limit overrides and whether tools print progress lines in the process that started the
    workers (:mod:`dcsflow.limits`, :func:`dcsflow.tools.progress_enabled`), theirs too. ``parent``:
    that process's pid; a worker whose parent has gone (killed, also by SIGKILL) ends its tools and
    itself within :data:`PARENT_POLL_SECONDS`. ``cache_settings``: the job cache of that process
    (:func:`dcsflow.flow.cache.settings`), the worker's too."""
    if time_limit is not None:
        limits.set_time_limit(*time_limit)
    if memory_limit is not None:
        limits.set_memory_limit(*memory_limit)
    if not progress:
        set_progress(None)
    if cache_settings is not None:
        from . import cache

        cache.apply(cache_settings)

    def on_term(signum, frame):
        terminate_children(grace=0.5)
        os._exit(143)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if parent:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    """In a worker: end its tools and itself once its parent ``parent`` has gone."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    terminate_children(grace=0.5)
    os._exit(137)


@contextmanager
def _blocked_sigint() -> Iterator[None]:
    """SIGINT blocked in this thread for the block: a process started meanwhile inherits the mask, so
    a Ctrl-C to the process group while it starts is held for it (and discarded once it ignores
    SIGINT) instead of interrupting its start-up. A Ctrl-C meant for this process is delivered to
    another of its threads, or when the block ends."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _noop() -> None:
    return None


def _start_workers(pool: ProcessPoolExecutor, n: int) -> None:
    """Start all ``n`` workers of ``pool`` now, in this thread, with SIGINT blocked
    (:func:`_blocked_sigint`) and the main module hidden: a ``spawn`` worker otherwise imports the
    program's main module again, which runs a script that calls :func:`dcsflow.flow.build.build`
    without an ``if __name__ == "__main__"`` guard a second time (and fails). Job functions are found
    by their own modules."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        with _blocked_sigint():
            started = [pool.submit(_noop) for _ in range(n)]    # each submit starts one more worker
    finally:
        if main is not None:
            sys.modules["__main__"] = main
    for f in started:
        f.result()


def _run_job(prefix: str, t0: float, name: str, fn: Callable, args: tuple, kwargs: dict):
    """In a worker: run ``fn`` as step ``name`` under ``prefix``; returns (ok, result or exception,
    records, CPU seconds)."""
    rec = steps.Recorder(t0)
    ok, value = True, None
    with steps.recording(rec, prefix):
        try:
            with steps.step(name):
                value = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - handed to the submitting process as the job's error
            ok, value = False, e
    records = rec.as_list()
    cpu = next((r["cpu"] for r in records if r["path"] == steps.join_path(prefix, name)), 0.0)
    return ok, value, records, cpu


def _resolved(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with every future replaced by its result (all finished)."""
    def res(a):
        return a.result() if isinstance(a, Future) else a
    return tuple(res(a) for a in args), {k: res(v) for k, v in kwargs.items()}


class Jobs:
    """Runner of a build's jobs (module docstring). ``jobs``: parallel jobs (>= 1; 1 = in turn).
    Use as a context manager, or call :meth:`close`."""

    def __init__(self, jobs: int = 1):
        self.jobs = check_jobs(jobs)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._pending: list[Future] = []
        self._unhook = None
        self._start_lock = threading.Lock()
        self._queue: list = []                 # jobs ready to start: (priority, order, future, call, done)
        self._seq = 0
        self._running = 0
        self._closed = False                   # after close: no job starts, no worker is started again

    def __enter__(self) -> "Jobs":
        return self

    def __exit__(self, et, ev, tb) -> None:
        self.close(cancel=et is not None)

    @property
    def parallel(self) -> bool:
        """True when jobs run in worker processes."""
        return self.jobs > 1

    def _ensure_pool(self) -> ProcessPoolExecutor:
        """The worker pool, started on first use. Raises RuntimeError once :meth:`close` has begun: a
        job whose dependencies finish while the build ends (e.g. a packing waiting for a candidate)
        must not start a new pool that nothing shuts down (the process would not exit)."""
        with self._start_lock:                 # one thread starts the workers; the others wait for them
            with self._lock:
                pool = self._pool
                if self._closed:
                    raise RuntimeError("the job runner is closed")
            if pool is None:
                from . import cache

                pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=_worker_init,
                                           initargs=(limits.get_time_limit(), limits.get_memory_limit(),
                                                     progress_enabled(), os.getpid(), cache.settings()))
                self._unhook = on_terminate(self._kill_workers)
                _start_workers(pool, self.jobs)
                with self._lock:
                    self._pool = pool
            return pool

    def _kill_workers(self) -> None:
        pool = self._pool
        for p in list(getattr(pool, "_processes", {}).values()) if pool is not None else ():
            try:
                p.terminate()
            except (OSError, AttributeError):
                pass

    def submit(self, name: str, fn: Callable, *args, after: tuple | list = (), under: str | None = None,
               priority: int = 5, **kwargs) -> Future:
        """Run ``fn(*args, **kwargs)`` as job ``name`` once the futures in ``after`` have finished;
        a future of its result. An argument that is a future (of another job) waits for it too and
        is replaced by its result. ``fn`` must be a module-level function and its arguments and
        result picklable (they cross into a worker process when ``jobs > 1``). ``under``: record the
        job under this step path instead of the current step's (e.g. the stage a job belongs to when
        it starts early); its CPU seconds still count toward the current step. ``priority``: of the
        jobs ready to start, the lowest number starts first when a worker is free (then the earliest
        submitted): long jobs and those on the longest chain first. With ``jobs == 1`` jobs run in
        the order they are submitted."""
        out: Future = Future()
        after = list(dict.fromkeys([f for f in after if f is not None]
                                   + [a for a in (*args, *kwargs.values()) if isinstance(a, Future)]))
        if not self.parallel:
            if under is not None:
                with steps.recording_under(under):
                    self._run_inline(out, name, fn, args, kwargs, after)
            else:
                self._run_inline(out, name, fn, args, kwargs, after)
            return out
        handle = steps.capture()
        if under is not None:
            handle.path = under
        remaining = [len(after)]
        lock = threading.Lock()

        def start(_=None) -> None:
            if _ is not None:
                with lock:
                    remaining[0] -= 1
                    if remaining[0]:
                        return
            if not out.set_running_or_notify_cancel():
                return
            failed = next((f for f in after if f.cancelled() or f.exception() is not None), None)
            if failed is not None:
                out.set_exception(failed.exception() if not failed.cancelled() else
                                  FlowError(f"{name}: a step it needs was cancelled"))
                return
            call = (_run_job, handle.path, handle.t0, name, fn, *_resolved(args, kwargs))
            self._ready(priority, out, call, lambda f: self._finish(out, f, handle, name))

        with self._lock:
            self._pending.append(out)
        if after:
            for f in after:
                f.add_done_callback(start)
        else:
            start()
        return out

    def _ready(self, priority: int, out: Future, call: tuple, done: Callable) -> None:
        """Queue a job whose dependencies have finished; start jobs while workers are free."""
        with self._lock:
            self._seq += 1
            heapq.heappush(self._queue, (priority, self._seq, out, call, done))
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand queued jobs to the pool, lowest priority number first, while fewer than ``jobs`` run."""
        while True:
            with self._lock:
                if not self._queue or self._running >= self.jobs:
                    return
                _, _, out, call, done = heapq.heappop(self._queue)
                self._running += 1
            try:
                fut = self._ensure_pool().submit(*call)
            except RuntimeError as e:          # the pool was shut down (the build is ending)
                with self._lock:
                    self._running -= 1
                out.set_exception(FlowError(f"{call[3]}: not started ({e})"))
                continue

            def finished(f, done=done) -> None:
                with self._lock:
                    self._running -= 1
                try:
                    done(f)
                finally:
                    self._dispatch()
            fut.add_done_callback(finished)

    def _run_inline(self, out: Future, name, fn, args, kwargs, after) -> None:
        failed = next((f for f in after if f.cancelled() or f.exception() is not None), None)
        if failed is not None:
            out.set_exception(failed.exception() if not failed.cancelled() else
                              FlowError(f"{name}: a step it needs was cancelled"))
            return
        out.set_running_or_notify_cancel()
        try:
            args, kwargs = _resolved(args, kwargs)
            with steps.step(name):
                out.set_result(fn(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - the job's error, raised where its result is asked for
            out.set_exception(e)

    @staticmethod
    def _finish(out: Future, fut: Future, handle, name: str) -> None:
        if fut.cancelled():
            out.cancel()
            return
        err = fut.exception()
        if err is not None:                    # the worker died, or the job's result cannot be pickled
            if isinstance(err, BrokenProcessPool):
                err = FlowError(f"{name}: its worker process ended unexpectedly (killed, or out of memory?)")
            out.set_exception(err)
            return
        ok, value, records, cpu = fut.result()
        handle.merge(records, cpu)
        if ok:
            out.set_result(value)
        else:
            out.set_exception(value)

    def close(self, cancel: bool = False) -> None:
        """Wait for the running jobs and end the workers; ``cancel``: cancel the jobs not started and
        end the running ones at once (their tools too)."""
        with self._start_lock, self._lock:     # a pool being started is in self._pool before this
            self._closed = True
            pool, self._pool = self._pool, None
            pending, self._pending = self._pending, []
            queued, self._queue = self._queue, []
        for _, _, out, call, _ in queued:      # ready but never started
            if not out.done():
                out.set_exception(FlowError(f"{call[3]}: not started (the build ended)"))
        if cancel:
            for f in pending:
                f.cancel()
        if pool is not None:
            if cancel:
                for p in list(getattr(pool, "_processes", {}).values()):
                    try:
                        p.terminate()
                    except (OSError, AttributeError):
                        pass
            pool.shutdown(wait=True, cancel_futures=cancel)
        if self._unhook is not None:
            self._unhook()
            self._unhook = None
