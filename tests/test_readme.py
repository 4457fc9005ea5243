"""README.md is a short entry point for users.

The two commands come first (tests/test_foundation.py checks them against .ci/run); this module
checks the rest: at most 200 lines, no history (commit hashes, issue numbers), every relative link
points at a file of the checkout, and the designs table between its marker comments is exactly what
``benchmarks/designs_table.py`` writes from the recorded build figures (so nobody types a figure
into it by hand).
"""

from __future__ import annotations

import re
import subprocess
import sys

from dcsflow.flow.paths import REPO_ROOT

README = REPO_ROOT / "README.md"


def test_readme_is_short():
    n = len(README.read_text().splitlines())
    assert n <= 200, f"README.md has {n} lines; move details into docs/"


def test_readme_holds_no_history():
    text = README.read_text()
    issues = re.findall(r"issues? ?#?[0-9]+", text, re.I)
    assert not issues, f"README.md cites issue numbers: {issues}"
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", h) and re.search(r"\d", h)]
    assert not hashes, f"README.md cites commit hashes: {hashes}"


def test_readme_links_exist():
    text = README.read_text()
    missing = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        if not (REPO_ROOT / target).exists():
            missing.append(target)
    assert not missing, f"README.md links to missing files: {missing}"


def test_designs_table_is_generated():
    text = README.read_text()
    assert "<!-- designs-table -->" in text and "<!-- /designs-table -->" in text
    r = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "designs_table.py"), "--check"],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
