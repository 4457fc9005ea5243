"""VHDL input: a scanner of entity port clauses and marks (parameter inputs, the top) and GHDL as a
VHDL → Verilog step.

``dcsflow build a.vhd [b.vhd ...]`` (any order, folders, Verilog files beside) reads VHDL through
GHDL (Debian package ``ghdl``, tested with 2.0.0 mcode): the files are imported (``ghdl -i``) into
a work library in the build folder and GHDL's ``make`` analyses what the top needs in dependency
order (``--std=08 -fsynopsys`` and the user's ``--ghdl-opt`` options, :func:`ghdl_options`); then
``ghdl --synth --out=verilog T`` writes the synthesized top as Verilog (``frontend/ghdl/top.v``),
which the Yosys front end (:mod:`dcsflow.flow.frontend`) reads like any Verilog design. ``ghdl`` is
found by :mod:`dcsflow.tools` (``$DCSFLOW_GHDL`` overrides where).

GHDL's Verilog carries no attributes, so the parameter inputs are found here, in the VHDL source, by
a small scanner of the entities' port clauses (VHDL is case-insensitive; names are kept as
declared, which is also how GHDL spells them in its Verilog). A port of the top is a parameter
input when

- it is declared between two lines holding only ``--PARAM`` (any case, white space allowed): a
  PARAM block, the convention of the published TLUT flow (UGent-HES/tlut_flow); blocks outside a
  port clause (around signals, assignments, port maps) are that flow's notes and are not read;
- a comment starting ``--PARAM`` (not followed by a letter, digit, ``_`` or ``-``) follows code on
  a line that holds part of the port's declaration (every port declared on that line; our short
  form), e.g. ``key : in std_logic_vector(127 downto 0); --PARAM``;
- it is named with ``--param`` (any case); or
- the entity declares ``attribute PARAM : boolean;`` (or ``string``) and specifies
  ``attribute PARAM of key[, ...] : signal is true;`` (or ``"true"``, ``"yes"``, ``"1"``, ``'1'``).

Only input ports can be parameter inputs; every other use of the marks (an output in a block, an
unmatched ``--PARAM`` line, a block in a port clause that holds no port or crosses its end) is an
error that names the file and line. A line holding only ``--TMAP`` before any code marks the file
of the top entity (:func:`prepare`). GHDL 2.0.0's ``--synth`` stops with an internal assertion
(synth-vhdl_decls.adb:224) on attribute specifications in an entity, so the PARAM attribute's
declaration and specifications are blanked out (same line and column numbers) in the copies GHDL
reads (``frontend/ghdl/src/``). GHDL messages of its known limits get a hint (:data:`HINTS`).

Scanner limits: the port clauses and attributes of the entities are read; generics, other
declarations and architectures are skipped by token, not parsed (only instantiations are noted, to
find the top); ``/* */`` comments (VHDL-2008) and extended identifiers (``\\name\\``) are tokenized
but extended identifiers cannot be marked.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from dcsflow.fileio import TEXT_LIMIT, read_input_bytes, write_bytes_atomic, write_text_atomic
from dcsflow.limits import DEFAULT_LIMITS
from dcsflow.tools import failure_message, find_tool, run_tool

from .errors import FlowError

#: GHDL options of every analysis and synthesis run (VHDL-2008, Synopsys packages available)
GHDL_OPTIONS = ["--std=08", "-fsynopsys"]

_TRUE_VALUES = {"true", '"true"', '"yes"', '"1"', "'1'", '"TRUE"'}


class VhdlError(FlowError):
    """Bad VHDL input: GHDL's first error (``file:line:col: message``), an unknown top entity,
    a ``--param`` naming no input port, a misplaced PARAM mark, an empty file (GHDL missing:
    :class:`dcsflow.tools.ToolMissing`)."""


# ------------------------------------------------------------------------------------ scanner

@dataclass
class Token:
    """One VHDL token: text, kind (``id``, ``str``, ``chr``, ``sym``, ``num``, ``ext``), 1-based line,
    character offsets [start, end) in the file."""

    text: str
    kind: str
    line: int
    start: int
    end: int

    @property
    def low(self) -> str:
        """Lower-case text (VHDL identifiers and keywords are case-insensitive)."""
        return self.text.lower()


_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<str>"(?:[^"\n]|"")*")
  | (?P<ext>\\(?:[^\\\n]|\\\\)*\\)
  | (?P<num>[0-9][0-9_]*(?:\#[0-9a-fA-F_.]*\#)?(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)
  | (?P<id>[A-Za-z][A-Za-z0-9_]*)
  | (?P<chr>'.')
  | (?P<sym><=|>=|:=|=>|/=|\*\*|<>|\?\?|.)
""", re.VERBOSE | re.DOTALL)

