"""The documentation's results pages, written by the benchmarks (``--docs``).

Every benchmark that measures figures for the documentation writes ``docs/results/<name>.md`` from
the run it just made, never from figures typed by hand: the page starts with the date, the commit
and the machine it ran on, and the exact command. A page must be reproducible from the commit it
names, so ``--docs`` is refused from a checkout whose tracked files differ from its commit (or that
is no git checkout) before the benchmark runs (:func:`check_docs`) and again when the page is
written (:func:`write_page`); ``--allow-dirty`` writes it anyway, and the page's header then says
that it is not reproducible from that commit (``tests/test_results_pages.py`` refuses such a page).
``docs/results/index.md`` lists the pages.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"

sys.path.insert(0, str(ROOT))

from dcsflow.fileio import write_text_atomic  # noqa: E402

_COMMIT: str | None = None
#: ``--allow-dirty`` was given (:func:`check_docs`)
_ALLOW_DIRTY = False
#: a commit as :func:`commit` gives it for a checkout whose tracked files equal it
CLEAN_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def add_docs_option(ap, page: str = "the documentation's results page (docs/results/)") -> None:
    """Add ``--docs`` (write ``page`` from this run) and ``--allow-dirty`` to an argparse parser;
    call :func:`check_docs` with the parsed arguments."""
    ap.add_argument("--docs", action="store_true",
                    help=f"also write {page} from this run; refused when tracked files differ from the "
                         "checkout's commit (commit first)")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="with --docs: write the page even though tracked files differ from the commit; its "
                         "header then says it is not reproducible from that commit")


def check_docs(args) -> None:
    """Before a benchmark runs: with ``args.docs``, exit with one line (SystemExit) when the checkout
    is not clean (:func:`is_clean`) unless ``args.allow_dirty``, so that no run ends with a page
    that cannot be written. Records ``--allow-dirty`` for :func:`write_page`."""
    global _ALLOW_DIRTY
    _ALLOW_DIRTY = bool(getattr(args, "allow_dirty", False))
    if getattr(args, "docs", False):
        _refuse_unclean()


def is_clean(c: str) -> bool:
    """Whether ``c`` (:func:`commit`'s form) names a commit the checkout's tracked files equal."""
    return CLEAN_COMMIT.fullmatch(c) is not None


def _refuse_unclean() -> None:
    c = commit()
    if is_clean(c) or _ALLOW_DIRTY:
        return
    why = ("the checkout is not a git checkout (commit unknown)" if c == "unknown" else
           f"tracked files differ from commit {c.split('-')[0]}")
    raise SystemExit(f"error: --docs: {why}, so the page would not be reproducible from it; commit first, "
                     "then run the benchmark (or give --allow-dirty, which the page then states)")


def commit() -> str:
    """The checkout's commit when the benchmark started (12 hex digits, ``-dirty`` when tracked files
    other than the results pages differed from it), or ``unknown``."""
    global _COMMIT
    if _COMMIT is None:
        _COMMIT = _git_commit()
    return _COMMIT


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)docs/results"],      # the pages the benchmarks themselves write
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def machine() -> str:
    """One line: CPU model, cores, memory, load average when the run ended, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = ", %.0f GiB" % (int(next(ln.split()[1] for ln in Path("/proc/meminfo").read_text().splitlines()
                                       if ln.startswith("MemTotal"))) / 2**20)
    except (OSError, StopIteration, ValueError):
        mem = ""
    try:
        load = ", load average %.1f" % os.getloadavg()[0]
    except OSError:
        load = ""
    return (f"{cpu}, {os.cpu_count()} cores{mem}{load}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}")


def command() -> str:
    """The command line that ran this benchmark, as a user would type it from the checkout."""
    script = Path(sys.argv[0]).resolve()
    try:
        script = script.relative_to(ROOT)
    except ValueError:
        pass
    return " ".join(["python", shlex.quote(str(script)), *map(shlex.quote, sys.argv[1:])])


def table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table (None prints as ``-``)."""
    def cell(v):
        if v is None:
            return "-"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, float):
            return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"
        if isinstance(v, int):
            return f"{v:,}" if abs(v) >= 10000 else str(v)
        return str(v).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    out += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def model_note(*constants) -> str:
    """The constants a page's modelled times use, as one phrase (``A9_HZ = 667 MHz (DS187 ...)``),
    read from :mod:`dcsflow.scg.timemodel` so that every page states the values it was computed with."""
    from dcsflow.scg.timemodel import substitutions

    text = substitutions()
    return "; ".join(f"{c.what}: {text[c.name.lower()]} ({c.source})" for c in constants)


def figures(pairs: list[tuple[str, object]]) -> str:
    """A two-column table of named figures."""
    return table(["figure", "value"], [[k, v] for k, v in pairs])


def write_page(name: str, title: str, body: str, intro: str = "") -> Path:
    """Write ``docs/results/<name>.md``: title, provenance, ``intro``, ``body``; returns the path.

    Raises:
        SystemExit: the checkout was not clean when the benchmark started and ``--allow-dirty``
            was not given (:func:`check_docs`).
    """
    _refuse_unclean()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = command()
    c = commit()
    caveat = "" if is_clean(c) else (" (written with `--allow-dirty`: tracked files differed from the commit, so "
                                     "these figures are not reproducible from it)")
    text = (f"# {title}\n\n"
            f"<!-- Written by `{cmd}`. Do not edit by hand: run the command again. -->\n\n"
            f"Measured {when} at commit `{c}`{caveat} on {machine()}, by\n\n"
            f"```text\n{cmd}\n```\n\n"
            + (intro.strip() + "\n\n" if intro.strip() else "") + body.rstrip() + "\n")
    path = RESULTS / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)
    print(f"results page: {path}", file=sys.stderr)
    return path


commit()          # the commit the benchmark starts at, before it writes any file
