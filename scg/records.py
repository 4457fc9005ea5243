"""The schemas of the runtime's records: every JSON file of a build folder the runtime reads.

One place for the typed form of ``build.json`` (:data:`BUILD_MANIFEST`), ``ppc.json``
(:data:`PPC_MANIFEST`), ``tlut/framemap.json`` (:data:`FRAME_MAP`), ``cfglut.json``
(:data:`CFGLUT_LAYOUT`), the template netlist ``template.json`` (:data:`NETLIST`), the imported
template's record ``tlut/imported/import.json`` (:data:`IMPORT_RECORD`), the folder record
``stages/folder.json`` (:data:`FOLDER_RECORD`) and the fields of ``report.json`` the runtime compares
with ``build.json`` (:data:`REPORT_LINK`); docs/formats.md "Typed records" lists them. The build-folder
reader (:mod:`dcsflow.scg.buildfolder`) checks each document with :func:`check` before it reads a
field: types, required keys, ranges; unknown keys are accepted (a newer writer may add fields). Names
that must exist in another file (a TLUT of ``ppc.json`` in the netlist, a frame-map site in the
device) are checked by the reader itself. Built from :mod:`dcsflow.schema` (standard library only).
"""

from __future__ import annotations

from dcsflow.affine import MAX_FRONTIER
from dcsflow.schema import HEX64, NAME, Any, Bool, Enum, Int, List, Map, Node, Num, Obj, OneOf, Optional, SchemaError, \
    Str, Tuple
from dcsflow.schema import check as _check

from .errors import BuildFolderError

__all__ = ["BUILD_MANIFEST", "PPC_MANIFEST", "FRAME_MAP", "CFGLUT_LAYOUT", "NETLIST", "MODULE", "IMPORT_RECORD",
           "FOLDER_RECORD", "REPORT_LINK", "PORT_WIDTHS", "MAX_PORT_BITS", "MAX_PPC_OUTPUTS", "SchemaError", "check"]

#: the widest parameter port a record may give (bits)
MAX_PORT_BITS = 1 << 20
#: the most PPC outputs (TLUT bits) a record may count
MAX_PPC_OUTPUTS = 1 << 31
_U32 = (1 << 32) - 1

#: port name -> width in bits
PORT_WIDTHS = Map(Int(1, MAX_PORT_BITS), key=NAME)
_FORMAT = Str(max_len=64, what="a format name")
_VERSION = Int(0, 1 << 16)
_HEX = Str(r"(?:0x)?[0-9A-Fa-f]{1,16}", what="hex digits")

#: ``build.json`` (version 2; docs/formats.md "Build folder")
BUILD_MANIFEST = Obj(
    required={"format": _FORMAT, "version": _VERSION, "design": NAME, "top": NAME, "device": NAME,
              "design_hash": HEX64, "params": PORT_WIDTHS, "user_params": Optional(PORT_WIDTHS),
              "design_source": Obj(required={"kind": Enum("installed", "project", "files")},
                                   optional={"name": NAME, "path": NAME}),
              "files": Map(HEX64, key=Str(max_len=4096, what="a file name", nonempty=True))},
    optional={"tlut": Enum("frames", "cfglut5"),
              "template": Obj(optional={"source": Str(), "folder": Str(), "file": Str(), "record": Str(),
                                        "bitstream_sha256": HEX64, "record_sha256": HEX64})})

#: one affine TLUT record of ``ppc.json`` ``affine`` (:meth:`dcsflow.affine.AffineTlut.from_json`
#: checks how its parts fit together)
AFFINE_RECORD = Obj(required={"k": Int(0, 6), "frontier": List(Int(0, MAX_PPC_OUTPUTS), 1, MAX_FRONTIER),
                              "cols": List(Int(0, 63), 1, MAX_FRONTIER), "neg": Int(0, (1 << MAX_FRONTIER) - 1),
                              "base": OneOf(_HEX, Int(0, (1 << 64) - 1))},
                    optional={"quarters": List(OneOf(_HEX, Int(0, (1 << 64) - 1)), 2, 4), "q": Int(0, 3),
                              "hcols": List(Int(0, 3), 1, MAX_FRONTIER)})

#: ``ppc.json`` (format ``dcsflow-build-ppc`` version 1)
PPC_MANIFEST = Obj(
    required={"format": _FORMAT, "version": _VERSION, "sha256": HEX64},
    optional={"params": List(NAME), "outputs": Int(0, MAX_PPC_OUTPUTS), "ands": Int(0),
              "aiger": Str(), "netlist": Str(),
              "tluts": Map(List(Int(0, MAX_PPC_OUTPUTS), 1, 64), key=NAME),
              "affine": Map(AFFINE_RECORD, key=NAME)})

