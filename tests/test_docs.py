"""The documentation (docs/, Sphinx + MyST) builds without a warning, and the references it is
generated from are complete.

- The site is built as CI builds it: ``-W --keep-going -n`` (warnings are errors; nitpicky: every
  reference inside dcsflow must resolve). A failure names each warning, e.g. the broken
  cross-reference and the file and line it is in.
- The built site shows no raw markup, no option typeset with an en dash, and has no broken
  internal link; the CLI reference has a page per command group with every option of every
  command (also those the installed designs bring, which the click group loads lazily).
- Every option of every ``dcsflow`` command and of the runtime's command line has help text.
- The Python API pages document every public module.

Needs the ``docs`` packages (in the ``test`` extra); without them the build tests skip, and fail
when ``CI`` is set.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


def _page_text(page: Path) -> str:
    """The text a reader sees in the body of a built page (tags removed, entities decoded)."""
    t = page.read_text(encoding="utf-8")
    if '<div class="body"' in t:
        t = t[t.index('<div class="body"'):]
    return html.unescape(re.sub(r"<[^>]+>", "", t))


def _option_signatures(page: Path) -> set[str]:
    """Every option string of the page's option entries (Sphinx's ``.. option::``: a ``<dt>`` whose
    id starts ``cmdoption-``), e.g. ``--out`` and ``-p``."""
    out = set()
    for dt in re.findall(r'<dt class="sig[^"]*" id="cmdoption-[^"]*">(.*?)</dt>', page.read_text(encoding="utf-8"),
                         re.S):
        out.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", html.unescape(re.sub(r"<[^>]+>", "", dt))))
    return out


def _help_options(cmd: click.Command, ctx: click.Context) -> set[str]:
    """The option strings ``--help`` lists for a click command (its help option included)."""
    out = set()
    for p in cmd.get_params(ctx):
        if isinstance(p, click.Option) and not p.hidden:
            out.update(p.opts + p.secondary_opts)
    return out


def _cli_page(site: Path, path: tuple[str, ...]) -> Path:
    return site / "reference" / "cli" / (f"{path[1]}.html" if len(path) > 1 else "index.html")


def test_cli_reference_documents_every_option_of_every_command(site):
    """One page per command group; on it, every command below it (a section whose id is the command
    line) and every option its ``--help`` lists, as an option entry: the click commands by their
    parameters, the commands that hand their arguments to the runtime by the runtime's parser."""
    from dcsflow.flow.cli import cli
    from dcsflow.scg.commands import build_parser

    runtime_parsers = dict(dcsdocs._subparsers(build_parser("dcsflow")))
    missing = []
    for path, cmd in all_commands():
        page = _cli_page(site, path)
        if not page.is_file():
            missing.append(f"{' '.join(path)}: no page {page.relative_to(site)}")
            continue
        ids = set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
        if "-".join(path).replace("_", "-").lower() not in ids:
            missing.append(f"{' '.join(path)}: no section on {page.relative_to(site)}")
        ctx = click.Context(cmd, info_name=path[-1], parent=click.Context(cli, info_name="dcsflow"))
        want = _help_options(cmd, ctx)
        if len(path) == 2 and path[1] in runtime_parsers \
                and [type(p.type) for p in cmd.params] == [type(click.UNPROCESSED)]:
            want = {o for a in runtime_parsers[path[1]]._actions for o in a.option_strings}
        got = _option_signatures(page)
        missing += [f"{' '.join(path)} {o}" for o in sorted(want - got)]
    runtime = site / "reference" / "cli" / "runtime.html"
    got = _option_signatures(runtime)
    ids = set(re.findall(r'id="([^"]+)"', runtime.read_text(encoding="utf-8")))
    for p, parser in dcsdocs.runtime_commands():
        if "-".join(("dcsflow-scg",) + p) not in ids:
            missing.append(f"python -m dcsflow.scg {' '.join(p)}: no section")
        missing += [f"python -m dcsflow.scg {' '.join(p)} {o}" for a in parser._actions for o in a.option_strings
                    if o not in got]
    assert not missing, "the CLI reference lacks:\n" + "\n".join(missing)


#: reStructuredText or MyST markup shown as text: a directive line, a MyST fence, a role
_RAW = re.compile(r"(^|\n)\s*\.\. [\w:-]+::|```\{|\{eval-rst\}|:(?:func|class|mod|meth|doc|ref):`")
#: an option set with an en dash where two hyphens belong (typographic replacement of "--")
_EN_DASH_OPTION = re.compile(r"(?:^|[\s(\[/,])–[a-z]")


