"""The conventional baselines: every implementation the flow can make with the parameters as
ordinary inputs, so that savings are measured against the strongest one.

Candidates (:data:`CANDIDATES`), each from the conventional front end's netlist
(``frontend/pre_conventional.json`` when the design has its own conventional variant, else
``frontend/pre.json``) with the parameter registers kept and no input treated as a parameter:

- ``yosys-abc``: the rest of ``synth_xilinx`` with Yosys's own LUT mapping
  (``abc -luts 2:2,3,6:5,10,20`` and ``muxcover`` for MUXF7/MUXF8, synth_xilinx's defaults) — the
  conventional build of dcsflow 0.1 and the depth reference (:data:`REFERENCE`);
- ``tmap``: the gate logic extracted as an AIG (:func:`dcsflow.flow.frontend.extract_logic`) and
  mapped by the flow's mapper (:func:`dcsflow.flow.mapping.map_logic`, TMAP's default mode, with
  its ABC proof) without parameters;
- ``abc-synch2`` and ``abc-dch``: the same AIG mapped by ABC's ``&if`` on structural choices
  (``&synch2``, ``&dch``) with ``&mfs`` resynthesis (:data:`ABC_SCRIPTS`), the result read back
  and proved equivalent to the AIG with ABC ``cec``;
- ``abc-wide``: ABC's ``&if`` on ``&synch2`` choices with a LUT library of 1..8 inputs in which a 7-
  or 8-input LUT costs 2 or 4 (:data:`WIDE_LUT_LIBRARY`: 2 LUT6 + MUXF7, 4 LUT6 + 2 MUXF7 + MUXF8,
  UG474) and the depth of one LUT; each 7/8-input LUT is then split into LUT6 cofactors on its first
  six inputs and MUXF7/MUXF8 on the last one or two (:func:`split_wide`). Two mappings are made
  (:data:`WIDE_SCRIPTS`: area-oriented, and delay-oriented with more area-recovery passes) and the
  one with fewer LUTs whose depth on the extracted logic is no greater than the reference's LUT
  depth is kept (:func:`pick_variant`; the reference's depth is known by then, its Yosys run having
  been waited for). The bound is on the mapping alone: the re-imported netlist can be a level
  deeper (aes128_iter: 5 levels mapped, 6 in the netlist), and :func:`choose` judges that depth.

The three AIG-based candidates are re-imported into the module (:func:`dcsflow.flow.frontend.reimport`)
and finished with the rest of synth_xilinx (FF mapping, IO buffers), like the TLUT build.

At a LUT size K below 6 (``dcsflow build --lut-size``) every candidate maps to K-input LUTs:
``yosys-abc`` runs ``abc -lut K`` (:func:`reference_mapping`: what synth_xilinx runs for a K-input
family without wide LUTs), ``tmap`` maps with TMAP's K, ``abc-synch2`` and ``abc-dch`` with
``&if -K K``, and the rest of synth_xilinx gets ``LUT_WIDTH=K``
(:func:`dcsflow.flow.frontend.continuation_script`). ``abc-wide`` is skipped
(:func:`skip_reason`, recorded in the report): its 7/8-input LUTs are 6-input LUTs on MUXF7/MUXF8.
A finished candidate with a LUT wider than K is refused (:func:`check_lut_width`). Every
candidate then goes through the same back end (:mod:`dcsflow.flow.backend.stage`), and
:func:`choose` picks the one with the fewest slices among those whose LUT depth is no greater than
the reference's; that one is "conventional" in the tables and in report.json.

Files: ``baselines/<name>/netlist.json`` (Yosys JSON of the candidate's top), the candidate's
working files beside it.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from dcsflow.aig import Aig, read_aiger, truth_vars, write_aiger
from dcsflow.fileio import NETLIST_LIMIT, load_json_file, read_input_text, write_text_atomic

from . import frontend as fe
from .cache import cached
from .errors import FlowError
from .loadreg import FORMS as _FORMS

__all__ = ["CANDIDATES", "FORMS", "ALL_CANDIDATES", "split_name", "REFERENCE", "ABC_SCRIPTS", "WIDE_SCRIPTS", "HOW", "BaselineError", "BaselineRun", "conventional_pre",
           "submit_candidates", "candidate_runs", "prepare_logic", "make_candidate", "abc_lut_netlist", "abc_wide_netlist", "pick_variant", "choose", "finished_depth",
           "parse_names", "how", "reference_mapping", "skip_reason", "check_lut_width"]

#: every mapper, in the order the candidates are tried and reported; a candidate is a mapper on the
#: design's conventional variant (named as the mapper) or on a register form of the TLUT build's RTL
#: (``<mapper>@<form>``, :data:`dcsflow.flow.loadreg.FORMS`)
CANDIDATES = ("yosys-abc", "tmap", "abc-synch2", "abc-dch", "abc-wide")
#: the register forms (:mod:`dcsflow.flow.loadreg`)
FORMS = _FORMS
#: every candidate name, in report order: the mappers on the conventional variant, then on each form
ALL_CANDIDATES = CANDIDATES + tuple(f"{m}@{f}" for f in FORMS for m in CANDIDATES)
#: what each register form holds (report lines)
FORM_HOW = {"register": "the TLUT build's RTL with every parameter bit in a register the host loads",
            "precomputed": "the TLUT build's RTL cut at its parameter-only logic, every frontier net in a "
                           "register the host loads with its precomputed value"}
#: the candidate whose LUT depth bounds the others' (today's conventional build)
REFERENCE = "yosys-abc"
#: ABC scripts of the ABC candidates: structural choices, depth-oriented ``&if`` with area recovery,
#: ``&mfs`` don't-care resynthesis (which keeps the depth). Chosen on aes128_iter's conventional logic
#: (20,669 AND nodes): ``&synch2; &if -K 6; &mfs`` 1507 LUTs / 5 levels, ``&dch; &if -K 6; &mfs``
#: 2073 / 6, plain ``&if -K 6`` 2255 / 6, area-oriented ``&dch; &if -a; &mfs`` 1984 / 7 (deeper).
ABC_SCRIPTS = {"abc-synch2": "&st; &synch2; &if -K {K}; &mfs",
               "abc-dch": "&st; &dch; &if -K {K}; &mfs",
               # no -K: the LUT library below decides (ABC read_lut); on aes128_iter's conventional
               # logic 1340 LUT6 equivalents at 5 levels against 1443 without -a
               "abc-wide": "&st; &synch2; &if -a"}
#: the ``abc-wide`` candidate's two mappings (:func:`abc_wide_netlist`): the area-oriented one of
#: :data:`ABC_SCRIPTS`, and a delay-oriented one with four area-flow and four exact-area passes
#: (``-F 4 -A 4``). On aes128_pipe's conventional logic (193,097 AND nodes, 2026-11-24): ``-a``
#: 11,579 LUT6 at 7 levels, ``&if`` 12,039 at 4, ``&if -F 4 -A 4`` 11,422 at 4 (yosys-abc: 5 levels).
WIDE_SCRIPTS = (ABC_SCRIPTS["abc-wide"], "&st; &synch2; &if -F 4 -A 4")
#: ABC ``read_lut`` library of the ``abc-wide`` candidate: inputs, area, delay per line; a 7-input
#: LUT is 2 LUT6 + MUXF7 and an 8-input one 4 LUT6 + 2 MUXF7 + MUXF8 (UG474), one LUT level each
WIDE_LUT_LIBRARY = "".join(f"{k} {1 if k <= 6 else 2 if k == 7 else 4}.00 1.00\n" for k in range(1, 9))
#: one line per candidate: how it is made at LUT size 6 (report.json ``baselines.<name>.how``;
#: :func:`how` for any LUT size)
HOW = {
    "yosys-abc": "Yosys synth_xilinx: abc -luts 2:2,3,6:5,10,20 and muxcover (MUXF7/MUXF8)",
    "tmap": "TMAP (the flow's mapper, default mode) on the extracted logic without parameters",
    "abc-synch2": "ABC &st; &synch2; &if -K 6; &mfs on the extracted logic (structural choices)",
    "abc-dch": "ABC &st; &dch; &if -K 6; &mfs on the extracted logic (structural choices)",
    "abc-wide": "ABC &st; &synch2; &if with 7/8-input LUTs as 2/4 LUT6 + MUXF7/MUXF8: -a or -F 4 -A 4, "
                "the fewer LUTs at no greater depth than yosys-abc",
}


class BaselineError(FlowError):
    """A conventional candidate cannot be made (an unknown name, ABC's result unreadable or not
    equivalent to the logic)."""


def reference_mapping(K: int = 6) -> str:
    """The ``yosys-abc`` candidate's LUT-mapping command at LUT size ``K``: synth_xilinx's default
    (:data:`dcsflow.flow.frontend.ABC_LUTS_DEFAULT`) at 6, else ``abc -lut K``, what synth_xilinx
    (Yosys 0.23, ``map_luts``) runs for a family of K-input LUTs without wide LUTs."""
    return fe.ABC_LUTS_DEFAULT if K == 6 else f"abc -lut {K}"


def skip_reason(name: str, K: int = 6) -> str | None:
    """Why candidate ``name`` is not made at LUT size ``K`` (one line), or None when it is."""
    if name == "abc-wide" and K != 6:
        return (f"LUT size {K}: its 7/8-input LUTs are pairs and quads of 6-input LUTs on MUXF7/MUXF8, "
                "which needs LUT size 6")
    return None


def split_name(name: str) -> tuple[str, str | None]:
    """(mapper, register form or None) of a candidate name (``abc-dch``, ``abc-dch@register``)."""
    mapper, at, form = name.partition("@")
    return mapper, (form if at else None)


def how(name: str, K: int = 6) -> str:
    """One line: how candidate ``name`` is made at LUT size ``K`` (:data:`HOW` at 6; a register
    form's candidate: the mapper's line and what the form holds, :data:`FORM_HOW`)."""
    mapper, form = split_name(name)
    if form is not None:
        return f"{how(mapper, K)}; on {FORM_HOW.get(form, form)}"
    if K == 6 or name not in HOW:
        return HOW.get(name, name)
    if name == "yosys-abc":
        return f"Yosys synth_xilinx with {reference_mapping(K)} (LUT_WIDTH={K})"
    if name == "tmap":
        return f"TMAP (the flow's mapper, default mode, K = {K}) on the extracted logic without parameters"
    if name in ABC_SCRIPTS:
        return f"ABC {ABC_SCRIPTS[name].format(K=K)} on the extracted logic (structural choices)"
    return HOW[name]


def check_lut_width(module: dict, K: int, what: str) -> None:
    """Refuse a finished netlist module with a LUT of more than ``K`` inputs (a ``LUT<k>`` cell
    with k > K; ``what`` names the netlist in the message).

    Raises:
        BaselineError: one line naming the first such cell.
    """
    for cn, c in module["cells"].items():
        t = c.get("type", "")
        if t.startswith("LUT") and t[3:].isdigit() and int(t[3:]) > K:
            raise BaselineError(f"{what}: cell {cn} is a {t}, wider than the LUT size {K}")


@dataclass
class BaselineRun:
    """What making one candidate gave: its name, the netlist (relative to the build folder; None when
    it failed), wall seconds, the mapper's own figures on the extracted logic
    (``mapper_luts``/``mapper_depth``, None for ``yosys-abc``), the proof verdict (``proved``: True,
    or None when not applicable), ``failed``: why it could not be made (one line), or None, and
    ``script``: the ABC script of the mapping kept (None for ``yosys-abc`` and ``tmap``), ``depth``:
    the LUT depth of the finished netlist (:func:`dcsflow.flow.netlist.lut_depth`; None when not
    made), ``skipped``: why it was not made (:func:`skip_reason`, or a register form that cannot be
    made or equals another), or None; ``variant``: ``conventional`` (the design's conventional
    variant) or the register form; ``register_bits`` / ``load_words``: a register form's flip-flops
    the host loads and the 32-bit words it writes per load (None for the conventional variant)."""

    name: str
    netlist: str | None
    seconds: float
    mapper_luts: int | None = None
    mapper_depth: int | None = None
    proved: bool | None = None
    failed: str | None = None
    script: str | None = None
    depth: int | None = None
    skipped: str | None = None
    variant: str = "conventional"
    register_bits: int | None = None
    load_words: int | None = None

    def as_dict(self) -> dict:
        """JSON form (stage record; ``skipped`` only when set; the register fields only for a
        register form)."""
        return {"name": self.name, "netlist": self.netlist, "seconds": round(self.seconds, 3),
                "mapper_luts": self.mapper_luts, "mapper_depth": self.mapper_depth, "proved": self.proved,
                "failed": self.failed, "script": self.script, "depth": self.depth,
                **({"skipped": self.skipped} if self.skipped else {}),
                **({"variant": self.variant, "register_bits": self.register_bits, "load_words": self.load_words}
                   if self.variant != "conventional" else {})}


@dataclass
class FormInfo:
    """A register form prepared for its candidates (:func:`prepare_form`): ``form``, its folder
    (relative to the build folder: ``baselines/@<form>``, holding ``pre.json``, ``load.json``,
    ``load.aag`` and the extracted ``logic/``), ``register_bits``, ``load_words``, and ``why_not``:
    why its candidates are not made (one line: it cannot be made, the design has no parameter
    inputs, or it is the same netlist as the ``register`` form), else None."""

    form: str
    folder: str
    register_bits: int = 0
    load_words: int = 0
    why_not: str | None = None

    def not_made(self, name: str) -> BaselineRun:
        """The run of candidate ``name`` on this form when the form is not made."""
        return BaselineRun(name, None, 0.0, skipped=self.why_not, variant=self.form)


def form_run(run: BaselineRun, form: "FormInfo | None") -> BaselineRun:
    """``run`` with the register form's fields set (unchanged for the conventional variant)."""
    if form is not None:
        run.variant, run.register_bits, run.load_words = form.form, form.register_bits, form.load_words
    return run


