"""Every page under docs/results must be reproducible: its header names the clean commit it was
measured at and the exact command that wrote it (benchmarks/_results.py, ``write_page``), or, for a
page not measured yet, the command that fills it.

A page is refused when its commit says ``-dirty`` (or ``+changes``, or is not a commit at all) or when
the command that wrote it is missing or incomplete (not ``python benchmarks/<script>.py ... --docs``
of a script in benchmarks/, in both the comment and the command block of the header). Pages that
fail today are marked below, one reason each (strict: once such a page is measured again, its mark
must go). The benchmarks refuse ``--docs`` from a checkout whose tracked files differ from its
commit unless ``--allow-dirty`` is given, and a page so written says so in its header.
"""

from __future__ import annotations

import argparse
import re
import sys

import pytest

from dcsflow.flow.paths import REPO_ROOT

RESULTS = REPO_ROOT / "docs" / "results"
BENCHMARKS = REPO_ROOT / "benchmarks"

#: pages that fail today, with why; each is to be measured again by the command it names
KNOWN_BAD = {
    "aes_modes.md": "measured at commit 8bc85ae2b307-dirty",
    "build_times.md": "measured at bd15c05+changes (dirty); names `python benchmarks/build_bench.py` without its options",
    "build_times_aes_modes.md": "measured at f27a273+changes (dirty); names build_bench.py without its options",
    "build_times_keccak.md": "names build_bench.py without the options that wrote it (--designs keccak --page ...)",
    "build_times_large.md": "measured at 927d1c2+changes (dirty); names build_bench.py without its options",
    "scaling.md": "names `python benchmarks/scaling_bench.py` without --docs or its other options",
}

COMMENT = re.compile(r"^<!-- Written by `(?P<cmd>[^`]+)`\. Do not edit by hand", re.M)
MEASURED = re.compile(r"^Measured (?P<when>.+?) at commit `?(?P<commit>[^\s`]+)`?", re.M)
BLOCK = re.compile(r"^```text\n(?P<cmd>[^\n]+)\n```", re.M)
CLEAN = re.compile(r"[0-9a-f]{7,40}")


def _command_problems(cmd: str) -> list[str]:
    words = cmd.split()
    if len(words) < 2 or words[0] != "python" or not re.fullmatch(r"benchmarks/[\w.-]+\.py", words[1]):
        return [f"the command `{cmd}` is not `python benchmarks/<script>.py ...`"]
    out = []
    if not (REPO_ROOT / words[1]).is_file():
        out.append(f"the command's script {words[1]} does not exist")
    if "--docs" not in words:
        out.append(f"the command `{cmd}` lacks --docs, so it is not the one that wrote the page")
    return out


def problems(text: str) -> list[str]:
    """Why a results page's header does not make it reproducible (empty: it does)."""
    head = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    if head.startswith("Not measured yet"):
        block = BLOCK.search(text)
        if block is None:
            return ["a page not measured yet without the command that fills it"]
        if MEASURED.search(text):
            return ["a page not measured yet that names a commit"]
        return _command_problems(block["cmd"])
    out = []
    m = MEASURED.search(text)
    if m is None:
        out.append("no 'Measured <date> at commit <commit>' line")
    elif not CLEAN.fullmatch(m["commit"]):
        out.append(f"measured at commit {m['commit']}, not a clean commit")
    comment, block = COMMENT.search(text), BLOCK.search(text)
    if comment is None or block is None:
        out.append("the command that wrote the page is missing (no `Written by` comment and command block)")
    elif comment["cmd"] != block["cmd"]:
        out.append(f"the header names two commands: `{comment['cmd']}` and `{block['cmd']}`")
    else:
        out += _command_problems(block["cmd"])
    return out


def _pages() -> list:
    out = []
    for p in sorted(RESULTS.glob("*.md")):
        if p.name == "index.md":         # the list of pages, no figures
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BAD[p.name])] if p.name in KNOWN_BAD else []
        out.append(pytest.param(p, id=p.name, marks=marks))
    return out


@pytest.mark.parametrize("page", _pages())
def test_results_page_names_a_clean_commit_and_its_command(page):
    found = problems(page.read_text())
    assert not found, f"{page.relative_to(REPO_ROOT)}: " + "; ".join(found)


def test_known_bad_pages_exist():
    """A mark for a page that is gone would hide nothing: remove it."""
    assert not [n for n in KNOWN_BAD if not (RESULTS / n).is_file()]


