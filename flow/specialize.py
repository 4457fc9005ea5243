"""``dcsflow specialize``: evaluate the PPC for parameter values and write a specialized netlist.

A build folder (written by ``dcsflow build``) is loaded only when its manifest ``build.json`` matches
the files (SHA-256 of each) and the template netlist names the PPC it was built with
(module attribute ``dcs_ppc_sha256`` = SHA-256 of ``ppc.aig``); otherwise it is refused.
Parameter values are hex; a design with a parameter transform (e.g. ``picipher_cis``) takes the
user parameters and computes its circuit parameters itself. Keys are kept in memory; the only file
written is the one asked for, with owner-only permissions.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.scg.ppc import Ppc, parse_hex_value, tlut_inits

from . import netlist as nl
from .errors import FlowError

#: format name and version of build.json (the build manifest)
BUILD_FORMAT = "dcsflow-build"
BUILD_VERSION = 2


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class BuildFolderError(FlowError):
    """The build folder is missing, incomplete, corrupted or inconsistent."""


class ParamValueError(FlowError):
    """A --param value is malformed, of the wrong width, or names no parameter."""


@dataclass
class BuildFolder:
    """A loaded, hash-checked build folder.

    path: folder; manifest: build.json dict; top: top module; module: template netlist module dict
    (Yosys JSON); ppc: the PPC; entries: TLUT cell name -> PPC output index per INIT bit.
    """

    path: Path
    manifest: dict
    top: str
    module: dict
    ppc: Ppc
    entries: dict



def load_build(path: str | Path) -> BuildFolder:
    """Load and check a build folder.

    Raises:
        BuildFolderError: no build.json (not a finished build), unknown format, a file missing or
            changed since the build (hash differs), or the PPC not the one the netlist was built with.
    """
    path = Path(path)
    bj = path / "build.json"
    if not bj.exists():
        raise BuildFolderError(f"{path}: not a finished build folder (no build.json); run dcsflow build")
    try:
        manifest = json.loads(bj.read_text())
    except json.JSONDecodeError as e:
        raise BuildFolderError(f"{bj}: corrupted ({e})") from e
    if manifest.get("format") != BUILD_FORMAT:
        raise BuildFolderError(f"{bj}: not a {BUILD_FORMAT} manifest")
    if manifest.get("version") != BUILD_VERSION:
        raise BuildFolderError(f"{path}: build folder of format version {manifest.get('version')}; this dcsflow "
                               f"reads version {BUILD_VERSION}: rebuild it with dcsflow build")
    for name, digest in manifest.get("files", {}).items():
        f = path / name
        if not f.exists():
            raise BuildFolderError(f"{path}: {name} missing")
        if sha256_file(f) != digest:
            raise BuildFolderError(f"{path}: {name} does not match build.json (corrupted or replaced); rebuild")
    try:
        doc = json.loads((path / "template.json").read_text())
        top = manifest["top"]
        module = doc["modules"][top]
        ppc_json = json.loads((path / "ppc.json").read_text())
    except (KeyError, json.JSONDecodeError) as e:
        raise BuildFolderError(f"{path}: template or PPC manifest unreadable ({e})") from e
    if ppc_json.get("format") != "dcsflow-build-ppc" or ppc_json.get("version") != 1:
        raise BuildFolderError(f"{path}: ppc.json is not a dcsflow-build-ppc version 1 manifest")
    ppc_hash = sha256_file(path / "ppc.aig")
    if module.get("attributes", {}).get("dcs_ppc_sha256") != ppc_hash or ppc_json.get("sha256") != ppc_hash:
        raise BuildFolderError(f"{path}: PPC hash does not match the template netlist (mismatched build folder)")
    ppc = Ppc.load(path / "ppc.aig")
    entries = {k: list(v) for k, v in ppc_json["tluts"].items()}
    for cell in entries:
        if cell not in module["cells"] or not nl.is_tlut(module["cells"][cell]):
            raise BuildFolderError(f"{path}: PPC manifest names TLUT {cell!r} absent from the netlist")
    return BuildFolder(path, manifest, top, module, ppc, entries)


def parse_param_args(args: list[str], ports: dict[str, int]) -> dict[str, int]:
    """Parse ``NAME=HEX`` arguments against ``ports`` (name -> width); every port needs a value.

    Raises:
        ParamValueError: malformed argument, unknown name (lists the names), missing port,
            value not hex or of the wrong width (names the expected number of bits).
    """
    vals: dict[str, int] = {}
    for a in args:
        name, eq, hexv = a.partition("=")
        if not eq:
            raise ParamValueError(f"--param {a}: expected NAME=HEX")
        if name not in ports:
            raise ParamValueError(f"--param {name}: no such parameter; parameters: "
                                  + ", ".join(f"{p} ({w} bits)" for p, w in ports.items()))
        try:
            vals[name] = parse_hex_value(hexv, name, ports[name])
        except ValueError as e:
            raise ParamValueError(str(e)) from e
    missing = [p for p in ports if p not in vals]
    if missing:
        raise ParamValueError("missing --param for " + ", ".join(f"{p} ({ports[p]} bits)" for p in missing))
    return vals


def user_params(build: BuildFolder, design=None) -> dict[str, int]:
    """Parameter ports the user gives values for (port -> width): the design's transform inputs,
    else the circuit's parameter ports recorded in build.json."""
    if design is not None and design.transform is not None:
        return dict(design.transform.user_params)
    return dict(build.manifest["params"])


def circuit_values(build: BuildFolder, user_values: dict[str, int], design=None) -> dict[str, int]:
    """Circuit parameter values of ``user_values``: the design's parameter transform applied
    (:meth:`dcsflow.flow.design.Design.circuit_values`), or the values as given (no design or no
    transform)."""
    return design.circuit_values(user_values) if design is not None else dict(user_values)


def tlut_values(build: BuildFolder, values_list: list[dict[str, int]]) -> list[dict[str, int]]:
    """INIT of every TLUT for each circuit-parameter assignment (bit-parallel PPC evaluation)."""
    bits = build.ppc.evaluate_many(values_list)
    return [tlut_inits(b, build.entries) for b in bits]


def specialized_verilog(build: BuildFolder, user_values: dict[str, int], module_name: str | None = None,
                        design=None) -> str:
    """Verilog netlist of Xilinx primitives with every TLUT's INIT set for ``user_values``
    (the ``design``'s parameter transform applied first)."""
    cv = circuit_values(build, user_values, design)
    inits = tlut_values(build, [cv])[0]
    return nl.write_verilog(build.module, module_name or build.top, inits)


def specialize_to_file(build_dir: str | Path, args: list[str], out: str | Path | None) -> str | None:
    """CLI helper: parse ``args`` (the user's parameters), specialize; write ``out`` (mode 0600) or
    return the text.

    Raises:
        BuildFolderError, ParamValueError, DesignError (the build's design is no longer installed).
    """
    from .registry import design_of

    b = load_build(build_dir)
    design = design_of(b.manifest, b.path)
    vals = parse_param_args(args, user_params(b, design))
    text = specialized_verilog(b, vals, design=design)
    if out is None:
        return text
    write_text_atomic(out, text, private=True)
    return None