@cached(inputs=lambda out, *a, **k: ["frontend/pre.json"], outputs=lambda out, top, params, form: [f"baselines/@{form}"])
def prepare_form(out: Path, top: str, params: list[str], form: str) -> FormInfo:
    """Job: register form ``form`` of the TLUT front end's netlist (``frontend/pre.json``; ``params``:
    its parameter ports) into ``baselines/@<form>/`` (:func:`dcsflow.flow.loadreg.register_form`),
    with its logic extracted for the mappers (:func:`prepare_logic`). A form that cannot be made
    (:class:`~dcsflow.flow.loadreg.LoadRegisterError`), a build without parameter inputs and a
    ``precomputed`` form equal to the ``register`` one give a :class:`FormInfo` with ``why_not``.
    Raises FrontendError."""
    from .loadreg import LoadRegisterError, register_form, write_form

    folder = f"baselines/@{form}"
    d = Path(out) / folder
    if d.exists():
        shutil.rmtree(d)
    if not params:
        return FormInfo(form, folder, why_not="the build has no parameter inputs")
    pre = load_json_file(Path(out) / "frontend" / "pre.json", NETLIST_LIMIT)
    try:
        doc, lm, aig = register_form(pre, top, params, form)
    except LoadRegisterError as e:
        return FormInfo(form, folder, why_not=str(e))
    if lm.same_as_register:
        return FormInfo(form, folder, lm.bits, lm.words,
                        why_not="the same netlist as the register form: the parameter-only logic's frontier is "
                                "the parameter bits themselves")
    write_form(d, doc, lm, aig)
    prepare_logic(out, top, form)
    return FormInfo(form, folder, lm.bits, lm.words)


