"""The tutorial (docs/guide/tutorial.md) runs exactly as written.

Every fenced ``sh`` block (and every ``$ `` line of a ``console`` block) of the page is run, in
the page's order, as one bash script in an empty temporary folder, with this environment's
``dcsflow`` first on ``PATH``. Blocks fenced ``text`` are output or commands that need tools not
installed here (Vivado); they are not run. A newcomer who follows the page reaches the same
built, checked and rekeyed design.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.paths import REPO_ROOT

TUTORIAL = REPO_ROOT / "docs" / "guide" / "tutorial.md"
FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S)


def tutorial_script(text: str) -> str:
    """The commands of the page's ``sh`` and ``console`` blocks, in order, as one script."""
    parts = []
    for m in FENCE.finditer(text):
        lang, body = m.group("lang"), m.group("body")
        if lang == "sh":
            parts.append(body)
        elif lang == "console":
            parts.append("".join(ln[2:] + "\n" for ln in body.splitlines() if ln.startswith("$ ")))
    return "\n".join(parts)


def test_tutorial_has_commands():
    script = tutorial_script(TUTORIAL.read_text())
    for cmd in ("dcsflow build -p dcsflow.toml", "dcsflow check build/scaler", "dcsflow report build/scaler",
                "dcsflow rekey build/scaler", "--backend vivado"):
        assert cmd in script, f"the tutorial no longer runs {cmd!r}"


def test_tutorial_runs_as_written(tmp_path):
    script = tutorial_script(TUTORIAL.read_text())
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("PYTEST_XDIST_WORKER", None)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, f"the tutorial failed (exit {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    project = tmp_path / "scaler"
    assert "passed 3/3" in r.stdout, r.stdout[-2000:]
    assert (project / "build" / "scaler" / "report.html").is_file()
    assert (project / "build" / "scaler" / "vivado" / "build.tcl").is_file()
    assert (project / "coef05.bit").stat().st_mode & 0o077 == 0          # key material: owner only
    assert "read-back verified" in r.stdout
    assert "parameter input coef: 8 bits, (* PARAM *)" in r.stderr
