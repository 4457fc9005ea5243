"""Sphinx extension of the dcsflow documentation.

- :func:`normalize_docstring`: the code's docstrings are plain text in Google style (``Args:``,
  ``Returns:``, ``Attributes:``; napoleon reads those) with lists written as in Markdown, without
  the blank lines reStructuredText wants around a list. This hook adds those blank lines before
  autodoc and napoleon parse the docstring, so that the docstrings stay as they are in the code.
- ``api-package`` directive: one page of the API reference per package, opening with a module
  index (:func:`api_package_directive`).
- ``results-headlines`` directive: the results index's table of headline figures, read from the
  records the benchmarks wrote (:func:`headline_rows`).
- wide tables (the results pages') are split into tables that fit the page, each repeating the
  first column (:func:`split_wide_tables`).
- ``model-constants`` directive: the table of the modelled times' constants
  (:mod:`dcsflow.scg.timemodel`), so that the pages never restate a value by hand.
- ``dcsflow-cli`` directive: the command-line reference, one command (``dcsflow build``) or the
  runtime's command line (``python -m dcsflow.scg``) at a time, as reStructuredText in
  sphinx-click's layout (:func:`cli_directive`; the flow's ``dcsflow rekey|bit|import|codegen``
  pass their arguments to the runtime's argparse parser unchanged, and are rendered from it).
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
    """autodoc-process-docstring hook: :func:`normalize_lines` in place, and a word ``file:line``
    kept as text (docutils would make ``file:`` a link)."""
    lines[:] = [_rst_text(ln) for ln in normalize_lines(lines)]


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


# ----------------------------------------------------------------------------- command-line reference
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


def _rst_text(text: str) -> str:
    """Plain text as reStructuredText: a word written ``x:y`` whose ``x`` is a URI scheme
    (``file:line``) stays text, not a link."""
    return re.sub(r"(?<![`\w])(file:[^\s`]+)", r"``\1``", text)


def _help_text(line: str) -> str:
    """A line of command help (plain text) as reStructuredText: :func:`_rst_text`, and a lone ``*``
    (``32*N``) or a word ending in ``_`` escaped, which would start emphasis or a reference."""
    if line.lstrip().startswith(("..", ":default:", ":options:")):
        return line
    line = re.sub(r"(?<![*\\])\*(?!\*)", r"\\*", line)
    line = re.sub(r"(?<=\w)_(?=\s|$|[.,;:)])", r"\\_", line)
    return _rst_text(line)


def escape_click_help(app, ctx, lines: list[str]) -> None:
    """sphinx-click's ``sphinx-click-process-*`` hook: the command's help lines as
    reStructuredText (:func:`_help_text`), in place."""
    lines[:] = [_help_text(ln) for ln in lines]


def click_metavars(app, ctx, lines: list[str]) -> None:
    """sphinx-click's ``sphinx-click-process-options`` hook: each option's value named as click's
    own ``--help`` names it (``--out DIRECTORY``, ``--seed INTEGER``; a choice by its option name),
    not by the parameter's Python name."""
    import click
    from sphinx_click.ext import _get_help_record

    for p in ctx.command.params:
        if not isinstance(p, click.Option) or p.hidden or p.is_flag or p.count:
            continue
        if isinstance(p.type, click.Choice):
            meta = p.metavar or p.name.upper()
        else:
            try:
                meta = p.make_metavar(ctx)
            except TypeError:                   # click < 8.2: make_metavar() takes no context
                meta = p.make_metavar()
        meta = meta.strip("[]").replace("...", "").strip()
        old = ".. option:: " + _get_help_record(ctx, p)[0]
        new = old.replace(f"<{p.name}>", f"<{meta}>") if not p.metavar else old
        lines[:] = [new if ln == old else ln for ln in lines]
    h = ctx.command.get_help_option(ctx)
    if h is not None:                          # click's --help lists its own option too
        lines += [f".. option:: {', '.join(_help_names(ctx))}", "", f"    {h.help}", ""]