_SITE = Str(r"SLICE_X[0-9]{1,4}Y[0-9]{1,4}", what="a SLICE site name")
_BEL = Str(r"[A-D][56]LUT", what="a LUT BEL name (A6LUT .. D5LUT)")

#: ``tlut/framemap.json`` (format ``dcsflow-frame-map`` version 1): entries (FAR, word < 101, bit < 32,
#: PPC output) and the TLUTs whose INIT bits they are; the reader checks each FAR against the device,
#: each output against the PPC, and that the entries are exactly the INIT bits of the TLUTs
FRAME_MAP = Obj(
    required={"format": _FORMAT, "version": _VERSION, "design_hash": HEX64,
              "idcode": OneOf(_HEX, Int(0, _U32)), "ppc_outputs": Int(0, MAX_PPC_OUTPUTS),
              "entries": List(Tuple(Int(0, _U32), Int(0, 100), Int(0, 31), Int(0, MAX_PPC_OUTPUTS))),
              "tluts": List(Obj(required={"name": NAME, "site": _SITE, "bel": _BEL},
                                optional={"pins": List(Optional(Str()), 0, 6),
                                          "input_pins": List(Int(0, 5), 0, 5)}))},
    optional={"device": NAME, "unused_pins": Str()})

#: ``cfglut.json`` (format ``dcsflow-cfglut-layout`` version 1 or 2; :func:`dcsflow.scg.cfglut.layout_from_json`
#: checks the chains, registers, chain length and build id)
CFGLUT_LAYOUT = Obj(
    required={"format": _FORMAT, "version": _VERSION, "design_hash": HEX64,
              "chains": List(List(NAME, 1, 1 << 16), 1, 1 << 16), "chain_luts": Int(1, 1 << 16),
              "build_id": Int(0, _U32)},
    optional={"registers": Map(List(NAME, 1, 32), key=NAME)})

_BIT = OneOf(Int(0, 1 << 40), Str(max_len=8, what="a constant bit"))
_CELL = Obj(required={"type": NAME, "connections": Map(List(_BIT), key=NAME)},
            optional={"parameters": Map(OneOf(Str(), Int()), key=NAME), "attributes": Map(Any(), key=NAME),
                      "port_directions": Map(Enum("input", "output", "inout"), key=NAME),
                      "hide_name": OneOf(Int(0, 1), Bool())})
#: one module of a Yosys JSON netlist (the fields the readers use)
MODULE = Obj(required={"cells": Map(_CELL, key=NAME)},
             optional={"ports": Map(Obj(required={"direction": Enum("input", "output", "inout"), "bits": List(_BIT)}),
                                    key=NAME),
                       "attributes": Map(Any(), key=NAME), "netnames": Map(Obj(optional={"bits": List(_BIT)}), key=NAME),
                       "parameter_default_values": Map(Any(), key=NAME)})
#: a Yosys JSON netlist: ``template.json`` (whose top module carries ``dcs_ppc_sha256`` and
#: ``dcs_design_hash``)
NETLIST = Obj(required={"modules": Map(MODULE, key=NAME)}, optional={"creator": Str()})

#: ``tlut/imported/import.json`` (format ``dcsflow-import`` version 1)
IMPORT_RECORD = Obj(required={"format": _FORMAT, "version": _VERSION, "design_hash": HEX64, "device": NAME,
                              "bitstream_sha256": HEX64},
                    optional={"idcode": OneOf(_HEX, Int(0, _U32)), "dump_sha256": HEX64, "tluts": Int(0),
                              "frames": Int(0), "seconds": Num(0), "bitstream": Str(), "header": Any()})

#: ``stages/folder.json`` (format ``dcsflow-build-folder`` version 1)
FOLDER_RECORD = Obj(required={"format": _FORMAT, "version": _VERSION})

#: the fields of ``report.json`` that ``build.json`` records too (the reader compares them)
REPORT_LINK = Obj(required={"design": NAME, "top": NAME, "device": NAME, "params": PORT_WIDTHS},
                  optional={"cfglut": Any()})


def check(doc, schema: Node, where: str, what: str) -> dict:
    """``doc`` checked against ``schema`` (:func:`dcsflow.schema.check`); returns it.

    Raises:
        BuildFolderError: ``where: malformed WHAT (field F: reason)``, one line.
    """
    return _check(doc, schema, str(where), BuildFolderError, what)
