"""Configuration-level check (``dcsflow check BUILD --frames``).

For each vector: the template frames (``tlut/template.frm``) are specialized with the SCG's rule
(evaluate the PPC, set/clear every frame-map entry, recompute the ECC of the touched frames); every
LUT INIT is then decoded back from those frames through the device model
(:meth:`dcsflow.scg.bitstream.FrameMemory.get_lut`) and the netlist is rebuilt from the decoded INITs and the
placement's connectivity (physical pins A1..A6 -> nets, LUT6_2 = LUT6 with A6 = 1 plus LUT5 on
INIT[31:0], route-through and constant LUTs inserted); FFs, CARRY4, MUXF7/F8, SRLs, distributed RAMs
and I/O cells keep the template netlist's cells (a RAM's contents are never in a TLUT frame). The rebuilt netlist is simulated exactly like ``dcsflow check``
(the design's check: e.g. Icarus + Yosys ``cells_sim.v`` and its test bench) and compared with the
expected outputs. This
proves frame addresses, bit order and pin order agree with the placed design.

After ``dcsflow import`` the template is Vivado's routed bitstream (``tlut/imported``): the TLUT
sites are decoded from its frames, the other LUTs keep the built-in placement's logic-only INITs
(Vivado placed them elsewhere).
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

from dcsflow.schema import check as schema_check
from dcsflow.scg.bitstream import FrameMemory
from dcsflow.scg.buildfolder import BuildFolderError, load_template, read_manifest
from dcsflow.scg.device import decode_far

from .. import netlist as nl
from ..check import CheckResult, prepare_check, simulate_vectors
from ..design import CheckError, CheckOptions
from ..records import PLACEMENT, check_placement_cells
from .stage import PLACEMENT_FORMAT

_INPUT_PORTS = [f"I{i}" for i in range(6)]


def _lut_cell(init: int, k: int, ins: list, out) -> dict:
    ins = list(ins) + ["1"] * (k - len(ins))
    return {"type": f"LUT{k}", "parameters": {"INIT": format(init, f"0{1 << k}b")}, "attributes": {},
            "port_directions": {**{p: "input" for p in _INPUT_PORTS[:k]}, "O": "output"},
            "connections": {**{p: [ins[i]] for i, p in enumerate(_INPUT_PORTS[:k])}, "O": [out]}}


def _output_net(cell: dict):
    return cell["connections"]["O"][0]


def rebuild_module(module: dict, placement: dict, lut_init) -> dict:
    """Netlist module rebuilt from decoded LUT contents and the placement (module docstring).

    Args:
        module: the template netlist module (Yosys JSON) the placement was made for.
        placement: placement document (format ``dcsflow-placement`` v1).
        lut_init: function (site, bel) -> 64-bit INIT decoded from the frames.
    Returns:
        a new module dict; the placed LUT cells are replaced by ``LUT6``/``LUT5`` cells named
        ``<site>/<bel>`` (+ ``/O5``) with the decoded INITs.
    """
    m = copy.deepcopy(module)
    cells = m["cells"]
    top_bit = 0
    for c in cells.values():
        for bits in c["connections"].values():
            top_bit = max([top_bit] + [b for b in bits if isinstance(b, int)])
    for p in m["ports"].values():
        top_bit = max([top_bit] + [b for b in p["bits"] if isinstance(b, int)])
    new = {}
    remove = set()
    for s in placement["slices"]:
        site = s["site"]
        for e in s["luts"]:
            bel = e["bel"]
            init = lut_init(site, bel)
            nets = e["nets"]
            kind = e["kind"]
            if kind in ("srl", "ram"):
                continue
            if kind in ("lut", "tlut"):
                remove.add(e["o6"])
                new[f"{site}/{bel}"] = _lut_cell(init, 6, nets, _output_net(module["cells"][e["o6"]]))
            elif kind in ("pair", "tlutpair"):
                remove.update((e["o6"], e["o5"]))
                new[f"{site}/{bel}"] = _lut_cell(init, 6, list(nets) + ["1"] * (5 - len(nets)) + ["1"],
                                                 _output_net(module["cells"][e["o6"]]))
                new[f"{site}/{bel}/O5"] = _lut_cell(init & 0xFFFFFFFF, 5, nets, _output_net(module["cells"][e["o5"]]))
            elif kind in ("rt", "const"):
                top_bit += 1
                new[f"{site}/{bel}"] = _lut_cell(init, 6, nets, top_bit)
                cell, port, bit = e["feeds"]
                cells[cell]["connections"][port][bit] = top_bit
    for n in remove:
        del cells[n]
    cells.update(new)
    return m


def _check_doc(doc: dict, fmt: str, path: Path, design_hash: str, idcode: str) -> None:
    if doc.get("format") != fmt or doc.get("version") != 1:
        raise BuildFolderError(f"{path}: not a {fmt} version 1 file")
    if doc.get("design_hash") != design_hash:
        raise BuildFolderError(f"{path}: design hash does not match build.json (mismatched build folder)")
    if doc.get("idcode") != idcode:
        raise BuildFolderError(f"{path}: IDCODE {doc.get('idcode')} does not match the device ({idcode})")


def specialize_frames(template: FrameMemory, entries: list, ppc_bits: list) -> FrameMemory:
    """Template + SCG patches: copy, set every frame-map entry to its PPC output bit, fix the ECC of
    the frames that changed. Returns the specialized frame memory (held in memory only)."""
    mem = template.copy()
    fars = set()
    for far, word, bit, j in entries:
        if mem.get_bit(far, word, bit) != ppc_bits[j]:
            mem.set_bit(far, word, bit, ppc_bits[j])
            fars.add(far)
    mem.update_ecc(sorted(fars))
    return mem


class FrameDecoder:
    """Decodes every placed LUT's INIT from specialized frames.

    LUT sites in the frame sets the frame map can touch are decoded from the specialized frames of
    each parameter assignment; all others once from the template (their frames are never patched).
    """

    def __init__(self, template: FrameMemory, placement: dict, entries: list):
        dev = template.device
        self.template = template
        self.entries = entries
        touched = {(decode_far(f).bottom, decode_far(f).row, decode_far(f).column) for f, _, _, _ in entries}
        self.base: dict = {}
        self.dyn: list = []
        for s in placement["slices"]:
            sl = dev.slice(s["site"])
            for e in s["luts"]:
                key = (s["site"], e["bel"])
                if (sl.bottom, sl.row, sl.column) in touched:
                    self.dyn.append(key)
                else:
                    self.base[key] = template.get_lut(*key)

    def inits(self, ppc_bits: list) -> dict:
        """{(site, bel): 64-bit INIT} of every placed LUT for PPC output bits ``ppc_bits``."""
        mem = specialize_frames(self.template, self.entries, ppc_bits)
        out = dict(self.base)
        for key in self.dyn:
            out[key] = mem.get_lut(*key)
        return out


def _cfglut_refusal(path: Path) -> CheckError:
    return CheckError(f"{path}: a cfglut5 build: its TLUTs are CFGLUT5s loaded through their chains, not "
                      "configuration frames, so check --frames has nothing to decode; dcsflow check (without "
                      "--frames) simulates the build with its CFGLUT5 loader")


def check_frames(build_dir: str | Path, options: CheckOptions = CheckOptions(), progress: bool = True,
                 jobs: int | None = None) -> CheckResult:
    """Configuration-level check of a build with its design's check (module docstring).

    Raises:
        BuildFolderError: build folder refused, back-end files missing or of another design/device.
        CheckError: the design has no check, no usable vectors, simulator failure; a cfglut5 build
            (its TLUTs are not in configuration frames). ToolMissing: no Icarus.
    """
    t0 = time.perf_counter()
    path = Path(build_dir)
    if read_manifest(path).get("tlut") == "cfglut5":       # before the design's check is looked for
        raise _cfglut_refusal(path)
    setup = prepare_check(build_dir, options)
    b = setup.build
    if b.tlut_kind == "cfglut5":
        raise _cfglut_refusal(path)
    names = ("tlut/template.frm", "tlut/framemap.json", "tlut/placement.json")
    for n in names:
        if not b.lists(n):
            raise BuildFolderError(f"{path}: no {n} in build.json; run the back end (dcsflow build --from backend)")
    dev = b.device
    idcode = f"0x{dev.idcode:08X}"
    dh = b.design_hash
    entries = b.entries            # the frame map, checked by the build-folder reader (schema, device, PPC)
    pl_path = path / "tlut/placement.json"
    pl = b.read_json("tlut/placement.json", "placement")
    _check_doc(pl, PLACEMENT_FORMAT, pl_path, dh, idcode)
    schema_check(pl, PLACEMENT, str(pl_path), BuildFolderError, "placement")
    check_placement_cells(pl, b.module, dev, pl_path, BuildFolderError)
    logic_only = load_template(path / "tlut", dev, dh)   # the logic-only template of this design
    from dcsflow.scg.params import ppc_values      # declared widths -> the bits the PPC reads, as rekey

    bits = b.ppc.evaluate_many([ppc_values(v, b.ports, b.param_widths) for v in setup.circuit_values()])
    if b.imported:
        # imported Vivado template: Vivado placed the other LUTs elsewhere, so only the TLUT sites are
        # decoded from its frames; every other LUT keeps the built-in placement's logic-only INIT
        template = b.template
        tl = {**pl, "slices": [{**s, "luts": [e for e in s["luts"] if e["kind"] in ("tlut", "tlutpair")]}
                               for s in pl["slices"]]}
        decoder = FrameDecoder(template, tl, entries)
        static = {(s["site"], e["bel"]): logic_only.get_lut(s["site"], e["bel"])
                  for s in pl["slices"] for e in s["luts"] if e["kind"] not in ("tlut", "tlutpair")}
    else:
        decoder = FrameDecoder(logic_only, pl, entries)
        static = {}

    def netlist_for(i):
        inits = {**static, **decoder.inits(bits[i])}
        mod = rebuild_module(b.module, pl, lambda site, bel: inits[(site, bel)])
        return nl.write_verilog(mod, b.top)

    result = simulate_vectors(setup, netlist_for, f"check --frames {b.manifest.get('design')}", progress, jobs)
    result.seconds = time.perf_counter() - t0
    return result