def _help_names(ctx) -> list[str]:
    """The help option's names as the command line gives them: the nearest ``help_option_names`` of
    the command's and its parents' ``context_settings`` (click passes them down from the group's
    context), else ``--help``. Not the help option object's own names: click builds that object once
    per command, from the first context that asks (this page's may lack the group's settings)."""
    c = ctx
    while c is not None:
        names = (getattr(c.command, "context_settings", None) or {}).get("help_option_names")
        if names:
            return list(names)
        c = c.parent
    return ["--help"]


def argparse_rst(parser: argparse.ArgumentParser, prog: str) -> list[str]:
    """reStructuredText of one argparse command, in the layout sphinx-click gives a click command:
    the description, ``.. program::``, a Usage rubric (a shell code block), an Options rubric with
    one ``.. option::`` per option (its metavar in angle brackets, its help below) and an Arguments
    rubric for the positional arguments. Subcommands are not listed (each gets its own section)."""
    fmt = parser._get_formatter()
    lines: list[str] = []
    for para in (parser.description or "").strip().split("\n\n"):
        if para.strip():
            lines += [_help_text(" ".join(para.split())), ""]
    lines += [f".. program:: {prog}", "", ".. rubric:: Usage", "", ".. code-block:: shell", ""]
    usage = parser.format_usage().strip()
    usage = usage[len("usage:"):].strip() if usage.startswith("usage:") else usage
    lines += ["    " + ln for ln in usage.splitlines()] + [""]
    opts = [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    args = [a for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    for title, acts in (("Options", opts), ("Arguments", args)):
        if not acts:
            continue
        lines += [f".. rubric:: {title}", ""]
        for a in acts:
            takes = a.nargs != 0 and not isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                                                        argparse._HelpAction, argparse._CountAction,
                                                        argparse._StoreConstAction, argparse._VersionAction))
            if a.option_strings:
                meta = fmt._metavar_formatter(a, a.dest.upper())(1)[0] if takes else ""
                sig = ", ".join(a.option_strings) + (f" <{meta}>" if meta else "")
            else:
                sig = fmt._metavar_formatter(a, a.dest)(1)[0]
            lines += [f".. option:: {sig}", ""]
            text = fmt._expand_help(a) if a.help else ""
            if text and a.help is not argparse.SUPPRESS:
                lines += ["    " + _help_text(" ".join(text.split())), ""]
    return lines