_PARAM_COMMENT_RE = re.compile(r"--\s*param(?![\w-])", re.IGNORECASE)
#: a line holding only ``--PARAM`` (any case, white space allowed): one end of a PARAM block
_PARAM_LINE_RE = re.compile(r"--\s*param\s*$", re.IGNORECASE)
#: a line holding only ``--TMAP`` before any code: the published flow's mark of the file to map
_TMAP_LINE_RE = re.compile(r"--\s*tmap\s*$", re.IGNORECASE)


@dataclass
class Marks:
    """The comment marks of one VHDL file (see the module docstring).

    comment_lines: lines with a ``--PARAM`` comment after code (the short form); block_lines: lines
    holding only ``--PARAM`` (block delimiters, in file order); tmap_line: the line of a ``--TMAP``
    line before the first code token, or None.
    """

    comment_lines: set[int] = field(default_factory=set)
    block_lines: list[int] = field(default_factory=list)
    tmap_line: int | None = None

    def blocks(self, path: Path) -> list[tuple[int, int]]:
        """The PARAM blocks as (opening line, closing line), delimiter lines paired in file order.

        Raises:
            VhdlError: an odd number of ``--PARAM`` lines (names the unmatched one).
        """
        if len(self.block_lines) % 2:
            raise VhdlError(f"{path}:{self.block_lines[-1]}: --PARAM line without a closing --PARAM line (a block is "
                            "a line holding only --PARAM before the parameter ports and another after them)")
        return list(zip(self.block_lines[0::2], self.block_lines[1::2]))


def _scan_text(text: str) -> tuple[list[Token], Marks]:
    """Tokens of VHDL ``text`` without comments, and its comment marks (:class:`Marks`).

    A ``'`` after an identifier or ``)`` is an attribute tick, not a character literal.
    """
    toks: list[Token] = []
    marks = Marks()
    line = 1
    pos = 0
    line_has_code = False
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        kind = m.lastgroup
        s = m.group()
        if kind == "chr" and toks and (toks[-1].kind == "id" or toks[-1].text == ")"):
            kind, s = "sym", "'"
        end = pos + len(s)
        if kind == "comment":
            if not line_has_code and _PARAM_LINE_RE.match(s):
                marks.block_lines.append(line)
            elif line_has_code and _PARAM_COMMENT_RE.match(s):
                marks.comment_lines.add(line)
            elif not toks and marks.tmap_line is None and _TMAP_LINE_RE.match(s):
                marks.tmap_line = line
        if kind not in ("ws", "comment", "block"):
            toks.append(Token(s, kind, line, pos, end))
            line_has_code = True
        if "\n" in s:
            line_has_code = False
        line += s.count("\n")
        pos = end
    return toks, marks


def tokenize(text: str) -> tuple[list[Token], set[int]]:
    """Tokens of VHDL ``text`` without comments, and the lines holding a ``--PARAM`` comment after
    code (the short form; :func:`scan` also reads the block and ``--TMAP`` lines)."""
    toks, marks = _scan_text(text)
    return toks, marks.comment_lines


@dataclass
class Port:
    """A port of an entity: name as declared, mode (``in``, ``out``, ``inout``, ``buffer``,
    ``linkage``), line of its name, and its subtype indication as written, tokens joined by one
    space (e.g. ``std_logic_vector ( 7 downto 0 )``; a default ``:= ...`` is not included)."""

    name: str
    mode: str
    line: int
    type: str = ""


@dataclass
class Entity:
    """An entity declaration found by :func:`scan`: name as declared, file, line, ports, the ports
    marked PARAM (name -> ``"block"``, ``"comment"`` or ``"attribute"``) with where each mark is
    (name -> ``file:line`` or ``file:first-last`` of the block), the character spans of the PARAM
    attribute's declaration and specifications (blanked for GHDL), the lines of its port clause and
    whether its file carries a ``--TMAP`` line."""

    name: str
    path: Path
    line: int
    ports: list[Port] = field(default_factory=list)
    marked: dict[str, str] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)
    port_lines: tuple[int, int] | None = None
    tmap: bool = False

    def port(self, name: str) -> Port | None:
        """The port called ``name`` (case-insensitive), or None."""
        low = name.lower()
        return next((p for p in self.ports if p.name.lower() == low), None)


