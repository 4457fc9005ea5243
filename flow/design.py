"""What the flow knows of a design: the :class:`Design` description a design folder registers.

A design is one folder under ``designs/`` (or a third-party package, or a user's ``dcsflow.toml``
project, :mod:`dcsflow.flow.project`) holding its HDL, golden model, vectors and one :class:`Design`
per top it offers. The flow finds installed designs through the entry-point group
:data:`ENTRY_POINT_GROUP` (:mod:`dcsflow.flow.registry`); the generic code never names a design.
A bundled design registers itself in ``setup.py`` exactly as a third-party package would::

    entry_points={"dcsflow.designs": ["mydesign = mypackage.design:DESIGN"]}

where ``DESIGN`` is a :class:`Design` (or a list of them). Everything design-specific the flow
needs comes through the fields below: parameter ports, derived parameters (:class:`ParamTransform`),
the conventional build's Verilog parameters, how a specialized netlist is checked
(:attr:`Design.check`, see :mod:`dcsflow.flow.check`), its place in ``dcsflow demo``
(:class:`Demo`), the ports a board wrapper drives, and extra command-line commands.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from dcsflow import limits

from .errors import FlowError

#: entry-point group through which design packages register their :class:`Design` descriptions
ENTRY_POINT_GROUP = "dcsflow.designs"

#: file name suffixes read as VHDL (through GHDL); everything else is Verilog
VHDL_SUFFIXES = (".vhd", ".vhdl")
#: file name suffixes of Verilog sources (a folder argument takes these and the VHDL ones)
VERILOG_SUFFIXES = (".v", ".sv")
#: every HDL file name suffix the flow reads
HDL_SUFFIXES = VERILOG_SUFFIXES + VHDL_SUFFIXES
#: the TLUT realizations (``dcsflow build --tlut``, docs/architecture.md "Two TLUT realizations"):
#: ``frames`` rewrites configuration frames through the ICAP; ``cfglut5`` makes every TLUT a CFGLUT5
#: (UG953) whose truth table the fabric shifts in (:mod:`dcsflow.flow.cfglut`)
TLUT_KINDS = ("frames", "cfglut5")
#: configuration ports a ``--backend vivado`` block design can give the rekey (``dcsflow build
#: --transport``): the AXI HWICAP (PG134) or the generated ICAP stream controller
#: (:mod:`dcsflow.flow.icapdma`, reading the rekey's words from DDR)
TRANSPORTS = ("hwicap", "icap-dma")


@dataclass(frozen=True)
class Handshake:
    """The input handshake of a design's top, by port name, for the CFGLUT5 loader's hold
    (:mod:`dcsflow.flow.cfglut`): a data item enters through ``valid``/``ready`` beats (AXI4-Stream
    style, a beat when both are high), its last beat marked by ``last`` (None: every beat is a whole
    item); it has left the design at a one-cycle pulse of ``done``, or (``done`` None) at an output
    beat ``out_valid``/``out_ready``. One item's beats are never split by a hold. ``clock``: the
    clock of all of them (the loader and the CFGLUT5s shift on it); ``reset``: the design's
    synchronous active-high reset (None: none)."""

    valid: str
    ready: str
    last: str | None = None
    done: str | None = None
    out_valid: str | None = None
    out_ready: str | None = None
    clock: str = "clk"
    reset: str | None = "rst"


#: the LUT sizes a build can map to (``dcsflow build --lut-size``, :attr:`Design.lut_size`); 6 = the
#: 7-series LUT6, the default
LUT_SIZES = (4, 5, 6)


class DesignError(FlowError):
    """A design cannot be found, loaded or used (unknown name, no sources, bad description)."""


class TransformError(FlowError):
    """User parameter values that a design's parameter transform cannot use."""


