"""Parameter marks of Verilog sources: the published TLUT flow's ``//PARAM`` blocks, read beside
Yosys's ``(* PARAM *)`` attributes, and one line per parameter input for the build's output.

A line holding only ``//PARAM`` (any case, white space allowed; not inside a ``/* */`` comment)
opens a block and the next one closes it; every port of the top module whose declaration (the
``src`` line Yosys records for the port's wire) lies between the two lines is a parameter input.
A block inside the top module's port declarations (from the module's first line to its last port
declaration) that holds no port, or a block that holds an output port, is an error; blocks
elsewhere (around wires or instance connections, as the published flow's designs also have them)
are not read. VHDL's marks are read by :mod:`dcsflow.flow.vhdl`.
"""

from __future__ import annotations

import re
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, read_input_bytes

from .errors import FrontendError

_LINE_RE = re.compile(r"\s*//\s*param\s*$", re.IGNORECASE)
_SRC_RE = re.compile(r"^(?P<file>.*):(?P<l0>\d+)\.\d+-(?P<l1>\d+)\.\d+$")


def verilog_blocks(path: Path, text: str) -> list[tuple[int, int]]:
    """The ``//PARAM`` blocks of one Verilog file as (opening line, closing line), 1-based.

    Raises:
        FrontendError: an odd number of ``//PARAM`` lines (names the unmatched one).
    """
    lines: list[int] = []
    in_comment = False
    for n, ln in enumerate(text.splitlines(), 1):
        if in_comment:
            if "*/" in ln:
                in_comment = False
                ln = ln.split("*/", 1)[1]
            else:
                continue
        if _LINE_RE.fullmatch(ln):
            lines.append(n)
            continue
        code = ln.split("//", 1)[0]
        while "/*" in code:
            rest = code.split("/*", 1)[1]
            if "*/" not in rest:
                in_comment = True
                break
            code = rest.split("*/", 1)[1]
    if len(lines) % 2:
        raise FrontendError(f"{path}:{lines[-1]}: //PARAM line without a closing //PARAM line (a block is a line "
                            "holding only //PARAM before the parameter ports and another after them)")
    return list(zip(lines[0::2], lines[1::2]))


def _src(attrs: dict) -> tuple[Path, int, int] | None:
    """(file, first line, last line) of a Yosys ``src`` attribute (the first location), or None."""
    src = str(attrs.get("src", "")).split("|")[0]
    m = _SRC_RE.match(src)
    return (Path(m["file"]), int(m["l0"]), int(m["l1"])) if m else None


def verilog_marks(module: dict, name: str, sources: list[Path]) -> dict[str, str]:
    """Ports of the top module (Yosys JSON ``module`` called ``name``) marked by a ``//PARAM``
    block of one of ``sources`` (the user's Verilog files): port name -> ``"//PARAM block,
    file:first-last"``; also ports with a ``PARAM`` attribute -> ``"(* PARAM *), file:line"``.

    Raises:
        FrontendError: an unmatched ``//PARAM`` line, a block holding an output port, a block in
            the port declarations that holds no port (one line, file:line).
    """
    by_file: dict[Path, tuple[Path, list[tuple[int, int]]]] = {}
    for p in sources:
        try:
            text = read_input_bytes(p, TEXT_LIMIT, "HDL source").decode("latin-1")
        except OSError as e:
            raise FrontendError(f"{p}: cannot read: {e.strerror or e}") from None
        blocks = verilog_blocks(Path(p), text)
        if blocks:
            by_file[Path(p).resolve()] = (Path(p), blocks)
    out: dict[str, str] = {}
    port_lines: dict[Path, list[int]] = {}
    for port, info in module.get("ports", {}).items():
        attrs = module.get("netnames", {}).get(port, {}).get("attributes", {})
        loc = _src(attrs)
        if any(k.upper() == "PARAM" for k in attrs) and loc is not None:
            out[port] = f"(* PARAM *), {loc[0]}:{loc[1]}"
        if loc is None:
            continue
        f = loc[0].resolve()
        port_lines.setdefault(f, []).append(loc[1])
        user, blocks = by_file.get(f, (loc[0], []))
        block = next(((a, b) for a, b in blocks if a < loc[1] < b), None)
        if block is None:
            continue
        if info.get("direction") != "input":
            raise FrontendError(f"{user}:{block[0]}: the //PARAM block of lines {block[0]}-{block[1]} holds "
                                f"{info.get('direction')} port {port}; only input ports can be parameter inputs")
        out.setdefault(port, f"//PARAM block, {user}:{block[0]}-{block[1]}")
    mloc = _src(module.get("attributes", {}))
    if mloc is not None and mloc[0].resolve() in by_file:
        f = mloc[0].resolve()
        user, blocks = by_file[f]
        last = max(port_lines.get(f, [mloc[1]]))
        for a, b in blocks:
            if mloc[1] <= a <= last and not any(a < ln < b for ln in port_lines.get(f, [])):
                raise FrontendError(f"{user}:{a}: the //PARAM block of lines {a}-{b} holds no port of module {name}; "
                                    "put the parameter ports' declarations between the two //PARAM lines")
    return out
