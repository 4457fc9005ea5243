"""The schemas of the flow's records: every JSON file of a build folder the flow reads back.

One place for the typed form of the stage records' data (:data:`STAGE_DATA`, ``stages/<stage>.json``,
read by ``build --from``), of ``report.json`` read back (:data:`REPORT`: ``dcsflow report``, ``check``,
the verdict) and of the placement ``tlut/placement.json`` (:data:`PLACEMENT`: ``check --frames``, the
build page); docs/formats.md "Typed records" lists them, beside the runtime's
(:mod:`dcsflow.scg.records`). Each reader checks a document with :func:`dcsflow.schema.check` before it
reads a field: types, required keys, ranges; unknown keys are accepted (a newer writer may add
fields). Names that must exist elsewhere are looked up by :func:`top_module` (a stage record's top
module in a netlist) and :func:`check_placement_cells` (the placement's cells in the template
netlist). Built from :mod:`dcsflow.schema`.
"""

from __future__ import annotations

from dcsflow.schema import HEX64, NAME, Any, Bool, Enum, Int, List, Map, Num, Obj, OneOf, Optional, Str, Tuple
from dcsflow.scg.records import MAX_PORT_BITS, PORT_WIDTHS

__all__ = ["REL_PATH", "STAGE_DATA", "STAGE_RECORD", "REPORT", "PLACEMENT", "top_module", "check_placement_cells"]

#: a path relative to the build folder that stays inside it (no absolute path, no ``..``)
REL_PATH = Str(r"(?!/)(?!(?:.*/)?\.\.(?:/|$))[^\x00]{1,4096}", what="a relative path inside the build folder")
#: a candidate's name (also a folder name under ``baselines/``): a mapper's, and ``@FORM`` when it
#: maps a register form of the RTL (:func:`dcsflow.flow.baselines.split_name`)
CANDIDATE = Str(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}(?:@[a-z][a-z0-9_-]{0,31})?", what="a candidate name")
_COUNT = Int(0, 1 << 40)
_SECONDS = Num(0, 1e9)
_STEP = Obj(required={"path": Str(), "kind": Enum("step", "tool"), "wall": _SECONDS, "cpu": _SECONDS},
            optional={"what": Str(), "tool": Optional(Str()), "start": Num(-1e9, 1e9), "failed": Optional(Str())})
#: ``timing`` of a stage record (:func:`dcsflow.flow.stages.stage_timing`; empty before the stage ran)
TIMING = Obj(optional={"wall": _SECONDS, "cpu": _SECONDS, "jobs": Int(1, 1 << 16), "steps": List(_STEP)})

_BASELINE_RUN = Obj(required={"name": CANDIDATE},
                    optional={"netlist": Optional(REL_PATH), "seconds": Optional(_SECONDS), "depth": Optional(_COUNT),
                              "failed": Optional(Str()), "skipped": Optional(Str()), "mapper_luts": Optional(_COUNT),
                              "mapper_depth": Optional(_COUNT)})
_SIDE = Obj(optional={"slices": _COUNT, "luts": _COUNT, "baseline": Optional(CANDIDATE)})

