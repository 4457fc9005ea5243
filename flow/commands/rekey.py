"""``dcsflow rekey``: host SCG — the runtime's ``rekey`` (:func:`dcsflow.scg.commands.run_rekey`: the
same options, steps and output as ``python -m dcsflow.scg rekey``), run in this process.

The steps the flow adds (:func:`open_build`; the runtime knows no designs): a ``--param NAME=TEXT``
whose NAME is a named parameter value of the build's design (:class:`dcsflow.flow.design.NamedParam`,
e.g. ``program=pi32`` for a processor whose program is a parameter input) is converted to the values
of the ports it sets; and when the design derives its circuit parameters from the user's
(:class:`dcsflow.flow.design.ParamTransform`, e.g. a GCM core's hash key H = E_K(0) from its key) and
the items give exactly the user parameters, the transform computes the circuit parameters, as
``dcsflow specialize`` and ``check`` do: the build's program (``transform.json``, which the runtime
and the firmware run too), or the design's function for a build without one. The build folder is
read and checked once.
"""

from __future__ import annotations

from ._runtime import runtime_command

#: runtime options of ``rekey`` that take a value (their value is never the BUILD argument)
_VALUE_OPTIONS = ("--param", "--to")


def _named_values(items: list[str], manifest, path: str, widths: dict[str, int] | None) -> list:
    """``items`` with the named values of the build's design converted to ``(PORT, value)`` pairs
    (:func:`dcsflow.flow.design.convert_named_params`); unchanged when ``manifest`` (``build.json``)
    is unreadable or names its ports or design wrongly (the build folder's check reports that), or
    every NAME is a port (then the design is not needed: it may not be installed here)."""
    from ..design import convert_named_params
    from ..registry import design_of

    try:
        ports = {str(k): int(v) for k, v in dict(manifest.get("params") or {}).items()}
    except (AttributeError, TypeError, ValueError):
        return list(items)
    if all(str(it).partition("=")[0].strip() in ports for it in items) \
            or not isinstance(manifest.get("design_source") or {}, dict):
        return list(items)
    return convert_named_params(design_of(manifest, path), items, ports, widths)


def _transformed(items: list, manifest, path: str) -> list:
    """``items`` as ``(PORT, value)`` pairs of the build's circuit parameters when its design has a
    parameter transform without a program in the build folder (``build.json`` ``user_params``, no
    ``transform``: the design's function computes them, so the design must be installed) and the
    items name exactly the user parameters without naming every circuit parameter; else unchanged
    (the runtime's form: every circuit parameter given, or the user parameters of a build whose
    program the runtime runs itself, :func:`dcsflow.scg.transform.circuit_items`).

    Raises:
        ParamValueError: a user value that does not parse at its declared width.
        DesignError: the build's design is not installed (it holds the transform).
        TransformError: the transform refused the values.
    """
    from dcsflow.scg.params import parse_param_args
    from dcsflow.scg.transform import item_name

    from ..registry import design_of

    user = manifest.get("user_params") if isinstance(manifest, dict) else None
    ports = manifest.get("params") if isinstance(manifest, dict) else None
    if not isinstance(user, dict) or not isinstance(ports, dict) or not user or "transform" in manifest:
        return items
    names = {item_name(it) for it in items}
    if names != set(user) or names >= set(ports):
        return items
    design = design_of(manifest, path)
    if design is None or design.transform is None:
        return items
    values = design.transform.apply(parse_param_args(items, {str(k): int(v) for k, v in user.items()}))
    return [(p, v) for p, v in values.items() if p in ports]


