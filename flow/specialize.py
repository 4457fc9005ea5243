"""``dcsflow specialize``: evaluate the PPC for parameter values and write a specialized netlist.

A build folder (written by ``dcsflow build``) is read through the runtime's one reader
(:func:`dcsflow.scg.buildfolder.load_build`): only when its manifest ``build.json`` matches the files
(SHA-256 of each) and the template netlist names the PPC it was built with (module attribute
``dcs_ppc_sha256`` = SHA-256 of ``ppc.aig``); otherwise it is refused (:class:`BuildFolderError`).
``--param`` values are parsed by :func:`dcsflow.scg.params.parse_param_args`. Parameter values are
hex; a design with a parameter transform (e.g. a cipher state derived from Key‖nonce) takes the
user parameters, and the build's program of the transform (``transform.json``) — or, in a build
without one, the design's description (:attr:`dcsflow.flow.design.Design.transform`) — computes
the circuit parameters. Keys are kept in memory; the only file written is the one asked for, with
owner-only permissions.
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.scg.buildfolder import BuildFolder, BuildFolderError, build_folder_of, load_build
from dcsflow.scg.params import ParamValueError, parse_param_args, ppc_values
from dcsflow.scg.ppc import tlut_inits
from dcsflow.scg.transform import run as run_transform

from . import netlist as nl

#: the build-folder reader and the parameter parser are the runtime's (one each); re-exported here
__all__ = ["BuildFolder", "BuildFolderError", "ParamValueError", "circuit_values", "load_build",
           "parse_param_args", "specialize_to_file", "specialized_verilog", "tlut_values"]


def circuit_values(build: BuildFolder, user_values: dict[str, int], design=None) -> dict[str, int]:
    """Circuit parameter values of ``user_values``: the build's parameter transform program run on
    them (``transform.json``, :func:`dcsflow.scg.transform.run`: the program every SCG of the build
    runs), else the design's parameter transform applied
    (:meth:`dcsflow.flow.design.Design.circuit_values`), or the values as given (no design or no
    transform).

    Raises:
        BuildFolderError: the program is refused. TransformRefused: it refused the values.
    """
    if build.transform is not None:
        return run_transform(build.transform, user_values)
    return design.circuit_values(user_values) if design is not None else dict(user_values)


def tlut_values(build: BuildFolder, values_list: list[dict[str, int]]) -> list[dict[str, int]]:
    """INIT of every TLUT for each circuit-parameter assignment (bit-parallel PPC evaluation):
    per assignment, template cell name -> INIT (bit i from the PPC output ``build.tlut_entries[cell][i]``).

    Each assignment is at the declared widths (``build.json`` ``params``) and is handed to the PPC
    as ``rekey`` hands it (:func:`dcsflow.scg.params.ppc_values`): cut to the bits the PPC reads.

    Raises:
        ParamValueError: a value wider than its declared width, or a PPC port without a value.
    """
    bits = build.ppc.evaluate_many([ppc_values(v, build.ports, build.param_widths) for v in values_list])
    return [tlut_inits(b, build.tlut_entries) for b in bits]


def specialized_verilog(build: BuildFolder, user_values: dict[str, int], module_name: str | None = None,
                        design=None) -> str:
    """Verilog netlist of Xilinx primitives with every TLUT's INIT set for ``user_values``
    (the ``design``'s parameter transform applied first)."""
    cv = circuit_values(build, user_values, design)
    inits = tlut_values(build, [cv])[0]
    text = nl.write_verilog(build.module, module_name or build.top, inits)
    unused = unread_parameter_ports(build.module, build.param_widths)
    if not unused:
        return text
    head, _, rest = text.partition("\n")
    note = (f"// parameter input{'s' if len(unused) > 1 else ''} {', '.join(unused)}: kept as "
            f"port{'s' if len(unused) > 1 else ''} so that test benches of the source connect unchanged; "
            "nothing reads them, the values are in the TLUT INITs")
    return f"{head}\n{note}\n{rest}"


def unread_parameter_ports(module: dict, params) -> list[str]:
    """The parameter ports of a netlist ``module`` (Yosys JSON) whose bits no cell and no output
    port reads: in a specialized netlist their values are in the TLUT INITs."""
    read = {b for c in (module.get("cells") or {}).values()
            for p, bits in (c.get("connections") or {}).items()
            if (c.get("port_directions") or {}).get(p) != "output" for b in bits}
    read |= {b for p in (module.get("ports") or {}).values() if p.get("direction") == "output" for b in p["bits"]}
    ports = module.get("ports") or {}
    return [n for n in params if n in ports and not set(ports[n].get("bits", [])) & read]


def specialize_to_file(build_dir: str | Path, args: list[str], out: str | Path | None) -> str | None:
    """CLI helper: parse ``args`` (the user's ``NAME=HEX`` parameters), specialize; write ``out``
    (mode 0600) or return the text.

    Raises:
        BuildFolderError (also: ``out`` inside a build folder, or not writable), ParamValueError,
        DesignError (the build's design is no longer installed).
    """
    from .design import convert_named_params
    from .registry import design_of

    b = load_build(build_dir)
    if out is not None and build_folder_of(out) is not None:
        raise BuildFolderError(f"--out {out}: inside the build folder {build_folder_of(out)}; a specialized "
                               "netlist holds key material: write it elsewhere")
    design = design_of(b.manifest, b.path)
    vals = parse_param_args(convert_named_params(design, list(args), b.user_params), b.user_params)
    text = specialized_verilog(b, vals, design=design)
    if out is None:
        return text
    try:
        write_text_atomic(out, text, private=True)
    except OSError as e:
        raise BuildFolderError(f"--out {out}: cannot write ({e.strerror or e})") from None
    return None