def conventional_pre(out: Path) -> Path:
    """The conventional front end's netlist of build folder ``out``: ``frontend/pre_conventional.json``
    when the design has a conventional variant (:data:`dcsflow.flow.frontend.CONVENTIONAL_PRE`), else
    ``frontend/pre.json``."""
    src = Path(out) / "frontend" / fe.CONVENTIONAL_PRE
    return src if src.exists() else Path(out) / "frontend" / "pre.json"


def check_names(names, reference: bool = True) -> tuple[str, ...]:
    """The candidate names in :data:`ALL_CANDIDATES` order, the reference always included. A name
    is a mapper (:data:`CANDIDATES`, on the design's conventional variant), ``MAPPER@FORM`` (on a
    register form, :data:`FORMS`), ``@FORM`` for every mapper on that form, or ``all``.
    ``reference`` False: the reference is made only when named (a build given the LUT depths it
    bounds, ``BuildOptions.depth_bounds``).

    Raises:
        BaselineError: an unknown name (the message lists the known mappers and forms).
    """
    want = set()
    for n in names:
        if n == "all":
            want |= set(ALL_CANDIDATES)
            continue
        mapper, form = split_name(n)
        if form is not None and form not in FORMS or mapper and mapper not in CANDIDATES or not (mapper or form):
            raise BaselineError(f"unknown baseline {n!r}; baselines: {', '.join(CANDIDATES)}, each also as "
                                f"NAME@FORM on a register form ({', '.join(FORMS)}), or @FORM for all of them")
        want |= {f"{m}@{form}" for m in CANDIDATES} if not mapper else {n}
    return tuple(n for n in ALL_CANDIDATES if n in want or (reference and n == REFERENCE))


