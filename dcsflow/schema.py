"""Typed records: small declarative schemas that a JSON document is checked against before use.

The runtime's records (``build.json``, ``ppc.json``, the frame map, ``cfglut.json``, the template
netlist, the import record; :mod:`dcsflow.scg.records`) and the flow's (stage records, the report,
the placement; :mod:`dcsflow.flow.records`) are each described once by a schema built from the
nodes below, and every reader checks a document with :func:`validate` before it reads a field:

- :class:`Str`, :class:`Int`, :class:`Num`, :class:`Bool`, :class:`Null`, :class:`Const`,
  :class:`Enum`: scalars, with a pattern, a range or a length limit (``bool`` is never a number;
  a number is finite);
- :class:`List` (optional length limits; :class:`Tuple` for a fixed length), :class:`Map` (any keys,
  one value schema), :class:`Obj` (named keys: ``required`` and ``optional``; **unknown keys are
  accepted**, so that a newer writer may add fields an older reader ignores), :class:`OneOf`,
  :class:`Any`.

A mismatch raises :class:`SchemaError` naming the field by its path (``entries[3][1]``,
``tluts["$dcs$n65"][0]``; keys taken from the document are shown quoted and cut to 40 characters)
and the reason; :func:`check` turns it into the reader's own one-line error naming the file. Names
that must exist in another file (a cell of the netlist, a module of ``pre.json``) are checked by the
readers after the schema, since they depend on more than one document.

Standard library only (the core layer).
"""

from __future__ import annotations

import math
import re
from typing import Any as _Any

__all__ = ["SchemaError", "Node", "Any", "Str", "Int", "Num", "Bool", "Null", "Const", "Enum", "List", "Tuple",
           "Map", "Obj", "OneOf", "Optional", "HEX64", "NAME", "validate", "check", "describe"]


class SchemaError(ValueError):
    """A document does not match its schema: ``field`` (the path of the field, ``""`` for the
    document itself) and ``reason`` (one phrase)."""

    def __init__(self, field: str, reason: str):
        super().__init__(field, reason)
        self.field, self.reason = field, reason

    def __str__(self) -> str:
        return f"{self.field or 'the document'}: {self.reason}"


def _key(k: str) -> str:
    text = k if len(k) <= 40 else k[:37] + "..."
    return repr(text).replace("'", '"') if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) else text


