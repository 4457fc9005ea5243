"""Fuzz of the JSON records a build folder holds (shared by tests/test_record_fuzz.py and the
hostile-input probe, tests/hostile_probe.py).

A case is ONE change to one field of one record file of a working copy of a finished build: the
field deleted, given a value of another type, a name that exists nowhere, or a huge value. The
folder is then resealed (``build.json`` records the new hashes, ``ppc.json`` the hash of
``ppc.aig``), as if the flow itself had written the changed file, so that the change reaches the
readers behind the hash checks. Every reader then runs in-process: the runtime's (``rekey`` to the
emulator, ``codegen``, the build-folder reader's parts) and the flow's (``build --from`` reloading the
stage records, ``report``, ``specialize``, ``check --frames`` up to its simulation, ``check``'s
conventional netlist). Each must either work or refuse with its one-line error; any other exception
is a traceback the user would see.
"""

from __future__ import annotations

import copy
import io
import json
import random
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from _builds import reseal

#: the record files of a build folder the readers take (those present in a build are fuzzed)
RECORD_FILES = ("build.json", "ppc.json", "tlut/framemap.json", "template.json", "report.json", "tlut/placement.json",
                "cfglut.json", "stages/frontend.json", "stages/tmap.json", "stages/verify.json", "stages/backend.json")

#: kinds of change -> (category, value or None for a deletion)
MUTATIONS = {
    "delete": ("missing key", None),
    "null": ("wrong type", None),
    "true": ("wrong type", True),
    "float": ("wrong type", 2.0),
    "string": ("wrong type", "x"),
    "list": ("wrong type", []),
    "object": ("wrong type", {}),
    "unknown name": ("unknown name", "$no$such$name"),
    "path outside": ("unknown name", "../../outside"),
    "huge int": ("huge value", 10 ** 30),
    "negative": ("huge value", -(10 ** 12)),
    "huge string": ("huge value", "A" * 200_000),
    "huge list": ("huge value", list(range(100_000))),
}


def field_paths(doc, max_items: int = 2, max_keys: int = 12, depth: int = 7) -> list[tuple]:
    """Paths (tuples of keys and indexes) of the fields of ``doc``: every key of an object (at most
    ``max_keys`` per object, the first ones), the first ``max_items`` items of a list, down to
    ``depth`` levels."""
    out: list[tuple] = []

    def walk(node, path):
        if len(path) >= depth:
            return
        if isinstance(node, dict):
            for k in list(node)[:max_keys]:
                out.append(path + (k,))
                walk(node[k], path + (k,))
        elif isinstance(node, list):
            for i in range(min(max_items, len(node))):
                out.append(path + (i,))
                walk(node[i], path + (i,))
    walk(doc, ())
    return out


def mutate(doc, path: tuple, kind: str):
    """A copy of ``doc`` with the field at ``path`` changed by ``kind`` (:data:`MUTATIONS`)."""
    new = copy.deepcopy(doc)
    parent = new
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    if kind == "delete":
        if isinstance(parent, dict):
            del parent[last]
        else:
            del parent[last]
    else:
        parent[last] = copy.deepcopy(MUTATIONS[kind][1])
    return new


class Case:
    """One change: file, field path, kind."""

    def __init__(self, name: str, path: tuple, kind: str):
        self.name, self.path, self.kind = name, path, kind

    @property
    def category(self) -> str:
        return MUTATIONS[self.kind][0]

    def __str__(self) -> str:
        return f"{self.name} {'/'.join(map(str, self.path))[:100]} {self.kind}"


def all_cases(root: Path) -> list[Case]:
    """Every case of the build folder ``root`` (each record file present, each field, each kind)."""
    out = []
    for name in RECORD_FILES:
        p = root / name
        if not p.is_file():
            continue
        doc = json.loads(p.read_text())
        if name == "template.json":          # the top module's attributes and first cells: the netlist is large
            top = next(iter(doc["modules"]))
            paths = [("modules",), ("modules", top), ("modules", top, "cells"), ("modules", top, "attributes")]
            paths += [("modules", top) + q for q in field_paths(doc["modules"][top], max_keys=6, depth=5)]
        else:
            paths = field_paths(doc)
        out += [Case(name, path, kind) for path in paths for kind in MUTATIONS]
    return out


def apply(case: Case, pristine: Path, work: Path) -> None:
    """Make ``work`` the pristine build with ``case``'s change, resealed (module docstring)."""
    src = pristine / case.name
    doc = json.loads(src.read_text())
    (work / case.name).write_text(json.dumps(mutate(doc, case.path, case.kind)))
    if case.name != "build.json":
        try:
            reseal(work, ppc_hash=case.name != "ppc.json")
        except (ValueError, TypeError, KeyError, AttributeError):
            pass                              # a ppc.json that is no manifest: build.json still records its hash
        if case.name == "ppc.json":
            reseal(work, ppc_hash=False)