def _ref_name(form) -> str:
    return REFERENCE if form is None else f"{REFERENCE}@{form.form}"


@cached(inputs=lambda out, top, defaults, K=6, form=None: [
            conventional_pre(out) if form is None else Path(out) / form.folder / "pre.json"],
        outputs=lambda out, top, defaults, K=6, form=None: [f"baselines/{_ref_name(form)}"])
def _yosys_abc(out: Path, top: str, defaults: dict, K: int = 6, form: "FormInfo | None" = None) -> BaselineRun:
    """The reference candidate: the rest of synth_xilinx with Yosys's own LUT mapping
    (:func:`reference_mapping` at LUT size ``K``) — on register form ``form`` when given (the
    candidate ``yosys-abc@<form>``)."""
    t0 = time.perf_counter()
    name = _ref_name(form)
    if form is not None and form.why_not is not None:
        return form.not_made(name)
    d = Path(out) / "baselines" / name
    d.mkdir(parents=True, exist_ok=True)
    what = (f"rest of synth_xilinx with abc -luts ({name} candidate)" if K == 6 else
            f"rest of synth_xilinx with {reference_mapping(K)} ({name} candidate)")
    src = conventional_pre(out) if form is None else Path(out) / form.folder / "pre.json"
    fe.continue_synthesis(src, top, reference_mapping(K), d / "post.json", d, "yosys", what=what, lut_width=K)
    depth = _finish(d, top, defaults, K, name)
    return form_run(BaselineRun(name, f"baselines/{name}/netlist.json", time.perf_counter() - t0, depth=depth), form)


def _finish(d: Path, top: str, defaults: dict, K: int = 6, name: str = "") -> int:
    """``d/netlist.json`` from ``d/post.json``: the top only, with the front end's parameter defaults
    (``defaults``: pre.json's ``parameter_default_values`` of the top); below LUT size 6 checked for
    LUTs wider than ``K`` (:func:`check_lut_width`; ``name``: the candidate). Returns its LUT depth."""
    from .netlist import lut_depth

    post = load_json_file(d / "post.json", NETLIST_LIMIT)
    m = post["modules"][top]
    if K != 6:
        check_lut_width(m, K, f"candidate {name}")
    m["parameter_default_values"] = defaults
    write_text_atomic(d / "netlist.json", json.dumps({"creator": "dcsflow", "modules": {top: m}}))
    return lut_depth(m)


def parse_names(blif: str) -> tuple[list[str], list[str], list[tuple[str, list[str], list[tuple[str, str]]]]]:
    """Read a combinational BLIF (``.inputs``, ``.outputs``, ``.names`` covers, as ABC's ``write_blif``
    writes): (inputs, outputs, nodes), a node being (output, inputs, cubes), a cube (input part,
    output value). Continuation lines (``\\``) are joined.

    Raises:
        BaselineError: a construct other than .model/.inputs/.outputs/.names/.end (e.g. a latch or
            a subcircuit), or a cube whose width does not match its node.
    """
    lines, cur = [], ""
    for raw in blif.splitlines():
        s = raw.split("#", 1)[0].rstrip()
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        if cur.strip():
            lines.append(cur.strip())
        cur = ""
    inputs, outputs, nodes = [], [], []
    for ln in lines:
        w = ln.split()
        if w[0] == ".model" or w[0] == ".end":
            continue
        if w[0] == ".inputs":
            inputs += w[1:]
        elif w[0] == ".outputs":
            outputs += w[1:]
        elif w[0] == ".names":
            nodes.append((w[-1], w[1:-1], []))
        elif w[0].startswith("."):
            raise BaselineError(f"ABC's netlist has {w[0]}: only combinational .names are expected")
        else:
            if not nodes:
                raise BaselineError(f"ABC's netlist: cube {ln!r} outside a .names")
            name, ins, cubes = nodes[-1]
            if len(ins) == 0 and len(w) == 1:
                cubes.append(("", w[0]))
            elif len(w) == 2 and len(w[0]) == len(ins):
                cubes.append((w[0], w[1]))
            else:
                raise BaselineError(f"ABC's netlist: cube {ln!r} does not fit .names {name}")
    return inputs, outputs, nodes


