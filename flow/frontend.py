"""Yosys front end: synthesis up to LUT mapping, hand-off of the fine-grained logic, continuation.

Stages (docs/architecture.md, "Front end"; Yosys 0.23 ``help synth_xilinx``):

1. :func:`synthesize_pre` runs ``synth_xilinx -flatten -top T -run :map_luts`` plus the first command
   of ``map_luts`` (``opt_expr -mux_undef -noclkinv``) and writes ``pre.json`` (Yosys JSON). FFs, CARRY4,
   MUXF7/F8, RAM and DSP cells are already what synth_xilinx makes them; what is left as ``$_AND_``,
   ``$_XOR_``, ``$_MUX_`` ... gates is exactly what ``abc -luts`` would map.
   The synth_xilinx run is split at ``map_dsp`` (``-run :map_dsp``, then ``-run map_dsp:map_luts`` in
   the same Yosys session); in between, every ``$mul`` with exactly one parameter operand is
   decomposed into chunk products (:mod:`dcsflow.flow.param_arith`, ``flow/yosys_lib/param_mul.v``), whose
   bits each depend on at most ``DesignSpec.mul_chunk`` regular inputs (one TLUT each). Such a
   multiplier therefore never becomes a DSP48E1: it is built from LUTs (and CARRY4 for the sum of
   the chunk products). The conventional build then gets its own front-end result
   (:data:`CONVENTIONAL_PRE`) in which the same multiplier is kept out of DSP inference and left to
   Yosys's soft multiplier, so both builds implement it in LUTs. A ``$mul`` without a parameter
   operand, or with two, is left to synth_xilinx (DSP48E1).
   A quick elaboration-only Yosys probe runs first; without a candidate ``$mul`` the unsplit script
   runs, so such designs (e.g. π16-Cipher) get a byte-identical ``pre.json``.
   Without a top module, an elaboration-only probe (:func:`top_candidates`) first makes sure there is
   exactly one candidate (Yosys's ``hierarchy -auto-top`` would pick one of several silently).
   Non-ASCII text in an attribute or string parameter is refused (:func:`check_json_text`).
2. :func:`extract_logic` finds the parameter inputs (``(* PARAM *)`` ports and/or names given by the
   user), follows them through their IBUFs, folds **parameter registers** (FFs whose D is a parameter
   or ``mux(parameter, Q)`` and whose reset is tied inactive) into the parameter, replaces
   **parameter-only registers** (D and any synchronous reset parameter-only) by gates, and writes the gate
   logic as an AIGER whose inputs are the boundary nets (parameter inputs marked by name) and whose
   outputs are the gate-driven nets read by other cells or ports. Parameter bits read directly by a
   non-gate cell become outputs too (the mapper gives them a "tunable constant" TLUT). A
   combinational loop among the gates is an error naming a net on it (both walks over the gates
   check for one). Only input ports can be parameter inputs (``(* PARAM *)`` on an output: error).
3. :func:`reimport` puts the mapper's TLUT netlist (format "dcsflow-tlut-netlist" v1) back: static
   LUTs as ``$lut`` cells (exactly what ABC's result becomes), TLUTs as opaque black-box cells
   ``DCS_TLUT<k>`` so that no Yosys pass (``lut_map``, ``xilinx_dffopt``, ``opt_lut_ins``) can rewrite
   a truth table that is not fixed; :func:`continue_synthesis` runs the rest of synth_xilinx and
   :func:`finalize_tluts` turns them into ``LUT<k>`` cells with attributes ``dcs_tlut`` and ``dcs_ppc``
   (comma-separated PPC output index of INIT bit 0, 1, ...) and physical input order I0..I(k-1)
   = the netlist's input order.
"""

from __future__ import annotations

import json
from concurrent import futures
import os
import re
from dataclasses import dataclass, field, asdict
from pathlib import Path
from typing import Callable

from dcsflow import limits
from dcsflow.aig import Aig, write_aiger
from dcsflow.fileio import TEXT_LIMIT, InputError, loads_json, read_input_bytes, write_text_atomic

from .errors import FrontendError  # noqa: F401  (part of this module's API)
from .adders import Decision, check_mode, cone_commands, logic_commands, name_pattern, ripple_map
from .adders import probe_commands as adder_probe_commands
from .param_arith import (DEFAULT_CHUNK, is_identifier, param_mul_commands, param_mul_map, param_wire_selection,
                          parse_count,
                          probe_commands, soft_mul_commands)
from .yosys import YosysError, quotable, quote, run_script, script_path


#: Fine-grained gate cells that ``abc`` maps (Yosys ``abc`` pass, cell library of simplemap).
GATE_TYPES = {"$lut", "$_BUF_", "$_NOT_", "$_AND_", "$_NAND_", "$_OR_", "$_NOR_", "$_XOR_", "$_XNOR_",
              "$_ANDNOT_", "$_ORNOT_", "$_MUX_", "$_NMUX_", "$_AOI3_", "$_OAI3_", "$_AOI4_", "$_OAI4_"}

#: synth_xilinx default LUT mapping (Yosys 0.23, step map_luts).
ABC_LUTS_DEFAULT = "abc -luts 2:2,3,6:5,10,20"

TLUT_CELL = "DCS_TLUT"

#: Front-end result of the conventional baseline when it differs from ``pre.json`` (a multiplier with
#: a parameter operand: chunk products in pre.json, Yosys's soft multiplier here); else absent.
CONVENTIONAL_PRE = "pre_conventional.json"


@dataclass
class DesignSpec:
    """What to synthesize.

    sources: Verilog files (any path: :func:`dcsflow.flow.yosys.script_path`); top: top module (None:
    the one module no other module instantiates, :func:`top_candidates`; several are an error);
    chparams: Verilog parameters
    of the top (name -> value); params: parameter port names given by the user in addition to
    ``(* PARAM *)`` ports; defines: ``-D`` macros; mul_chunk: regular-operand bits per chunk product
    when a ``$mul`` with a parameter operand is decomposed (use the TLUT size K; 0 = no decomposition,
    synth_xilinx's own multiplier mapping); conventional_chparams: Verilog parameters that differ in
    the conventional baseline (its own ``pre_conventional.json``; e.g. ``aes128_iter``'s on-the-fly
    key schedule, ``KEY_TABLE=0``, where the TLUT build takes the round-key table); adders: which
    adders fed by a parameter input go to the LUT mapper as logic instead of a CARRY4 chain
    (:mod:`dcsflow.flow.adders`: ``auto``, ``carry`` or ``logic``); lut_size: the LUT size K the
    ``auto`` rule counts regular inputs against.
    """

    sources: list[Path]
    top: str | None = None
    chparams: dict[str, int | str] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    defines: dict[str, str] = field(default_factory=dict)
    mul_chunk: int = DEFAULT_CHUNK
    conventional_chparams: dict[str, int | str] = field(default_factory=dict)
    adders: str = "auto"
    lut_size: int = 6


def _vlog_value(v: int | str) -> str:
    return str(v) if isinstance(v, int) else f'"{v}"'


#: what a module name, Verilog parameter or macro name may look like in a Yosys script: a Verilog
#: identifier, or an escaped identifier (``\\name``) without white space, quotes or ``;``
_SCRIPT_NAME = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_$]*|\\[!-~]+)$")


def _check_script_words(spec: DesignSpec) -> None:
    """Refuse names and values that cannot be written into a Yosys script line as one word (a
    line break in ``--top`` would even start a new command). Raises FrontendError."""
    def bad_name(what: str, name) -> None:
        if not isinstance(name, str) or not _SCRIPT_NAME.match(name) or any(c in name for c in '";'):
            raise FrontendError(f"{what} {name!r} is not a Verilog identifier")

    if spec.top is not None:
        bad_name("top module", spec.top)
    for k, v in [*spec.chparams.items(), *spec.conventional_chparams.items()]:
        bad_name("Verilog parameter", k)
        if not isinstance(v, int) and (not str(v).isascii() or any(c in str(v) for c in '"\\\n\r')):
            raise FrontendError(f"Verilog parameter {k}: value {v!r} must be an integer or an ASCII "
                                "string without quotes, backslashes or line breaks")
    for k, v in spec.defines.items():
        bad_name("macro", k)
        if not _BARE_VALUE.match(str(v)):
            raise FrontendError(f"macro {k}: value {v!r} must be one word of letters, digits and _.+-")


_BARE_VALUE = re.compile(r"^[A-Za-z0-9_.+-]*$")