def test_built_site_shows_no_markup_no_en_dash_options_and_no_broken_links(site):
    """Every page of the built site: no raw directive (``.. option::``, ``.. program::``, a MyST
    fence) in what the reader sees; no option typeset with an en dash (``–out``: copied, it fails);
    every internal link resolves to a page and, with a fragment, to an id on it (a ``file:`` link,
    docutils' reading of ``file:line``, counts as broken)."""
    pages = [p for p in site.rglob("*.html") if not {"_static", "_sources", "_modules"} & set(p.parts)]
    ids = {p.resolve(): set(re.findall(r'\bid="([^"]+)"', p.read_text(encoding="utf-8"))) for p in pages}
    raw, dashes, broken = [], [], []
    for p in pages:
        rel = p.relative_to(site)
        text = _page_text(p)
        raw += [f"{rel}: {m.group(0).strip()!r}" for m in _RAW.finditer(text)]
        dashes += [f"{rel}: {text[max(0, m.start() - 30):m.end() + 20]!r}" for m in _EN_DASH_OPTION.finditer(text)]
        for href in re.findall(r'\bhref="([^"]+)"', p.read_text(encoding="utf-8")):
            u = urlsplit(html.unescape(href))
            if u.scheme in ("http", "https", "mailto"):
                continue
            if u.scheme or u.netloc:
                broken.append(f"{rel}: {href}")
                continue
            target = (p.parent / unquote(u.path)).resolve() if u.path else p.resolve()
            if not target.exists():
                broken.append(f"{rel}: {href}")
            elif u.fragment and target in ids and unquote(u.fragment) not in ids[target]:
                broken.append(f"{rel}: {href} (no id {u.fragment!r})")
    assert not raw, "markup shown as text:\n" + "\n".join(raw[:40])
    assert not dashes, "options set with an en dash:\n" + "\n".join(dashes[:40])
    assert not broken, "broken internal links:\n" + "\n".join(broken[:40])


#: every table of the page's body that is cut off or scrolls: wider than its box, or past the window
_TABLES_CUT = """Array.from(document.querySelectorAll('div.body table')).filter(t =>
    t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > window.innerWidth + 1
  ).map(t => (t.querySelector('th, td') || t).innerText.slice(0, 40) + ': ' + t.scrollWidth + ' px in '
            + t.clientWidth)"""


def test_results_tables_fit_a_1280_px_window(site):
    """Every table of the results pages shows all its columns in a 1280-pixel-wide browser window
    (Chromium, headless): none is cut off or needs scrolling."""
    from _chromium import chromium_path, probe_pages

    if not chromium_path():
        pytest.skip("chromium not installed")
    pages = sorted((site / "results").glob("*.html"))
    cut = {p.name: v for p, v in probe_pages(pages, _TABLES_CUT, width=1280).items() if v}
    assert not cut, f"tables wider than a 1280 px window: {cut}"


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


def _api_pages() -> dict[str, tuple[str, tuple, tuple]]:
    """page stem -> (package, private modules, modules without members) of every ``api-package``
    directive of docs/reference/api/."""
    out = {}
    for page in (DOCS / "reference" / "api").glob("*.md"):
        m = re.search(r"\.\. api-package:: ([\w.]+)\n((?:   :[\w-]+:.*\n)*)", page.read_text())
        if m:
            opts = dict(re.findall(r":([\w-]+): *(.*)", m.group(2)))
            out[page.stem] = (m.group(1), tuple(opts.get("private", "").split()),
                              tuple(opts.get("no-members", "").split()))
    return out


def test_api_pages_document_every_public_module():
    """One page per package (named after it), each package's modules on its page, every public
    module of the code on some page, every subpackage a page of its own."""
    roots = {"dcsflow": "dcsflow", "scg": "dcsflow.scg", "tmap": "dcsflow.tmap", "flow": "dcsflow.flow",
             "designs": "dcsflow.designs"}
    pages = _api_pages()
    documented, wanted_pages = set(), set()
    for stem, (pkg, private, bare) in pages.items():
        assert stem == pkg, f"docs/reference/api/{stem}.md documents {pkg}: name the page after its package"
        modules, subpackages = dcsdocs.package_modules(pkg, private, bare)
        documented.update(modules)
        wanted_pages.update(subpackages)
    missing = [p for p in sorted(wanted_pages) if p not in pages]
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
    assert not missing, f"modules or packages missing from docs/reference/api/: {', '.join(missing)}"