def _truth(ins: list[str], cubes: list[tuple[str, str]]) -> int:
    """Truth table (bit i = value at entry i, input j = bit j of i) of a .names cover: the union of
    its cubes (each the AND of its literals' projection tables), complemented for an off-set cover
    (output value 0). Raises BaselineError for a cube character other than 0, 1 or -."""
    k = len(ins)
    full = (1 << (1 << k)) - 1
    proj = truth_vars(k)
    onset = 0
    value = "1"
    for cube, v in cubes:
        value = v
        t = full
        for j, c in enumerate(cube):
            if c == "1":
                t &= proj[j]
            elif c == "0":
                t &= ~proj[j]
            elif c != "-":
                raise BaselineError(f"ABC's netlist: cube {cube!r} holds {c!r}")
        onset |= t
    if not cubes:
        return 0
    return onset & full if value == "1" else full & ~onset


def split_wide(name: str, inputs: list[str], table: int) -> tuple[list, list]:
    """A static LUT of 7 or 8 inputs as LUT6 cofactors and MUXF7/MUXF8 cells (UG474): the cofactor
    ``q_j`` is the function with the inputs 6.. set to the bits of ``j`` (a LUT on ``inputs[:6]``);
    7 inputs: ``name = MUXF7(q0, q1, S=inputs[6])``; 8 inputs: ``MUXF8(MUXF7(q0, q1), MUXF7(q2, q3),
    S=inputs[7])`` with both MUXF7s selected by ``inputs[6]``. Returns (LUTs, muxes) as
    :class:`dcsflow.tmap.netlist.Lut` / ``Mux``; the last mux is named ``name``.

    Raises:
        BaselineError: not 7 or 8 inputs.
    """
    from dcsflow.tmap.netlist import Lut, Mux

    k = len(inputs)
    if k not in (7, 8):
        raise BaselineError(f"{name}: {k} inputs cannot be split into LUT6 + MUXF7/MUXF8")
    qs = []
    for j in range(1 << (k - 6)):
        q = 0
        for i in range(64):
            q |= (table >> (i | j << 6) & 1) << i
        qs.append(Lut(f"{name}$q{j}", list(inputs[:6]), q))
    if k == 7:
        return qs, [Mux(name, "MUXF7", qs[0].name, qs[1].name, inputs[6])]
    a, b = f"{name}$f7a", f"{name}$f7b"
    return qs, [Mux(a, "MUXF7", qs[0].name, qs[1].name, inputs[6]), Mux(b, "MUXF7", qs[2].name, qs[3].name, inputs[6]),
                Mux(name, "MUXF8", a, b, inputs[7])]


def abc_lut_netlist(aig: Aig, script: str, K: int = 6, timeout: float | None = None,
                    wide: bool = False) -> tuple[dict, int, float]:
    """Map the combinational ``aig`` (no latches) with an ABC script (``{K}`` is the LUT size) and
    read the result back as a static TLUT-netlist document (format ``dcsflow-tlut-netlist``, no
    parameters; the input and output names of ``aig``), proved equivalent to ``aig`` with ABC
    ``cec`` (the netlist as read back, composed into an AIG by :func:`dcsflow.tmap.netlist.compose`).
    ``wide``: ABC maps with :data:`WIDE_LUT_LIBRARY` (LUTs of up to 8 inputs), and 7/8-input LUTs
    are split by :func:`split_wide`. Returns (netlist document, its LUT depth, seconds).

    Raises:
        BaselineError: ABC's result cannot be read, does not match the AIG's inputs/outputs, has a
            LUT wider than K, or is not equivalent. ToolError/ToolMissing from running ABC.
    """
    t0 = time.perf_counter()
    net = _abc_map(aig, script, K, timeout, wide)
    _prove(aig, net, script, timeout)
    return net.to_json_obj(), net.depth(), time.perf_counter() - t0


def pick_variant(variants: list[tuple[int, int]], depth_bound: int | None) -> int:
    """Index of the mapping to keep among ``variants`` = [(LUTs, depth), ...] (non-empty): the
    fewest LUTs (then the shallower, then the first) among those no deeper than ``depth_bound``
    (None: no bound); when every one is deeper, the shallowest (then the fewest LUTs)."""
    within = [i for i, (_, d) in enumerate(variants) if depth_bound is None or d <= depth_bound]
    if within:
        return min(within, key=lambda i: (variants[i][0], variants[i][1], i))
    return min(range(len(variants)), key=lambda i: (variants[i][1], variants[i][0], i))


def wide_mappings(aig: Aig, timeout: float | None = None) -> list:
    """The ``abc-wide`` candidate's mappings of ``aig``, one per script of :data:`WIDE_SCRIPTS`
    (unproved TlutNetlists; :func:`abc_wide_netlist` keeps one). They need no depth bound, so they
    are made before the reference is finished. Raises BaselineError, ToolError, ToolMissing."""
    return [_abc_map(aig, s, 6, timeout, True) for s in WIDE_SCRIPTS]


def abc_wide_netlist(aig: Aig, depth_bound: int | None, timeout: float | None = None,
                     nets: list | None = None) -> tuple[dict, int, str]:
    """The ``abc-wide`` candidate's mapping of the combinational ``aig``: each of
    :data:`WIDE_SCRIPTS` with the wide LUT library (as :func:`abc_lut_netlist` with ``wide``), the
    one :func:`pick_variant` keeps for ``depth_bound`` (the reference's LUT depth, or None) proved
    equivalent with ABC ``cec``; ``nets``: the mappings already made (:func:`wide_mappings`).
    Returns (netlist document, its LUT depth, the script kept).

    Raises:
        BaselineError, ToolError, ToolMissing: as :func:`abc_lut_netlist`.
    """
    nets = nets if nets is not None else wide_mappings(aig, timeout)
    k = pick_variant([(len(n.luts), n.depth()) for n in nets], depth_bound)
    _prove(aig, nets[k], WIDE_SCRIPTS[k], timeout)
    return nets[k].to_json_obj(), nets[k].depth(), WIDE_SCRIPTS[k]


