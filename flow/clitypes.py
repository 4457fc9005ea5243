"""Numbers on the command line: ASCII digits only.

Python's ``int`` (and click's ``INT`` and ``IntRange``, which use it) also reads other scripts'
digits — ``int('２')`` and ``int('٣')`` are 2 and 3 — so a value that looks like nothing a user typed
on purpose would be taken. :func:`int_range` is the type of every integer option of the ``dcsflow``
commands (and of the commands the designs bring): an optional sign and ASCII digits ``0-9``, within
``min`` .. ``max``; anything else is a usage error (one line, exit status 2).
"""

from __future__ import annotations

import re

import click

__all__ = ["AsciiIntRange", "int_range", "ASCII_INT", "is_ascii_int"]

_INT = re.compile(r"[+-]?[0-9]{1,30}")


def is_ascii_int(text: str) -> bool:
    """True when ``text`` (blanks around it aside) is an optional sign and 1 to 30 ASCII digits."""
    return bool(_INT.fullmatch(text.strip()))


class AsciiIntRange(click.IntRange):
    """:class:`click.IntRange` that takes ASCII digits only (module docstring)."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not is_ascii_int(value):
            self.fail(f"{value!r} is not a whole number written in ASCII digits", param, ctx)
        return super().convert(value, param, ctx)


def int_range(min: int | None = None, max: int | None = None) -> AsciiIntRange:  # noqa: A002 - click's names
    """The type of an integer option from ``min`` to ``max`` (None: unbounded), ASCII digits only."""
    return AsciiIntRange(min=min, max=max)


#: an integer option without bounds, ASCII digits only
ASCII_INT = int_range()