#: the ``data`` of each stage's record (the fields of the record dataclasses of :mod:`dcsflow.flow.stages`)
STAGE_DATA = {
    "frontend": Obj(required={"design": NAME, "top": NAME, "params": PORT_WIDTHS, "folded": _COUNT,
                              "aig_ands": _COUNT, "gates": _COUNT, "seconds_yosys": _SECONDS,
                              "seconds_extract": _SECONDS, "vhdl": Optional(Obj(optional={"verilog": REL_PATH})),
                              "files": List(REL_PATH), "marks": Map(Str(), key=NAME), "timing": TIMING,
                              "parameter_defaults": Map(Any(), key=NAME), "param_fed": Map(_COUNT, key=NAME),
                              "adders": Obj(optional={"mode": Str(), "K": Int(2, 6), "logic": _COUNT,
                                                      "carry": _COUNT, "fed_by_parameters": _COUNT})}),
    "tmap": Obj(required={"ppc_file": REL_PATH, "tmap_luts": Optional(_COUNT), "tmap_no_param_luts": Optional(_COUNT),
                          "notes": List(Str()), "abc_cec": Optional(Bool()), "seconds_tmap": _SECONDS,
                          "seconds_tlut_yosys": _SECONDS, "seconds_conventional_yosys": _SECONDS,
                          "files": List(REL_PATH), "tmap_no_param_depth": Optional(_COUNT),
                          "tmap_no_param_param_only_luts": Optional(_COUNT), "baselines": List(_BASELINE_RUN),
                          "static_remap": Optional(Obj()), "timing": TIMING}),
    "verify": Obj(required={"random_patterns": _COUNT, "equal": Bool(), "abc_cec": Optional(Bool()),
                            "seconds": _SECONDS, "files": List(REL_PATH),
                            "frontend_check": Optional(Obj(optional={"passed": Optional(Bool()), "skipped": Any()})),
                            "timing": TIMING, "checked": Map(HEX64, key=REL_PATH)}),
    "backend": Obj(required={"summary": Obj(optional={"tlut": Optional(_SIDE), "conventional": Optional(_SIDE),
                                                      "rekey": Optional(Obj()), "baselines": Any(),
                                                      "board": Optional(Str()), "slices_saved": Optional(Num()),
                                                      "slices_saved_percent": Optional(Num())}),
                             "files": List(REL_PATH), "seconds": _SECONDS, "timing": TIMING}),
}

#: a stage record ``stages/<stage>.json`` around its data (format ``dcsflow-stage``)
STAGE_RECORD = Obj(required={"format": Str(), "version": Int(), "stage": Str(), "design_hash": Str(),
                             "inputs": Map(HEX64, key=NAME), "outputs": Map(HEX64, key=REL_PATH), "data": Obj()})

_FIG = Num(0, 1e15)
_IMPL = Obj(required={k: _FIG for k in ("luts", "ffs", "carry4", "muxf7", "muxf8", "depth")},
            optional={"baseline": Optional(CANDIDATE)})
_OPT_FIG = Optional(_FIG)

#: ``report.json`` read back (format ``dcsflow-report``): the fields the build page, ``dcsflow check``
#: and the verdict read (docs/formats.md "Build folder", report.json)
REPORT = Obj(
    required={"design": Str(), "top": Str(), "device": Str(),
              "params": Map(Num(0, MAX_PORT_BITS), key=NAME), "conventional": _IMPL, "tlut": _IMPL},
    optional={
        "backend": Optional(Obj(optional={
            "rekey": Optional(Obj(required={k: _FIG for k in ("tluts", "frames_per_rekey", "frames_lower_bound",
                                                              "icap_words_batched", "icap_words_per_tlut_rmw",
                                                              "us_per_word_hwicap")})),
            "conventional": Optional(Obj(optional={"slices": _FIG})), "tlut": Optional(Obj(optional={"slices": _FIG}))})),
        "cfglut": Optional(Obj(required={k: _FIG for k in ("cfglut5", "chains", "chain_luts", "words", "shift_cycles",
                                                           "shift_us", "shift_mhz")},
                               optional={"param_bits": _FIG, "registers": _FIG, "param_bit_luts": _FIG,
                                         "param_in_loader": Optional(Obj(required={"param_words": _FIG,
                                                                                   "luts": _FIG}))})),
        "baselines": Optional(Map(Obj(optional={**{k: _OPT_FIG for k in ("luts", "ffs", "carry4", "muxf7", "muxf8",
                                                                         "depth", "slices", "slicem", "lut_sites",
                                                                         "seconds")}}),
                                  key=CANDIDATE, max_len=1 << 10)),
        "verdict": Optional(Obj(required={"pays": Bool()},
                                optional={"line": Optional(Str()), "reasons": List(Str())})),
        "savings": Optional(Obj(required={k: Num(-1e15, 1e15) for k in ("slices", "slices_percent", "luts", "ffs")},
                                optional={"unexplained_luts": Optional(Num(-1e15, 1e15)),
                                          "breakdown": List(Obj(required={"cause": Str(), "luts": Num(-1e15, 1e15),
                                                                          "ffs": Num(-1e15, 1e15)}))})),
    })