def _prove(aig: Aig, net, script: str, timeout: float | None) -> None:
    """ABC ``cec`` of the read-back netlist ``net`` against ``aig``; BaselineError when not equal."""
    from dcsflow.tmap.abc import cec
    from dcsflow.tmap.netlist import compose

    ok, verdict = cec(aig, compose(net, Aig(), list(aig.input_names)), timeout,
                      what=f"cec: ABC's mapping ({script}) vs the logic")
    if not ok:
        raise BaselineError(f"ABC's mapping ({script}) read back is not equivalent to the logic: {verdict}")


def _abc_map(aig: Aig, script: str, K: int, timeout: float | None, wide: bool):
    """ABC's mapping of ``aig`` by ``script``, read back as a TlutNetlist (unproved); see
    :func:`abc_lut_netlist`."""
    import tempfile

    from dcsflow.tmap.abc import run_abc
    from dcsflow.tmap.netlist import Lut, TlutNetlist

    width = 8 if wide else K
    with tempfile.TemporaryDirectory(prefix="dcs-baseline-") as d:
        write_aiger(aig, Path(d) / "in.aig")
        lib = ""
        if wide:
            (Path(d) / "wide.lut").write_text(WIDE_LUT_LIBRARY)
            lib = "read_lut wide.lut; "
        run_abc(f"{lib}&r in.aig; {script.format(K=K)}; &put; write_blif out.blif", timeout=timeout, cwd=d,
                what=f"baseline LUT mapping{' (wide LUT library)' if wide else ''}: {script.format(K=K)}")
        outp = Path(d) / "out.blif"
        if not outp.exists():
            raise BaselineError(f"ABC wrote no netlist for {script!r}")
        b_in, b_out, nodes = parse_names(outp.read_text())
        if len(b_in) != aig.num_inputs or len(b_out) != len(aig.outputs):
            raise BaselineError(f"ABC's netlist has {len(b_in)} inputs / {len(b_out)} outputs, the logic "
                                f"{aig.num_inputs} / {len(aig.outputs)}")
        in_name = dict(zip(b_in, aig.input_names))
        out_names = list(aig.output_names)
        out_of = dict(zip(b_out, out_names))
        # every node becomes a LUT named abc$<node>; buffers and constants are resolved to drivers
        alias: dict[str, str] = {}

        def driver(n: str) -> str:
            if n in in_name:
                return in_name[n]
            if n in alias:
                return alias[n]
            raise BaselineError(f"ABC's netlist reads {n!r}, which nothing drives")

        luts, muxes = [], []
        for n, ins, cubes in nodes:
            if len(ins) > width:
                raise BaselineError(f"ABC's netlist: {n} has {len(ins)} inputs (at most {width})")
            tt = _truth(ins, cubes)
            if not ins:
                alias[n] = "1" if tt & 1 else "0"
            elif len(ins) == 1 and tt == 0b10:
                alias[n] = driver(ins[0])
            elif len(ins) > 6:
                name = f"abc${n}"
                qs, ms = split_wide(name, [driver(x) for x in ins], tt)
                luts += qs
                muxes += ms
                alias[n] = name
            else:
                name = f"abc${n}"
                luts.append(Lut(name, [driver(x) for x in ins], tt))
                alias[n] = name
        outputs = []
        for b in b_out:
            if b in in_name:
                outputs.append((out_of[b], in_name[b]))
            elif b in alias:
                outputs.append((out_of[b], alias[b]))
            else:
                raise BaselineError(f"ABC's netlist leaves output {b} undriven")
        return TlutNetlist(K, list(aig.input_names), [], luts, outputs, muxes=muxes)


#: the folder of the conventional logic shared by the AIG-based candidates
LOGIC_DIR = "baselines/logic"


def logic_dir(form: str | None = None) -> str:
    """The folder (relative to the build folder) of the logic the AIG-based candidates on the
    conventional variant (``form`` None) or on register form ``form`` map."""
    return LOGIC_DIR if form is None else f"baselines/@{form}/logic"


@cached(inputs=lambda out, top, form=None: [
            conventional_pre(out) if form is None else Path(out) / "baselines" / f"@{form}" / "pre.json"],
        outputs=lambda out, top, form=None: [logic_dir(form)])
def prepare_logic(out: Path, top: str, form: str | None = None) -> int:
    """Extract the conventional logic (no parameters, parameter registers kept) of build folder
    ``out`` — of register form ``form`` when given (``baselines/@<form>/pre.json``) — into
    :func:`logic_dir`: ``logic.aag``, ``extract.json`` and ``module.json`` (the module the
    candidates are re-imported into). Returns its AND nodes. Raises FrontendError."""
    ldir = Path(out) / logic_dir(form)
    if ldir.exists():
        shutil.rmtree(ldir)
    src = conventional_pre(out) if form is None else Path(out) / "baselines" / f"@{form}" / "pre.json"
    cpre = load_json_file(src, NETLIST_LIMIT)
    ext, module = fe.extract_logic(cpre, top, None, ldir)
    write_text_atomic(ldir / "module.json", json.dumps(module))
    return ext.ands