def _source_words(spec: DesignSpec, workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The ``read_verilog`` arguments naming the sources (absolute, quoted when needed; a path Yosys
    cannot take is reached through a link in ``workdir``, :func:`dcsflow.flow.yosys.script_path`)
    with an ``-I`` for the folder of a source whose own name needed a link, and the map
    script name -> the user's path (for error messages)."""
    words: list[str] = []
    incs: list[str] = []
    names: dict[str, str] = {}
    for p in spec.sources:
        r = p.resolve()
        name = script_path(r, workdir)
        if name != str(r):
            names[name] = str(p)
            if not quotable(r.name):
                d = script_path(r.parent, workdir)
                if f"-I {quote(d)}" not in incs:
                    incs.append(f"-I {quote(d)}")
                names[d] = str(p.parent)
        words.append(f'"{name}"')
    return incs + words, names


def frontend_limits(sources) -> dict[str, tuple[float, str]]:
    """The front end's default time limits of Yosys and GHDL for the HDL files ``sources``
    (:func:`dcsflow.limits.frontend_time_limit` of their total size; a file that cannot be read
    counts 0 bytes, its reader says why), for :func:`dcsflow.limits.tool_defaults`."""
    total = 0
    for p in sources:
        try:
            total += os.stat(p).st_size
        except OSError:
            pass
    seconds = limits.frontend_time_limit(total)
    source = f"the front end's default for {limits.format_bytes(total)} of HDL"
    return {"yosys": (seconds, source), "ghdl": (seconds, source)}


def _run_writing(lines: list[str], out_name: str, workdir: Path, name: str, status, names: dict[str, str],
                 defaults: dict | None = None) -> float:
    """:func:`_run` of the commands ``lines`` followed by ``write_json`` of the design into
    ``workdir/out_name``: Yosys writes a temporary file beside it, renamed only when Yosys has
    finished, so a run that fails or is killed while writing never leaves a partial file under
    the name later steps read (the temporary is removed). ``defaults``: the front end's default
    time limits (:func:`frontend_limits`) for a run in a job of its own (another thread or process)."""
    tmp = Path(workdir) / f".{out_name}.tmp"
    try:
        with limits.tool_defaults(defaults):
            secs = _run("\n".join([*lines, f"write_json {tmp.name}"]) + "\n", workdir, name, status, names)
        os.replace(tmp, Path(workdir) / out_name)
    finally:
        tmp.unlink(missing_ok=True)
    return secs


def _run(script: str, workdir: Path, name: str, status, names: dict[str, str]) -> float:
    """:func:`run_script`, with the links of :func:`_source_words` named as the user's paths in an
    error message."""
    try:
        return run_script(script, workdir, name, status)
    except YosysError as e:
        msg = str(e)
        for link, user in sorted(names.items(), key=lambda kv: -len(kv[0])):
            msg = msg.replace(link, user)
        if msg == str(e):
            raise
        raise YosysError(msg) from None


def synthesize_pre(spec: DesignSpec, workdir: Path, status: Callable[[str], None] | None = None,
                   submit: Callable | None = None, pending: list | None = None) -> tuple[Path, str, float]:
    """Run Yosys up to LUT mapping; returns (pre.json path, top module name, Yosys seconds summed
    over its runs).

    Without ``spec.top`` a quick elaboration-only Yosys probe (:func:`top_candidates`) first finds the
    modules no other module instantiates: more than one is an error (Yosys would pick one silently).
    When the conventional baseline needs its own front end (:data:`CONVENTIONAL_PRE`), ``submit``
    (e.g. :meth:`dcsflow.flow.jobs.Jobs.submit`: ``submit(name, fn, *args)`` -> a future) runs it
    beside the TLUT build's; None: one after the other. The two runs share no file they write.
    ``pending`` (a list, with ``submit``): do not wait for that job; append a callable that waits
    for it, checks its netlist and returns its seconds (raising what it raises), so that the caller
    can work on ``pre.json`` meanwhile; the seconds returned here are then the TLUT build's only.

    Raises:
        YosysError: Yosys failed (syntax errors carry Yosys's file:line message; a crash its exit
            status or signal and last output line).
        FrontendError: chparams given without a top module; several top-module candidates and no
            top; a top, parameter or macro that is not one word of a Yosys script; non-ASCII text
            in an attribute or string parameter (Yosys 0.23 cannot carry it through its JSON).
        ParamArithError: mul_chunk < 0.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    _check_script_words(spec)
    defs = " ".join(f"-D{k}={v}" for k, v in spec.defines.items())
    words, names = _source_words(spec, workdir)
    lines = _read_commands(spec, defs, words)
    # before any Yosys run: the sources' expression depth is checked while their blocks are read
    blocks = _block_selection(spec, workdir)
    probe_secs = 0.0
    if not spec.top:
        cands, probe_secs = _top_probe(lines, workdir, status, names)
        if len(cands) > 1:
            raise FrontendError("several top-module candidates (modules no other module instantiates): "
                                + ", ".join(cands) + "; give --top")
    top_opt = f"-top {spec.top}" if spec.top else ""
    # a name that is no identifier cannot be a port: extract_logic reports it with the port list
    psel = " ".join([param_wire_selection([n for n in spec.params if is_identifier(n)]), *blocks])
    mode = check_mode(spec.adders)
    candidates, n_adders = False, 0
    if spec.mul_chunk or mode != "carry":
        candidates, n_adders, secs = _param_probe(lines, spec.top, psel, workdir, status, names,
                                                  mul=bool(spec.mul_chunk))
        probe_secs += secs
    add_cmds, decision, secs = _adder_commands(lines, spec, psel, mode, n_adders, workdir, status, names)
    probe_secs += secs
    tail = ["opt_expr -mux_undef -noclkinv",
            "delete =A:blackbox =A:whitebox"]   # library cells are read again by the continuation
    conv = workdir / CONVENTIONAL_PRE
    conv.unlink(missing_ok=True)
    (workdir / "pre.json").unlink(missing_ok=True)     # no earlier run's netlist left if this one fails
    secs = probe_secs
    lines, conv_lines = _synth_commands(lines, spec, top_opt, psel, candidates, add_cmds, tail, workdir)
    later = [] if pending is not None and submit is not None else None
    secs += _both_front_ends(lines + tail, conv_lines, workdir, status, names, submit, later)
    _write_adders(workdir, mode, spec.lut_size, n_adders, decision)
    pre = workdir / "pre.json"
    _check_front_ends(pre, conv, later, pending)
    top = spec.top or _find_top(json.loads(pre.read_bytes()))
    return pre, top, secs


def _read_commands(spec: DesignSpec, defs: str, words: list[str]) -> list[str]:
    """The Yosys commands that read the design: ``read_verilog`` of the source words with the macro
    definitions ``defs``, and ``chparam`` of the Verilog parameters.

    Raises:
        FrontendError: Verilog parameters without a top module.
    """
    lines = [f"read_verilog -sv {defs} " + " ".join(words)]
    if spec.chparams:
        if not spec.top:
            raise FrontendError("Verilog parameters need --top")
        sets = " ".join(f"-set {k} {_vlog_value(v)}" for k, v in spec.chparams.items())
        lines.append(f"chparam {sets} {spec.top}")
    return lines


def _adder_commands(lines: list[str], spec: DesignSpec, psel: str, mode: str, n_adders: int, workdir: Path,
                    status, names: dict[str, str]) -> tuple[list[str], Decision | None, float]:
    """The commands that send the parameter-fed adders chosen by the adder mode ``mode`` to the LUT
    mapper (every one for ``logic``, :func:`_adder_decision`'s for ``auto``, none for ``carry``);
    removes an earlier run's :data:`ADDERS_FILE` and adder list first. Returns (commands, the
    ``auto`` rule's decision or None, seconds of its probe)."""
    add_cmds, decision, secs = [], None, 0.0
    (workdir / ADDERS_FILE).unlink(missing_ok=True)
    (workdir / _ADDERS_LIST).unlink(missing_ok=True)
    selection = ""
    if n_adders and mode == "logic":
        add_cmds, selection = cone_commands(psel, "__dcs_adsel"), "@__dcs_adsel"
    elif n_adders and mode == "auto":
        decision, secs = _adder_decision(lines, spec, workdir, status, names)
        selection = " ".join(name_pattern(n) for n in decision.logic)
    if selection:
        add_cmds += logic_commands(selection, _lib_file(ripple_map(), workdir), list_file=_ADDERS_LIST)
    return add_cmds, decision, secs


def _synth_commands(lines: list[str], spec: DesignSpec, top_opt: str, psel: str, candidates: bool,
                    add_cmds: list[str], tail: list[str], workdir: Path) -> tuple[list[str], list[str] | None]:
    """The synthesis commands up to LUT mapping after the read commands ``lines``: returns (the TLUT
    build's commands, without ``tail``; the conventional baseline's own front end with ``tail``, or
    None when it shares the TLUT build's). With parameter-operand multipliers (``candidates``) both
    split at ``map_dsp``; the TLUT build's also runs the adder commands ``add_cmds``."""
    conv_lines = None                       # the conventional baseline's own front end, if it needs one
    split = lambda cmds: ([f"synth_xilinx -flatten {top_opt} -run :map_dsp"] + cmds  # noqa: E731
                          + [f"synth_xilinx -flatten {top_opt} -run map_dsp:map_luts"])
    if candidates:
        # split at map_dsp (Yosys 0.23 labels): parameter-operand multipliers become chunk products
        # before mul2dsp/alumacc see them. The conventional baseline gets its own pre-json in which
        # the same multipliers are Yosys's soft-logic multipliers (no chunk products, no DSP48E1):
        # the builds differ only in the LUT mapping of the same multiplier, not in its architecture.
        conv_lines = lines + split(soft_mul_commands(psel)) + tail
        mul_map = _lib_file(param_mul_map(), workdir)
        lines = lines + split(param_mul_commands(psel, spec.mul_chunk, map_file=mul_map) + add_cmds)
    else:
        if spec.conventional_chparams or add_cmds:
            # the conventional baseline keeps every adder a CARRY4 chain (and takes its own chparams)
            sets = " ".join(f"-set {k} {_vlog_value(v)}" for k, v in spec.conventional_chparams.items())
            conv_lines = (lines + ([f"chparam {sets} {spec.top}"] if sets else [])
                          + [f"synth_xilinx -flatten {top_opt} -run :map_luts"] + tail)
        lines = lines + (split(add_cmds) if add_cmds else [f"synth_xilinx -flatten {top_opt} -run :map_luts"])
    return lines, conv_lines


def _check_front_ends(pre: Path, conv: Path, later: list | None, pending: list | None) -> None:
    """:func:`_check_front_json` of the front ends' netlists once written. With a conventional front
    end still running (``later``: its futures), only ``pre.json`` now; a callable for ``pending``
    waits for the job, checks its netlist and returns its seconds. After a bad ``pre.json`` the
    conventional job is waited for and its netlist removed.

    Raises:
        FrontendError: a front end's netlist carries text Yosys could not (:func:`check_json_text`).
    """
    try:
        _check_front_json(pre if later else None, pre, conv)
    except FrontendError:
        futures.wait(later or [])              # no conventional netlist written after this error
        conv.unlink(missing_ok=True)
        raise
    for fut in later or ():
        def finish(fut=fut) -> float:
            s = fut.result()
            _check_front_json(conv, pre, conv)
            return s
        pending.append(finish)


def _check_front_json(only: Path | None, pre: Path, conv: Path) -> None:
    """:func:`check_json_text` of the front ends' netlists (``only``: just that one); a bad one
    removes both (not left behind looking valid) and raises FrontendError."""
    for path in (only,) if only is not None else (pre, conv):
        raw = path.read_bytes() if path.exists() else b""
        if b"\\uFFFF" in raw:                    # cheap test first: pre.json can be large
            try:
                check_json_text(json.loads(raw))
            except FrontendError:
                pre.unlink(missing_ok=True)
                conv.unlink(missing_ok=True)
                raise


def _both_front_ends(lines: list[str], conv_lines: list[str] | None, workdir: Path, status, names: dict[str, str],
                     submit: Callable | None, later: list | None = None) -> float:
    """:func:`_run_writing` of the TLUT build's front end (``lines`` -> ``pre.json``) and, if
    given, of the conventional baseline's (``conv_lines`` -> :data:`CONVENTIONAL_PRE`), the latter
    as a job of ``submit`` (without progress: it may run in a worker process) while the former runs
    here; ``submit`` None: the conventional one first, in this process. Returns the seconds of both.
    Raises what either raises (the TLUT run's error first; the job is waited for, so no Yosys is
    left running). ``later`` (a list): the job is not waited for; its future (of its seconds) is
    appended instead."""
    tlut = (lines, "pre.json", workdir, "frontend")
    if conv_lines is None:
        return _run_writing(*tlut, status, names)
    conv = (conv_lines, CONVENTIONAL_PRE, workdir, "frontend_conventional")
    if submit is None:
        return _run_writing(*conv, status, names) + _run_writing(*tlut, status, names)
    fut = submit("frontend conventional", _run_writing, *conv, None, names, limits.current_defaults())
    try:
        secs = _run_writing(*tlut, status, names)
    except BaseException:
        fut.cancel()
        futures.wait([fut])
        raise
    if later is None:
        return secs + fut.result()
    later.append(fut)
    return secs


def _top_probe(read_lines: list[str], workdir: Path, status, names: dict[str, str]) -> tuple[list[str], float]:
    """Elaboration-only Yosys run (``read_verilog``, ``proc``, ``write_json``, no ``hierarchy``):
    returns (:func:`top_candidates` of the design, seconds); writes ``top_probe.{ys,log,json}``."""
    script = read_lines + ["proc", "write_json top_probe.json"]
    secs = _run("\n".join(script) + "\n", workdir, "top_probe", status, names)
    return top_candidates(json.loads((workdir / "top_probe.json").read_bytes())), secs


def top_candidates(doc: dict) -> list[str]:
    """Modules of a Yosys JSON document (read before ``hierarchy``) that could be the top: the one
    module carrying a true ``top`` attribute if there is exactly one, else every module that is no
    black or white box and that no cell of another module instantiates, in document order."""
    mods = {n: m for n, m in doc.get("modules", {}).items()
            if not any(_is_true_attr(m.get("attributes", {}).get(a, "0")) for a in ("blackbox", "whitebox"))}
    marked = [n for n, m in mods.items() if _is_true_attr(m.get("attributes", {}).get("top", "0"))]
    if len(marked) == 1:
        return marked
    used = {c.get("type") for n, m in mods.items() for c in m.get("cells", {}).values()
            if c.get("type") != n}
    return [n for n in mods if n not in used]


#: Yosys 0.23's JSON writer turns every non-ASCII byte into ``\uFFFFFFxx`` (a sign-extended char);
#: decoded, that is U+FFFF followed by ``FFxx``, and Yosys's own JSON reader rejects it.
_MANGLED = "\uffff"


def check_json_text(doc: dict) -> None:
    """Refuse a Yosys JSON document that holds non-ASCII text: a name, attribute or string
    parameter with bytes that Yosys 0.23 mangled on writing (:data:`_MANGLED`), which its own JSON
    reader then rejects.

    Raises:
        FrontendError: one line naming the object (module, wire, cell, port), the attribute or
            parameter, and its source location when known.
    """
    hit = _find_mangled(doc, ())
    if hit is None:
        return
    path = hit
    kinds = {"netnames": "wire", "cells": "cell", "ports": "port"}
    what, obj = "the netlist", doc
    if len(path) >= 2 and path[0] == "modules":
        m = doc["modules"][path[1]]
        what, obj = f"module {_demangle(path[1])}", m
        if len(path) >= 4 and path[2] in kinds:
            obj = m[path[2]][path[3]]
            what = f"{kinds[path[2]]} {_demangle(path[3])}"
            rest = path[4:]
        else:
            rest = path[2:]
        if rest and rest[0] in ("attributes", "parameters") and len(rest) >= 2:
            label = "attribute" if rest[0] == "attributes" else "parameter"
            what = f"{label} {_demangle(rest[1])} of {what}"
    src = obj.get("attributes", {}).get("src", "") if isinstance(obj, dict) else ""
    src = str(src)
    where = f"{_short_src(src)}: " if src and _MANGLED not in src else ""
    if path and path[-1] == "src":
        what += " (a source file name)"
    raise FrontendError(f"{where}non-ASCII text in {what}: Yosys 0.23 cannot carry it through its JSON "
                        "netlists; use ASCII")


def _find_mangled(x, path: tuple):
    """Path (keys) to the first key or string in ``x`` holding :data:`_MANGLED`, or None."""
    if isinstance(x, str):
        return path if _MANGLED in x else None
    if isinstance(x, dict):
        for k, v in x.items():
            if _MANGLED in k:
                return path + (k,)
            hit = _find_mangled(v, path + (k,))
            if hit is not None:
                return hit
    elif isinstance(x, list):
        for i, v in enumerate(x):
            hit = _find_mangled(v, path + (i,))
            if hit is not None:
                return hit
    return None


def _short_src(src: str) -> str:
    """``file:line`` of a Yosys ``src`` attribute (``file:l1.c1-l2.c2``, several joined by ``|``)."""
    first = src.split("|")[0]
    m = re.match(r"^(.*):(\d+)(?:\.\d+)?(?:-\d+(?:\.\d+)?)?$", first)
    return f"{m.group(1)}:{m.group(2)}" if m else first


def _demangle(text: str) -> str:
    """Undo Yosys 0.23's non-ASCII escapes for a message (bytes decoded as UTF-8, else shown as \\xNN)."""
    raw = bytearray()
    i = 0
    while i < len(text):
        if text.startswith(_MANGLED, i) and re.match(r"^FF[0-9A-Fa-f]{2}$", text[i + 1:i + 5]):
            raw.append(int(text[i + 3:i + 5], 16))
            i += 5
        else:
            raw += text[i].encode("utf-8", "replace")
            i += 1
    return bytes(raw).decode("utf-8", "backslashreplace")


def _param_probe(read_lines: list[str], top: str | None, psel: str, workdir: Path,
                 status: Callable[[str], None] | None, names: dict[str, str] | None = None,
                 mul: bool = True, adders: bool = True) -> tuple[bool, int, float]:
    """Quick Yosys probe (elaboration only): may the design contain a ``$mul`` fed by a parameter
    wire (:func:`dcsflow.flow.param_arith.probe_commands`), and how many adders have an operand
    depending on one (:func:`dcsflow.flow.adders.probe_commands`)? Returns (mul answer, adder
    count, seconds); writes ``probe.ys``/``probe.log``/``probe_count.txt``/``probe_adders.txt`` in
    ``workdir``."""
    hier = f"hierarchy -top {top}" if top else "hierarchy -auto-top"
    script = (read_lines + [hier, "proc", "flatten"] + (probe_commands(psel, "probe_count.txt") if mul else [])
              + (adder_probe_commands(psel, "probe_adders.txt") if adders else []))
    secs = _run("\n".join(script) + "\n", workdir, "probe", status, names or {})

    def count(name: str) -> int:
        return parse_count((workdir / name).read_text(encoding="utf-8", errors="replace"))

    return (count("probe_count.txt") > 0 if mul else False), (count("probe_adders.txt") if adders else 0), secs


#: the front end's record of its adder decisions (format "dcsflow-adders", docs/formats.md)
ADDERS_FILE = "adders.json"
_ADDERS_LIST = "adders_logic.txt"


def _lib_file(path: Path, workdir: Path) -> Path:
    """A package data file (a techmap file of ``flow/yosys_lib/``) as a path a Yosys script in
    ``workdir`` can name (a link when the installation's path cannot be written)."""
    return Path(script_path(path, workdir))


def _block_selection(spec: DesignSpec, workdir: Path) -> list[str]:
    """Yosys selection patterns of the input ports declared inside a ``//PARAM`` block of a Verilog
    source (:func:`dcsflow.flow.marks.verilog_blocks`), by their ``src`` line: so the multiplier and
    adder rewrites see those parameter inputs as they see ``(* PARAM *)`` ports. Each source's
    expressions are checked on the same read (:func:`dcsflow.flow.hdlsize.check_expression_depth`).
    Raises FrontendError for an unmatched ``//PARAM`` line or an expression too deep for Yosys."""
    from .hdlsize import check_expression_depth
    from .marks import verilog_blocks

    pats: list[str] = []
    for p in spec.sources:
        if Path(p).suffix.lower() not in (".v", ".sv", ".vh", ".svh"):
            continue
        try:
            text = read_input_bytes(p, TEXT_LIMIT, "HDL source").decode("latin-1")
        except InputError as e:              # a FIFO or device would hang Yosys too: refused here
            raise FrontendError(str(e)) from None
        except OSError:
            continue                         # Yosys reports the unreadable file
        check_expression_depth(Path(p), text)
        blocks = verilog_blocks(Path(p), text)
        if not blocks:
            continue
        name = re.sub(r"[^A-Za-z0-9_./+-]", "?", script_path(Path(p).resolve(), workdir))
        pats += [f"i:* a:src={name}:{ln}.* %i" for a, b in blocks for ln in range(a + 1, b)]
    return pats


def _adder_decision(read_lines: list[str], spec: DesignSpec, workdir: Path, status, names: dict[str, str]
                    ) -> tuple[Decision, float]:
    """The ``auto`` rule of :mod:`dcsflow.flow.adders` on an elaboration-only netlist
    (``probe_adders.json``, written by a second quick Yosys run). Returns (decision, seconds).
    Raises FrontendError for a ``--param`` name that is no input port."""
    from .adders import decide
    from .marks import verilog_marks

    hier = f"hierarchy -top {spec.top}" if spec.top else "hierarchy -auto-top"
    secs = _run("\n".join(read_lines + [hier, "proc", "flatten", "write_json probe_adders.json"]) + "\n",
                workdir, "probe_adders", status, names)
    doc = json.loads((workdir / "probe_adders.json").read_bytes())
    top = spec.top or _find_top(doc)
    module = doc["modules"][top]
    marked = verilog_marks(module, top, [p for p in spec.sources if Path(p).suffix.lower() in (".v", ".sv")])
    ports = param_ports_of(module, list(dict.fromkeys([*(n for n in spec.params if n in module["ports"]), *marked])))
    bits = {b for n in ports for b in module["ports"][n]["bits"] if isinstance(b, int)}
    (workdir / "probe_adders.json").unlink()
    return decide(module, bits, spec.lut_size), secs


def _write_adders(workdir: Path, mode: str, K: int, n_fed: int, decision: Decision | None) -> None:
    """Write :data:`ADDERS_FILE`: the mode, K, the adders fed by a parameter input, which of them went
    to the LUT mapper (the cells the synthesis run rewrote, from its ``select -list``; fewer than
    decided when Yosys merged equal adders first) and how many the rule kept as chains."""
    listed = workdir / _ADDERS_LIST
    applied = [ln.strip().split("/", 1)[-1] for ln in listed.read_text().splitlines() if ln.strip()] \
        if listed.exists() else []
    kept = len(decision.carry) if decision is not None else (n_fed if mode == "carry" else 0)
    rec = {"format": "dcsflow-adders", "version": 1, "mode": mode, "K": K, "fed_by_parameters": n_fed,
           "logic": sorted(applied), "carry": kept}
    if decision is not None:
        rec["rule"] = "logic when every output bit depends on at most K regular input bits"
        rec["adders"] = [{"cell": n, "src": decision.src.get(n, ""), "support": decision.support[n],
                          "logic": n in decision.logic} for n in sorted(decision.support)]
    write_text_atomic(workdir / ADDERS_FILE, json.dumps(rec, indent=1))


def _find_top(doc: dict) -> str:
    for name, m in doc["modules"].items():
        if _is_true_attr(m.get("attributes", {}).get("top", "0")):
            return name
    raise FrontendError("could not determine the top module; give --top")


# ---------------------------------------------------------------------------------------------
# extraction

@dataclass
class Extraction:
    """Result of :func:`extract_logic` (also saved as ``extract.json``).

    inputs: (AIG input name, net bit) of regular inputs; params: (name, net bit) of parameter
    inputs, name ``port[i]``; outputs: (AIG output name, net bit); param_ports: port name ->
    width; folded: names of the parameter registers folded away; gates: number of gate cells;
    ands: AND nodes of the AIG.
    """

    top: str
    inputs: list[tuple[str, int]]
    params: list[tuple[str, int]]
    outputs: list[tuple[str, int]]
    param_ports: dict[str, int]
    folded: list[str]
    gates: int
    ands: int
    aig: str = "logic.aag"

    def to_json(self) -> str:
        """Serialized form (JSON)."""
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str, name: str = "extract.json") -> "Extraction":
        """Inverse of :meth:`to_json`; ``name`` names the text in the refusal of JSON nested deeper than
        :data:`dcsflow.fileio.JSON_MAX_DEPTH` (:class:`dcsflow.fileio.InputError`)."""
        d = loads_json(text, name)
        d["inputs"] = [tuple(x) for x in d["inputs"]]
        d["params"] = [tuple(x) for x in d["params"]]
        d["outputs"] = [tuple(x) for x in d["outputs"]]
        return cls(**d)


def _is_true_attr(v) -> bool:
    s = str(v).strip()
    if s and set(s) <= {"0", "1"}:
        return int(s, 2) != 0
    return s.lower() in ("true", "yes", "1")


def param_ports_of(module: dict, extra: list[str]) -> dict[str, int]:
    """Parameter ports of a Yosys JSON module: ``(* PARAM *)`` input ports plus ``extra`` names.

    Returns port name -> width. Raises FrontendError when a name in ``extra`` is not an input
    port (the message lists the input ports), or when an output or inout port carries a true
    ``PARAM`` attribute (only input ports can be parameter inputs; the message names the port and
    its source line).
    """
    ports = module["ports"]
    inputs = [n for n, p in ports.items() if p["direction"] == "input"]
    out: dict[str, int] = {}
    for name, port in ports.items():
        attrs = module["netnames"].get(name, {}).get("attributes", {})
        if not any(k.upper() == "PARAM" and _is_true_attr(v) for k, v in attrs.items()):
            continue
        if port["direction"] != "input":
            src = str(attrs.get("src", ""))
            where = f"{_short_src(src)}: " if src else ""
            raise FrontendError(f"{where}(* PARAM *) marks {port['direction']} port {name}; "
                                "only input ports can be parameter inputs")
        out[name] = len(port["bits"])
    for name in extra:
        if name not in inputs:
            raise FrontendError(f"--param {name}: no input port of that name; input ports: "
                                + ", ".join(inputs))
        out[name] = len(ports[name]["bits"])
    return out


def check_param_names(names, option: str = "--param") -> list[str]:
    """The parameter port names given on the command line, checked: each at most once.

    A port that is both named here and marked ``(* PARAM *)`` / ``--PARAM`` in the HDL is fine; a
    name repeated here is a mistake (a typo for another port, most likely). Returns the names as a
    list, in order.

    Raises:
        FrontendError: ``--param key given twice`` (the first repeated name).
    """
    seen: set = set()
    for n in names:
        if n in seen:
            raise FrontendError(f"{option} {n} given twice")
        seen.add(n)
    return list(names)


def _bitname(port: str, i: int, width: int) -> str:
    return f"{port}[{i}]" if width > 1 else port


_FF_RE = re.compile(r"^\$_(DFF|DFFE|SDFF|SDFFE|SDFFCE|ADFF|ADFFE|DFFSR|DFFSRE|ALDFF|ALDFFE)_([NP01]+)_$")


def _ff_reset_inactive(cell: dict) -> bool:
    """True when the FF has no set/reset, or every set/reset input is a constant at its inactive level."""
    t = cell["type"]
    m = _FF_RE.match(t)
    if not m:
        return False
    kind, pol = m.groups()
    conns = cell["connections"]
    if kind in ("DFF", "DFFE"):
        return True
    if kind in ("SDFF", "SDFFE", "SDFFCE", "ADFF", "ADFFE"):
        active = "1" if pol[1] == "P" else "0"
        r = conns.get("R", ["x"])[0]
        return isinstance(r, str) and r in "01" and r != active
    if kind in ("DFFSR", "DFFSRE"):
        for port, p in (("S", pol[1]), ("R", pol[2])):
            active = "1" if p == "P" else "0"
            v = conns.get(port, ["x"])[0]
            if not (isinstance(v, str) and v in "01" and v != active):
                return False
        return True
    return False


def _enable_stuck_off(cell: dict) -> bool:
    """True when an enable FF's E input is a constant at its inactive level."""
    m = _FF_RE.match(cell["type"])
    if not m or "E" not in cell["connections"]:
        return False
    e = cell["connections"]["E"][0]
    active = "1" if m.group(2)[-1] == "P" else "0"
    return isinstance(e, str) and e in "01" and e != active


def extract_logic(pre: dict, top: str, extra_params: list[str] | None, workdir: Path | None,
                  fold_param_registers: bool = True) -> tuple[Extraction, dict]:
    """Extract the gate logic of ``top`` as AIGER ``workdir/logic.aag``.

    ``extra_params`` None: no parameter input at all, ``(* PARAM *)`` marks ignored (the
    conventional baselines' logic, :mod:`dcsflow.flow.baselines`). ``workdir`` None: write nothing. Returns the :class:`Extraction` and the module dict with
    parameter registers folded away and their Q nets replaced by the parameter nets (the input of
    :func:`reimport`).
    Raises FrontendError for an unknown parameter port, a ``(* PARAM *)`` output, or a
    combinational loop among the gates (``combinational loop through a in module T (nets on the
    loop: a, b)``, named by the netlist's wire names).
    """
    module = json.loads(json.dumps(pre["modules"][top]))  # private copy
    pports = {} if extra_params is None else param_ports_of(module, extra_params)
    param_of_bit, carrier = _parameter_bits(module, pports)
    folded: list[str] = []
    try:
        if fold_param_registers and param_of_bit:
            folded = _fold_registers(module, param_of_bit, carrier)
        gates = {n: c for n, c in module["cells"].items() if c["type"] in GATE_TYPES}
        gate_out = {c["connections"]["Y"][0]: n for n, c in gates.items()}
        in_bits, param_out_bits, out_bits = _aig_boundary(gates, gate_out, _boundary_reads(module, pports),
                                                          param_of_bit)
        aig = Aig()
        lit: dict = {"0": 0, "1": 1, "x": 0, "z": 0}
        params, inputs = _add_aig_inputs(aig, lit, in_bits, param_out_bits, param_of_bit, pports)
        outputs = _add_aig_outputs(aig, lit, gates, gate_out, out_bits, param_out_bits)
    except _Loop as loop:
        if workdir is not None:           # no AIG of an earlier run left looking like this one's
            for name in ("logic.aag", "extract.json"):
                (workdir / name).unlink(missing_ok=True)
        raise _loop_error(module, top, loop.bits) from None
    ext = Extraction(top=top, inputs=inputs, params=params, outputs=outputs, param_ports=pports,
                     folded=folded, gates=len(gates), ands=aig.num_ands)
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        write_aiger(aig, workdir / "logic.aag", binary=False)
        write_text_atomic(workdir / "extract.json", ext.to_json())
    return ext, module


#: cells the flow cannot turn into logic: a parameter input reaching one is an error
HARD_CELLS = ("DSP48E1", "RAMB18E1", "RAMB36E1", "FIFO18E1", "FIFO36E1")

#: cells fed by a parameter input that the build reports (they stay in the template as they are)
REPORTED_CELLS = ("CARRY4",) + HARD_CELLS


def param_fed_cells(module: dict, ext: Extraction) -> dict[str, list[str]]:
    """The cells of :data:`REPORTED_CELLS` with an input that depends on a parameter input through
    combinational cells (gates, LUTs, CARRY4, MUXF7/F8) of the folded module ``module``
    (:func:`extract_logic`'s). Returns cell type -> cell names, in netlist order."""
    comb = GATE_TYPES | {"CARRY4", "MUXF7", "MUXF8"} | {f"LUT{k}" for k in range(1, 7)}
    readers: dict = {}
    for n, c in module["cells"].items():
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            if dirs.get(p, "input") == "input":
                for b in bits:
                    if isinstance(b, int):
                        readers.setdefault(b, []).append(n)
    dep = {b for _, b in ext.params}
    todo = list(dep)
    fed: dict[str, list[str]] = {}
    seen_cells: set = set()
    while todo:
        b = todo.pop()
        for n in readers.get(b, ()):
            if n in seen_cells:
                continue
            seen_cells.add(n)
            c = module["cells"][n]
            if c["type"] in REPORTED_CELLS:
                fed.setdefault(c["type"], []).append(n)
            if c["type"] in comb:
                dirs = c.get("port_directions", {})
                for p, bits in c["connections"].items():
                    if dirs.get(p) == "output":
                        new = [x for x in bits if isinstance(x, int) and x not in dep]
                        dep.update(new)
                        todo += new
    order = {n: i for i, n in enumerate(module["cells"])}
    return {t: sorted(ns, key=order.__getitem__) for t, ns in sorted(fed.items())}


def check_hard_cells(module: dict, fed: dict[str, list[str]]) -> None:
    """Raise FrontendError (one line) when a parameter input reaches a cell of :data:`HARD_CELLS`
    (``fed`` from :func:`param_fed_cells`): its function cannot go into TLUTs, and in the TLUT
    build the parameter inputs no longer exist as nets."""
    for t in HARD_CELLS:
        for n in fed.get(t, []):
            src = str(module["cells"][n].get("attributes", {}).get("src", ""))
            where = f"{_short_src(src)}: " if src else ""
            hint = ("write the multiplication with the parameter port itself as one operand, so the front end "
                    "builds it from LUTs" if t == "DSP48E1" else
                    "keep the parameter out of the memory's address, data and enables, or describe the memory "
                    "as logic")
            raise FrontendError(f"{where}a parameter input reaches {t} cell {n}, which the flow cannot turn into "
                                f"logic; {hint}")


def _parameter_bits(module: dict, pports: dict[str, int]) -> tuple[dict[int, str], dict[str, int]]:
    """(net bit -> parameter bit name, parameter bit name -> the net that carries it into the logic).

    A parameter bit's nets are its port bit and the output of an IBUF/IBUFG reading it (or a net
    already known, in cell order); the carrier is the IBUF output if there is one, else the port bit."""
    ports, cells = module["ports"], module["cells"]
    param_of_bit: dict[int, str] = {}
    for p, w in pports.items():
        for i, b in enumerate(ports[p]["bits"]):
            if isinstance(b, int):
                param_of_bit[b] = _bitname(p, i, w)
    for c in cells.values():
        if c["type"] in ("IBUF", "IBUFG") and c["connections"]["I"][0] in param_of_bit:
            param_of_bit[c["connections"]["O"][0]] = param_of_bit[c["connections"]["I"][0]]
    port_bits = set(x for p in pports for x in ports[p]["bits"])
    carrier: dict[str, int] = {}
    for b, n in param_of_bit.items():
        if n not in carrier or b not in port_bits:
            carrier[n] = b
    return param_of_bit, carrier


def _has_keep(cell: dict) -> bool:
    """True when a cell carries a ``keep`` attribute (any value)."""
    return any(k.lower() == "keep" for k in cell.get("attributes", {}))


def _held_parameter(c: dict, driver_gate: dict, param_of_bit: dict, subst: dict) -> str | None:
    """The parameter bit a **parameter register** holds, or None: an FF whose set/reset is tied
    inactive and whose D (after ``subst``) is a parameter bit or ``mux(parameter, Q)`` (a load
    enable)."""
    if not _ff_reset_inactive(c):
        return None                       # only a parameter-only register may fold
    d, q = c["connections"]["D"][0], c["connections"]["Q"][0]
    d = subst.get(d, d)
    if d in param_of_bit:
        return param_of_bit[d]
    if d in driver_gate and driver_gate[d]["type"] == "$_MUX_":
        mc = driver_gate[d]["connections"]
        a, b = subst.get(mc["A"][0], mc["A"][0]), subst.get(mc["B"][0], mc["B"][0])
        if a == q and b in param_of_bit:
            return param_of_bit[b]
        if b == q and a in param_of_bit:
            return param_of_bit[a]
    return None


def _fold_round(cells: dict, driver_gate: dict, param_of_bit: dict, carrier: dict, subst: dict,
                port_bits: set, folded: list) -> bool:
    """One pass over the FFs in cell order: a parameter register is removed and its Q becomes the
    parameter (``subst``, ``param_of_bit``); a parameter-only register is removed with Q substituted
    by its D net, or replaced by the reset ``$_MUX_`` gate driving Q. Registers with a ``keep``
    attribute, a Q on a port or an enable stuck off stay. Appends folded names to ``folded``;
    returns True when anything was folded."""
    memo: dict = {}
    changed = False
    for name, c in list(cells.items()):
        if not _FF_RE.match(c["type"]):
            continue
        q = c["connections"]["Q"][0]
        pname = _held_parameter(c, driver_gate, param_of_bit, subst)
        gate = None if pname is not None else _param_only_register(c, driver_gate, param_of_bit, subst, memo)
        if (pname is None and gate is None) or _has_keep(c):
            continue
        if q in port_bits or _enable_stuck_off(c):
            continue                      # Q is a port, or the register never loads
        if isinstance(gate, dict):        # a register of a parameter-only function: its gate
            cells[name] = driver_gate[q] = gate
        else:
            if gate is not None:          # ... or the D net itself
                subst[q] = gate
            else:
                subst[q] = carrier[pname]
                param_of_bit[q] = pname
            del cells[name]
        folded.append(name)
        changed = True
    return changed


def _fold_registers(module: dict, param_of_bit: dict, carrier: dict) -> list[str]:
    """Fold parameter registers and parameter-only registers of ``module`` (in place; rounds until
    nothing changes, so chains of registers fold), then substitute the nets. Returns the names of
    the folded registers."""
    cells = module["cells"]
    folded: list[str] = []
    subst: dict = {}
    port_bits = {b for p in module["ports"].values() for b in p["bits"] if isinstance(b, int)}
    driver_gate = {c["connections"]["Y"][0]: c for c in cells.values() if c["type"] in GATE_TYPES}
    while _fold_round(cells, driver_gate, param_of_bit, carrier, subst, port_bits, folded):
        pass
    if subst:
        _apply_subst(module, subst)
    return folded


def _boundary_reads(module: dict, pports: dict[str, int]) -> set:
    """Nets read outside the gate logic: inputs of non-gate cells (except the parameter ports' own
    input buffers), output/inout port bits, and nets marked ``keep``."""
    ports = module["ports"]
    boundary_read: set = set()
    port_pbits = {b for p in pports for b in ports[p]["bits"]}
    for c in module["cells"].values():
        if c["type"] in GATE_TYPES:
            continue
        if c["type"] in ("IBUF", "IBUFG") and c["connections"]["I"][0] in port_pbits:
            continue                      # the parameter's own input buffer (removed with TLUTs)
        dirs = c.get("port_directions", {})
        for port, bits in c["connections"].items():
            if dirs.get(port, "input") != "output":
                boundary_read.update(b for b in bits if isinstance(b, int))
    for p in ports.values():
        if p["direction"] in ("output", "inout"):
            boundary_read.update(b for b in p["bits"] if isinstance(b, int))
    for nn in module["netnames"].values():
        if any(k.lower() == "keep" and _is_true_attr(v) for k, v in nn.get("attributes", {}).items()):
            boundary_read.update(b for b in nn["bits"] if isinstance(b, int))
    return boundary_read


def _aig_boundary(gates: dict, gate_out: dict, boundary_read: set, param_of_bit: dict) -> tuple[list, list, list]:
    """Sorted net bits of (AIG inputs: gate inputs no gate drives; parameter bits read outside the
    gates, which need a tunable-constant output; gate outputs read outside the gates)."""
    gate_in: set = set()
    for c in gates.values():
        for port, bits in c["connections"].items():
            if port != "Y":
                gate_in.update(b for b in bits if isinstance(b, int))
    in_bits = sorted(b for b in gate_in if b not in gate_out)
    param_out_bits = sorted(b for b in boundary_read if b in param_of_bit and b not in gate_out)
    out_bits = sorted(b for b in boundary_read if b in gate_out)
    return in_bits, param_out_bits, out_bits


def _add_aig_inputs(aig: Aig, lit: dict, in_bits: list, param_out_bits: list, param_of_bit: dict,
                    pports: dict[str, int]) -> tuple[list, list]:
    """Add the AIG inputs, parameters first (in port order, named ``port[i]``), then regular inputs
    (``w<bit>``); records each net's literal in ``lit``. Returns (params, inputs) as (name, bit)."""
    params: list[tuple[str, int]] = []
    inputs: list[tuple[str, int]] = []
    param_bits_used = sorted({b for b in in_bits + param_out_bits if b in param_of_bit},
                             key=lambda b: _param_sort_key(param_of_bit[b], pports))
    seen_names: dict[str, int] = {}
    for b in param_bits_used:
        n = param_of_bit[b]
        if n in seen_names:      # same parameter reached through two nets (should not happen after subst)
            lit[b] = seen_names[n]
            continue
        seen_names[n] = lit[b] = aig.add_input(n)
        params.append((n, b))
    for b in in_bits:
        if b in param_of_bit:
            continue
        lit[b] = aig.add_input(f"w{b}")
        inputs.append((f"w{b}", b))
    return params, inputs


class _Loop(Exception):
    """A combinational loop among the gates: ``bits`` are the nets on it, in order (each net is
    read by the gate driving the previous one)."""

    def __init__(self, bits: list):
        super().__init__(bits)
        self.bits = bits


def _descend(b, pend: list, path: list, on_path: set, stack: list) -> None:
    """One step of an iterative depth-first walk over gate nets: descend from net ``b`` into its
    inputs ``pend`` that are not done yet. Raises :class:`_Loop` when ``b`` (met again before its
    inputs were done) or one of them is already on the current path: a combinational loop."""
    if b in on_path:
        raise _Loop(path[path.index(b):])
    loop = next((x for x in pend if x in on_path), None)
    if loop is not None:
        raise _Loop(path[path.index(loop):] + [b])
    path.append(b)
    on_path.add(b)
    stack.extend(pend)


def _gate_literal(aig: Aig, gates: dict, gate_out: dict, lit: dict, root_bit: int) -> int:
    """AIG literal of net ``root_bit``, adding its gate cone in topological order (iterative DFS;
    ``lit`` caches every net's literal). Raises :class:`_Loop` on a combinational loop."""
    stack = [root_bit]
    path: list = []                       # nets being expanded (each reads the next), as a stack
    on_path: set = set()
    while stack:
        b = stack[-1]
        if b in lit:
            stack.pop()
            continue
        c = gates[gate_out[b]]
        conns = c["connections"]
        pend = [x for p, xs in conns.items() if p != "Y" for x in xs if x not in lit]
        if pend:
            _descend(b, pend, path, on_path, stack)
            continue
        stack.pop()
        if b in on_path:
            on_path.discard(b)
            path.pop()
        if c["type"] == "$lut":
            lit[b] = _lut_function(aig, c["parameters"]["LUT"], [lit[x] for x in conns["A"]])
        else:
            lit[b] = _gate_function(aig, c["type"], {p: lit[x[0]] for p, x in conns.items() if p != "Y"})
    return lit[root_bit]


def net_names(module: dict) -> dict:
    """Net bit -> name of a Yosys JSON module (``name`` or ``name[i]`` with the wire's offset and
    direction), the first public name (``hide_name`` 0) of the bit, else its first hidden one."""
    public: dict = {}
    hidden: dict = {}
    for n, nn in module.get("netnames", {}).items():
        bits = nn.get("bits", [])
        off, upto = int(nn.get("offset", 0) or 0), bool(int(nn.get("upto", 0) or 0))
        target = hidden if nn.get("hide_name") else public
        for i, b in enumerate(bits):
            if isinstance(b, int) and b not in target:
                idx = off + (len(bits) - 1 - i if upto else i)
                target[b] = f"{n}[{idx}]" if len(bits) > 1 or off else n
    return {**hidden, **public}


def _loop_error(module: dict, top: str, bits: list) -> FrontendError:
    """The one-line error for a combinational loop through ``bits`` (see :class:`_Loop`)."""
    names = net_names(module)
    pub = {b for b, n in names.items() if not n.startswith("$")}
    first = next((b for b in bits if b in pub), bits[0])
    shown = [names.get(b, f"net {b}") for b in bits]
    more = f", ... ({len(shown)} nets)" if len(shown) > 8 else ""
    return FrontendError(f"combinational loop through {names.get(first, f'net {first}')} in module {top} "
                         f"(nets on the loop: {', '.join(shown[:8])}{more})")


def _add_aig_outputs(aig: Aig, lit: dict, gates: dict, gate_out: dict, out_bits: list,
                     param_out_bits: list) -> list[tuple[str, int]]:
    """Add the AIG outputs: gate outputs read outside (``o<bit>``), then parameter bits read outside
    (``c<bit>``). Returns them as (name, bit)."""
    outputs: list[tuple[str, int]] = []
    for b in out_bits:
        aig.add_output(_gate_literal(aig, gates, gate_out, lit, b), f"o{b}")
        outputs.append((f"o{b}", b))
    for b in param_out_bits:
        aig.add_output(lit[b], f"c{b}")
        outputs.append((f"c{b}", b))
    return outputs


def _param_sort_key(name: str, pports: dict[str, int]):
    m = re.match(r"^(.*?)(?:\[(\d+)\])?$", name)
    port, idx = m.group(1), int(m.group(2) or 0)
    order = list(pports)
    return (order.index(port) if port in order else len(order), idx)


def _lut_function(g: Aig, table, ins: list[int]) -> int:
    """AIG literal of a Yosys ``$lut`` (LUT parameter: bit string MSB first, or int; entry i = inputs as LSB-first index)."""
    k = len(ins)
    if isinstance(table, str) and set(table) <= set("01xz"):
        bits = [1 if ch == "1" else 0 for ch in reversed(table)]
    else:
        v = int(table)
        bits = [(v >> i) & 1 for i in range(1 << k)]
    bits += [0] * ((1 << k) - len(bits))
    level = list(bits[:1 << k])
    for j in range(k):                      # Shannon expansion on input j (LSB first)
        level = [g.add_mux(ins[j], level[2 * i + 1], level[2 * i]) for i in range(len(level) // 2)]
    return level[0]


def _gate_function(g: Aig, t: str, i: dict[str, int]) -> int:
    A, B, C, D, S = (i.get(k) for k in "ABCDS")
    if t == "$_BUF_":
        return A
    if t == "$_NOT_":
        return A ^ 1
    if t == "$_AND_":
        return g.add_and(A, B)
    if t == "$_NAND_":
        return g.add_and(A, B) ^ 1
    if t == "$_OR_":
        return g.add_or(A, B)
    if t == "$_NOR_":
        return g.add_or(A, B) ^ 1
    if t == "$_XOR_":
        return g.add_xor(A, B)
    if t == "$_XNOR_":
        return g.add_xor(A, B) ^ 1
    if t == "$_ANDNOT_":
        return g.add_and(A, B ^ 1)
    if t == "$_ORNOT_":
        return g.add_or(A, B ^ 1)
    if t == "$_MUX_":
        return g.add_mux(S, B, A)
    if t == "$_NMUX_":
        return g.add_mux(S, B, A) ^ 1
    if t == "$_AOI3_":
        return g.add_or(g.add_and(A, B), C) ^ 1
    if t == "$_OAI3_":
        return g.add_and(g.add_or(A, B), C) ^ 1
    if t == "$_AOI4_":
        return g.add_or(g.add_and(A, B), g.add_and(C, D)) ^ 1
    if t == "$_OAI4_":
        return g.add_and(g.add_or(A, B), g.add_or(C, D)) ^ 1
    raise FrontendError(f"unsupported gate {t}")


def _resolve(b, subst: dict):
    seen = 0
    while b in subst and seen < 64:
        b = subst[b]
        seen += 1
    return b


def _param_only(bit, driver_gate: dict, param_of_bit: dict, subst: dict, memo: dict) -> bool:
    """True when net ``bit`` is a parameter bit, a constant, or a gate output whose inputs are all
    parameter-only, or ``mux(S, x, x)`` with x parameter-only (iterative; ``memo`` caches verdicts
    for one folding round). Raises :class:`_Loop` on a combinational loop among the gates."""
    stack = [_resolve(bit, subst)]
    path: list = []
    on_path: set = set()
    while stack:
        b = stack[-1]
        if b in memo:
            stack.pop()
            continue
        if isinstance(b, str) or b in param_of_bit:
            memo[b] = True
            stack.pop()
            continue
        g = driver_gate.get(b)
        if g is None:
            memo[b] = False
            stack.pop()
            continue
        ins = [_resolve(x, subst) for p, xs in g["connections"].items() if p != "Y" for x in xs]
        if g["type"] == "$_MUX_":
            a, bb = _resolve(g["connections"]["A"][0], subst), _resolve(g["connections"]["B"][0], subst)
            if a == bb:
                ins = [a]             # mux(S, x, x) = x (Yosys's enable mux of a merged ROM address)
        pend = [x for x in ins if x not in memo]
        if pend:
            _descend(b, pend, path, on_path, stack)
            continue
        memo[b] = all(memo[x] for x in ins)
        stack.pop()
        if b in on_path:
            on_path.discard(b)
            path.pop()
    return memo[_resolve(bit, subst)]


def _param_only_register(c: dict, driver_gate: dict, param_of_bit: dict, subst: dict, memo: dict):
    """The net or gate that replaces a **parameter-only register**, or None.

    A register (no enable, clock enable, or synchronous reset) whose D — and synchronous reset, if
    any — are parameter-only nets holds, with the parameters constant between rekeys, a function of
    the parameters alone one cycle after it loads, like a key buffer: e.g. the round-key registers of
    a key expansion pipelined beside the data, whose whole key expansion then becomes a
    parameter-only cone. The replacement: the D net itself (Q is substituted by it), or for a
    synchronous reset (which Yosys infers from constant mux inputs) a ``$_MUX_`` cell driving Q
    that chooses the reset value when R is active. Registers with asynchronous set/reset are never
    replaced.
    """
    m = _FF_RE.match(c["type"])
    kind, pol = m.group(1), m.group(2)
    conns = c["connections"]
    d, q = _resolve(conns["D"][0], subst), conns["Q"][0]
    if not isinstance(d, int) or not _param_only(d, driver_gate, param_of_bit, subst, memo):
        return None
    r = _resolve(conns["R"][0], subst) if kind in ("SDFF", "SDFFE", "SDFFCE") else None
    if kind in ("DFF", "DFFE") or r == ("0" if pol[1] == "P" else "1"):
        return d                                  # no reset, or the reset tied inactive
    if r is not None and not isinstance(r, int):
        return None                               # reset tied active: a constant, not a parameter
    if r is not None:
        if not _param_only(r, driver_gate, param_of_bit, subst, memo):
            return None
        rval = pol[2]
        a, b = (d, rval) if pol[1] == "P" else (rval, d)
        return {"type": "$_MUX_", "parameters": {}, "attributes": {},
                "port_directions": {"A": "input", "B": "input", "S": "input", "Y": "output"},
                "connections": {"A": [a], "B": [b], "S": [r], "Y": [q]}}
    return None


def _apply_subst(module: dict, subst: dict) -> None:
    """Replace net bits in every cell connection and net name (not in ports)."""
    def s(b):
        seen = 0
        while b in subst and seen < 64:
            b = subst[b]
            seen += 1
        return b
    for c in module["cells"].values():
        for port, bits in c["connections"].items():
            c["connections"][port] = [s(b) for b in bits]
    for nn in module["netnames"].values():
        nn["bits"] = [s(b) for b in nn["bits"]]


# ---------------------------------------------------------------------------------------------
# re-import

def _max_bit(module: dict) -> int:
    m = 1
    for c in module["cells"].values():
        for bits in c["connections"].values():
            m = max([m] + [b for b in bits if isinstance(b, int)])
    for nn in module["netnames"].values():
        m = max([m] + [b for b in nn["bits"] if isinstance(b, int)])
    for p in module["ports"].values():
        m = max([m] + [b for b in p["bits"] if isinstance(b, int)])
    return m


def _lut_param(init: int, k: int) -> str:
    return format(init, f"0{1 << k}b") if k else format(init & 1, "01b")


def reimport(pre: dict, module: dict, ext: Extraction, netlist: dict, tlut_mode: bool = True) -> dict:
    """Replace the gate logic of ``module`` by the mapped netlist; return a new Yosys JSON document.

    Args:
        pre: the pre.json document (only its top is replaced; library modules are dropped).
        module: the folded module from :func:`extract_logic`.
        ext: the extraction record.
        netlist: TLUT netlist (format "dcsflow-tlut-netlist" v1 or v2, docs/formats.md); its wide-function
            multiplexers (v2 ``muxes``) become Xilinx ``MUXF7`` / ``MUXF8`` cells (ports I0, I1, S, O).
        tlut_mode: remove the parameter IBUFs (parameters now live in the configuration).
    Raises:
        FrontendError: the netlist does not match the extraction (unknown input/output names).
    """
    if netlist.get("format") != "dcsflow-tlut-netlist" or netlist.get("version") not in (1, 2, 3):
        raise FrontendError("mapper result is not a dcsflow-tlut-netlist version 1 to 3")
    module = json.loads(json.dumps(module))
    cells = module["cells"]
    for n in [n for n, c in cells.items() if c["type"] in GATE_TYPES]:
        del cells[n]
    if tlut_mode:
        pbits = {b for _, b in ext.params}
        for n in [n for n, c in cells.items() if c["type"] in ("IBUF", "IBUFG")
                  and c["connections"]["O"][0] in pbits]:
            del cells[n]
    in_bit = dict(ext.inputs)
    for name in netlist["inputs"]:
        if name not in in_bit:
            raise FrontendError(f"mapper netlist input {name!r} is not a boundary net")
    out_bit = dict(ext.outputs)
    ybit, claimed = _output_nets(module, netlist, in_bit, out_bit)

    def src(name: str):
        if name in ybit:
            return ybit[name]
        if name in in_bit:
            return in_bit[name]
        if name in ("0", "1"):
            return name
        raise FrontendError(f"mapper netlist refers to unknown signal {name!r}")

    for lut in netlist["luts"]:
        cells[f"$dcs${lut['name']}"] = _lut_cell(lut, [src(x) for x in lut["inputs"]], ybit[lut["name"]])
    for m in netlist.get("muxes", []):
        if m.get("type") not in ("MUXF7", "MUXF8"):
            raise FrontendError(f"mapper netlist mux {m.get('name')!r}: type {m.get('type')!r} is not MUXF7 or MUXF8")
        cells[f"$dcs${m['name']}"] = {
            "hide_name": 0, "type": m["type"], "parameters": {}, "attributes": {},
            "port_directions": {"I0": "input", "I1": "input", "S": "input", "O": "output"},
            "connections": {"I0": [src(m["I0"])], "I1": [src(m["I1"])], "S": [src(m["S"])], "O": [ybit[m["name"]]]}}
    _connect_outputs(module, netlist, out_bit, claimed, src)
    doc = {"creator": "dcsflow front end", "modules": {ext.top: module}}
    for k in range(1, 7):
        doc["modules"][f"{TLUT_CELL}{k}"] = {
            "attributes": {"blackbox": "00000000000000000000000000000001"},
            "ports": {**{f"I{j}": {"direction": "input", "bits": [2 + j]} for j in range(k)},
                      "O": {"direction": "output", "bits": [2 + k]}},
            "cells": {}, "netnames": {}}
    return doc


def _output_nets(module: dict, netlist: dict, in_bit: dict, out_bit: dict) -> tuple[dict, set]:
    """Each mapped cell's output net: the first boundary output it drives, else a fresh net. Returns
    (cell name -> net, the boundary outputs so claimed). Raises FrontendError for an output that is
    not a boundary net."""
    nxt = _max_bit(module) + 1
    ybit: dict[str, int] = {}
    claimed: set = set()
    for o in netlist["outputs"]:
        if o["name"] not in out_bit:
            raise FrontendError(f"mapper netlist output {o['name']!r} is not a boundary net")
        d = o["driver"]
        if d not in ybit and d not in in_bit and d not in ("0", "1"):
            ybit[d] = out_bit[o["name"]]
            claimed.add(o["name"])
    for cell in list(netlist["luts"]) + list(netlist.get("muxes", [])):
        if cell["name"] not in ybit:
            ybit[cell["name"]] = nxt
            nxt += 1
    return ybit, claimed


def _lut_cell(lut: dict, a: list, y: int) -> dict:
    """The Yosys cell of one mapped LUT with inputs ``a`` and output net ``y``: an opaque
    ``DCS_TLUT<k>`` cell carrying its PPC entries for a TLUT (a tunable constant becomes a LUT1 with
    I0 tied low, both entries equal), a ``$lut`` cell for a static LUT. Raises FrontendError for a
    TLUT whose entries do not fit its inputs, or a static LUT without inputs."""
    k = len(a)
    if "ppc" in lut:
        ppc = list(lut["ppc"])
        if k == 0:
            a, k, ppc = ["0"], 1, ppc * 2
        if len(ppc) != 1 << k:
            raise FrontendError(f"TLUT {lut['name']}: {len(ppc)} PPC entries for {k} inputs")
        conns = {f"I{j}": [a[j]] for j in range(k)}
        conns["O"] = [y]
        return {"hide_name": 0, "type": f"{TLUT_CELL}{k}", "parameters": {},
                "attributes": {"dcs_tlut": "00000000000000000000000000000001",
                               "dcs_ppc": ",".join(map(str, ppc)) + ","},
                "port_directions": {**{f"I{j}": "input" for j in range(k)}, "O": "output"},
                "connections": conns}
    if k == 0:
        raise FrontendError(f"static LUT {lut['name']} without inputs")
    init = int(lut.get("init", "0"), 16)
    return {"hide_name": 0, "type": "$lut", "parameters": {"WIDTH": format(k, "032b"), "LUT": _lut_param(init, k)},
            "attributes": {}, "port_directions": {"A": "input", "Y": "output"},
            "connections": {"A": a, "Y": [y]}}


def _connect_outputs(module: dict, netlist: dict, out_bit: dict, claimed: set, src) -> None:
    """Connect the boundary outputs no mapped cell drives directly (an input, a constant, a cell
    driving several outputs): a port bit through an identity LUT, any other net renamed to its
    driver."""
    port_bits = {b for p in module["ports"].values() for b in p["bits"] if isinstance(b, int)}
    subst: dict = {}
    for o in netlist["outputs"]:
        if o["name"] in claimed:
            continue
        b = out_bit[o["name"]]
        s = src(o["driver"])
        if b in port_bits:                   # a port bit cannot be renamed: identity LUT
            module["cells"][f"$dcs$buf{b}"] = {
                "hide_name": 1, "type": "$lut", "parameters": {"WIDTH": format(1, "032b"), "LUT": "10"},
                "attributes": {}, "port_directions": {"A": "input", "Y": "output"},
                "connections": {"A": [s], "Y": [b]}}
        else:
            subst[b] = s
    if subst:
        _apply_subst(module, subst)


def continuation_script(json_in: str, top: str, mapping: str, json_out: str, lut_width: int = 6) -> str:
    """The remaining synth_xilinx commands after the LUT mapping (docs/architecture.md, "Front end"; Yosys 0.23).

    ``json_in``/``json_out``: file names as the script's folder sees them (written with
    :func:`dcsflow.flow.yosys.quote`; raises YosysError for one that cannot be written, see
    :func:`dcsflow.flow.yosys.script_path`). ``mapping`` is the LUT-mapping command (e.g.
    :data:`ABC_LUTS_DEFAULT`) or "" when the LUTs are already in the netlist (TMAP result).
    ``lut_width``: the LUT size K of the build (``dcsflow build --lut-size``): ``lut_map.v``'s
    ``LUT_WIDTH``, as synth_xilinx sets it for a K-input family, and below 6 ``xilinx_dffopt -lut4``
    (synth_xilinx's choice for 4-input LUTs; xilinx_dffopt knows only 4 and 6, so at K = 5 it too
    merges FF enables and resets only into LUTs of up to 4 inputs and never makes a LUT wider than K).
    """
    return "\n".join([
        f"read_json {quote(json_in)}",
        "read_verilog -lib -overwrite -specify +/xilinx/cells_sim.v",
        "read_verilog -lib -overwrite +/xilinx/cells_xtra.v",
        f"hierarchy -top {top}",
        mapping,
        "clean",
        "techmap -map +/xilinx/ff_map.v",
        "xilinx_srl -fixed -minlen 3",
        f"techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH={lut_width}",
        "xilinx_dffopt" + (" -lut4" if lut_width < 6 else ""),
        "opt_lut_ins -tech xilinx",
        f"synth_xilinx -top {top} -run finalize:",
        f"write_json {quote(json_out)}",
        "",
    ])


def continue_synthesis(json_in: Path, top: str, mapping: str, json_out: Path, workdir: Path, name: str,
                       status: Callable[[str], None] | None = None, what: str = "", lut_width: int = 6) -> float:
    """Run :func:`continuation_script` in Yosys; returns seconds. ``json_in`` and ``json_out`` may
    be anywhere (any characters in their paths: :func:`dcsflow.flow.yosys.script_path`); ``what``:
    what the run is for (timing records, :mod:`dcsflow.steps`); ``lut_width``: the build's LUT size
    (:func:`continuation_script`)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    def name_of(p: Path) -> str:
        if p.parent.resolve() == workdir.resolve() and quotable(p.name):
            return p.name if not p.name.startswith(("~", "+")) else f"./{p.name}"
        return script_path(p.resolve(), workdir)

    # Yosys writes a temporary beside json_out, renamed once it has finished: a run that fails or
    # is killed while writing never leaves a partial netlist under json_out's name
    tmp = Path(json_out).with_name(f".{Path(json_out).name}.tmp")
    try:
        secs = run_script(continuation_script(name_of(json_in), top, mapping, name_of(tmp), lut_width), workdir, name,
                          status, what=what or "rest of synth_xilinx")
        os.replace(tmp, json_out)
    finally:
        tmp.unlink(missing_ok=True)
    return secs


def finalize_tluts(doc: dict, top: str) -> dict:
    """Turn ``DCS_TLUT<k>`` cells into ``LUT<k>`` with a zero INIT placeholder; keep only the top.

    The result is the template netlist: TLUTs are LUT cells with attributes ``dcs_tlut`` = 1 and
    ``dcs_ppc`` = "e0,e1,...," (PPC output index per INIT bit).
    """
    m = doc["modules"][top]
    for c in m["cells"].values():
        t = c["type"]
        if t.startswith(TLUT_CELL):
            k = int(t[len(TLUT_CELL):])
            c["type"] = f"LUT{k}"
            c["parameters"] = {"INIT": "0" * (1 << k)}
    return {"creator": doc.get("creator", "yosys"), "modules": {top: m}}
