"""Golden-file comparison of a build's ``vivado/`` folder (tests/data/vivado/<case>/, see SOURCES.md there).

The golden files are outputs of the implementation before the templates (f-strings and
``str.replace``), never of the code under test. Every file of the case folder must equal the
build's file byte for byte; a difference is shown as a unified diff (or, when only line endings or
the final newline differ, as the bytes that differ).
"""

from __future__ import annotations

import difflib
from pathlib import Path

from dcsflow import __version__

GOLDEN_DIR = Path(__file__).resolve().parent / "data" / "vivado"
#: dcsflow version that wrote the golden files: the only text the comparison adapts (headers
#: ``# dcsflow 0.1.0: ...``) when the package version moves on
GOLDEN_VERSION = "0.1.0"
#: files of a case folder that are documentation, not golden output
NOT_OUTPUT = {"SOURCES.md"}
#: at most this many diff lines per differing file
MAX_DIFF_LINES = 80


def golden_names(case: str) -> list[str]:
    """Names of the golden files of ``case`` (tests/data/vivado/<case>/), sorted."""
    d = GOLDEN_DIR / case
    assert d.is_dir(), f"no golden folder {d}"
    return sorted(p.name for p in d.iterdir() if p.is_file() and p.name not in NOT_OUTPUT)


def _expected(case: str, name: str) -> bytes:
    data = (GOLDEN_DIR / case / name).read_bytes()
    if __version__ != GOLDEN_VERSION:
        data = data.replace(f"dcsflow {GOLDEN_VERSION}:".encode(), f"dcsflow {__version__}:".encode())
    return data


def file_diff(name: str, want: bytes, got: bytes) -> str:
    """Readable description of how ``got`` differs from ``want`` ('' when equal)."""
    if want == got:
        return ""
    a = want.decode("utf-8", "replace").splitlines(keepends=True)
    b = got.decode("utf-8", "replace").splitlines(keepends=True)
    if [x.rstrip("\r\n") for x in a] == [y.rstrip("\r\n") for y in b]:
        i = next((k for k, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
        return (f"{name}: same text lines, different bytes (line endings / final newline) at byte {i}: "
                f"golden {want[max(0, i - 20):i + 20]!r}, build {got[max(0, i - 20):i + 20]!r}")
    lines = list(difflib.unified_diff(a, b, f"golden/{name}", f"build/{name}", n=2))
    more = len(lines) - MAX_DIFF_LINES
    text = "".join(ln if ln.endswith("\n") else ln + "\n" for ln in lines[:MAX_DIFF_LINES])
    return f"{name} differs from the golden file:\n{text}" + (f"... ({more} more diff lines)\n" if more > 0 else "")


def assert_matches_golden(vdir: Path, case: str, not_golden: set[str], borrowed: dict[str, str] | None = None) -> None:
    """Assert that ``vdir`` (a build's ``vivado/``) holds exactly the golden files of ``case`` plus
    ``not_golden`` (outputs without a golden copy) and ``borrowed`` (file name -> another case whose
    golden copy it must equal: a file a variant does not change) and that every golden file is equal
    byte for byte."""
    borrowed = borrowed or {}
    names = golden_names(case)
    produced = sorted(p.name for p in Path(vdir).iterdir() if p.is_file())
    want = set(names) | set(not_golden) | set(borrowed)
    assert set(produced) == want, f"{case}: files written {produced}, expected {sorted(want)}"
    names += sorted(borrowed)
    diffs = [file_diff(n, _expected(borrowed.get(n, case), n), (Path(vdir) / n).read_bytes()) for n in names]
    diffs = [d for d in diffs if d]
    assert not diffs, f"{case}: {len(diffs)} of {len(names)} files differ\n" + "\n".join(diffs)