@cached(inputs=lambda out, top, name, *a, **k: [logic_dir(split_name(name)[1])],
        outputs=lambda out, top, name, *a, **k: [f"baselines/{name}"],
        key=lambda out, top, name, defaults, ref_depth=None, premapped=None, K=6, form=None:
            [top, name, defaults, ref_depth, K, form])
def make_candidate(out: Path, top: str, name: str, defaults: dict, ref_depth: int | None = None,
                   premapped: list | None = None, K: int = 6, form: FormInfo | None = None) -> BaselineRun:
    """Make the AIG-based candidate ``name`` (``tmap``, ``abc-*``, or one of them ``@<form>``) of
    build folder ``out`` from :func:`logic_dir` (:func:`prepare_logic`) into ``baselines/<name>/``:
    map, prove, re-import and finish with the rest of synth_xilinx (``defaults``: pre.json's
    parameter defaults of the top; ``ref_depth``: the reference's finished LUT depth, used by
    ``abc-wide`` only, with ``premapped``: its mappings if already made, :func:`wide_mappings`;
    ``K``: the LUT size; ``form``: the prepared register form of a ``@<form>`` candidate). One
    that cannot be made (a mapper or proof error, a tool that fails or times out) is returned with
    ``failed`` (one line) and no netlist: it is left out of the choice; one whose form is not made
    with ``skipped``."""
    from dcsflow.tmap.errors import TmapError

    if form is not None and form.why_not is not None:
        return form.not_made(name)
    t0 = time.perf_counter()
    d = Path(out) / "baselines" / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    try:
        return form_run(_aig_candidate(Path(out), name, d, top, defaults, ref_depth, t0, premapped, K), form)
    except (FlowError, TmapError) as e:
        (d / "netlist.json").unlink(missing_ok=True)
        return form_run(BaselineRun(name, None, time.perf_counter() - t0, failed=str(e).splitlines()[0][:300]), form)


def _aig_candidate(out: Path, name: str, d: Path, top: str, defaults: dict, ref_depth, t0,
                   premapped=None, K: int = 6) -> BaselineRun:
    """One candidate from the extracted logic into folder ``d`` (see :func:`make_candidate`)."""
    from dcsflow import steps

    from .mapping import map_logic

    mapper, form = split_name(name)
    ldir = out / logic_dir(form)
    with steps.step("map"):
        if mapper == "tmap":
            mo = map_logic(ldir / "logic.aag", [], d / "map", K=K)
            netlist, luts, depth = mo.netlist, mo.stats.get("luts"), mo.stats.get("depth")
            proved = mo.stats.get("verified")
            script = None
        else:
            aig = read_aiger(str(ldir / "logic.aag"))
            if mapper == "abc-wide":
                netlist, depth, script = abc_wide_netlist(aig, ref_depth, nets=premapped)
            else:
                netlist, depth, _ = abc_lut_netlist(aig, ABC_SCRIPTS[mapper], K=K)
                script = ABC_SCRIPTS[mapper].format(K=K)
            luts, proved = len(netlist["luts"]), True
    with steps.step("re-import"):
        extract = ldir / "extract.json"
        ext = fe.Extraction.from_json(read_input_text(extract, NETLIST_LIMIT), str(extract))
        module = load_json_file(ldir / "module.json", NETLIST_LIMIT)
        doc = fe.reimport({}, module, ext, netlist, tlut_mode=False)
        write_text_atomic(d / "mapped.json", json.dumps(doc))
    fe.continue_synthesis(d / "mapped.json", top, "", d / "post.json", d, "yosys",
                          what=f"rest of synth_xilinx ({name} candidate)", lut_width=K)
    fdepth = _finish(d, top, defaults, K, name)
    return BaselineRun(name, f"baselines/{name}/netlist.json", time.perf_counter() - t0, luts, depth,
                       bool(proved) if proved is not None else None, script=script, depth=fdepth)