# --------------------------------------------------------------- the benchmarks' page writer

@pytest.fixture
def results(monkeypatch, tmp_path):
    """benchmarks/_results.py writing into tmp_path, as if run as
    ``python benchmarks/cfglut_bench.py --keys 3 --docs``."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import _results

    monkeypatch.setattr(_results, "RESULTS", tmp_path)
    monkeypatch.setattr(_results, "_ALLOW_DIRTY", False)
    monkeypatch.setattr(sys, "argv", [str(BENCHMARKS / "cfglut_bench.py"), "--keys", "3", "--docs"])
    return _results


def _args(results, *argv):
    ap = argparse.ArgumentParser()
    results.add_docs_option(ap, "docs/results/x.md")
    return ap.parse_args(argv)


def test_docs_refused_from_a_dirty_checkout(results, monkeypatch, tmp_path):
    monkeypatch.setattr(results, "_COMMIT", "0123456789ab-dirty")
    with pytest.raises(SystemExit, match=r"^error: --docs: tracked files differ from commit 0123456789ab, .*"
                                         r"commit first.*--allow-dirty"):
        results.check_docs(_args(results, "--docs"))
    results.check_docs(_args(results))                      # without --docs: nothing to refuse
    with pytest.raises(SystemExit, match="tracked files differ"):
        results.write_page("x", "X", "| a |\n")            # the writer refuses on its own too
    assert not list(tmp_path.iterdir())
    monkeypatch.setattr(results, "_COMMIT", "unknown")
    with pytest.raises(SystemExit, match="not a git checkout"):
        results.check_docs(_args(results, "--docs"))


def test_allow_dirty_writes_a_page_that_says_so_and_fails_the_check(results, monkeypatch, tmp_path):
    monkeypatch.setattr(results, "_COMMIT", "0123456789ab-dirty")
    results.check_docs(_args(results, "--docs", "--allow-dirty"))
    text = results.write_page("x", "X", "| a |\n").read_text()
    assert "at commit `0123456789ab-dirty` (written with `--allow-dirty`: tracked files differed" in text
    assert problems(text) == ["measured at commit 0123456789ab-dirty, not a clean commit"]


def test_a_clean_page_passes_and_its_faults_are_named(results, monkeypatch):
    monkeypatch.setattr(results, "_COMMIT", "0123456789ab")
    text = results.write_page("x", "X", "| a |\n").read_text()
    assert problems(text) == []
    cmd = "python benchmarks/cfglut_bench.py --keys 3 --docs"
    assert problems(text.replace(cmd, "python benchmarks/cfglut_bench.py --keys 3")) == [
        "the command `python benchmarks/cfglut_bench.py --keys 3` lacks --docs, so it is not the one that wrote "
        "the page"]
    assert problems(text.replace(cmd, "python benchmarks/nothing.py --docs")) == [
        "the command's script benchmarks/nothing.py does not exist"]
    no_block = re.sub(r"```text\n.*?\n```\n", "", text, flags=re.S)
    assert problems(no_block) == [
        "the command that wrote the page is missing (no `Written by` comment and command block)"]
    assert problems(text.replace("`0123456789ab`", "bd15c05+changes")) == [
        "measured at commit bd15c05+changes, not a clean commit"]


def test_placeholder_page_names_the_command_that_fills_it():
    page = ("# AES-128\n\nNot measured yet. This page holds AES, written by\n\n```text\n"
            "python benchmarks/aes_bench.py --docs\n```\n\nrun from a checkout.\n")
    assert problems(page) == []
    assert problems(page.replace("```text\npython benchmarks/aes_bench.py --docs\n```\n", "")) == [
        "a page not measured yet without the command that fills it"]


def test_every_benchmark_page_option_refuses_a_dirty_checkout():
    """A benchmark that writes a results page takes ``--docs`` from _results (with --allow-dirty)
    and checks the checkout before it runs."""
    bad = []
    for p in sorted(BENCHMARKS.glob("*.py")):
        s = p.read_text()
        if p.name == "_results.py" or "docs/results" not in s and "write_page" not in s:
            continue
        if '"--docs"' in s or ("write_page(" in s and ("add_docs_option(" not in s or "check_docs(" not in s)):
            bad.append(p.name)
    assert not bad, f"benchmarks writing a page without _results.add_docs_option and check_docs: {bad}"