@dataclass(frozen=True)
class ParamTransform:
    """Derived parameters: the user gives ``user_params``; ``function`` computes the circuit's
    parameter values from them (e.g. a cipher state after initialization from Key‖nonce).

    user_params: port name -> width in bits of what the user gives (``--param NAME=HEX``);
    function: ``{user port: int} -> {circuit port: int}``;
    program: ``program() -> dcsflow.scg.transform.Program``, the same derivation in the SCG's
    transform language (constant time), or None. With a program, ``dcsflow build`` writes it into
    the build folder (``transform.json``) and every SCG of the build runs it — ``dcsflow
    rekey``/``specialize``/``check``, the runtime's ``rekey`` and the firmware — so a board needs
    only the user's values; ``function`` stays the golden model the program is tested against.
    Its inputs must be ``user_params`` (names, order, widths) and its outputs every circuit
    parameter at its width.
    """

    user_params: Mapping[str, int]
    function: Callable[[dict[str, int]], dict[str, int]]
    program: Callable[[], Any] | None = None

    def apply(self, values: Mapping[str, int]) -> dict[str, int]:
        """Circuit parameter values for ``values`` (every user port present).

        Raises:
            TransformError: a user port is missing.
        """
        missing = [p for p in self.user_params if p not in values]
        if missing:
            raise TransformError(f"the parameter transform needs {', '.join(missing)}")
        return self.function(dict(values))


class NamedParamError(FlowError):
    """A named parameter value (``--param NAME=TEXT`` of a :class:`NamedParam`) that cannot be
    converted (unknown name of a bundled value, a file that does not parse); one line."""


@dataclass(frozen=True)
class NamedParam:
    """A parameter value a design accepts in its own notation instead of hex, as
    ``--param NAME=TEXT`` (``dcsflow rekey``, ``specialize``): e.g. a processor's program, given as a
    bundled program's name or an assembly file, that sets the instruction- and coefficient-image
    parameters.

    name: the NAME (not a parameter port of the build); sets: the parameter ports it gives values
    for; convert: ``convert(text, ports) -> {port: value}`` where ``ports`` maps the build's
    parameter ports to their widths in bits and each value is an int of at most that width (bit i =
    port bit i); raises :class:`NamedParamError` (or another user error) with a one-line message;
    help: one line for ``dcsflow designs``.
    """

    name: str
    sets: tuple[str, ...]
    convert: Callable[[str, Mapping[str, int]], dict[str, int]]
    help: str = ""


def convert_named_params(design: "Design | None", items: list[str] | tuple[str, ...],
                         ports: Mapping[str, int], widths: Mapping[str, int] | None = None
                         ) -> list[str | tuple[str, int]]:
    """``NAME=TEXT`` items with every named value of ``design`` (:attr:`Design.named_params`)
    replaced by ``(PORT, value)`` pairs of the ports it sets (ints, the form
    :func:`dcsflow.scg.params.parse_param_args` takes beside ``NAME=HEX``); other items unchanged,
    in order. A NAME that is a port of ``ports`` is never a named value.

    ``ports``: the build's parameter ports -> widths in bits (build.json ``params``; what the
    converter sees). ``widths``: the widths the reader of the values expects where they differ (the
    runtime's PPC ports end at the highest parameter bit the PPC reads): the value is cut to that
    width — the bits above have no PPC input, so they cannot change the circuit.
    Raises:
        NamedParamError: the converter failed, or gave a port the build does not have or a value
            wider than its port.
    """
    named = {n.name: n for n in (design.named_params if design is not None else ())}
    out: list[str | tuple[str, int]] = []
    for it in items:
        name, eq, text = str(it).partition("=")
        conv = named.get(name.strip()) if eq else None
        if conv is None or name.strip() in ports:
            out.append(it)
            continue
        vals = conv.convert(text, dict(ports))
        for port, v in vals.items():
            if port not in ports:
                raise NamedParamError(f"--param {conv.name}: sets {port!r}, which is no parameter of this build")
            w = ports[port]
            if not isinstance(v, int) or v < 0 or v >> w:
                raise NamedParamError(f"--param {conv.name}: value of {port} does not fit its {w} bits")
            out.append((port, v & ((1 << (widths or {}).get(port, w)) - 1)))
    return out


def expand_named_params(design: "Design | None", items: list[str] | tuple[str, ...],
                        ports: Mapping[str, int], hex_widths: Mapping[str, int] | None = None) -> list[str]:
    """``NAME=TEXT`` items with every named value of ``design`` replaced by ``PORT=HEX`` items of the
    ports it sets (``ceil(width/4)`` hex digits each, the format of
    :func:`dcsflow.scg.params.parse_param_args`): :func:`convert_named_params` written as text, for
    a command line (e.g. the runtime's ``python -m dcsflow.scg rekey`` on a board without the flow).
    ``hex_widths``: as ``widths`` there; the hex digits are those of that width.
    Raises:
        NamedParamError: as :func:`convert_named_params`.
    """
    out = []
    for it in convert_named_params(design, items, ports, hex_widths):
        if isinstance(it, tuple):
            port, v = it
            hw = (hex_widths or {}).get(port, ports[port])
            it = f"{port}={v:0{(hw + 3) // 4}x}"
        out.append(it)
    return out


