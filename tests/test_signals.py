"""SIGINT and SIGTERM at any moment end both command lines with one line and 130 / 143.

Each command line gets each signal at 20 points from 0 to 2 s after its start, the 20 runs of one
signal at the same time (a loaded machine: on 2 cores, 20 start-ups take seconds, so the points fall
into the imports, the folder checks and the first tool run alike; while fewer than half reached
``main``, the runs whose signal came before it are made again 0.5 s later, at most 6 rounds); tests/_signals.py says how the
signal is sent and what counts as handled. Every run that got a signal after ``main`` began must end
with 130 / 143 and ``interrupted`` / ``terminated`` as its last line, never a traceback, or (a run
that had just finished) exit 0; no process of its session may be left running, and no temporary
file or finished-looking output may be left:

- ``dcsflow build`` of tests/data/flow/keyxor.v with ``-j 2`` up to the front end (imports, folder
  record, worker processes, Yosys; ``--no-cache``, so that Yosys runs and is interrupted);
- ``python -m dcsflow.scg rekey`` of the synthetic build to a bitstream file (the output is written
  whole or not at all).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from _signals import leftover_temporaries, run_and_signal
from dcsflow.scg._synthetic import make_build

DATA = Path(__file__).parent / "data" / "flow"
#: 20 points from 0 to 2 s after the start
POINTS = [round(2.0 * i / 19, 3) for i in range(20)]
SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


def _dcsflow() -> list[str]:
    """The console script (the entry point users run), else ``python -m dcsflow.flow``."""
    script = Path(sys.executable).parent / "dcsflow"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dcsflow.flow"]


#: rounds at most: a run whose signal came before ``main`` is run again with its point this much later
#: (small steps: a step as long as a whole run under load jumps from before ``main`` to after the end)
ROUNDS, SHIFT = 6, 0.5


def _all_at_once(make_argv, sig) -> list:
    """The runs of one signal at the 20 points, at the same time; ``make_argv(i, r)``: the command
    of point i in round r. On a loaded machine the start-ups of 20 processes take longer than 2 s
    and most points would fall before ``main``: while fewer than half the signals reached it, the
    runs whose signal came before it are made again (a new round, every point SHIFT s later), so
    the points still cover ``main``'s whole start. Returns every run of every round (index, outcome)."""
    runs: list = []
    last = {i: None for i in range(len(POINTS))}
    todo = list(range(len(POINTS)))
    for r in range(ROUNDS):
        with ThreadPoolExecutor(len(todo)) as ex:
            outs = list(ex.map(lambda i: run_and_signal(make_argv(i, r), sig, POINTS[i] + r * SHIFT), todo))
        runs += list(zip(todo, outs))
        last.update(zip(todo, outs))
        if sum(o.handled for o in last.values() if o is not None) >= len(POINTS) // 2:
            break
        todo = [i for i, o in last.items() if o.sent and not o.handled]
        if not todo:
            break
    return runs


@pytest.mark.parametrize("sig", SIGNALS)
def test_dcsflow_build_at_any_moment(tmp_path, sig):
    runs = _all_at_once(lambda i, r: [*_dcsflow(), "build", str(DATA / "keyxor.v"), "--out", str(tmp_path / f"b{i}-{r}"),
                                      "-j", "2", "--to", "frontend", "--quiet", "--no-cache"], sig)
    problems = [f"{POINTS[i]} s: {p}" for i, o in runs for p in o.problems(sig, finished_ok=False)]
    rounds: dict = {}
    for i, o in runs:
        r = rounds[i] = rounds.get(i, -1) + 1
        out = tmp_path / f"b{i}-{r}"
        if o.returncode != 0:
            if (out / "build.json").exists() or (out / "stages" / "frontend.json").exists():
                problems.append(f"{POINTS[i]} s: an interrupted build left a finished record")
        left = leftover_temporaries(out)
        if left:
            problems.append(f"{POINTS[i]} s: temporaries left: {left}")
    assert not problems, "\n".join(problems)
    last = dict(runs)
    handled = sum(o.handled for o in last.values())
    assert handled >= len(POINTS) // 2, f"only {handled} of {len(POINTS)} signals reached main in {ROUNDS} rounds"


@pytest.mark.parametrize("sig", SIGNALS)
def test_runtime_rekey_at_any_moment(tmp_path, sig):
    syn = make_build(tmp_path / "syn")
    runs = _all_at_once(lambda i, r: [sys.executable, "-m", "dcsflow.scg", "rekey", str(syn), "--param", "key=beef",
                                      "--to", f"bitfile:{tmp_path / f'k{i}-{r}.bit'}"], sig)
    problems = [f"{POINTS[i]} s: {p}" for i, o in runs for p in o.problems(sig)]
    sizes = set()
    rounds: dict = {}
    for i, o in runs:
        r = rounds[i] = rounds.get(i, -1) + 1
        bit = tmp_path / f"k{i}-{r}.bit"
        if o.returncode == 0:
            sizes.add(bit.stat().st_size)
        elif bit.exists():
            problems.append(f"{POINTS[i]} s: an interrupted rekey left its output")
    if leftover_temporaries(tmp_path):
        problems.append(f"temporaries left: {leftover_temporaries(tmp_path)}")
    assert len(sizes) <= 1, sizes                 # every finished output is the whole file
    assert not problems, "\n".join(problems)
    assert sum(o.handled for o in dict(runs).values()) >= len(POINTS) // 2


_IN_A_FINALIZER = """
import os, signal, sys, time
from dcsflow import interrupts

class Finalized:
    def __del__(self):                      # Python cannot let an exception out of here
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):
            pass

def body():
    f = Finalized()
    del f
    time.sleep(30)
    return 0

sys.exit(interrupts.run_main(body, program=True))
"""


def test_a_signal_inside_a_finalizer_still_ends_the_command_in_one_line():
    """A signal whose handler runs inside a ``__del__`` (or an import-system weakref callback) is not
    printed as "Exception ignored in ..." and swallowed: it ends the command as anywhere else."""
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", _IN_A_FINALIZER], capture_output=True, text=True, timeout=60)
    assert r.returncode == 143 and r.stderr == "terminated\n", (r.returncode, r.stderr)
    assert time.monotonic() - t0 < 15, "the interruption waited for the 30 s sleep"     # it reached the sleep


_AFTER_COMMIT = """
import os, signal, sys, time
from dcsflow import interrupts

def body():
    interrupts.committed()                   # the output is in place
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.5)                          # the handler ran: it did not end the command
    print("summary")
    return 0

status = interrupts.run_main(body, program=True)
os.kill(os.getpid(), signal.SIGINT)          # during the program's own end, too
# the interpreter's shutdown puts the default actions back: a committed command blocks both signals
print(sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
sys.exit(status)
"""

_BEFORE_COMMIT = _AFTER_COMMIT.replace("    interrupts.committed()                   # the output is in place\n", "")


def test_a_signal_after_the_output_is_committed_changes_nothing():
    """Once the command said its result is in place (interrupts.committed: a rekey's file renamed, a
    build's records written), a signal no longer turns it into 130/143 with "interrupted": the
    whole output stays and the status is the command's own; before that, the same signal ends it."""
    r = subprocess.run([sys.executable, "-c", _AFTER_COMMIT], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"summary\n{[int(signal.SIGINT), int(signal.SIGTERM)]}\n", "")
    r = subprocess.run([sys.executable, "-c", _BEFORE_COMMIT], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr.splitlines()[0]) == (143, "", "terminated")