def _match_paren(toks: list[Token], i: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``toks[i]`` (len(toks) when unbalanced)."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _split(toks: list[Token], sep: str) -> list[list[Token]]:
    """Split a token list at ``sep`` tokens outside parentheses."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        if t.text == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def _ports(path: Path, decls: list[Token], marks: Marks, blocks: list[tuple[int, int]], ent: Entity) -> None:
    for decl in _split(decls, ";"):
        colon = next((k for k, t in enumerate(decl) if t.text == ":"), None)
        if colon is None:
            raise VhdlError(f"{path}:{decl[0].line}: cannot read the port declaration of entity {ent.name}")
        names = [t for t in decl[:colon] if t.kind in ("id", "ext") and t.low != "signal"]
        rest = decl[colon + 1:]
        has_mode = bool(rest) and rest[0].low in ("in", "out", "inout", "buffer", "linkage")
        mode = rest[0].low if has_mode else "in"
        sub = rest[1:] if has_mode else rest
        assign = next((k for k, t in enumerate(sub) if t.text == ":="), len(sub))
        typ = " ".join(t.text for t in sub[:assign])
        lines = {t.line for t in decl}
        for n in names:
            ent.ports.append(Port(n.text, mode, n.line, typ))
            block = next(((a, b) for a, b in blocks if a < n.line < b), None)
            if block is not None:
                if mode != "in":
                    raise VhdlError(f"{path}:{block[0]}: the --PARAM block of lines {block[0]}-{block[1]} holds "
                                    f"{mode} port {n.text}; only input ports can be parameter inputs")
                ent.marked[n.text] = "block"
                ent.where[n.text] = f"{path}:{block[0]}-{block[1]}"
            elif lines & marks.comment_lines:
                if mode != "in":
                    raise VhdlError(f"{path}:{n.line}: --PARAM marks {mode} port {n.text}; "
                                    "only input ports can be parameter inputs")
                ent.marked[n.text] = "comment"
                ent.where[n.text] = f"{path}:{min(lines & marks.comment_lines)}"


def _check_blocks(path: Path, blocks: list[tuple[int, int]], ent: Entity, crossing_only: bool = False) -> None:
    """A PARAM block that starts or ends inside the entity's port clause must lie inside it and hold
    at least one port (blocks elsewhere, e.g. around signals or port maps, are the published flow's
    notes and are not read); ``crossing_only``: check the first only (before the ports are read).
    Raises VhdlError naming the block's first line."""
    if ent.port_lines is None:
        return
    lo, hi = ent.port_lines
    for a, b in blocks:
        inside_a, inside_b = lo <= a <= hi, lo <= b <= hi
        if not (inside_a or inside_b):
            continue
        if not (inside_a and inside_b):
            raise VhdlError(f"{path}:{a}: the --PARAM block of lines {a}-{b} crosses the end of the port clause "
                            f"of entity {ent.name} (lines {lo}-{hi}); close it inside the port clause")
        if not crossing_only and not any(a < p.line < b for p in ent.ports):
            raise VhdlError(f"{path}:{a}: the --PARAM block of lines {a}-{b} holds no port of entity {ent.name}; "
                            "put the parameter ports' declarations between the two --PARAM lines")


def _attribute(path: Path, stmt: list[Token], ent: Entity) -> None:
    """An ``attribute PARAM ...;`` statement in the entity (tokens without the ``;``)."""
    ent.spans.append((stmt[0].start, stmt[-1].end + 1))     # + the ';'
    if len(stmt) > 3 and stmt[2].low == "of":
        colon = next((k for k, t in enumerate(stmt) if t.text == ":"), len(stmt))
        is_kw = next((k for k, t in enumerate(stmt) if t.low == "is"), len(stmt))
        value = "".join(t.text for t in stmt[is_kw + 1:])
        if value.lower() not in {v.lower() for v in _TRUE_VALUES}:
            return
        for t in stmt[3:colon]:
            if t.text == ",":
                continue
            p = ent.port(t.text) if t.kind == "id" else None
            if p is None:
                raise VhdlError(f"{path}:{t.line}: attribute PARAM of {t.text}: entity {ent.name} has no port "
                                f"{t.text}; ports: " + ", ".join(q.name for q in ent.ports))
            if p.mode != "in":
                raise VhdlError(f"{path}:{t.line}: attribute PARAM of {p.name}: {p.mode} port; "
                                "only input ports can be parameter inputs")
            ent.marked[p.name] = "attribute"
            ent.where[p.name] = f"{path}:{t.line}"


def scan(path: Path, text: str) -> list[Entity]:
    """Entities declared in one VHDL file, with ports and PARAM marks (see the module docstring).

    Raises:
        VhdlError: a PARAM mark on a port that is not an input, an attribute PARAM naming no port,
            an unmatched ``--PARAM`` line, a PARAM block in a port clause that holds no port or
            crosses its end, an unreadable port declaration (file:line).
    """
    return _scan_file(path, text)[0]


def _scan_file(path: Path, text: str) -> tuple[list[Entity], set[str]]:
    """:func:`scan`, and the names (lower case) of the entities and components the file instantiates."""
    toks, marks = _scan_text(text)
    blocks = marks.blocks(path)
    ents: list[Entity] = []
    i = 0
    while i < len(toks) - 2:
        if toks[i].low == "entity" and toks[i + 1].kind == "id" and toks[i + 2].low == "is":
            ent = Entity(toks[i + 1].text, path, toks[i + 1].line, tmap=marks.tmap_line is not None)
            j = i + 3
            while j < len(toks) and toks[j].low not in ("end", "begin"):
                t = toks[j]
                if t.low in ("port", "generic") and j + 1 < len(toks) and toks[j + 1].text == "(":
                    k = _match_paren(toks, j + 1)
                    if t.low == "port":
                        ent.port_lines = (t.line, toks[min(k, len(toks) - 1)].line)
                        _check_blocks(path, blocks, ent, crossing_only=True)
                        _ports(path, toks[j + 2:k], marks, blocks, ent)
                    j = k + 1
                elif t.low == "attribute" and j + 1 < len(toks) and toks[j + 1].low == "param":
                    k = j
                    while k < len(toks) and toks[k].text != ";":
                        k += 1
                    _attribute(path, toks[j:k], ent)
                    j = k + 1
                else:
                    j += 1
            _check_blocks(path, blocks, ent)
            ents.append(ent)
            i = j
        else:
            i += 1
    return ents, _instantiated(toks)


def _instantiated(toks: list[Token]) -> set[str]:
    """Lower-case names of the units instantiated in a token list: ``entity [lib.]NAME`` (not
    followed by ``is``), ``: component NAME`` and ``: NAME port map`` / ``: NAME generic map``."""
    out: set[str] = set()
    n = len(toks)
    for i, t in enumerate(toks):
        if t.low == "entity" and i + 1 < n and toks[i + 1].kind == "id" and not (i + 2 < n and toks[i + 2].low == "is"):
            j = i + 1
            while j + 2 < n and toks[j + 1].text == "." and toks[j + 2].kind == "id":
                j += 2
            out.add(toks[j].low)
        elif t.text == ":" and i + 2 < n:
            if toks[i + 1].low == "component" and i + 2 < n and toks[i + 2].kind == "id":
                out.add(toks[i + 2].low)
            elif toks[i + 1].kind == "id" and toks[i + 2].low in ("port", "generic") and i + 3 < n \
                    and toks[i + 3].low == "map":
                out.add(toks[i + 1].low)
    return out


# ------------------------------------------------------------------------------------ package types

@dataclass(frozen=True)
class TypeDecl:
    """A type or subtype declared in a package, as :func:`package_types` reads it: name as declared,
    package, file and line, and kind: ``record`` (fields: ``(name, subtype indication)`` in
    declaration order), ``array`` (element: the element's subtype indication; dimensions: how many
    index ranges), ``subtype`` (indication: the subtype indication it names), or ``other``
    (enumeration, integer, physical, access, file, protected, incomplete type). Subtype indications
    are written as :class:`Port` writes them: tokens joined by one space."""

    name: str
    package: str
    path: Path
    line: int
    kind: str
    fields: tuple[tuple[str, str], ...] = ()
    element: str = ""
    dimensions: int = 0
    indication: str = ""


#: what ``end X`` closes inside a package declaration besides the package
_INNER_ENDS = {"component", "protected", "record", "units"}


def _joined(toks: list[Token]) -> str:
    return " ".join(t.text for t in toks)


def _type_decl(toks: list[Token], i: int, package: str, path: Path) -> tuple[TypeDecl | None, int]:
    """The ``type``/``subtype`` declaration starting at ``toks[i]``, and the index after it."""
    n = len(toks)
    if i + 2 >= n or toks[i + 1].kind not in ("id", "ext"):
        return None, i + 1
    name, line = toks[i + 1].text, toks[i + 1].line
    if toks[i + 2].low != "is":                                   # type T; (incomplete)
        return TypeDecl(name, package, path, line, "other"), i + 2
    j = i + 3
    if toks[i].low == "subtype":
        k = j
        while k < n and toks[k].text != ";":
            k = _match_paren(toks, k) + 1 if toks[k].text == "(" else k + 1
        return TypeDecl(name, package, path, line, "subtype", indication=_joined(toks[j:k])), k + 1
    if j < n and toks[j].low == "record":
        fields: list[tuple[str, str]] = []
        k = j + 1
        while k < n and not (toks[k].low == "end" and k + 1 < n and toks[k + 1].low == "record"):
            e = k
            while e < n and toks[e].text != ";" and toks[e].low != "end":
                e = _match_paren(toks, e) + 1 if toks[e].text == "(" else e + 1
            decl = toks[k:e]
            colon = next((c for c, t in enumerate(decl) if t.text == ":"), None)
            if colon is not None:
                fields += [(t.text, _joined(decl[colon + 1:])) for t in decl[:colon] if t.kind in ("id", "ext")]
            k = e + 1 if e < n and toks[e].text == ";" else e
        k += 2
        while k < n and toks[k].text != ";":                     # end record [name];
            k += 1
        return TypeDecl(name, package, path, line, "record", fields=tuple(fields)), k + 1
    if j + 1 < n and toks[j].low == "array" and toks[j + 1].text == "(":
        close = _match_paren(toks, j + 1)
        dims = len(_split(toks[j + 2:close], ","))
        k = close + 1
        if k < n and toks[k].low == "of":
            k += 1
        e = k
        while e < n and toks[e].text != ";":
            e = _match_paren(toks, e) + 1 if toks[e].text == "(" else e + 1
        return TypeDecl(name, package, path, line, "array", element=_joined(toks[k:e]), dimensions=dims), e + 1
    k = j
    while k < n and toks[k].text != ";":
        k = _match_paren(toks, k) + 1 if toks[k].text == "(" else k + 1
    return TypeDecl(name, package, path, line, "other"), k + 1


def package_types(sources: list[Path] | tuple[Path, ...]) -> dict[str, list[TypeDecl]]:
    """The types and subtypes declared in the packages (not package bodies) of the VHDL ``sources``,
    by lower-case name (a name declared in several packages has several entries, in file order).

    Only package declarations are read: the types of an entity's ports are declared there. Files that
    cannot be read give nothing (the front end has read them already).
    """
    out: dict[str, list[TypeDecl]] = {}
    for path in sources:
        try:
            text = read_source(path)
        except VhdlError:
            continue
        toks, _ = _scan_text(text)
        n = len(toks)
        i = 0
        while i < n - 2:
            if toks[i].low == "package" and toks[i + 1].kind == "id" and toks[i + 2].low == "is" \
                    and not (i + 3 < n and toks[i + 3].low == "new"):
                package = toks[i + 1].text
                j = i + 3
                while j < n:
                    t = toks[j]
                    if t.low in ("type", "subtype") and toks[j - 1].text in (";", "is"):
                        decl, j = _type_decl(toks, j, package, Path(path))
                        if decl is not None:
                            out.setdefault(decl.name.lower(), []).append(decl)
                        continue
                    # the package's own end, not that of a component, protected type or physical type in it
                    if t.low == "end" and not (j + 1 < n and toks[j + 1].low in _INNER_ENDS):
                        break
                    j += 1
                i = j + 1
            else:
                i += 1
    return out


# ------------------------------------------------------------------------------------ design

@dataclass
class VhdlTop:
    """Result of :func:`prepare`: the top entity (name as declared; None when the top is a Verilog
    module of a mixed design), its parameter inputs (names as declared, in port order) with how each
    was marked (``"block"``, ``"comment"``, ``"attribute"``, ``"--param"``) and where (``file:line``),
    how the top was chosen (one phrase for the build's output) and the entity records of all files."""

    top: str | None
    params: list[str]
    marked: dict[str, str]
    entities: list[Entity]
    where: dict[str, str] = field(default_factory=dict)
    chosen: str = ""


def prepare(sources: list[Path], top: str | None, params: list[str], mixed: bool = False) -> VhdlTop:
    """Scan the VHDL ``sources`` and resolve the top entity and its parameter inputs (no GHDL run, no files).

    top: entity name in any case, or None: the entity of the one file with a ``--TMAP`` line, else
    the only entity, else the one entity that no other instantiates; params: the ``--param`` names
    (any case). mixed: the design also has Verilog files; then a ``top`` that names no entity is a
    Verilog module (the result's ``top`` is None and ``params`` are left to the Verilog front end),
    and without ``top`` a ``--TMAP`` line is needed.

    Raises:
        VhdlError: an empty file, no entity, unknown top (lists the entities), no way to choose a
            top (lists the candidates), a ``--param`` that names no input port of the top (lists
            them), a misplaced PARAM mark.
    """
    ents: list[Entity] = []
    used: set[str] = set()
    for p in sources:
        text = read_source(p)
        if not text.strip():
            raise VhdlError(f"{p}: empty VHDL file")
        e, inst = _scan_file(p, text)
        ents += e
        used |= inst
    if not ents and not mixed:
        raise VhdlError(f"{', '.join(map(str, sources))}: no entity declared")
    ent, chosen = _choose_top(ents, used, top, mixed)
    if ent is None:
        return VhdlTop(None, [], {}, ents, {}, chosen)
    inputs = [p for p in ent.ports if p.mode == "in"]
    marked = dict(ent.marked)
    where = dict(ent.where)
    for name in params:
        p = ent.port(name)
        if p is None or p.mode != "in":
            raise VhdlError(f"--param {name}: no input port of that name in entity {ent.name}; input ports: "
                            + ", ".join(q.name for q in inputs))
        if p.name not in marked:
            marked[p.name], where[p.name] = "--param", "command line"
    order = [p.name for p in ent.ports if p.name in marked]
    return VhdlTop(ent.name, order, {n: marked[n] for n in order}, ents, {n: where[n] for n in order}, chosen)


def _choose_top(ents: list[Entity], used: set[str], top: str | None, mixed: bool) -> tuple[Entity | None, str]:
    """The top entity and how it was chosen (see :func:`prepare`)."""
    if top is not None:
        ent = next((e for e in reversed(ents) if e.name.lower() == top.lower()), None)
        if ent is None:
            if mixed:
                return None, "--top (a Verilog module)"
            raise VhdlError(f"--top {top}: no entity of that name; entities: " + ", ".join(e.name for e in ents))
        return ent, "--top"
    marked = list(dict.fromkeys(e.path for e in ents if e.tmap))
    if len(marked) > 1:
        raise VhdlError("--TMAP lines in several files (" + ", ".join(map(str, marked)) + "): give --top")
    if marked:
        in_file = [e for e in ents if e.path == marked[0]]
        if len(in_file) > 1:
            raise VhdlError(f"{marked[0]}: --TMAP marks a file with several entities ("
                            + ", ".join(e.name for e in in_file) + "): give --top")
        return in_file[0], f"--TMAP line in {marked[0]}"
    if mixed:
        raise VhdlError("a design mixing VHDL and Verilog needs --top (or a --TMAP line at the top of the top "
                        "entity's file)")
    if len(ents) == 1:
        return ents[0], "the only entity"
    roots = [e for e in ents if e.name.lower() not in used]
    if len(roots) == 1:
        return roots[0], "the one entity no other instantiates"
    raise VhdlError("several top-level entities (" + ", ".join(e.name for e in (roots or ents))
                    + "): give --top, or put a --TMAP line at the top of the top entity's file")


def read_source(path: Path) -> str:
    """The text of VHDL file ``path``, decoded as ISO 8859-1 (VHDL's own character set), so that
    every byte maps to one character and back: a Latin-1 or UTF-8 file (comments, strings) is
    scanned the same and copied for GHDL byte for byte.

    Raises:
        VhdlError: the file cannot be read, is not a regular file or is larger than
            :data:`dcsflow.fileio.TEXT_LIMIT` (one line with the reason).
    """
    try:
        return read_input_bytes(path, TEXT_LIMIT, "VHDL source").decode("latin-1")
    except OSError as e:
        raise VhdlError(f"{path}: cannot read: {e.strerror or e}") from None


def _run_ghdl(args: list[str], cwd: Path, doing: str) -> subprocess.CompletedProcess:
    """Run GHDL (``args`` without the program), output as bytes. Raises VhdlError when GHDL cannot
    be started."""
    exe = _ghdl()
    try:
        r = run_tool([exe, *args], tool="ghdl", what=" ".join(args)[:120], cwd=cwd, text=False)
        return subprocess.CompletedProcess([exe, *args], r.returncode, r.stdout, r.stderr)
    except OSError as e:
        raise VhdlError(f"ghdl ({exe}) could not be started {doing}: {e.strerror or e}") from None


def _text(data: bytes) -> str:
    """GHDL's output as text (UTF-8, undecodable bytes replaced)."""
    return data.decode("utf-8", errors="replace")


def _failure(r: subprocess.CompletedProcess, names: dict[str, str], log: Path, doing: str) -> VhdlError:
    """The one-line error of a GHDL run that failed: its first error message (:func:`ghdl_error`),
    or, when it was killed by a signal or said nothing useful, its exit status or signal and the
    last line it printed (:func:`dcsflow.tools.failure_message`)."""
    out = _text(r.stderr) + _text(r.stdout)
    msg = ghdl_error(out, names, log)
    if r.returncode < 0 or msg == _NO_MESSAGE:
        return VhdlError(f"{failure_message('ghdl', r.returncode, out, doing)} (log: {log})")
    return VhdlError(msg)


def _ghdl() -> str:
    """Path of ``ghdl`` (``$DCSFLOW_GHDL``, else PATH). Raises :class:`dcsflow.tools.ToolMissing`."""
    return find_tool("ghdl")


def ghdl_version() -> str:
    """First line of ``ghdl --version`` (e.g. ``GHDL 2.0.0 (Debian 2.0.0+dfsg-6.2+b2) [Dunoon edition]``)."""
    try:
        r = run_tool([_ghdl(), "--version"], tool="ghdl", what="--version", text=False,
                     timeout=DEFAULT_LIMITS["version"])
    except OSError:
        return "GHDL (unknown version)"
    return (_text(r.stdout).splitlines() or ["GHDL (unknown version)"])[0].strip()


_MSG_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s*(?P<msg>.*)$")


def ghdl_error(output: str, names: dict[str, str], log: Path | None = None) -> str:
    """One line from GHDL's error output: the first ``file:line:col: message`` that is not a warning,
    with the file name of GHDL's input copy replaced by the user's (``names``: copy -> original);
    else GHDL's first message line without the program name; a crash says so (and names ``log``)."""
    lines = [ln for ln in output.splitlines() if ln.strip()]
    for ln in lines:
        m = _MSG_RE.match(ln)
        if m and not m["msg"].lower().startswith("warning"):
            msg = re.sub(r"^error:\s*", "", m["msg"])
            return _with_hint(f"{names.get(m['file'], m['file'])}:{m['line']}:{m['col']}: {msg}")
    if any("GHDL Bug occurred" in ln for ln in lines):
        where = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("raised ")), "")
        return f"GHDL crashed (internal error {where}); see {log or 'the GHDL log in the build folder'}"
    for ln in lines:
        if ln.startswith("/") or ln.startswith("ghdl"):
            ln = re.sub(r"^\S*ghdl\S*:\s*", "", ln)
        if ln and "warning" not in ln.lower():
            return _with_hint(ln.strip())
    return _NO_MESSAGE