#: most random parameter values one ``dcsflow check`` runs (``--keys``, ``dcsflow.toml`` ``[check] keys``):
#: each is a specialized netlist and a simulation, so more would run for days rather than test more
MAX_KEYS = 10_000


def check_keys(keys, what: str = "keys") -> None:
    """Refuse a count of random parameter values that is not an integer in 1..:data:`MAX_KEYS`.

    Raises:
        CheckError: one line naming ``what`` (e.g. ``--keys``, ``check.keys``) and the allowed range.
    """
    if isinstance(keys, bool) or not isinstance(keys, int) or not 1 <= keys <= MAX_KEYS:
        shown = keys if isinstance(keys, int) else type(keys).__name__
        raise CheckError(f"{what} must be a whole number from 1 to {MAX_KEYS}, got {shown}")


@dataclass(frozen=True)
class CheckOptions:
    """Options of ``dcsflow check``: ``vectors`` (a vector file in the design's own format, None = the
    design's default vectors), ``keys`` (random parameter values for designs checked without vectors,
    e.g. a cocotb test; None = the design's default; else 1..:data:`MAX_KEYS`), ``seed`` (of those
    random values; None = fresh).

    Raises:
        CheckError: ``keys`` is neither None nor a whole number in 1..:data:`MAX_KEYS`.
    """

    vectors: Path | None = None
    keys: int | None = None
    seed: int | None = None

    def __post_init__(self):
        if self.keys is not None:
            check_keys(self.keys)


class CheckError(FlowError):
    """A build cannot be checked (its design has no check, bad vector file, simulator failure)."""


@dataclass
class DesignCheck:
    """What ``check`` needs from a design.

    vectors: the cases to run (any objects); groups: ``[(user parameter values {port: int},
    [case index, ...])]`` — one specialized netlist per group; label: case -> text naming it in the
    output; run_group: ``run_group(work, verilog, top, cases) -> ([(ok, reason)] per case, figures)``
    simulates the netlist text (``work`` is a private, empty folder for its files) on the group's
    cases; figures: a list of ``(size, cycles)`` for the report. each_line: print one line per case
    (``label: passed`` / ``label: FAILED (reason)``) instead of failures only.
    """

    vectors: list
    groups: list
    label: Callable[[Any], str]
    run_group: Callable[..., tuple[list, list]]
    each_line: bool = False


@dataclass(frozen=True)
class Demo:
    """A design's entry in ``dcsflow demo`` (the README's main job).

    order: position (smaller first); vectors: function returning the vector file the demo checks
    with (None: the design's default vectors); default: part of the main job without options (else
    only with ``dcsflow demo --also NAME``); cycles: message size whose cycle count the summary
    shows (the check's ``(size, cycles)`` figures; None: no cycles column value) and cycles_label
    that size with its unit for the column head (e.g. ``"16 B"``); rtl_sim: run by
    ``dcsflow demo --rtl-sim`` before the builds, returns True when every case passed; note: one
    line for ``--help`` (e.g. its run time).
    """

    order: int = 100
    vectors: Callable[[], Path] | None = None
    default: bool = True
    cycles: int | None = None
    cycles_label: str = ""
    rtl_sim: Callable[[], bool] | None = None
    note: str = ""