def cli_directive():
    """The ``.. dcsflow-cli:: WORDS`` directive class: one command of ``dcsflow`` (``build``,
    ``sim picipher``; no words: the group itself) or of the runtime (``:runtime:``), rendered as
    reStructuredText in sphinx-click's layout, with the command line as the section's title.

    A click command is rendered by sphinx-click (subcommands nested in full); a command that hands
    its arguments to the runtime's argparse parser (``dcsflow rekey``, ``bit``, ``import``,
    ``codegen``) is rendered from that parser (:func:`argparse_rst`), so that its page lists the
    options its ``--help`` lists. Must be used inside ``{eval-rst}``: the generated text is
    reStructuredText, and it is parsed by the parser of the block it stands in."""
    import click
    from docutils import nodes
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.util.nodes import nested_parse_with_titles
    from sphinx_click.ext import NESTED_FULL, NESTED_NONE, ClickDirective

    class DcsflowCli(ClickDirective):
        required_arguments = 0
        optional_arguments = 8
        option_spec = {"runtime": directives.flag}

        def _argparse_section(self, parser, prog: str):
            sec = nodes.section(ids=[nodes.make_id(prog.replace("python -m ", "").replace(".", "-"))])
            sec += nodes.title(text=prog)
            nested_parse_with_titles(self.state, StringList(argparse_rst(parser, prog), prog), sec)
            return sec

        def run(self):
            self.env = self.state.document.settings.env
            words = tuple(self.arguments)
            if "runtime" in self.options:
                from dcsflow.scg.commands import build_parser

                prog = "python -m dcsflow.scg"
                out = [self._argparse_section(parser, " ".join((prog,) + path))
                       for path, parser in runtime_commands(build_parser(prog)) if path[:len(words)] == words]
                for sub in out[1:]:       # the subcommands inside the command line's section
                    out[0] += sub
                return out[:1]
            from dcsflow.flow.cli import cli

            ctx, cmd = click.Context(cli, info_name="dcsflow"), cli
            for w in words:
                sub = cmd.get_command(ctx, w)
                if sub is None:
                    raise self.error(f"dcsflow has no command {' '.join(words)!r}")
                ctx, cmd = click.Context(sub, info_name=w, parent=ctx), sub
            prog = " ".join(("dcsflow",) + words)
            runtime = _runtime_parser(words, cmd)
            if runtime is not None:
                return [self._argparse_section(runtime, prog)]
            secs = self._generate_nodes(words[-1] if words else "dcsflow", cmd, ctx.parent,
                                        NESTED_FULL if words else NESTED_NONE)
            for sec in secs:              # the section's title: the whole command line
                sec[0] = nodes.title(text=prog)
            if not words:                 # the group: its commands, each linked to its page
                rows = [".. rubric:: Commands", ""]
                for name in cmd.list_commands(ctx):
                    sub = cmd.get_command(ctx, name)
                    if sub is not None and not sub.hidden:
                        rows.append(f"- :doc:`dcsflow {name} <{name}>`: {_help_text(sub.get_short_help_str(70))}")
                rows += ["- :doc:`python -m dcsflow.scg <runtime>`: the runtime's command line", ""]
                nested_parse_with_titles(self.state, StringList(rows, prog), secs[0])
            return secs

    return DcsflowCli


def _runtime_parser(words: tuple, cmd) -> argparse.ArgumentParser | None:
    """The runtime's parser of a ``dcsflow`` command that hands it its arguments unparsed (one
    ``nargs=-1`` UNPROCESSED argument and a runtime command of the same name), else None."""
    import click

    if len(words) != 1 or [type(p.type) for p in cmd.params] != [type(click.UNPROCESSED)]:
        return None
    from dcsflow.scg.commands import build_parser

    return _subparsers(build_parser("dcsflow")).get(words[0])


# ----------------------------------------------------------------------------- api-package
def package_modules(package: str, private: tuple[str, ...] = (), inline: tuple[str, ...] = ()
                    ) -> tuple[list[str], list[str]]:
    """``(modules, subpackages)`` of ``package``: the package itself and its modules (private ones,
    ``_x``, only when named in ``private``; a subpackage named in ``inline`` counts as a module),
    then its other public subpackages (each has a page of its own)."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(package)
    modules, subpackages = [package], []
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        name = f"{package}.{m.name}"
        if m.ispkg and not m.name.startswith("_") and name not in inline:
            subpackages.append(name)
        elif m.ispkg and name in inline:
            modules.append(name)
        elif not m.ispkg and (not m.name.startswith("_") or name in private):
            modules.append(name)
    return modules, subpackages


def summary(module: str) -> str:
    """The first sentence of a module's docstring (its first paragraph, up to the first ``. ``)."""
    import importlib

    doc = (importlib.import_module(module).__doc__ or "").strip()
    first = " ".join(doc.split("\n\n")[0].split())
    cut = re.search(r"(?<!e\.g)(?<!i\.e)\.(\s|$)", first)
    return first[:cut.start() + 1] if cut else first


