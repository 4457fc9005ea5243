"""Sphinx extension of the dcsflow documentation.

- :func:`normalize_docstring`: the code's docstrings are plain text in Google style (``Args:``,
  ``Returns:``, ``Attributes:``; napoleon reads those) with lists written as in Markdown, without
  the blank lines reStructuredText wants around a list. This hook adds those blank lines before
  autodoc and napoleon parse the docstring, so that the docstrings stay as they are in the code.
- ``model-constants`` directive: the table of the modelled times' constants
  (:mod:`dcsflow.scg.timemodel`), so that the pages never restate a value by hand.
- ``runtime-cli`` directive: the help of the runtime's command line (``python -m dcsflow.scg``,
  argparse, :func:`dcsflow.scg.cli.build_parser`), one section per command, generated at build
  time (the flow's ``dcsflow rekey|bit|import|codegen`` pass their arguments to it unchanged).
"""

from __future__ import annotations

import argparse
import re

#: a list item as the docstrings write them: "- x", "* x", "1. x", "(a) x", "a) x"
_ITEM = re.compile(r"^(?P<indent> *)(?P<marker>[-*] |\d+\. |\([a-z0-9]\) |[a-z]\) )\S")
#: a Google-style section header (napoleon turns these into fields)
_SECTION = re.compile(r"^ *(Args|Arguments|Parameters|Returns?|Raises|Yields?|Attributes|Examples?|Notes?|"
                      r"Warnings?|See Also|Todo|Keyword Args):\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


#: one entry of an Args/Attributes/Raises section as napoleon reads it: "name: text" or "name (type): text"
_ENTRY = re.compile(r"^ *\*{0,2}[A-Za-z_][\w.]*(?: \([^`()]*\))?:(?: |$)")
#: several entries packed on one line ("top: ...; seed: ..."), which napoleon would misread
_PACKED = re.compile(r"; \*{0,2}[A-Za-z_]\w*: ")
#: the sections whose entries napoleon parses one per line
_ENTRY_SECTION = re.compile(r"^( *)(Args|Arguments|Parameters|Attributes|Raises|Keyword Args):\s*$")


def _plain_sections(lines: list[str]) -> list[str]:
    """Sections napoleon would misread (several entries on a line, or lines at the entries' indent
    that start no entry) become a field with one paragraph: ``Args:`` -> ``:Args:``."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _ENTRY_SECTION.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        head = len(m.group(1))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > head):
            j += 1
        block = lines[i + 1:j]
        body = [ln for ln in block if ln.strip()]
        base = min((_indent(ln) for ln in body), default=head + 4)
        entries = [ln for ln in body if _indent(ln) == base]
        if body and all(_ENTRY.match(ln) and not _PACKED.search(ln) for ln in entries):
            out += lines[i:j]
        else:
            out.append(" " * head + f":{m.group(2)}:")
            out += [(" " * (head + 4) + ln.strip()) if ln.strip() else "" for ln in block]
        i = j
    return out


def normalize_lines(lines: list[str]) -> list[str]:
    """``lines`` with blank lines added where reStructuredText needs them: before a Google section
    header, before the first item of a list (also a nested one) and after the last, and where the
    indentation of running text changes (a line indented under a paragraph, or back out of such a
    block). Literal blocks (after ``::``) and the bodies of Google sections (napoleon reads
    those) are left alone; sections napoleon would misread become a plain field first."""
    lines = _plain_sections(lines)
    out: list[str] = []
    stack: list[tuple[int, int]] = []       # open lists: (marker indent, text indent)
    literal_indent: int | None = None       # inside a literal block indented deeper than this
    section_indent: int | None = None       # inside a Google section indented deeper than this
    for line in lines:
        blank = not line.strip()
        ind = _indent(line)
        if literal_indent is not None:
            if blank or ind > literal_indent:
                out.append(line)
                continue
            literal_indent = None
        if section_indent is not None:
            if blank or ind > section_indent:
                out.append(line)
                continue
            section_indent = None
        if blank:
            out.append(line)
            continue
        prev = out[-1] if out else ""
        m = _ITEM.match(line)
        if _SECTION.match(line):
            stack.clear()
            if prev.strip():
                out.append("")
            out.append(line)
            section_indent = ind
            continue
        closed = False
        while stack:                          # close the lists this line is not inside
            marker_ind, text_ind = stack[-1]
            if ind >= text_ind or (m and ind >= marker_ind):
                break                         # continuation, nested item or next item
            stack.pop()
            closed = True
        if m and (not stack or ind > stack[-1][0]):
            stack.append((ind, ind + len(m.group("marker"))))
            closed = True                     # a new list needs a blank line before it
        elif not stack and prev.strip() and ind != _indent(prev):
            closed = True                     # running text indented in or out
        if closed and out and out[-1].strip():
            out.append("")
        out.append(line)
        if line.rstrip().endswith("::"):
            literal_indent = ind
    return out


def normalize_docstring(app, what, name, obj, options, lines: list[str]) -> None:
    """autodoc-process-docstring hook: :func:`normalize_lines` in place."""
    lines[:] = normalize_lines(lines)


def resolve_reexport(app, env, node, contnode):
    """missing-reference hook for Python references that name an object where the docs do not
    describe it: a name a package re-exports (``dcsflow.flow.backend.Backend`` is described as
    ``dcsflow.flow.backend.base.Backend``) links to where it is defined, and an attribute listed
    in its class's ``Attributes:`` section (``Design.check``) links to the class."""
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    target = node.get("reftarget", "")
    objects = env.get_domain("py").objects
    parent, _, name = target.rpartition(".")
    real = None
    if parent in objects and objects[parent].objtype in ("class", "exception"):
        real = parent
    elif parent.startswith("dcsflow"):
        import importlib

        try:
            obj = getattr(importlib.import_module(parent), name)
            real = f"{obj.__module__}.{obj.__qualname__}"
        except (ImportError, AttributeError):
            return None
    if real is None or real not in objects or real == target:
        return None
    entry = objects[real]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, real)


