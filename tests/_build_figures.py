"""The figures of a finished build that the flow's speed work must not move, and their table.

``tests/data/build_figures.json`` (written by ``scripts/figures.py``) holds, per bundled design, the
figures of a build made before the build ran its steps as parallel jobs; :func:`compare` checks a
build against it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

TABLE = Path(__file__).parent / "data" / "build_figures.json"


def generated_c(build: Path) -> dict[str, str]:
    """SHA-256 of each file ``dcsflow codegen`` writes for ``build`` (its folder's name as ``<build>``)."""
    with tempfile.TemporaryDirectory(prefix="figures-") as d:
        r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(build), "--out", d],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"codegen {build} failed: {r.stderr.strip()[-300:]}")
        # the files name the build folder: hashed with its name as <build>
        return {p.name: hashlib.sha256(p.read_bytes().replace(build.name.encode(), b"<build>")).hexdigest()
                for p in sorted(Path(d).iterdir())}


def figures(build: Path, with_c: bool = True) -> dict:
    """The figures of one finished build folder (module docstring)."""
    rep = json.loads((build / "report.json").read_text())
    be = rep["backend"]
    keys = ("luts", "ffs", "depth", "carry4", "muxf7", "muxf8")
    t, c = rep["tlut"], rep["conventional"]
    out = {
        "design": rep["design"],
        "design_hash": json.loads((build / "build.json").read_text())["design_hash"],
        "tlut": {**{k: t[k] for k in keys}, "tluts": t["tluts"], "slices": be["tlut"]["slices"],
                 "ppc_ands": t["ppc_ands"]},
        "conventional": {**{k: c[k] for k in keys}, "baseline": c["baseline"], "slices": be["conventional"]["slices"]},
        "candidates": {n: {k: b[k] for k in ("luts", "ffs", "depth", "slices")} for n, b in rep["baselines"].items()},
        "static_remap": {k: (t.get("static_remap") or {}).get(k) for k in ("result", "tail", "luts_after", "depth")},
        "rekey": {k: be["rekey"][k] for k in ("frames_per_rekey", "icap_words_batched")},
    }
    if with_c:
        out["generated_c_sha256"] = generated_c(build)
    return out



def compare(build: Path, ci_form: bool = False) -> list[str]:
    """The figures of ``build`` that differ from the table's entry of its design (``path: table ->
    build`` lines; empty when equal). ``ci_form``: the build was made in the CI form
    (:func:`dcsflow.flow.ciform.ci_form`): it must have made exactly the candidates that form names,
    and only their figures are compared. Raises KeyError for a design the table does not hold."""
    from dcsflow.flow.ciform import ci_form as form_of

    want = json.loads(TABLE.read_text())["designs"]
    got = figures(build)
    ref = {k: v for k, v in want[got["design"]].items() if k != "source"}
    out: list[str] = []
    if ci_form:
        names = form_of(ref)["baselines"]
        if sorted(got["candidates"]) != sorted(names):
            out.append(f"candidates: CI form {sorted(names)} -> {sorted(got['candidates'])}")
        ref["candidates"] = {n: v for n, v in ref["candidates"].items() if n in names}

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        elif a != b:
            out.append(f"{path}: {a} -> {b}")
    walk(ref, got, "")
    return out
