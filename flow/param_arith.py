"""Word-level rewrites of arithmetic with a parameter operand, before Yosys's own arithmetic mapping.

A multiplier ``a * P`` whose operand ``P`` is a parameter input is rewritten as
``sum_c (A_c * P) << (chunk * c)`` with ``A_c`` the ``chunk``-bit slices of the regular operand
(techmap ``flow/yosys_lib/param_mul.v``, cells ``$__DCS_PMUL`` / ``$__DCS_PMUL_A``). Every bit of a
chunk product depends on at most ``chunk`` regular inputs, so the TLUT mapper implements it with one
TLUT when ``chunk <= K``; only the sum of ``ceil(n / chunk)`` words is ordinary adder logic. Yosys's
default structure (``alumacc`` / ``maccmap`` column compression) makes every internal signal depend
on many regular inputs instead.

Yosys 0.23 caveat (observed on the π16-Cipher designs): any extra command between the two halves of
synth_xilinx, even a lone ``select -set``, changes the auto-generated names and net numbers of the
result (equivalent netlist; presumably new identifiers change the hash order of later passes), and
so does a techmap file whose parsing advances the auto-name counter (operators in generate loops;
``param_mul.v`` uses gate cells instead). The front end therefore first runs a cheap
probe (:func:`probe_commands`: elaboration only) and adds the rewrite to the synthesis script only
when a candidate ``$mul`` exists, so designs without one get a byte-identical ``pre.json``.

Usage: :func:`param_mul_commands` returns Yosys commands to run on a flattened design after
``synth_xilinx -run :map_dsp`` (before ``map_dsp`` would turn the ``$mul`` into a DSP48E1), e.g. with
the selection from :func:`param_wire_selection`.

Selection rules (Yosys 0.23 ``help select``): the parameter wires are expanded through chains of
plain registers (``$dff``/``$dffe`` D -> Q, i.e. parameter registers) with ``%co*:+$dff,$dffe[D,Q]``;
a ``$mul`` is rewritten when one step of the output cone restricted to its B port (``%co:+[B]``)
reaches it, i.e. when at least one bit of B is a parameter bit (resp. A with ``$__DCS_PMUL_A``). A
``$mul`` reached through both A and B (parameter-only logic when both operands are pure parameters,
free for TMAP) is left alone. The
rewrite is a correct multiplier for any input, so a mixed operand (parameter and regular bits) only
costs optimality, never correctness.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import FlowError

#: Default chunk width (bits of the regular operand per chunk product) = the TLUT size K of 7-series.
DEFAULT_CHUNK = 6

#: Names of the Yosys selection variables used by :func:`param_mul_commands`.
_SETS = ("__dcs_par", "__dcs_pmb", "__dcs_pma", "__dcs_pmab")

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


class ParamArithError(FlowError):
    """Bad argument to the parameter-arithmetic helpers (chunk < 1, unusable port name)."""


def is_identifier(name: str) -> bool:
    """True when ``name`` is a plain Verilog identifier (usable as ``w:<name>`` in a selection)."""
    return bool(_IDENT.match(name))


def param_mul_map() -> Path:
    """Path of the techmap file ``param_mul.v`` (package data ``flow/yosys_lib/param_mul.v``).

    Raises FileNotFoundError if the package was installed without its data files.
    """
    p = Path(__file__).resolve().parent / "yosys_lib" / "param_mul.v"
    if not p.is_file():
        raise FileNotFoundError(f"dcsflow techmap missing: {p} (reinstall the package)")
    return p


def param_wire_selection(names: list[str] | tuple[str, ...] = (), attribute: str = "PARAM") -> str:
    """Yosys selection of the parameter wires of a flattened top module.

    The input ports carrying the attribute ``attribute`` (any letter case, e.g. ``(* PARAM *)``)
    plus the wires named in ``names`` (user-given parameter ports). Returns a selection expression
    (several patterns are united by Yosys). Raises ParamArithError for a name that is not a plain
    Verilog identifier.
    """
    if not _IDENT.match(attribute):
        raise ParamArithError(f"attribute {attribute!r} is not a Verilog identifier")
    pat = "".join(f"[{ch.upper()}{ch.lower()}]" if ch.isalpha() else ch for ch in attribute)
    parts = [f"a:{pat} i:* %i"]
    for n in names:
        if not _IDENT.match(n):
            raise ParamArithError(f"parameter port {n!r} is not a Verilog identifier")
        parts.append(f"w:{n}")
    return " ".join(parts)


def param_mul_commands(param_selection: str, chunk: int = DEFAULT_CHUNK,
                       through_registers: bool = True, map_file: Path | None = None) -> list[str]:
    """Yosys commands that decompose every ``$mul`` with one parameter operand into chunk products.

    Args:
        param_selection: Yosys selection of the parameter wires (e.g. :func:`param_wire_selection`);
            an empty selection is fine (nothing changes).
        chunk: bits of the regular operand per chunk product (>= 1); use the TLUT input count K.
        through_registers: also follow parameter registers (``$dff``/``$dffe`` D -> Q chains).
        map_file: techmap file (default :func:`param_mul_map`).
    Returns:
        commands, one per list element (no newlines). They leave the selection cleared; a design
        without ``$mul`` or without parameter wires is not changed.
    Raises:
        ParamArithError: chunk < 1.
    """
    if not isinstance(chunk, int) or chunk < 1:
        raise ParamArithError(f"chunk width must be a positive integer, got {chunk!r}")
    _, pmb, pma, _ = _SETS
    mp = Path(map_file) if map_file is not None else param_mul_map()
    cmds = _select_param_muls(param_selection, through_registers) + [
        f"chtype -set $__DCS_PMUL @{pmb}",
        f"chtype -set $__DCS_PMUL_A @{pma}",
        f"setparam -set CHUNK {chunk} @{pmb} @{pma}",
        "select -clear",
        f'techmap -map "{mp}"',
    ]
    return cmds


def _select_param_muls(param_selection: str, through_registers: bool) -> list[str]:
    """Commands leaving the ``$mul`` cells with a parameter operand on B (resp. only on A) in the
    selection variables ``__dcs_pmb`` (``__dcs_pma``)."""
    par, pmb, pma, pmab = _SETS
    cmds = [f"select -set {par} {param_selection}"]
    if through_registers:
        cmds.append(f"select -set {par} @{par} %co*:+$dff,$dffe[D,Q]")
    return cmds + [
        f"select -set {pmb} @{par} %co:+[B] t:$mul %i",
        f"select -set {pma} @{par} %co:+[A] t:$mul %i",
        f"select -set {pmab} @{pmb} @{pma} %i",          # both operands parameters: leave alone
        f"select -set {pmb} @{pmb} @{pmab} %d",
        f"select -set {pma} @{pma} @{pmab} %d",
    ]


def soft_mul_commands(param_selection: str, through_registers: bool = True) -> list[str]:
    """Yosys commands for the conventional baseline: the multipliers :func:`param_mul_commands` would
    rewrite are kept out of DSP48E1 inference and left to Yosys's own soft-logic multiplier
    (``alumacc``/``maccmap``, LUTs + CARRY4). To run after ``synth_xilinx -run :map_dsp``: the cells
    become ``$__soft_mul``, which ``map_dsp`` skips and turns back into ``$mul`` at its end
    (Yosys 0.23 ``help synth_xilinx``, step map_dsp). Leaves the selection cleared."""
    _, pmb, pma, _ = _SETS
    return _select_param_muls(param_selection, through_registers) + [
        f"chtype -set $__soft_mul @{pmb} @{pma}", "select -clear"]


def probe_commands(param_selection: str, count_file: str) -> list[str]:
    """Yosys commands that write the number of possible rewrite candidates to ``count_file``.

    To run on an elaborated, flattened design (``hierarchy; proc; flatten``). Counts the ``$mul``
    cells reachable from a parameter wire by any path (``%co*``), a superset of what
    :func:`param_mul_commands` rewrites after synth_xilinx's ``prepare`` step (its optimizations
    do not create new structural paths). Read the result with :func:`parse_count`.
    """
    return [f"select -set __dcs_par {param_selection}",
            f"tee -q -o {count_file} select -count @__dcs_par %co* t:$mul %i",
            "select -clear"]


def parse_count(text: str) -> int:
    """Number in the output of Yosys ``select -count`` (``"<n> objects."``). Raises ValueError."""
    m = re.search(r"(\d+) objects?\.", text)
    if not m:
        raise ValueError(f"unexpected 'select -count' output: {text.strip()[:80]!r}")
    return int(m.group(1))