def _join(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    k = _key(str(key))
    return f"{path}[{k}]" if k.startswith('"') else (f"{path}.{k}" if path else k)


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


class Node:
    """A schema node: :meth:`check` raises :class:`SchemaError` when ``value`` does not match."""

    what = "a value"

    def check(self, value, path: str) -> None:  # pragma: no cover - every node overrides it
        raise NotImplementedError

    def fail(self, value, path: str, reason: str | None = None) -> SchemaError:
        return SchemaError(path, reason or f"{self.what} expected, got {_kind(value)}")


class Any(Node):
    """Any JSON value."""

    def check(self, value, path: str) -> None:
        return None


class Str(Node):
    """A string: at most ``max_len`` characters, matching ``pattern`` (a regular expression, whole
    string) when given; ``what`` names it in messages."""

    def __init__(self, pattern: str | None = None, max_len: int = 1 << 20, what: str = "a string",
                 nonempty: bool = False):
        self.pattern = re.compile(pattern) if pattern else None
        self.max_len, self.what, self.nonempty = max_len, what, nonempty

    def check(self, value, path: str) -> None:
        if not isinstance(value, str):
            raise self.fail(value, path)
        if len(value) > self.max_len:
            raise self.fail(value, path, f"longer than {self.max_len} characters")
        if self.nonempty and not value:
            raise self.fail(value, path, f"{self.what} expected, got an empty string")
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise self.fail(value, path, f"not {self.what}")


class Int(Node):
    """An integer (never a boolean) from ``lo`` to ``hi`` (None: unbounded on that side)."""

    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi
        self.what = "an integer"

    def check(self, value, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(value, path)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            lo = "" if self.lo is None else f"from {self.lo} "
            hi = "" if self.hi is None else f"to {self.hi}"
            raise self.fail(value, path, f"out of range (an integer {lo}{hi} expected)".replace(" )", ")"))


class Num(Node):
    """A finite number (integer or float, never a boolean) from ``lo`` to ``hi``."""

    def __init__(self, lo: float | None = None, hi: float | None = None):
        self.lo, self.hi = lo, hi
        self.what = "a number"

    def check(self, value, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(value, path)
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(value, path, "not a finite number")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise self.fail(value, path, f"out of range ({self.lo} to {self.hi} expected)")


class Bool(Node):
    """``true`` or ``false``."""

    what = "a boolean"

    def check(self, value, path: str) -> None:
        if not isinstance(value, bool):
            raise self.fail(value, path)


class Null(Node):
    """``null``."""

    what = "null"

    def check(self, value, path: str) -> None:
        if value is not None:
            raise self.fail(value, path)


class Const(Node):
    """Exactly ``value`` (same type: ``1`` is not ``true``)."""

    def __init__(self, value):
        self.value = value
        self.what = repr(value)

    def check(self, value, path: str) -> None:
        if type(value) is not type(self.value) or value != self.value:
            raise self.fail(value, path, f"{self.what} expected")


class Enum(Node):
    """One of the strings ``values``."""

    def __init__(self, *values: str):
        self.values = values
        self.what = "one of " + ", ".join(values)

    def check(self, value, path: str) -> None:
        if not isinstance(value, str) or value not in self.values:
            raise self.fail(value, path, f"{self.what} expected")


class List(Node):
    """A list of ``item``, from ``min_len`` to ``max_len`` items."""

    def __init__(self, item: Node, min_len: int = 0, max_len: int | None = None):
        self.item, self.min_len, self.max_len = item, min_len, max_len
        self.what = "a list"

    def check(self, value, path: str) -> None:
        if not isinstance(value, list):
            raise self.fail(value, path)
        if len(value) < self.min_len or (self.max_len is not None and len(value) > self.max_len):
            hi = "" if self.max_len is None else f" to {self.max_len}"
            raise self.fail(value, path, f"{len(value)} items ({self.min_len}{hi} expected)")
        for i, v in enumerate(value):
            self.item.check(v, _join(path, i))


class Tuple(Node):
    """A list of exactly ``len(items)`` values, each matching its node."""

    def __init__(self, *items: Node):
        self.items = items
        self.what = f"a list of {len(items)}"

    def check(self, value, path: str) -> None:
        if not isinstance(value, list) or len(value) != len(self.items):
            raise self.fail(value, path, f"{self.what} expected, got {_kind(value)}"
                            + (f" of {len(value)}" if isinstance(value, list) else ""))
        for i, (node, v) in enumerate(zip(self.items, value)):
            node.check(v, _join(path, i))


class Map(Node):
    """An object whose keys match ``key`` (a :class:`Str`) and whose values match ``value``."""

    def __init__(self, value: Node, key: Str | None = None, max_len: int | None = None):
        self.value, self.key, self.max_len = value, key, max_len
        self.what = "an object"

    def check(self, value, path: str) -> None:
        if not isinstance(value, dict):
            raise self.fail(value, path)
        if self.max_len is not None and len(value) > self.max_len:
            raise self.fail(value, path, f"{len(value)} entries (at most {self.max_len} expected)")
        for k, v in value.items():
            where = _join(path, k)
            if self.key is not None:
                try:
                    self.key.check(k, where)
                except SchemaError as e:
                    raise SchemaError(where, f"key {e.reason}") from None
            self.value.check(v, where)


class Obj(Node):
    """An object with the keys of ``required`` (each present) and of ``optional`` (each may be
    missing), each value matching its node; other keys are accepted and not checked."""

    def __init__(self, required: dict | None = None, optional: dict | None = None):
        self.required, self.optional = dict(required or {}), dict(optional or {})
        self.what = "an object"

    def check(self, value, path: str) -> None:
        if not isinstance(value, dict):
            raise self.fail(value, path)
        for k, node in self.required.items():
            if k not in value:
                raise SchemaError(_join(path, k), "missing")
            node.check(value[k], _join(path, k))
        for k, node in self.optional.items():
            if k in value:
                node.check(value[k], _join(path, k))


class OneOf(Node):
    """Matches when one of ``nodes`` matches (the message names them all)."""

    def __init__(self, *nodes: Node):
        self.nodes = nodes
        self.what = " or ".join(n.what for n in nodes)

    def check(self, value, path: str) -> None:
        errors = []
        for node in self.nodes:
            try:
                node.check(value, path)
                return
            except SchemaError as e:
                errors.append(e)
        deepest = max(errors, key=lambda e: len(e.field))
        if deepest.field != path:         # one alternative matched the kind but not a part: say which part
            raise deepest
        raise self.fail(value, path, f"{self.what} expected, got {_kind(value)}")


def Optional(node: Node) -> OneOf:  # noqa: N802 - a node constructor like the classes
    """``node`` or ``null``."""
    return OneOf(node, Null())


#: a SHA-256 in lower-case hex
HEX64 = Str(r"[0-9a-f]{64}", what="a SHA-256 in lower-case hex")
#: a non-empty name of at most 4096 characters
NAME = Str(max_len=4096, what="a name", nonempty=True)


def validate(doc, schema: Node) -> None:
    """Check the JSON document ``doc`` against ``schema``.

    Raises:
        SchemaError: the first field that does not match (its path and the reason).
    """
    schema.check(doc, "")


def check(doc, schema: Node, where: str, error: type[Exception], what: str = "") -> _Any:
    """:func:`validate`, the mismatch raised as ``error`` (constructed with the message alone):
    ``where: malformed WHAT (field F: reason)``. Returns ``doc``."""
    try:
        schema.check(doc, "")
    except SchemaError as e:
        kind = f" {what}" if what else ""
        raise error(f"{where}: malformed{kind} (field {e.field or '(the document)'}: {e.reason})") from None
    except RecursionError:
        raise error(f"{where}: malformed{' ' + what if what else ''} (nested too deeply)") from None
    return doc


def describe(field: str) -> str:
    """A field path as messages show it (``(the document)`` for the document itself)."""
    return field or "(the document)"