# ----------------------------------------------------------------------------- runtime-cli
def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:             # argparse has no public accessor for these
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def runtime_commands(parser: argparse.ArgumentParser | None = None, path: tuple[str, ...] = ()):
    """``(path, parser)`` for the runtime's command line and every subcommand, depth first."""
    if parser is None:
        from dcsflow.scg.commands import build_parser

        parser = build_parser("python -m dcsflow.scg")
    yield path, parser
    for name, sub in _subparsers(parser).items():
        yield from runtime_commands(sub, path + (name,))


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    """Option strings of ``parser``'s options (not positionals, not --help) that have no help text."""
    out = []
    for a in parser._actions:
        if not a.option_strings or isinstance(a, argparse._HelpAction):
            continue
        if a.help is None or not str(a.help).strip():
            out.append("/".join(a.option_strings))
    return out


def runtime_cli_directive():
    """The ``.. runtime-cli::`` directive class: every command of ``python -m dcsflow.scg`` with its
    ``--help``, one section each (docutils is imported here, so that the helpers above need only the
    standard library)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class RuntimeCli(Directive):
        has_content = False
        option_spec = {"prog": directives.unchanged}

        def run(self):
            prog = self.options.get("prog", "python -m dcsflow.scg")
            from dcsflow.scg.commands import build_parser

            result = []
            for path, parser in runtime_commands(build_parser(prog)):
                sec = nodes.section(ids=[nodes.make_id("runtime-" + "-".join(path or ("main",)))])
                sec += nodes.title(text=" ".join((prog,) + path))
                text = parser.format_help()
                sec += nodes.literal_block(text, text)
                result.append(sec)
            return result

    return RuntimeCli


# ----------------------------------------------------------------------------- model-constants
def model_constants_directive():
    """The ``.. model-constants::`` directive class: a table of every constant of the modelled times
    (:data:`dcsflow.scg.timemodel.CONSTANTS`: what it is, its value, its source), read from the module."""
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class ModelConstants(Directive):
        has_content = False

        def run(self):
            from dcsflow.scg import timemodel as tm

            text = tm.substitutions()
            rows = [("constant", "value", "what", "source")]
            rows += [(c.name, text[c.name.lower()], c.what, c.source) for c in tm.CONSTANTS]
            table = nodes.table(classes=["model-constants"])
            group = nodes.tgroup(cols=4)
            table += group
            for width in (18, 10, 30, 42):
                group += nodes.colspec(colwidth=width)
            for part, body in ((nodes.thead(), rows[:1]), (nodes.tbody(), rows[1:])):
                for r in body:
                    row = nodes.row()
                    for i, cell in enumerate(r):
                        entry = nodes.entry()
                        entry += nodes.paragraph("", "", nodes.literal(cell, cell) if i == 0 and part.tagname == "tbody"
                                                 else nodes.Text(cell))
                        row += entry
                    part += row
                group += part
            return [table]

    return ModelConstants


def setup(app):
    app.connect("autodoc-process-docstring", normalize_docstring, priority=400)   # before napoleon (500)
    app.connect("missing-reference", resolve_reexport)
    app.add_directive("runtime-cli", runtime_cli_directive())
    app.add_directive("model-constants", model_constants_directive())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
