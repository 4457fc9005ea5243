"""The depth of the expressions of a Verilog source, measured before Yosys reads it.

Yosys's Verilog front end (0.23) elaborates an expression in time that grows with the square of the
depth of its syntax tree: a flat chain of 10,000 binary operators (``x ^ (key + 1) ^ (key + 2) ^
...``, left-associative, so 10,000 levels deep) takes 99 s in ``read_verilog; proc`` alone, 4,000 take
7 s, and 10,000 nested brackets end after 42 s in Yosys's own error "overly long or deeply nested
expressions"; a balanced tree of the same 10,000 terms takes 1 s. The front end reads a source
several times (top probe, parameter probes, the TLUT and the conventional synthesis), so such a file
would keep a build busy for many minutes before anything is mapped.

:func:`expression_depth` bounds the depth of the syntax tree from the text in one linear pass:
inside a bracket pair (``()``, ``[]``, ``{}``) or a statement (up to ``;``), each element (between
commas) counts its binary operators (a left-associative chain is that many levels deep), and a
bracket pair adds the deepest element inside it. Comments, strings and attributes' text are skipped;
``<=`` counts as an operator also where it assigns (one level more than the tree has, never less).
:func:`check_expression_depth` refuses a source whose bound exceeds :data:`MAX_EXPRESSION_DEPTH`
in one line naming the file, the line and the limit. The bundled designs' deepest expression is
below 100 (tests/test_hdlsize.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import FrontendError

#: the deepest expression syntax tree the front end passes to Yosys (levels; a 3,000-deep chain
#: takes Yosys about 4 s per read)
MAX_EXPRESSION_DEPTH = 3000

_TOKEN = re.compile(
    r"//[^\n]*"                  # line comment
    r"|/\*.*?(?:\*/|\Z)"         # block comment (an unclosed one runs to the end)
    r'|"(?:\\.|[^"\\\n])*"?'     # string
    r"|\(\*|\*\)"                # attribute brackets: no operator
    r"|[A-Za-z_$][A-Za-z0-9_$]*|\\\S+|'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|[0-9][0-9_]*"  # names, numbers
    r"|<<<|>>>|===|!==|~\^|\^~|~&|~\||&&|\|\||\*\*|<<|>>|==|!=|<=|>="
    r"|[-+*/%&|^<>?]"
    r"|[()\[\]{},;]",
    re.S)
_OPEN = {"(", "[", "{"}
_CLOSE = {")", "]", "}"}
_SKIP = {"(*", "*)", "~&", "~|"}           # attribute brackets; reduction operators (unary only)


def expression_depth(text: str) -> tuple[int, int]:
    """Upper bound on the depth of the deepest expression syntax tree in Verilog ``text`` (module
    docstring) and the offset in ``text`` where it is reached. Linear in ``len(text)``; (0, 0) for a
    text without operators or brackets.

    An element with ``n`` binary operators whose deepest bracket pair is ``g`` levels deep is at most
    ``n + g`` levels deep (each operator adds at most one level over its deepest operand, whatever
    the precedence); a bracket pair adds one level to its deepest element.
    """
    # one frame per open bracket: [deepest finished element, operators of the current element,
    # deepest bracket pair in the current element]
    stack = [[0, 0, 0]]
    best, where = 0, 0
    for m in _TOKEN.finditer(text):
        t = m.group()
        c = t[0]
        if c.isalnum() or c in "_$\\'" or t in _SKIP or t.startswith("//") or t.startswith("/*") or c == '"':
            continue
        if t in _OPEN:
            stack.append([0, 0, 0])
            continue
        if t in _CLOSE:
            if len(stack) == 1:
                continue                  # unbalanced: Yosys reports it
            e, n, g = stack.pop()
            top = stack[-1]
            top[2] = max(top[2], max(e, n + g) + 1)
        elif t == ",":
            top = stack[-1]
            top[0] = max(top[0], top[1] + top[2])
            top[1] = top[2] = 0
            continue
        elif t == ";":
            stack = [[0, 0, 0]]
            continue
        else:
            top = stack[-1]
            top[1] += 1
        if top[1] + top[2] > best:
            best, where = top[1] + top[2], m.start()
    return best, where


def check_expression_depth(path: Path, text: str, limit: int = MAX_EXPRESSION_DEPTH) -> int:
    """Refuse Verilog source ``text`` (of file ``path``) when its deepest expression is deeper than
    ``limit`` levels (:func:`expression_depth`). Returns the depth.

    Raises:
        FrontendError: one line naming the file, the line and the limit.
    """
    depth, at = expression_depth(text)
    if depth > limit:
        line = text.count("\n", 0, at) + 1
        raise FrontendError(f"{path}:{line}: an expression nested over {limit} levels deep (operators in one "
                            f"chain plus brackets: Yosys's elaboration time grows with the square of this "
                            f"depth); split it into intermediate wires or bracket it as a balanced tree")
    return depth
