"""The documentation (docs/, Sphinx + MyST) builds without a warning, and the references it is
generated from are complete.

- The site is built as CI builds it: ``-W --keep-going -n`` (warnings are errors; nitpicky: every
  reference inside dcsflow must resolve). A failure names each warning, e.g. the broken
  cross-reference and the file and line it is in.
- The CLI reference documents every ``dcsflow`` subcommand (also those the installed designs
  bring, which the click group loads lazily).
- Every option of every ``dcsflow`` command and of the runtime's command line has help text.
- The Python API pages document every public module.

Needs the ``docs`` packages (in the ``test`` extra); without them the build tests skip, and fail
when ``CI`` is set.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from dcsflow.flow.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import dcsdocs  # noqa: E402  (docs/_ext/dcsdocs.py: the runtime command walker, standard library only)

DOC_PACKAGES = ("sphinx", "myst_parser", "sphinx_click")


def _need_sphinx():
    missing = [m for m in DOC_PACKAGES if importlib.util.find_spec(m) is None]
    if missing:
        msg = f"documentation packages missing ({', '.join(missing)}): pip install -e '.[docs]'"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The HTML site, built with warnings as errors; the test fails listing every warning."""
    _need_sphinx()
    out = tmp_path_factory.mktemp("docs")
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-E",
                        "-d", str(out / "doctrees"), "-b", "html", str(DOCS), str(out / "html")],
                       capture_output=True, text=True, timeout=600)
    warnings = [ln for ln in r.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert r.returncode == 0 and not warnings, \
        "the documentation has warnings (broken cross-references, bad markup):\n" + "\n".join(warnings or [r.stderr])
    return out / "html"


def test_docs_build_without_warnings(site):
    assert (site / "index.html").is_file()
    assert (site / "guide" / "tutorial.html").is_file()


def _commands(cmd: click.Command, ctx: click.Context, path: tuple[str, ...]):
    """(path, command) for ``cmd`` and every subcommand below it, depth first."""
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, click.Context(sub, info_name=name, parent=ctx), path + (name,))


def all_commands():
    from dcsflow.flow.cli import cli

    return list(_commands(cli, click.Context(cli, info_name="dcsflow"), ("dcsflow",)))


def test_cli_reference_documents_every_subcommand(site):
    page = (site / "reference" / "cli.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', page))
    missing = [" ".join(p) for p, _ in all_commands() if "-".join(p).replace("_", "-").lower() not in ids]
    assert not missing, f"the CLI reference lacks: {', '.join(missing)}"
    for p, _ in dcsdocs.runtime_commands():
        assert "runtime-" + "-".join(p or ("main",)) in ids, f"the CLI reference lacks python -m dcsflow.scg {' '.join(p)}"


def test_every_option_has_help():
    """Walks every click command of ``dcsflow`` (with the designs' commands) and every command of
    the runtime's argparse command line; names each option without help text."""
    missing = []
    for path, cmd in all_commands():
        if not (cmd.help or cmd.short_help or "").strip():
            missing.append(f"{' '.join(path)} (the command itself)")
        for p in cmd.params:
            if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip():
                missing.append(f"{' '.join(path)} {'/'.join(p.opts)}")
    for path, parser in dcsdocs.runtime_commands():
        missing += [f"python -m dcsflow.scg {' '.join(path)} {o}".replace("  ", " ")
                    for o in dcsdocs.options_without_help(parser)]
    assert not missing, "options without help text:\n" + "\n".join(missing)


def test_api_pages_document_every_public_module():
    roots = {"dcsflow": "dcsflow", "scg": "dcsflow.scg", "tmap": "dcsflow.tmap", "flow": "dcsflow.flow",
             "designs": "dcsflow.designs"}
    text = "".join(p.read_text() for p in (DOCS / "reference" / "api").glob("*.md"))
    documented = set(re.findall(r"\.\. automodule:: ([\w.]+)", text))
    missing = []
    for folder, pkg in roots.items():
        for f in sorted((REPO_ROOT / folder).rglob("*.py")):
            parts = list(f.relative_to(REPO_ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(x.startswith("_") for x in parts) or parts[:1] == ["commands"]:
                continue
            name = ".".join([pkg, *parts])
            if name not in documented:
                missing.append(name)
    assert not missing, f"modules missing from docs/reference/api/: {', '.join(missing)}"