_LUT_KINDS = ("lut", "tlut", "pair", "tlutpair", "rt", "const", "srl", "ram")
_PLACED_LUT = Obj(required={"bel": Str(r"[A-D][56]LUT", what="a LUT BEL name"), "kind": Enum(*_LUT_KINDS),
                            "nets": List(OneOf(Int(0, 1 << 40), Str(max_len=8)), 0, 6)},
                  optional={"o6": Optional(NAME), "o5": Optional(NAME), "pins": List(Optional(Str()), 0, 6),
                            "feeds": Optional(Tuple(NAME, NAME, Int(0, 1 << 20)))})
#: ``tlut/placement.json`` (format ``dcsflow-placement`` version 1): the fields ``check --frames``
#: and the build page read
PLACEMENT = Obj(required={"format": Str(), "version": Int(), "design_hash": Str(), "idcode": Str(),
                          "slices": List(Obj(required={"site": Str(r"SLICE_X[0-9]{1,4}Y[0-9]{1,4}",
                                                               what="a SLICE site name"),
                                                       "luts": List(_PLACED_LUT, 0, 8)}))})


def top_module(doc, top: str, path, error: type[Exception]) -> dict:
    """The module ``top`` of the Yosys JSON netlist ``doc`` read from ``path``: a stage record names
    it, the netlist must hold it.

    Raises:
        error: one line naming the file and the module (constructed with the message alone).
    """
    mods = doc.get("modules") if isinstance(doc, dict) else None
    module = mods.get(top) if isinstance(mods, dict) and isinstance(top, str) else None
    if not isinstance(module, dict) or not isinstance(module.get("cells"), dict):
        name = top if isinstance(top, str) and len(top) <= 80 else "(the recorded top)"
        raise error(f"{path}: no module {name!r} with cells (the stage records name it): rebuild from the stage "
                    "that wrote the file")
    return module


def check_placement_cells(placement: dict, module: dict, device, path, error: type[Exception]) -> None:
    """The names ``placement`` gives that must exist: every site on ``device``, every cell a placed LUT
    implements (``o6``, ``o5``) or feeds (``feeds``) in the netlist ``module``, and the cell a kind
    needs (``o6`` of a LUT, ``o6`` and ``o5`` of a pair, ``feeds`` of a route-through or constant).

    Raises:
        error: one line naming the file and the first name that does not exist.
    """
    cells = module.get("cells") or {}
    need = {"lut": ("o6",), "tlut": ("o6",), "pair": ("o6", "o5"), "tlutpair": ("o6", "o5"),
            "rt": ("feeds",), "const": ("feeds",)}
    for s in placement["slices"]:
        try:
            device.slice(s["site"])
        except Exception as e:  # noqa: BLE001 - the device's own error, as one line
            raise error(f"{path}: {e}") from None
        for e in s["luts"]:
            for k in need.get(e["kind"], ()):
                if e.get(k) is None:
                    raise error(f"{path}: {s['site']}/{e['bel']}: a {e['kind']} without {k}")
            for k in ("o6", "o5"):
                if e.get(k) is not None and e[k] not in cells:
                    raise error(f"{path}: {s['site']}/{e['bel']}: {k} names no cell of the netlist")
            feeds = e.get("feeds")
            if feeds is not None:
                cell = cells.get(feeds[0])
                bits = (cell or {}).get("connections", {}).get(feeds[1])
                if not isinstance(bits, list) or not 0 <= feeds[2] < len(bits):
                    raise error(f"{path}: {s['site']}/{e['bel']}: feeds names no input of the netlist")
