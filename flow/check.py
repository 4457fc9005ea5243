"""``dcsflow check``: specialize a build for each parameter value of its design's check and simulate it.

A design says how its specialized netlists are checked through :attr:`Design.check
<dcsflow.flow.design.Design.check>`: ``check(build, options) -> DesignCheck`` returns the cases (e.g.
official vectors), their parameter values grouped so that one specialized netlist serves a group,
and a runner that simulates one netlist on its group (:class:`DesignCheck`). This module does the
rest for every design alike: the PPC is evaluated for all groups at once (bit-parallel), each group's
netlist is specialized (TLUT INITs filled in) and handed to the runner, in parallel, with progress.

Key hygiene: the specialized netlists (which hold the key in LUT contents) are written only below a
private temporary folder (mode 0700) that is deleted afterwards, also on SIGTERM (the CLI turns it
into an interrupt); one left by a run killed with SIGKILL is removed by the next check.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import netlist as nl
from .design import CheckError, CheckOptions, Design, DesignCheck, design_time_limit
from .specialize import circuit_values, load_build, tlut_values


@dataclass
class CheckResult:
    """Outcome of :func:`check_build`: passed/total cases, failures as (case label, reason), every
    case's (label, ok, reason) in order, seconds, cycles as the design's (size, cycles) figures."""

    passed: int
    total: int
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    cycles: list = field(default_factory=list)
    cases: list = field(default_factory=list)
    each_line: bool = False

    def cycles_for(self, size: int) -> int | None:
        """Cycles the check measured for size ``size`` (e.g. message bytes), None if none."""
        for n, cyc in self.cycles:
            if n == size and cyc >= 0:
                return cyc
        return None


@dataclass
class CheckSetup:
    """What every check needs: the loaded build, its design and the design's :class:`DesignCheck`."""

    build: Any
    design: Design
    check: DesignCheck

    @property
    def vectors(self) -> list:
        """The cases, in order."""
        return self.check.vectors

    @property
    def user_values(self) -> list[dict[str, int]]:
        """The user parameter values of every group (one specialized netlist each), in group order."""
        return [u for u, _ in self.check.groups]

    def circuit_values(self) -> list[dict[str, int]]:
        """Circuit parameter values of every group (the design's transform applied)."""
        return [circuit_values(self.build, u, self.design) for u in self.user_values]


def prepare_check(build_dir: str | Path, options: CheckOptions = CheckOptions()) -> CheckSetup:
    """Load a build, find its design and the design's check.

    Raises:
        BuildFolderError: the build folder is refused. DesignError: its design is not installed.
        CheckError: the design has no check, or its check refuses the build/options; ``options.vectors``
            given to a check that reads no vector file, or from which it runs no record.
    """
    from .registry import design_of

    b = load_build(build_dir)
    d = design_of(b.manifest, b.path)
    name = b.manifest.get("design", "?")
    if d is None or d.check is None:
        raise CheckError(f"{b.path}: design {name} has no check (a design describes one in its Design, "
                         "a dcsflow.toml project names a cocotb test in [check])")
    check = d.check(b, options)
    if options.vectors is not None:
        if check.vector_file is None:
            raise CheckError(f"--vectors {options.vectors}: the check of design {name} reads no vector file "
                             "(its cases come from elsewhere, e.g. a cocotb test or generated programs); "
                             "leave --vectors out")
        if not check.vectors:
            raise CheckError(f"--vectors {options.vectors}: no record of the file can be run by the check of "
                             f"design {name}")
    return CheckSetup(b, d, check)