def api_package_directive():
    """The ``.. api-package:: PACKAGE`` directive class: one page of the API reference per package.
    A module index first (every module of the package with the first sentence of its docstring,
    linked to its section; every subpackage linked to its own page), then one section per module
    with its ``automodule``. Options: ``:private:`` private modules to document too,
    ``:no-members:`` modules documented by their docstring alone. Must be used inside
    ``{eval-rst}`` (its text is reStructuredText)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives
    from docutils.statemachine import StringList
    from sphinx.util.nodes import nested_parse_with_titles

    class ApiPackage(Directive):
        required_arguments = 1
        option_spec = {"private": directives.unchanged, "no-members": directives.unchanged}

        def run(self):
            package = self.arguments[0]
            private = tuple(self.options.get("private", "").split())
            bare = set(self.options.get("no-members", "").split())
            modules, subpackages = package_modules(package, private, tuple(bare))
            rows = [".. list-table:: Modules", "   :header-rows: 1", "   :class: module-index", "",
                    "   * - module", "     - what it is"]
            for m in modules:
                rows += [f"   * - :mod:`{m}`", f"     - {summary(m)}"]
            for m in subpackages:
                rows += [f"   * - :doc:`{m} <{m}>` (package, own page)", f"     - {summary(m)}"]
            out = nodes.container(classes=["module-index"])
            nested_parse_with_titles(self.state, StringList(rows + [""], package), out)
            result = [out]
            for m in modules:
                sec = nodes.section(ids=[nodes.make_id(f"api-{m}")])
                sec += nodes.title("", "", nodes.literal(m, m))
                lines = [f".. automodule:: {m}"] + (["   :no-members:"] if m in bare else []) + [""]
                nested_parse_with_titles(self.state, StringList(lines, m), sec)
                result.append(sec)
            return result

    return ApiPackage


# ----------------------------------------------------------------------------- results-headlines
def markdown_tables(text: str) -> list[list[dict]]:
    """The Markdown tables of a page: each a list of rows, a row a dict heading -> cell text."""
    tables, rows, head = [], None, None
    for line in text.splitlines() + [""]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.strip().startswith("|") else None
        if cells is None:
            if rows is not None:
                tables.append(rows)
            rows, head = None, None
        elif head is None:
            head, rows = cells, []
        elif all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        else:
            rows.append(dict(zip(head, cells)))
    return tables


def build_time_rows(results) -> dict[str, tuple[str, dict]]:
    """design -> (page stem, row) of the build-time pages' tables (``build_times*.md``, written by
    ``benchmarks/build_bench.py``): the row has ``synth_xilinx (s)``, ``dcsflow build (s)``, ``ratio``."""
    out = {}
    for page in sorted(results.glob("build_times*.md")):
        for table in markdown_tables(page.read_text(encoding="utf-8")):
            for row in table:
                if {"design", "ratio", "synth_xilinx (s)", "dcsflow build (s)"} <= set(row):
                    out.setdefault(row["design"].strip("`"), (page.stem, row))
    return out


def headline_rows(results) -> list[list[str]]:
    """The results index's headline table, as reStructuredText cells, from the records the
    benchmarks wrote: per design (``designs.json``, ``benchmarks/designs_table.py``) the slices saved
    against the strongest conventional candidate, the modelled rekey time through the AXI HWICAP
    against the configuration port's limit (the ICAPE2 at full rate; constants of
    :mod:`dcsflow.scg.timemodel`), and (build-time pages) the build time against Yosys's
    ``synth_xilinx`` of the same RTL; each figure linked to its page."""
    import json

    from dcsflow.scg import timemodel as tm

    recs = json.loads((results / "designs.json").read_text(encoding="utf-8"))["designs"]
    times = build_time_rows(results)
    rows = [["design", "slices saved (TLUT against conventional)",
             "rekey transport, modelled: AXI HWICAP / the port's limit (ICAPE2 at full rate)",
             "build time, its ratio to synth_xilinx (and synth_xilinx's time)", "report of, recorded at"]]
    for name in sorted(recs):
        r = recs[name]
        pct = r.get("slices_saved_percent")
        saved = (f":doc:`{r['slices_saved']:,} ({pct:.1f} %) <designs>` against "
                 f"``{r['conventional']['baseline']}``") if pct is not None else "–"
        words = r.get("icap_words")
        rekey = (f":doc:`{tm.hwicap_us(words):,.0f} µs / {tm.icap_us(words):,.1f} µs <designs>` "
                 f"({words:,} ICAP words)") if words else "–"
        bt = times.get(name)
        build = (f":doc:`{bt[1]['dcsflow build (s)']} s = {bt[1]['ratio']}x <{bt[0]}>` "
                 f"({bt[1]['synth_xilinx (s)']} s)") if bt else "–"
        rows.append([f"``{name}``", saved, rekey, build, f"{r.get('report_date', '–')}, ``{r.get('commit', '–')}``"])
    return rows


def results_headlines_directive():
    """The ``.. results-headlines::`` directive class: :func:`headline_rows` as a table (used in
    ``{eval-rst}`` on docs/results/index.md)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList
    from sphinx.util.nodes import nested_parse_with_titles

    class ResultsHeadlines(Directive):
        has_content = False

        def run(self):
            from pathlib import Path

            results = Path(self.state.document.settings.env.srcdir) / "results"
            rows = headline_rows(results)
            lines = [".. list-table:: Headline figures", "   :header-rows: 1", "   :class: headlines", ""]
            for r in rows:
                lines += [f"   * - {r[0]}"] + [f"     - {c}" for c in r[1:]]
            out = nodes.container(classes=["headlines"])
            nested_parse_with_titles(self.state, StringList(lines + [""], "results-headlines"), out)
            return [out]

    return ResultsHeadlines