#: GHDL 2.0.0 messages of known limits and what to do (pattern, hint; ``{0}`` is the first group)
HINTS = [
    (re.compile(r'unhandled call to ieee function "(\w+)"'),
     "GHDL 2.0.0 cannot evaluate math_real.{0} during synthesis (e.g. in a constant): use a literal or an integer "
     "function of your own (math_real.LOG2 and CEIL do work); Debian bookworm has no newer GHDL"),
    (re.compile(r"unknown command option '([^']*)'"),
     "--ghdl-opt {0}: GHDL 2.0.0 does not know this option ('ghdl --options-help' lists them)"),
    (re.compile(r'unit "(\w+)" not found'),
     "no given file declares {0}: add its file (a folder argument takes every .vhd/.vhdl file in it)"),
    (re.compile(r'latch infered for net "([^"]+)"'),
     "signal {0} keeps its value on some path of a combinational process: assign it a default at the start of "
     "the process"),
]


def hint(message: str) -> str | None:
    """What to do about a GHDL message of a known limit (:data:`HINTS`), or None."""
    for pat, text in HINTS:
        m = pat.search(message)
        if m:
            return text.format(*m.groups())
    return None


def _with_hint(message: str) -> str:
    h = hint(message)
    return f"{message} ({h})" if h else message