def simulate_vectors(setup: CheckSetup, netlist_for: Callable[[int], str], label: str, progress: bool = True,
                     jobs: int | None = None, units: list[list[int]] | None = None) -> CheckResult:
    """Simulate one specialized netlist per group of cases and compare with the expected outputs.

    Args:
        setup: from :func:`prepare_check`.
        netlist_for: ``netlist_for(u) -> str``, the Verilog text of the netlist of simulation unit
            ``u`` (by default unit g is group g: the netlist specialized for it), handed to the
            design's runner in a private temporary folder, deleted afterwards.
        label: progress-bar label. jobs: parallel simulations (default min(4, CPUs)).
        units: groups simulated together, in order, by one run of the design's runner on their cases
            (e.g. a netlist that loads one key after the other); default one unit per group.
    Every simulation has the time limit of its tool (:mod:`dcsflow.limits`; the design's
    :attr:`~dcsflow.flow.design.Design.timeout` when no ``--timeout`` is set); the first failure or
    time-out ends the check (groups not started yet are not started).

    Raises:
        CheckError (or the design's simulator error): the simulator failed.
        ToolTimeout (:mod:`dcsflow.tools`): a simulation ran past its time limit.
    """
    b, dc = setup.build, setup.check
    units = units if units is not None else [[g] for g in range(len(dc.groups))]
    unit_cases = [[i for g in unit for i in dc.groups[g][1]] for unit in units]   # case indices per unit
    result = CheckResult(0, len(dc.vectors), each_line=dc.each_line)
    remove_stale_work_folders()
    with tempfile.TemporaryDirectory(prefix=f"{WORK_PREFIX}{os.getpid()}-") as tmp:
        work = Path(tmp)
        os.chmod(work, 0o700)

        def one(u):
            d = work / f"g{u}"
            d.mkdir(mode=0o700)
            try:
                return dc.run_group(d, netlist_for(u), b.top, [dc.vectors[i] for i in unit_cases[u]])
            finally:
                shutil.rmtree(d, ignore_errors=True)

        n_jobs = jobs or max(1, min(4, os.cpu_count() or 1))
        with design_time_limit(setup.design), ThreadPoolExecutor(n_jobs) as ex:
            futs = [ex.submit(one, u) for u in range(len(units))]
            try:
                if progress:
                    _progress(futs, label, len(dc.vectors))
                outcomes: dict[int, tuple[bool, str]] = {}
                for u, f in enumerate(futs):
                    oks, cycles = f.result()
                    result.cycles += cycles
                    for i, (ok, why) in zip(unit_cases[u], oks):
                        outcomes[i] = (ok, why)
            except BaseException:
                for f in futs:              # a failed or timed-out group ends the check: start no other
                    f.cancel()
                raise
    for i, v in enumerate(dc.vectors):
        ok, why = outcomes.get(i, (False, "not simulated"))
        result.cases.append((dc.label(v), ok, why))
        if ok:
            result.passed += 1
        else:
            result.failures.append((dc.label(v), why))
    return result


#: private work folders of check runs: ``<tmp>/dcsflow-check-<pid>-<random>/`` (mode 0700)
WORK_PREFIX = "dcsflow-check-"


def remove_stale_work_folders(tmp: str | None = None) -> list[Path]:
    """Remove the work folders of check runs of this user whose process is gone (killed with SIGKILL,
    which leaves no chance to clean up; they may hold specialized netlists). Returns the removed ones."""
    removed = []
    for d in Path(tmp or tempfile.gettempdir()).glob(f"{WORK_PREFIX}*-*"):
        pid = d.name[len(WORK_PREFIX):].split("-", 1)[0]
        try:
            if not pid.isdigit() or d.stat().st_uid != os.getuid() or int(pid) == os.getpid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
        except OSError:
            continue
    return removed


def _progress(futs: list, label: str, n_cases: int) -> None:
    from rich.console import Console
    from rich.progress import Progress

    from .termout import stage_done

    err, t0 = Console(stderr=True), time.perf_counter()
    with Progress(transient=True, console=err) as p:
        task = p.add_task(label, total=len(futs))
        for f in futs:
            if f.exception() is not None:
                return                  # the caller raises it; the other groups are not waited for
            p.advance(task)
    stage_done(err, label, "simulation", time.perf_counter() - t0, f"{n_cases} vectors")


def check_build(build_dir: str | Path, options: CheckOptions = CheckOptions(), progress: bool = True,
                jobs: int | None = None, param_in_loader: bool = False) -> CheckResult:
    """Check a build against its design's check (module docstring).

    Raises:
        BuildFolderError: the build folder is refused. CheckError: no check for the design, no usable
        cases, simulator failure, ``param_in_loader`` for a build that is not ``cfglut5``.
        ToolMissing: the simulator is not installed.
    """
    t0 = time.perf_counter()
    setup = prepare_check(build_dir, options)
    b = setup.build
    if param_in_loader and b.tlut_kind != "cfglut5":
        raise CheckError(f"{b.path}: --param-in-loader needs a cfglut5 build (dcsflow build --tlut cfglut5)")
    if b.tlut_kind == "cfglut5":
        result = check_cfglut(setup, progress, jobs, param_in_loader)
        result.seconds = time.perf_counter() - t0
        return result
    inits = tlut_values(b, setup.circuit_values())
    result = simulate_vectors(setup, lambda i: nl.write_verilog(b.module, b.top, inits[i]),
                              f"check {b.manifest.get('design')}", progress, jobs)
    result.seconds = time.perf_counter() - t0
    return result