def open_build(path: str, items: list[str]):
    """``(build, assignment)`` for ``dcsflow rekey``: the build folder read and checked once
    (:func:`dcsflow.scg.buildfolder.read_manifest`, :func:`~dcsflow.scg.buildfolder.load_build`) and
    the values of ``items`` (``NAME=HEX``, or ``NAME=TEXT`` of a named value) for its PPC's ports,
    each converted once (:func:`dcsflow.scg.params.parse_param_args`) at the parameters' declared
    widths (``build.json`` ``params``, the widths ``dcsflow specialize`` reads), then cut to the bits
    the PPC reads (:func:`dcsflow.scg.params.ppc_values`), as the runtime's ``rekey`` does. The user
    parameters of a design with a parameter transform become the circuit parameters through the
    build's program (``transform.json``, the one the runtime and the firmware run), or through the
    design's function when the build has no program.

    A named value is converted before a refused folder is reported: a bad value is the error named
    first (it needs only ``build.json``).

    Raises:
        NamedParamError, DesignError: a named value that cannot be converted; the build's design is
            not installed (asked only when a NAME is no port of the build).
        BuildFolderError, ParamValueError: as the runtime's ``rekey``.
    """
    from dcsflow.scg.buildfolder import load_build, read_manifest
    from dcsflow.scg.errors import BuildFolderError
    from dcsflow.scg.params import parse_param_args, ppc_values
    from dcsflow.scg.transform import circuit_items

    manifest = widths = refused = None
    try:
        manifest = read_manifest(path)
        build = load_build(path, manifest)
        widths = build.ports                  # parses ppc.aig (checked on first use)
    except BuildFolderError as e:
        refused = e
    items = _named_values(items, manifest, path, widths)
    if refused is not None:
        raise refused
    items = circuit_items(build, _transformed(items, manifest, path))
    return build, ppc_values(parse_param_args(items, build.param_widths), widths)


def _run(a) -> int:
    from dcsflow.scg.commands import run_rekey

    return run_rekey(a, open_build=open_build)


COMMAND = runtime_command("rekey", "Host SCG: new parameter values, each touched frame written once.", run=_run)


# ------------------------------------------------------------------------------------ for another machine
def _build_arg(args: list[str]) -> str | None:
    """The BUILD argument of a ``rekey`` argument list (the first word that is neither an option
    nor an option's value), or None."""
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in _VALUE_OPTIONS:
            skip = True
        elif not a.startswith("-"):
            return a
    return None


def expand_args(args: list[str]) -> list[str]:
    """A ``rekey`` argument list with the named parameter values of the build's design written as
    ``PORT=HEX`` items (:func:`dcsflow.flow.design.expand_named_params`), and the user's parameters
    of a design with a parameter transform replaced by the circuit parameters it computes (as
    :func:`open_build` does) when the build has no program of it (one with a program keeps the user's
    parameters: the runtime runs the program), every other word kept as written: a command line for a runtime without
    the flow (``python -m dcsflow.scg rekey``, e.g. on the board), which knows no designs. ``dcsflow
    rekey`` itself converts the values once, as ints (:func:`open_build`). Unchanged when there is no
    readable ``BUILD/build.json`` or the design has neither named values nor a transform; the hex
    digits are those of the port's declared width (``build.json`` ``params``), the form every
    command reads.

    Raises:
        NamedParamError, DesignError, ParamValueError, TransformError: one-line user errors.
    """
    from dcsflow.scg import buildfolder
    from dcsflow.scg.errors import ScgError

    from ..design import expand_named_params
    from ..registry import design_of

    build = _build_arg(args)
    if build is None:
        return list(args)
    try:
        manifest = buildfolder.read_manifest(build)
        ports = {str(k): int(v) for k, v in dict(manifest.get("params") or {}).items()}
    except (ScgError, TypeError, ValueError, AttributeError):
        return list(args)
    design = design_of(manifest, build)
    if design is None or not (design.named_params or design.transform):
        return list(args)
    out: list[str] = []
    items: list[str] = []                    # every --param value, in order
    slots: set[int] = set()                  # positions in out of the --param words and values
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--param" and i + 1 < len(args):
            for item in expand_named_params(design, [args[i + 1]], ports):
                slots.update((len(out), len(out) + 1))
                out += ["--param", item]
                items.append(item)
            i += 2
            continue
        if a.startswith("--param="):
            for x in expand_named_params(design, [a[len("--param="):]], ports):
                slots.add(len(out))
                out.append(f"--param={x}")
                items.append(x)
        else:
            out.append(a)
        i += 1
    circuit = _transformed(items, manifest, build)
    if circuit == items:
        return out
    # the user's parameters became the circuit's: those take the place of the first --param
    texts = [w for port, v in circuit for w in ("--param", f"{port}={v:0{(ports[port] + 3) // 4}x}")]
    res: list[str] = []
    for k, w in enumerate(out):
        if k in slots:
            res += texts
            texts = []
        else:
            res.append(w)
    return res