# ----------------------------------------------------------------------------- wide tables
#: the most columns a table shows side by side (besides its first); a wider one is split
MAX_TABLE_COLUMNS = 8


def split_wide_tables(app, doctree, docname) -> None:
    """doctree-resolved hook: a table of more than :data:`MAX_TABLE_COLUMNS` + 1 columns (the
    results pages' tables, written by the benchmarks) becomes several tables of about equal width,
    each repeating the first column (the row's name), so that every column fits the page; a table
    with spanning cells is left alone."""
    import math

    from docutils import nodes

    for table in list(doctree.findall(nodes.table)):
        groups = [g for g in table.children if isinstance(g, nodes.tgroup)]
        if len(groups) != 1:
            continue
        group = groups[0]
        specs = [c for c in group.children if isinstance(c, nodes.colspec)]
        rows = list(group.findall(nodes.row))
        n = len(specs)
        if n <= MAX_TABLE_COLUMNS + 1 or any(len(r.children) != n for r in rows) \
                or any(e.get("morecols") or e.get("morerows") for r in rows for e in r.children):
            continue
        parts = math.ceil((n - 1) / MAX_TABLE_COLUMNS)
        size = math.ceil((n - 1) / parts)
        new = []
        for k in range(parts):
            cols = [0] + list(range(1 + k * size, min(n, 1 + (k + 1) * size)))
            t = table.deepcopy()
            g = [c for c in t.children if isinstance(c, nodes.tgroup)][0]
            g["cols"] = len(cols)
            for i, spec in reversed(list(enumerate(c for c in g.children if isinstance(c, nodes.colspec)))):
                if i not in cols:
                    g.remove(spec)
            for r in g.findall(nodes.row):
                for i, e in reversed(list(enumerate(r.children))):
                    if i not in cols:
                        r.remove(e)
            new.append(t)
        table.replace_self(new)


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
    app.add_directive("dcsflow-cli", cli_directive())
    app.add_directive("api-package", api_package_directive())
    app.add_directive("results-headlines", results_headlines_directive())
    app.connect("doctree-resolved", split_wide_tables)
    app.connect("sphinx-click-process-options", click_metavars, priority=400)
    for part in ("description", "options", "arguments", "epilog"):
        app.connect(f"sphinx-click-process-{part}", escape_click_help)
    app.add_directive("model-constants", model_constants_directive())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