def check_cfglut(setup: CheckSetup, progress: bool = True, jobs: int | None = None,
                 param_in_loader: bool = False) -> CheckResult:
    """The check of a ``cfglut5`` build (:mod:`dcsflow.flow.cfglut`): the groups are simulated two
    at a time on one netlist whose CFGLUT5s start all-zero: the chain words of the first group's
    key (:meth:`dcsflow.scg.cfglut.Layout.words_for`, from the PPC as ``dcsflow rekey`` computes them)
    go through the loader before any data item, those of the second once the first group's items
    have started (the loader holds the design's input handshake until the shift is over); a last odd
    group runs alone. Every case against the design's expected outputs. ``param_in_loader``: the keys'
    raw parameter words go over AXI4-Lite into the generated parameter generator
    (:func:`dcsflow.flow.cfglut.param_generator_verilog`), which computes the chain words in logic.

    Raises:
        CheckError: the design describes no input handshake (:attr:`dcsflow.flow.design.Design.handshake`),
            or ``param_in_loader`` with a PPC that has AND nodes.
    """
    from . import cfglut

    b, d, dc = setup.build, setup.design, setup.check
    if d.handshake is None:
        raise CheckError(f"design {d.name} describes no input handshake (Design.handshake): the check of a "
                         "cfglut5 build cannot load a key between two data items")
    layout = b.cfglut_layout
    if param_in_loader:
        try:
            gen = cfglut.param_generator_verilog(layout, b.ppc.aig, b.tlut_entries, b.param_widths)
        except cfglut.ParamInLoaderError as e:
            raise CheckError(f"{b.path}: {e}") from None
        words = [cfglut.param_words(v, b.param_widths) for v in setup.circuit_values()]
    else:
        gen = ""
        entries = {c: len(e) for c, e in b.tlut_entries.items()}
        words = [layout.words_for(i, entries) for i in tlut_values(b, setup.circuit_values())]
    units = [list(range(g, min(g + 2, len(dc.groups)))) for g in range(0, len(dc.groups), 2)]
    sources = cfglut.harness_sources(b.module, b.top, layout) + gen

    def netlist_for(u: int) -> str:
        first = len(dc.groups[units[u][0]][1])
        return sources + cfglut.check_harness(b.module, b.top, layout, d.handshake, [words[g] for g in units[u]],
                                              first, param_in_loader)

    return simulate_vectors(setup, netlist_for, f"check {b.manifest.get('design')} (CFGLUT5 loader)", progress,
                            jobs, units)


def conventional_verilog(build_dir: str | Path) -> tuple[str, str]:
    """Structural Verilog of the chosen conventional candidate of a finished build
    (``report.json`` ``conventional.baseline`` and ``top``, ``baselines/<name>/netlist.json``),
    written by :func:`dcsflow.flow.netlist.write_verilog`: one net per bit, which Icarus simulates
    at the speed of the specialized netlists (Yosys's ``write_verilog`` keeps wide vectors whose
    every bit change re-evaluates the whole vector). The parameter inputs are ordinary ports of it.
    A register form's candidate (``<mapper>@<form>``, :mod:`dcsflow.flow.loadreg`) comes behind
    the design's own interface, its register held at the value the parameter ports give
    (:func:`dcsflow.flow.loadreg.simulation_view`). Returns (top module name, Verilog text).

    Raises:
        CheckError: no report, no chosen candidate, or its netlist is missing or unreadable.
    """
    from dcsflow.fileio import NETLIST_LIMIT, load_json_file
    from dcsflow.schema import SchemaError, validate

    from .records import REPORT, top_module

    from .baselines import split_name
    from .loadreg import LoadRegisterError, simulation_view

    b = Path(build_dir)
    try:
        rep = load_json_file(b / "report.json")
        validate(rep, REPORT)
        name, top = rep["conventional"].get("baseline"), rep["top"]
        if name is None:
            raise SchemaError("conventional.baseline", "missing")
        path = b / "baselines" / str(name) / "netlist.json"
        mod = top_module(load_json_file(path, NETLIST_LIMIT), top, path, CheckError)
        form = split_name(str(name))[1]
        if form is not None:
            pre = b / "frontend" / "pre.json"
            ports = top_module(load_json_file(pre, NETLIST_LIMIT), top, pre, CheckError)["ports"]
        else:
            ports = None
    except SchemaError as e:
        raise CheckError(f"{b}/report.json: malformed report (field {e.field}: {e.reason})") from None
    except (OSError, KeyError, TypeError, ValueError, RecursionError) as e:
        raise CheckError(f"{b}: no conventional netlist in this build folder ({type(e).__name__})") from None
    if form is None:
        return top, nl.write_verilog(mod, top)
    try:
        return top, simulation_view(mod, top, ports, b / "baselines" / f"@{form}")
    except LoadRegisterError as e:
        raise CheckError(f"{b}: {e}") from None
