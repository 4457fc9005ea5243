"""A design is one folder plus one entry point; the generic code names no design.

A tiny third-party design package (tests/data/tinydesign: its folder and a dist-info with one
``dcsflow.designs`` entry point, found through PYTHONPATH exactly as an installed package would be)
is listed, built, checked with its own check and rekeyed; an entry point that fails to import is
one warning and the other designs still work.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parent.parent


def _env(*folders: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(f) for f in folders)}


def test_bundled_designs_are_listed(dcsflow):
    r = dcsflow("designs", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"picipher", "picipher128", "picipher_cis", "aes128_iter", "aes128_pipe"} <= set(d)
    assert d["picipher_cis"]["user_params"] == {"key_mn": 128} and d["picipher"]["check"]
    assert d["aes128_pipe"]["demo"] == "optional" and d["aes128_iter"]["demo"] == "default"
    assert all(v["origin"].startswith("entry point ") for v in d.values())


def test_tiny_design_package_builds_checks_and_rekeys(dcsflow, tmp_path):
    pkg = tmp_path / "site"
    shutil.copytree(DATA / "tinydesign", pkg)
    env = _env(pkg)
    r = dcsflow("designs", env=env)
    assert r.returncode == 0 and "tiny_keyxor" in r.stdout and "warning" not in r.stderr, r.stdout + r.stderr
    out = tmp_path / "b"
    r = dcsflow("build", "tiny_keyxor", "--out", out, "--quiet", env=env)
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["design"] == "tiny_keyxor" and rep["params"] == {"key": 8} and rep["tlut"]["tluts"] > 0
    r = dcsflow("check", out, "--quiet", env=env)
    assert r.returncode == 0 and "passed 3/3" in r.stdout, r.stdout + r.stderr
    r = dcsflow("rekey", out, "--param", "key=a5", "--to", "emulator", "--verify", env=env)
    assert r.returncode == 0 and "read-back verified" in r.stdout, r.stdout + r.stderr
    # the check can fail: a model that disagrees with the hardware is reported per key
    broken = pkg / "dcsflow_tiny" / "__init__.py"
    broken.write_text(broken.read_text().replace("return (d ^ key) ^ (rot & key)", "return d ^ key"))
    r = dcsflow("check", out, "--quiet", env=env)
    assert r.returncode == 1 and "passed 1/3" in r.stdout and "outputs differ" in r.stdout, r.stdout + r.stderr
    # without the package, the build's design is gone: one line
    r = dcsflow("check", out, "--quiet")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "tiny_keyxor" in r.stderr and "not installed" in r.stderr


def test_a_broken_entry_point_is_one_warning(dcsflow):
    r = dcsflow("designs", env=_env(DATA / "brokendesign"))
    assert r.returncode == 0 and "picipher" in r.stdout, r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warnings) == 1 and "broken_design" in warnings[0] and "dcsflow_no_such_module" in warnings[0], r.stderr
    assert "Traceback" not in r.stderr


def test_generic_code_names_no_design():
    """No identifier, import or string other than a docstring in flow/, tmap/, scg/ mentions an
    installed design's name or its family (the part before the first digit or underscore)."""
    from dcsflow.flow.registry import installed

    names = set(installed())
    words = {n for n in names} | {n.split("_")[0] for n in names} | {n.rstrip("0123456789") for n in names}
    words = {w.lower() for w in words if len(w) >= 4}
    hits = []
    for pkg in ("flow", "tmap", "scg"):
        for f in (REPO / pkg).rglob("*.py"):
            tree = ast.parse(f.read_text())
            docs = {id(n.body[0].value) for n in ast.walk(tree)
                    if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                    and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
            for n in ast.walk(tree):
                text = (n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                        else n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute)
                        else n.name if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                        else " ".join([getattr(n, "module", None) or ""] + [a.name for a in n.names])
                        if isinstance(n, (ast.Import, ast.ImportFrom)) else "")
                if any(w in text.lower() for w in words):
                    hits.append(f"{f.relative_to(REPO)}:{getattr(n, 'lineno', 0)}: {text[:60]!r}")
    assert not hits and len(words) >= 3, hits[:10]