@dataclass(frozen=True)
class Design:
    """One buildable design (one top).

    Attributes:
        name: the DESIGN argument of ``dcsflow build`` (unique among installed designs).
        top: top module / entity (None: Yosys picks it; files given on the command line only).
        sources: HDL files (Verilog ``.v``/``.sv`` or VHDL ``.vhd``/``.vhdl``), in the order given to
            the tools.
        params: parameter ports besides the ``(* PARAM *)`` / ``--PARAM`` marks in the HDL.
        chparams: Verilog parameters of the top in the TLUT build (name -> value).
        conventional_chparams: Verilog parameters where the conventional build differs.
        transform: derived parameters (the user gives :attr:`ParamTransform.user_params`).
        check: ``check(build, options) -> DesignCheck`` (:mod:`dcsflow.flow.check`): how a specialized
            netlist of a build is checked; None: ``dcsflow check`` refuses with one line.
        demo: the design's entry in ``dcsflow demo`` (None: not part of it).
        board_ports: ports a board wrapper drives (the Vivado back end writes a block design with an
            AXI-Lite wrapper when the top has all of them and one parameter port); empty: none.
        commands: extra ``dcsflow`` commands (click commands, e.g. a golden model's CLI).
        sims: ``dcsflow sim NAME`` commands (click commands) by NAME, e.g. RTL simulation on vectors.
        named_params: parameter values in the design's own notation (:class:`NamedParam`, e.g. a
            program for a processor's instruction-image parameter), accepted as ``--param NAME=TEXT``
            by ``dcsflow rekey`` and ``dcsflow specialize``.
        description: one line for ``dcsflow designs``.
        origin: where the description came from: ``entry point <name>``, ``project <path>`` or
            ``files``.
        project: the ``dcsflow.toml`` of a project design, else None.
        lut_size: the LUT size K its builds map to when ``dcsflow build --lut-size`` is not given
            (:data:`LUT_SIZES`; None: 6; a project's ``[build] lut_size``).
        tlut: the TLUT realization its builds use when ``dcsflow build --tlut`` is not given
            (:data:`TLUT_KINDS`; None: ``frames``; a project's ``[build] tlut``).
        handshake: the top's input handshake (:class:`Handshake`), which a ``cfglut5`` build's
            loader holds while it shifts; None: the loader's ``hold`` is left to the user and
            ``dcsflow check`` cannot load a second key between two data items.
        timeout: seconds every external tool run of its builds and checks may take when neither
            ``--timeout`` nor the caller sets a limit (None: each tool's default,
            :mod:`dcsflow.limits`; a project's ``[build] timeout``; :func:`design_time_limit`).
        transport: the configuration port of its Vivado builds when ``dcsflow build --transport``
            is not given (:data:`TRANSPORTS`; None: ``hwicap``; a project's ``[build] transport``).
    """

    name: str
    top: str | None
    sources: tuple[Path, ...]
    params: tuple[str, ...] = ()
    chparams: Mapping[str, int | str] = field(default_factory=dict)
    conventional_chparams: Mapping[str, int | str] = field(default_factory=dict)
    transform: ParamTransform | None = None
    check: Callable[..., Any] | None = None
    demo: Demo | None = None
    board_ports: frozenset[str] = frozenset()
    commands: tuple[Any, ...] = ()
    sims: Mapping[str, Any] = field(default_factory=dict)
    named_params: tuple[NamedParam, ...] = ()
    description: str = ""
    origin: str = "files"
    project: Path | None = None
    lut_size: int | None = None
    tlut: str | None = None
    handshake: "Handshake | None" = None
    timeout: float | None = None
    transport: str | None = None

    @property
    def language(self) -> str:
        """``"vhdl"`` when every source is VHDL, ``"verilog"`` when none is, ``"mixed"`` otherwise
        (VHDL through GHDL, then Yosys reads GHDL's Verilog with the Verilog files)."""
        vhdl = [is_vhdl(p) for p in self.sources]
        if all(vhdl) and vhdl:
            return "vhdl"
        return "mixed" if any(vhdl) else "verilog"

    @property
    def vhdl_sources(self) -> tuple[Path, ...]:
        """The VHDL sources (:func:`is_vhdl`), in the order given."""
        return tuple(p for p in self.sources if is_vhdl(p))

    @property
    def verilog_sources(self) -> tuple[Path, ...]:
        """The Verilog sources (every source that is not VHDL), in the order given."""
        return tuple(p for p in self.sources if not is_vhdl(p))

    def circuit_values(self, user_values: Mapping[str, int]) -> dict[str, int]:
        """Circuit parameter values for the user's values (the transform's, or the values as given)."""
        return self.transform.apply(user_values) if self.transform else dict(user_values)


def is_vhdl(path: str | Path) -> bool:
    """True when ``path`` has a VHDL suffix (:data:`VHDL_SUFFIXES`, any case)."""
    return Path(path).suffix.lower() in VHDL_SUFFIXES


@contextmanager
def design_time_limit(design: Design) -> Iterator[None]:
    """Inside the block, every tool run has the design's time limit (:attr:`Design.timeout`, a
    project's ``[build] timeout``) unless a limit is set already (``--timeout``,
    :func:`dcsflow.limits.set_time_limit`: the command line wins over the project file)."""
    if design.timeout is None or limits.get_time_limit() is not None:
        yield
        return
    where = f"[build] timeout in {design.project}" if design.project is not None else f"design {design.name}: timeout"
    with limits.time_limit(design.timeout, where):
        yield