_NO_MESSAGE = "GHDL failed without a message"


_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")


def _plain_suffix(p: Path) -> str:
    """The file's suffix when it is plain (``.vhd``, ``.vhdl``), else ``.vhd``."""
    return p.suffix if _PLAIN_NAME.match(p.suffix or "-") and p.suffix else ".vhd"


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for k in range(a, min(b, len(chars))):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)


def ghdl_options(user: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The GHDL options of every run: :data:`GHDL_OPTIONS` with the user's ``--ghdl-opt`` options
    after them; a user ``--std=`` replaces ``--std=08``, a user ``--ieee=`` replaces ``-fsynopsys``.

    Raises:
        VhdlError: an option that is not one (no leading ``-``) or that the flow sets itself
            (``--workdir``, ``--work``, ``--out``, ``-o``, ``-e``, ``-r``).
    """
    for o in user:
        if not o.startswith("-") or o in ("-", "--"):
            raise VhdlError(f"--ghdl-opt {o!r}: not a GHDL option (options start with '-', e.g. --ghdl-opt=-frelaxed)")
        if o.split("=", 1)[0] in _OWN_OPTIONS:
            raise VhdlError(f"--ghdl-opt {o}: dcsflow sets {o.split('=', 1)[0]} itself")
    base = [o for o in GHDL_OPTIONS
            if not (o.startswith("--std=") and any(u.startswith("--std=") for u in user))
            and not (o == "-fsynopsys" and any(u.startswith("--ieee=") for u in user))]
    return base + list(user)


_OWN_OPTIONS = {"--workdir", "--work", "--out", "-o", "-e", "-r", "--synth", "-a", "-i", "-m"}


def translate(sources: list[Path], vt: VhdlTop, workdir: Path, generics: dict[str, int | str] | None = None,
              status: Callable[[str], None] | None = None, options: list[str] | tuple[str, ...] = (),
              mixed: bool = False) -> Path:
    """VHDL → Verilog with GHDL: import ``sources`` (any order), analyse what the top needs in
    dependency order (GHDL's own ``import`` and ``make``), synthesize ``vt.top``.

    Writes into ``workdir``: ``src/<i>/<file>`` (GHDL's input copies, PARAM attributes blanked;
    ``source.vhd`` for a file name with other characters than letters, digits and ``_.+-``),
    ``work/`` (library), ``analyse.log``, ``synth.log`` and ``top.v`` (atomically, only on success).
    generics: top-level generic overrides (``ghdl -gNAME=VALUE``); options: the user's GHDL options
    (:func:`ghdl_options`). mixed: the design also has Verilog files; a mixed design whose top is
    a Verilog module (``vt.top`` None) gets every entity synthesized, each with its default
    generics, and components that no VHDL entity binds (Verilog modules instantiated from VHDL)
    are left out of ``top.v`` for the Verilog files to define; in a VHDL-only design such a
    component is an error. Returns the path of ``top.v``.

    Raises:
        VhdlError: GHDL failing (its first error as ``file:line:col: message``, with a hint for
            limits of GHDL 2.0.0 (:func:`hint`); a GHDL killed by a signal or failing without a
            message: its exit status or signal and last output line), a source that cannot be
            read, a bad option.
        ToolMissing: GHDL missing (:mod:`dcsflow.tools`).
    """
    opts = ghdl_options(options)
    _ghdl()                                  # ToolMissing before anything is removed
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    run_dir, tmp = workdir, None
    if not _ghdl_safe(str(workdir.resolve())):
        # GHDL writes its working folder unescaped into the library file (``file "<folder>" ...``),
        # so a folder with a double quote breaks it: work in a temporary folder, then copy over
        tmp = Path(tempfile.mkdtemp(prefix="dcsflow-ghdl-"))
        run_dir = tmp
        if not _ghdl_safe(str(tmp.resolve())):
            shutil.rmtree(tmp, ignore_errors=True)
            raise VhdlError(f"GHDL cannot work in {workdir} nor in the temporary folder {tmp} (a double "
                            "quote, backslash or line break in the path): set TMPDIR to a plain folder")
    try:
        verilog = _analyse_and_synthesize(sources, vt, run_dir, workdir, generics, status, opts, mixed)
    finally:
        if tmp is not None:
            shutil.copytree(tmp, workdir, dirs_exist_ok=True, symlinks=True)
            shutil.rmtree(tmp, ignore_errors=True)
    out = workdir / "top.v"
    write_bytes_atomic(out, verilog)            # byte for byte (names GHDL copied from the source)
    return out


def _ghdl_safe(folder: str) -> bool:
    """True when GHDL can record ``folder`` in its library file (no ``"``, ``\\`` or line break)."""
    return not any(c in folder for c in '"\\\n\r')


def _analyse_and_synthesize(sources: list[Path], vt: VhdlTop, run_dir: Path, log_dir: Path,
                            generics: dict[str, int | str] | None,
                            status: Callable[[str], None] | None, opts: list[str], mixed: bool) -> bytes:
    """GHDL's runs of :func:`translate` in ``run_dir`` (copies, library, logs); returns the Verilog.
    Error messages name the logs in ``log_dir`` (where :func:`translate` leaves them)."""
    (run_dir / "work").mkdir(parents=True, exist_ok=True)
    spans = {(e.path, a, b) for e in vt.entities for a, b in e.spans}
    names: dict[str, str] = {}
    copies = []
    for i, p in enumerate(sources):
        # GHDL records its sources in its library file, which a name with quotes breaks
        # ("work-obj08.cf: bad library format"): such a copy is called source.vhd (messages name p)
        rel = f"src/{i}/{p.name if _PLAIN_NAME.match(p.name) else 'source' + _plain_suffix(p)}"
        own = sorted((a, b) for q, a, b in spans if q == p)
        (run_dir / "src" / str(i)).mkdir(parents=True)
        (run_dir / rel).write_bytes(_blank(read_source(p), own).encode("latin-1"))
        names[rel] = str(p)
        copies.append(rel)
    opts = opts + ["--workdir=work"]
    log: list[str] = []

    def ghdl(args: list[str], doing: str, logname: str) -> subprocess.CompletedProcess:
        r = _run_ghdl(args, run_dir, doing)
        log.append(f"$ ghdl {' '.join(args)}\n{_text(r.stdout) if args[0] != '--synth' else ''}{_text(r.stderr)}")
        if r.returncode != 0 or (args[0] == "--synth" and not r.stdout.strip()):
            write_text_atomic(run_dir / logname, "".join(log))
            raise _failure(r, names, log_dir / logname, doing)
        return r

    units = [vt.top] if vt.top is not None else [e.name for e in vt.entities]
    if status:
        status(f"ghdl import ({len(copies)} files)")
    ghdl(["-i", *opts, *copies], "importing the VHDL files", "analyse.log")
    for u in units:
        if status:
            status(f"ghdl make {u}")
        ghdl(["-m", *opts, u], f"analysing what {u} needs", "analyse.log")
    write_text_atomic(run_dir / "analyse.log", "".join(log))
    log.clear()
    gen = [f"-g{k}={v}" for k, v in (generics or {}).items()] if vt.top is not None else []
    modules: dict[str, str] = {}
    for u in units:
        if status:
            status(f"ghdl --synth {u}")
        r = ghdl(["--synth", *opts, *gen, "--out=verilog", u], f"synthesizing {u}", "synth.log")
        unbound = set(re.findall(r'of component "([^"]+)" is not bound', _text(r.stderr)))
        if unbound and not mixed:
            name = sorted(unbound)[0]
            raise VhdlError(f"component {name} is bound to no entity (GHDL would leave an empty black box): add the "
                            f"file that declares entity {name} (VHDL) or module {name} (Verilog)")
        for name, text in _modules(r.stdout.decode("latin-1")):
            if name in unbound and _empty_module(text):
                continue                       # a Verilog module of a mixed design: its file defines it
            modules.setdefault(name, text)
    write_text_atomic(run_dir / "synth.log", "".join(log))
    return "".join(modules.values()).encode("latin-1")


_MODULE_RE = re.compile(r"^module\s+(\S+)\b.*?^endmodule[^\n]*\n?", re.MULTILINE | re.DOTALL)


def _modules(verilog: str) -> list[tuple[str, str]]:
    """(name, text) of each module of GHDL's Verilog output (GHDL writes ``module NAME`` and
    ``endmodule`` at the start of a line)."""
    return [(m.group(1), m.group(0)) for m in _MODULE_RE.finditer(verilog)]


def _empty_module(text: str) -> bool:
    """True for a module with ports and nothing else (GHDL's black box of an unbound component)."""
    body = text.split(");", 1)[1] if ");" in text else ""
    return body.strip().startswith("endmodule")