def submit_candidates(jobs, out: Path, top: str, names: tuple[str, ...], defaults: dict, K: int = 6,
                      params: list[str] | tuple[str, ...] = (), ref_depth: int | None = None) -> dict:
    """Submit the jobs making the candidates ``names`` (:func:`check_names`) of build folder ``out``
    (module docstring) to ``jobs`` (:class:`dcsflow.flow.jobs.Jobs`); ``defaults``: pre.json's
    parameter defaults of the top; ``K``: the LUT size; ``params``: the TLUT build's parameter
    ports (the register forms' registers). ``abc-wide`` (on any variant) waits for the reference
    (its depth bound); the others for their extracted logic only; a register form's candidates for
    the form (:func:`prepare_form`); ``ref_depth``: the reference's LUT depth when known without it
    (then ``abc-wide`` waits for nothing of it). A candidate not made at LUT size ``K`` (:func:`skip_reason`)
    gets a finished future of a :class:`BaselineRun` with ``skipped``. Returns name -> future of
    its :class:`BaselineRun`, in :data:`ALL_CANDIDATES` order."""
    from concurrent.futures import Future

    base = Path(out) / "baselines"
    if base.exists():
        shutil.rmtree(base)
    futs: dict = {}
    for name in names:
        why = skip_reason(split_name(name)[0], K)
        if why is not None:
            futs[name] = Future()
            futs[name].set_result(BaselineRun(name, None, 0.0, skipped=why, variant=split_name(name)[1] or "conventional"))
    if REFERENCE in names:       # the longest job; abc-wide's choice waits for it
        futs[REFERENCE] = jobs.submit(f"baseline {REFERENCE}", _yosys_abc, out, top, defaults, K, priority=0)
    ref = ref_depth if ref_depth is not None else futs.get(REFERENCE)
    for form in (None, *FORMS):
        todo = [n for n in names if n not in futs and split_name(n)[1] == form]
        if not todo:
            continue
        finfo = None
        if form is not None:
            finfo = jobs.submit(f"baselines {form} form", prepare_form, out, top, list(params), form, priority=1)
            logic = finfo
        else:
            logic = jobs.submit("baselines logic", prepare_logic, out, top, priority=1)
        for name in todo:
            mapper = split_name(name)[0]
            if mapper == REFERENCE:
                futs[name] = jobs.submit(f"baseline {name}", _yosys_abc, out, top, defaults, K, finfo, priority=1)
            elif mapper == "abc-wide" and ref is not None:
                maps = jobs.submit(f"baseline {name} mappings", _wide_mappings, out, form, finfo, after=(logic,),
                                   priority=2)
                futs[name] = jobs.submit(f"baseline {name}", _wide_candidate, out, top, defaults, ref, maps, finfo,
                                         priority=1)
            else:
                futs[name] = jobs.submit(f"baseline {name}", make_candidate, out, top, name, defaults, None, None, K,
                                         finfo, after=(logic,), priority=2 if mapper == "abc-dch" else 3)
    return {n: futs[n] for n in ALL_CANDIDATES if n in futs}


@cached(inputs=lambda out, form=None, finfo=None: [logic_dir(form)])
def _wide_mappings(out: Path, form: str | None = None, finfo: FormInfo | None = None) -> list:
    """:func:`wide_mappings` of the logic in :func:`logic_dir` (none when the form is not made)."""
    if finfo is not None and finfo.why_not is not None:
        return []
    return wide_mappings(read_aiger(str(Path(out) / logic_dir(form) / "logic.aag")))


def _wide_candidate(out: Path, top: str, defaults: dict, ref: "BaselineRun | int", nets: list,
                    finfo: FormInfo | None = None) -> BaselineRun:
    """``abc-wide`` (on register form ``finfo`` when given) from its mappings ``nets``
    (:func:`wide_mappings`), the one kept bounded by the reference's finished LUT depth (``ref``:
    its run, or the depth itself)."""
    name = "abc-wide" if finfo is None else f"abc-wide@{finfo.form}"
    return make_candidate(out, top, name, defaults, ref if isinstance(ref, int) else ref.depth, premapped=nets,
                          form=finfo)


def candidate_runs(futs: dict, reference: bool = True) -> list[BaselineRun]:
    """The :class:`BaselineRun` of every candidate future (:func:`submit_candidates`), in order; a
    candidate whose job failed outside the candidate's own errors (a worker that died) is recorded
    as failed. Raises the reference's error: the reference must be made (unless ``reference`` is
    False: a build given the LUT depths it bounds)."""
    runs = []
    for name, f in futs.items():
        err = f.exception()
        if err is None:
            runs.append(f.result())
        elif name == REFERENCE and reference:
            raise err
        else:
            runs.append(BaselineRun(name, None, 0.0, failed=(str(err).splitlines() or [type(err).__name__])[0][:300],
                                    variant=split_name(name)[1] or "conventional"))
    return runs


def finished_depth(out: Path, top: str, run: BaselineRun) -> int:
    """LUT depth (:func:`dcsflow.flow.netlist.lut_depth`) of candidate ``run``'s finished netlist
    in build folder ``out`` (module ``top``); the run must have made one (``run.netlist``). The
    depth the run recorded when it has one."""
    from .netlist import lut_depth

    if run.depth is not None:
        return run.depth
    return lut_depth(load_json_file(Path(out) / run.netlist, NETLIST_LIMIT)["modules"][top])


def choose(utilization: dict[str, dict], reference: str = REFERENCE,
           depth_limit: int | None = None) -> tuple[str, dict[str, bool]]:
    """The conventional implementation among the candidates: the fewest slices (then LUTs, then
    LUT depth, then :data:`ALL_CANDIDATES` order) among those whose LUT depth is no greater than the
    reference's.

    Args:
        utilization: candidate name -> figures with at least ``slices``, ``luts`` and ``depth``.
        reference: the candidate bounding the depth (always eligible).
        depth_limit: the reference's LUT depth when it is not among the candidates (a build given
            it, ``BuildOptions.depth_bounds``); None: the reference's own.
    Returns:
        (chosen name, name -> eligible).
    Raises:
        BaselineError: the reference is not among the candidates.
    """
    if depth_limit is None and reference not in utilization:
        raise BaselineError(f"the reference baseline {reference} was not made")
    limit = utilization[reference]["depth"] if depth_limit is None else depth_limit
    if not any(u["depth"] <= limit for u in utilization.values()):
        raise BaselineError(f"no candidate is within the LUT depth bound {limit}")
    eligible = {n: u["depth"] <= limit for n, u in utilization.items()}
    order = {n: i for i, n in enumerate(ALL_CANDIDATES)}
    best = min((n for n in utilization if eligible[n]),
               key=lambda n: (utilization[n]["slices"], utilization[n]["luts"], utilization[n]["depth"],
                              order.get(n, len(order))))
    return best, eligible


