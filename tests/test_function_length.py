"""Function length in the flow, the mapper and the runtime: no function in ``flow/``, ``tmap/`` or
``scg/`` is longer than 80 lines, counted from its ``def`` line to its last line (docstring included),
as :mod:`ast` reports them (``end_lineno - lineno + 1``). A second test makes sure the check can fail."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("flow", "tmap", "scg")
LIMIT = 80


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int, int]]:
    """Every function or method in ``source`` longer than ``limit`` lines: (name, first line, length)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                out.append((node.name, node.lineno, length))
    return out


def test_no_function_is_longer_than_the_limit():
    over = []
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for name, line, length in long_functions(path.read_text()):
                over.append(f"{path.relative_to(REPO)}:{line} {name}: {length} lines")
    assert not over, f"functions over {LIMIT} lines:\n" + "\n".join(over)


def test_the_check_finds_a_long_function():
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT - 1))
    assert long_functions("def ok():\n" + body) == []
    assert long_functions("def long():\n" + body + "    return 0\n") == [("long", 1, LIMIT + 1)]
