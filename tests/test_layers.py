"""The layers, enforced by the import-linter contracts in ``.importlinter``.

import-linter (grimp) scans a package folder; setup.py maps several repository folders into the one
namespace ``dcsflow``, so the test mirrors the installed layout (every ``.py`` file at the place the
wheel puts it) in a temporary folder and lints that. A second test makes sure the contracts can fail:
a module that imports upward breaks them.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _roots() -> dict[str, str]:
    """setup.py's ROOTS (installed package -> repository folder), read without running setup()."""
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ROOTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no ROOTS mapping")


def _mirror(dest: Path) -> Path:
    for pkg, folder in _roots().items():
        target = dest.joinpath(*pkg.split("."))
        src = REPO / folder
        for f in src.rglob("*.py") if pkg != "dcsflow" else src.glob("*.py"):
            if "__pycache__" in f.parts:
                continue
            out = target / f.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, out)
    return dest


def _lint(tree: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([str(exe), "--config", str(REPO / ".importlinter"), "--no-cache"], cwd=tree,
                          capture_output=True, text=True, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> Path:
    return _mirror(tmp_path_factory.mktemp("layers"))


def test_import_contracts_are_kept(mirror):
    r = _lint(mirror)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    n = (REPO / ".importlinter").read_text().count("[importlinter:contract:")
    assert n >= 5 and f"Contracts: {n} kept, 0 broken" in r.stdout, r.stdout[-2000:]


@pytest.mark.parametrize("module, line, contract", [
    ("scg/ppc.py", "from dcsflow.tmap import mapper", "designs above flow"),
    ("flow/check.py", "import dcsflow.designs.picipher", "designs above flow"),
    ("scg/device.py", "import rich", "third-party"),
    ("flow/netlist.py", "from dcsflow.flow import build", "no import cycle"),
])
def test_contracts_fail_on_a_forbidden_import(tmp_path, module, line, contract):
    tree = _mirror(tmp_path / "t")
    f = tree / "dcsflow" / module
    f.write_text(f.read_text() + f"\n\ndef _violation():\n    {line}\n")
    r = _lint(tree)
    assert r.returncode != 0, r.stdout[-2000:]
    assert "BROKEN" in r.stdout and contract in r.stdout, r.stdout[-3000:]
