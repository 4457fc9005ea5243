"""The project's foundation: the CLI entry point, the README contract, atomic writes."""

from __future__ import annotations

import re

import pytest

from dcsflow import __version__
from dcsflow.fileio import write_text_atomic
from dcsflow.flow.paths import REPO_ROOT


def test_help_and_version(dcsflow):
    r = dcsflow("--help")
    assert r.returncode == 0
    assert "parameter" in r.stdout.lower()
    r = dcsflow("--version")
    assert r.returncode == 0 and __version__ in r.stdout


def test_unknown_subcommand_is_usage_error(dcsflow):
    r = dcsflow("no-such-command")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_readme_has_two_commands_and_ci_runs_the_test_one():
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    assert len(blocks) >= 2
    first, second = blocks[0].strip(), blocks[1].strip()
    assert "setup.sh" in first and "dcsflow" in first
    assert "pytest" in second
    ci = (REPO_ROOT / ".ci" / "run").read_text().splitlines()
    assert second in [line.strip() for line in ci], ".ci/run must call the README's test command"
    # The two commands are the first two code blocks, at the top of the README.
    assert readme.index(first) < 200


def test_atomic_write_leaves_no_partial_file(tmp_path):
    dest = tmp_path / "out.txt"
    write_text_atomic(dest, "hello")
    assert dest.read_text() == "hello"

    class Boom(Exception):
        pass

    from dcsflow.fileio import atomic_open

    with pytest.raises(Boom):
        with atomic_open(dest, "w") as f:
            f.write("partial")
            raise Boom
    assert dest.read_text() == "hello"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