def restore(case: Case, pristine: Path, work: Path) -> None:
    """Undo :func:`apply` (the changed file and build.json back as they were)."""
    for name in {case.name, "build.json", "ppc.json"}:
        shutil.copyfile(pristine / name, work / name)


def user_error(e: BaseException) -> bool:
    """An exception the command lines print as one line ``error: ...``: a user error, or a stage
    that must run again."""
    from dcsflow.flow.stages import StaleStage

    return bool(getattr(type(e), "user_error", False)) or isinstance(e, StaleStage)


def readers(work: Path, params: list[str], frames: bool, tmp: Path) -> list[tuple[str, BaseException | int]]:
    """Run every reader on ``work``; (reader, outcome): an exception raised, else the exit status or 0.
    Exceptions a reader is expected to refuse with are returned too; the caller tells them apart
    (:func:`user_error`)."""
    from dcsflow.flow import check as chk
    from dcsflow.flow import reportpage
    from dcsflow.flow.backend import verify
    from dcsflow.flow.specialize import specialize_to_file
    from dcsflow.flow.stages import STAGES, load_record
    from dcsflow.scg import cli
    from dcsflow.scg.buildfolder import load_build

    out = []

    def run(name, fn):
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                r = fn()
            if isinstance(r, int) and r not in (0, 1):
                out.append((name, RuntimeError(f"exit status {r}: {err.getvalue()[-300:]}")))
            elif isinstance(r, int) and r == 1 and len([ln for ln in err.getvalue().splitlines() if ln]) != 1:
                out.append((name, RuntimeError(f"not one line: {err.getvalue()[-300:]!r}")))
            else:
                out.append((name, r if isinstance(r, int) else 0))
        except Exception as e:  # noqa: BLE001 - classified by the caller
            out.append((name, e))

    pargs = [a for p in params for a in ("--param", p)]
    run("rekey", lambda: cli.main(["rekey", str(work), *pargs, "--to", "emulator", "--verify"]))
    shutil.rmtree(tmp / "gen", ignore_errors=True)
    run("codegen", lambda: cli.main(["codegen", str(work), "--out", str(tmp / "gen")]))

    def parts():
        b = load_build(work)
        b.tlut_entries, b.ppc, b.affine_records
        if b.lists("template.json"):
            b.module
        if b.lists("tlut/framemap.json"):
            b.entries, b.template, b.framemap_tluts
        if b.tlut_kind == "cfglut5":
            b.cfglut_layout
    run("reader", parts)

    def records():
        bj = json.loads((work / "build.json").read_text())
        outputs_of: dict = {}
        for s in STAGES[:-1]:
            _, outputs_of[s] = load_record(work, s, bj["design_hash"], outputs_of)
    run("build --from", records)
    run("report", lambda: reportpage.load_inputs(work))
    run("specialize", lambda: specialize_to_file(work, params, None))
    run("conventional", lambda: chk.conventional_verilog(work))
    if frames:
        # check --frames up to its simulation: the build's own setup (the test designs have no check
        # of their own), the simulation replaced by nothing
        real = verify.prepare_check, verify.simulate_vectors
        verify.prepare_check = lambda d, o: _Setup(load_build(d))
        verify.simulate_vectors = lambda *a, **k: chk.CheckResult(0, 0)
        try:
            run("check --frames", lambda: verify.check_frames(work, progress=False))
        finally:
            verify.prepare_check, verify.simulate_vectors = real
    return out


class _Setup:
    """The part of :class:`dcsflow.flow.check.CheckSetup` ``check --frames`` reads: the build, and
    one group of parameter values (all zero)."""

    def __init__(self, build):
        self.build = build

    def circuit_values(self) -> list[dict]:
        return [dict.fromkeys(self.build.user_params, 0)]


def classify(results) -> list[str]:
    """The tracebacks among ``readers``' results: one line each, ``reader: ExceptionType: message``."""
    bad = []
    for name, r in results:
        if isinstance(r, BaseException) and not user_error(r):
            bad.append(f"{name}: {type(r).__name__}: {str(r)[:200]}")
        elif isinstance(r, BaseException) and "\n" in str(r):
            bad.append(f"{name}: a message of several lines: {str(r)[:200]!r}")
    return bad


def sample(cases: list[Case], n: int, seed: int) -> list[Case]:
    """``n`` cases: one of every (file, kind) pair first, the rest drawn at random (seeded)."""
    rng = random.Random(seed)
    first, seen = [], set()
    for c in rng.sample(cases, len(cases)):
        if (c.name, c.kind) not in seen:
            seen.add((c.name, c.kind))
            first.append(c)
    rest = [c for c in cases if c not in first]
    return first + rng.sample(rest, max(0, min(len(rest), n - len(first))))
