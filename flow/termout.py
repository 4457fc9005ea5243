"""Terminal output of the CLI: tables that fit 80 columns, one progress line per finished stage.

Tables are designed to need at most :data:`TABLE_WIDTH` columns (short headers,
multi-line headers, abbreviations explained in the row names) and are printed through
:func:`table_console`, which never lets rich use more than 80 columns, so a wide terminal shows the
same table as a pipe or an 80-column terminal. Long runs (``build``, ``demo``, ``check``, ``map``)
print ``<title>: <stage> done in <s> s`` on stderr when a stage ends (:func:`stage_done`), beside
rich's transient status line or progress bar.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from rich.console import Console

#: widest line (characters) any table of the CLI may need
TABLE_WIDTH = 80


def table_console(file=None) -> Console:
    """A rich Console for tables on ``file`` (default stdout): the terminal's width, at most 80."""
    width = Console(file=file).width
    return Console(file=file, width=min(width, TABLE_WIDTH))


def stage_done(console: Console, title: str, stage: str, seconds: float, detail: str = "") -> None:
    """Print ``<title>: <stage> done in <seconds> s[, detail]`` (no markup) on ``console``."""
    console.print(f"{title}: {stage} done in {seconds:.1f} s" + (f", {detail}" if detail else ""),
                  markup=False, highlight=False)


@contextmanager
def stage(console: Console | None, title: str, name: str):
    """Time a stage; on normal exit print its :func:`stage_done` line (nothing when ``console`` is None)."""
    t0 = time.perf_counter()
    yield
    if console is not None:
        stage_done(console, title, name, time.perf_counter() - t0)
