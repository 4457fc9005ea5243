"""``import``: a routed Vivado bitstream becomes the build's template configuration
(``python -m dcsflow.scg import BUILD --bit routed.bit --cells tlut_cells.json``, also ``dcsflow import``).

Inputs: the build folder (built with ``--backend vivado``: ``vivado/tluts.json`` is the plan; the
folder must pass :func:`dcsflow.scg.buildfolder.load_build`), the
routed bitstream (``.bit`` or ``.bin``, read with :func:`dcsflow.scg.bitstream.read_file`, UG470) and the
dump written by ``vivado/dump_tluts.tcl`` (``tlut_cells.json``, format ``dcsflow-vivado-tluts`` v1).

Checks, each failure a :class:`VivadoImportError` naming the cell and what differs:

1. the dump: every planned cell present, no cell the build does not have, LOC and BEL as planned,
   LOCK_PINS and the ``get_bel_pins`` map equal to the planned pin order, INIT = template INIT;
2. the bitstream: a full configuration, its IDCODE the build device's (bits [27:0]);
3. every TLUT site decoded from the frames (:meth:`dcsflow.scg.bitstream.FrameMemory.get_lut`) holds the
   template INIT permuted by the planned pin order. The template INIT is asymmetric in every pair of
   inputs (:func:`dcsflow.scg.lut.template_table`), so a pin swap is seen in the bitstream alone.

On success, and only then, the folder gets ``tlut/imported/`` (``template.bit`` = the routed
bitstream, ``import.json``) and ``build.json`` records it (key ``template``) and
the new files' hashes; the logic-only ``tlut/template.frm`` stays as the fallback. The SCG
(``rekey``, ``codegen``) and ``check --frames`` then use the imported template. Nothing is written on
failure (the new folder is built under a temporary name and renamed, build.json replaced atomically);
a build folder that cannot be written is a one-line :class:`VivadoImportError`. The routed bitstream
must be complete and checked (:attr:`dcsflow.scg.bitstream.Bitstream.checked`: a CRC check over its
frame data, START, DESYNC): a stream cut after its frame data or with its CRC checks replaced is
refused, so a rekey never writes fresh CRCs over unchecked data.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from dcsflow.fileio import BITSTREAM_LIMIT, read_input_bytes, write_text_atomic

from .bitstream import parse, read_file
from .buildfolder import (IMPORT_FORMAT, IMPORT_RECORD, IMPORTED_BITSTREAM, IMPORTED_TEMPLATE, is_build_folder,
                          load_build, read_json,
                          sha256_file)
from .device import get_device, normalize_part
from .folderlock import locked_folder
from .errors import BitstreamError, ScgError
from .lut import expand, template_table

#: the Vivado back end's plan (``vivado/tluts.json``) and the dump of ``vivado/dump_tluts.tcl``
PLAN_FORMAT = "dcsflow-vivado-plan"
DUMP_FORMAT = "dcsflow-vivado-tluts"
#: where the imported template goes, and its record ``import.json``
IMPORT_DIR = IMPORTED_TEMPLATE
_INIT_RE = re.compile(r"^(?:64'h)?([0-9A-Fa-f]{1,16})$")


class VivadoImportError(ScgError):
    """The Vivado result does not match the build (or an input is missing/malformed)."""


@dataclass
class ImportResult:
    """Outcome of :func:`import_vivado`: ``tluts`` checked, ``frames`` of the bitstream,
    ``seconds`` (decode + check), ``files`` written (relative to the build folder)."""

    tluts: int
    frames: int
    seconds: float
    files: list = field(default_factory=list)


def _read_json(path, what: str) -> dict:
    """:func:`dcsflow.scg.buildfolder.read_json` raising :class:`VivadoImportError` (``malformed``)."""
    return read_json(path, what, VivadoImportError, "malformed")


def _pin_pairs(text: str) -> dict[str, str]:
    """``"I0:A1 I1:A2"`` or ``"I0:A1, I1:A2"`` -> {"I0": "A1", ...}; {} for an empty value."""
    out = {}
    for tok in re.split(r"[\s,]+", str(text).strip()):
        if not tok:
            continue
        if ":" not in tok:
            raise ValueError(f"LOCK_PINS item {tok!r} is not I<n>:A<m>")
        a, b = tok.split(":", 1)
        out[a] = b
    return out


def _parse_init(text) -> int:
    m = _INIT_RE.match(str(text).strip())
    if not m:
        raise ValueError(f"INIT {text!r} is not 64'h<hex>")
    return int(m.group(1), 16)


def physical_init(k: int, pin_map: dict[str, str]) -> int:
    """Template INIT of a k-input TLUT as it appears in the frames for the logical->physical pin map
    ``{"I0": "A1", ...}`` (FACTS.md: INIT index = truth-table index of the physical pins A6..A1)."""
    return expand(template_table(k), k, [int(pin_map[f"I{q}"][1:]) - 1 for q in range(k)])


def _diagnose(got: int, k: int, planned: dict[str, str]) -> str:
    exp = physical_init(k, planned)
    for i, j in combinations(range(k), 2):
        sw = dict(planned)
        sw[f"I{i}"], sw[f"I{j}"] = planned[f"I{j}"], planned[f"I{i}"]
        if physical_init(k, sw) == got:
            return f"pins I{i} and I{j} swapped ({planned[f'I{i}']}/{planned[f'I{j}']})"
    diff = [i for i in range(64) if ((got ^ exp) >> i) & 1]
    return (f"INIT 64'h{got:016X}, expected 64'h{exp:016X} (bits {', '.join(map(str, diff[:8]))}"
            f"{' ...' if len(diff) > 8 else ''} differ)")


def check_dump(plan: dict, dump: dict, dump_path: Path, device) -> list[str]:
    """Differences between the dump and the plan (one message per problem, naming the cell).

    Raises:
        VivadoImportError: the dump is not a ``dcsflow-vivado-tluts`` v1 document or names unknown cells.
    """
    if dump.get("format") != DUMP_FORMAT or dump.get("version") != 1 or not isinstance(dump.get("cells"), list):
        raise VivadoImportError(f"{dump_path}: not a {DUMP_FORMAT} version 1 file (write it with vivado/dump_tluts.tcl)")
    cells = {p["cell"]: p for p in plan["cells"]}
    part = dump.get("part")
    errs = []
    if part:
        try:
            dpart = normalize_part(str(part))
        except Exception:
            dpart = str(part)
        if dpart != device.name:
            errs.append(f"dump is of part {part}, the build targets {device.name}")
    seen = set()
    for c in dump["cells"]:
        if not isinstance(c, dict) or "name" not in c:
            raise VivadoImportError(f"{dump_path}: malformed cell entry {str(c)[:60]}")
        name = c["name"]
        if name not in cells:
            raise VivadoImportError(f"{dump_path}: names cell {name!r}, which the build does not have")
        seen.add(name)
        p = cells[name]
        who = f"cell {name} (TLUT {p['tlut']})"
        if c.get("loc") != p["site"]:
            errs.append(f"{who}: placed at {c.get('loc')}, planned {p['site']}")
        bel = str(c.get("bel", "")).split(".")[-1]
        if bel != p["bel"]:
            errs.append(f"{who}: BEL {c.get('bel')}, planned {p['bel']}")
        planned = dict(p["pin_map"])
        try:
            lp = _pin_pairs(c.get("lock_pins", ""))
        except ValueError as e:
            raise VivadoImportError(f"{dump_path}: {who}: {e}") from None
        if lp != planned:
            errs.append(f"{who}: LOCK_PINS {c.get('lock_pins')!r}, planned {p['lock_pins']!r}")
        pins = c.get("pins")
        if not isinstance(pins, dict):
            raise VivadoImportError(f"{dump_path}: {who}: no pin map")
        for q in range(6):
            lg = f"I{q}"
            got = pins.get(lg, "")
            if (q < p["k"] or got) and got != planned[lg]:
                errs.append(f"{who}: logical pin {lg} on physical {got or 'nothing'}, planned {planned[lg]}")
        try:
            init = _parse_init(c.get("init", ""))
        except ValueError as e:
            raise VivadoImportError(f"{dump_path}: {who}: {e}") from None
        if init != int(p["init"], 16):
            errs.append(f"{who}: INIT 64'h{init:016X}, the template INIT is 64'h{p['init']}")
    for name in cells:
        if name not in seen:
            errs.append(f"cell {name} (TLUT {cells[name]['tlut']}) missing from {dump_path.name}")
    return errs


def check_frames(plan: dict, frames) -> list[str]:
    """Differences between the planned TLUT INITs and the INITs decoded from ``frames``
    (:class:`dcsflow.scg.bitstream.FrameMemory`) at the planned sites."""
    errs = []
    for p in plan["cells"]:
        got = frames.get_lut(p["site"], p["bel"])
        if got != physical_init(p["k"], p["pin_map"]):
            errs.append(f"cell {p['cell']} (TLUT {p['tlut']}) at {p['site']}/{p['bel']}: "
                        + _diagnose(got, p["k"], p["pin_map"]))
    return errs


def _fail(errs: list[str]) -> None:
    if errs:
        more = f" (and {len(errs) - 3} more)" if len(errs) > 3 else ""
        raise VivadoImportError(f"Vivado result differs from the plan: {'; '.join(errs[:3])}{more}")


def import_vivado(build_dir, bit_path, cells_path) -> ImportResult:
    """Check a routed bitstream and its TLUT dump against the build and link it as the template.

    Raises:
        BuildFolderError: the build folder is refused (:func:`dcsflow.scg.buildfolder.load_build`).
        VivadoImportError: plan/dump/bitstream missing or malformed, the plan not listed in
            build.json, another part, a partial or unchecked bitstream, any difference (module
            docstring), the build folder not writable; scg BitstreamError for a corrupted or
            truncated bitstream.
    """
    root = Path(build_dir)
    if not is_build_folder(root):
        load_build(root)                  # its one-line refusal; nothing is written into a user's folder
    with locked_folder(root, "import"):   # a build or another import into the folder fails at once
        return _import_locked(root, bit_path, cells_path)


def _import_locked(root: Path, bit_path, cells_path) -> ImportResult:
    """:func:`import_vivado` in the build folder ``root``, its lock held."""
    build = load_build(root, replacing_import=True)     # an earlier import, even a broken one, is replaced
    plan = _read_plan(build)
    device = get_device(plan["device"])
    dump = _read_json(Path(cells_path), "TLUT dump")
    t0 = time.perf_counter()
    _fail(check_dump(plan, dump, Path(cells_path), device))
    bit_data, bs = _read_routed(bit_path, device)
    _fail(check_frames(plan, bs.frames))
    seconds = time.perf_counter() - t0
    record = {"format": IMPORT_FORMAT, "version": 1, "device": device.name, "idcode": f"0x{device.idcode:08X}",
              "design_hash": build.design_hash, "bitstream": str(bit_path),
              "bitstream_sha256": hashlib.sha256(bit_data).hexdigest(), "dump_sha256": sha256_file(Path(cells_path)),
              "header": bs.header, "tluts": len(plan["cells"]), "frames": bs.device.n_frames,
              "seconds": round(seconds, 3)}
    files = {"template.bit": bit_data, "import.json": (json.dumps(record, indent=1) + "\n").encode()}
    hashes = _link(root, files, build.manifest)
    return ImportResult(len(plan["cells"]), bs.device.n_frames, seconds, sorted(hashes))


def _read_plan(build) -> dict:
    """The Vivado back end's plan ``vivado/tluts.json`` (:data:`PLAN_FORMAT` v1) of ``build``, listed in
    its ``build.json`` and of its design hash; its TLUT sites are those of the frame map.

    Raises:
        VivadoImportError: missing (not a ``--backend vivado`` build), not listed, malformed, of
            another build, or naming other sites than ``tlut/framemap.json``.
    """
    root = build.path
    plan_path = root / "vivado" / "tluts.json"
    if plan_path.exists() and not build.lists("vivado/tluts.json"):
        raise VivadoImportError(f"{plan_path}: not listed in build.json (not written by this build): "
                                "rerun dcsflow build --from backend --backend vivado")
    plan = _read_json(plan_path, "Vivado plan (build with --backend vivado)")
    if plan.get("format") != PLAN_FORMAT or plan.get("version") != 1:
        raise VivadoImportError(f"{root}/vivado/tluts.json: not a {PLAN_FORMAT} version 1 file")
    if plan.get("design_hash") != build.design_hash:
        raise VivadoImportError(f"{root}/vivado/tluts.json belongs to another build (design hash differs): "
                                "rerun dcsflow build --from backend --backend vivado")
    planned_sites = {(t["site"], t["bel"]) for t in build.framemap_tluts}
    if planned_sites != {(p["site"], p["bel"]) for p in plan["cells"]}:
        raise VivadoImportError(f"{root}/vivado/tluts.json and tlut/framemap.json name different TLUT sites: "
                                "rerun dcsflow build --from backend --backend vivado")
    return plan


def _read_routed(bit_path, device):
    """``(bytes, Bitstream)`` of the routed bitstream ``bit_path``, read once (the bytes checked are
    the bytes linked): a full, complete and checked configuration of ``device`` (UG470: a CRC
    check over the frame data, START, DESYNC; IDCODE bits [27:0]).

    Raises:
        BitstreamError: unreadable, corrupted or truncated. VivadoImportError: no IDCODE write,
            another part, a partial or unchecked stream.
    """
    try:
        bit_data = read_input_bytes(bit_path, BITSTREAM_LIMIT, "bitstream")
    except OSError as e:
        raise BitstreamError(f"cannot read {bit_path}: {e.strerror or e}") from None
    try:
        bs = parse(bit_data)
    except BitstreamError as e:
        raise BitstreamError(f"{bit_path}: {e}") from None
    if bs.idcode is None:
        raise VivadoImportError(f"{bit_path}: no IDCODE write: not a Vivado configuration bitstream")
    if (bs.idcode ^ device.idcode) & 0x0FFFFFFF:
        other = bs.device.name if bs.device is not None else "another part"
        raise VivadoImportError(f"{bit_path}: bitstream of {other} (IDCODE 0x{bs.idcode:08X}); the build targets "
                                f"{device.name} (0x{device.idcode:08X})")
    if bs.is_partial:
        raise VivadoImportError(f"{bit_path}: a partial bitstream ({sum(bs.frames.written)} frames); "
                                "import needs Vivado's full routed bitstream")
    if not bs.checked:
        raise VivadoImportError(f"{bit_path}: not a complete, checked bitstream ({', '.join(bs.unchecked_reasons)}); "
                                "import needs Vivado's routed bitstream as written: a CRC check over the frame "
                                "data, START and DESYNC (UG470)")
    return bit_data, bs


def _link(root: Path, files: dict[str, bytes], manifest: dict) -> dict[str, str]:
    """Make ``files`` (name -> content) the folder :data:`IMPORT_DIR` of the build folder ``root`` and
    record them in its ``build.json`` (``manifest`` as loaded, with their hashes and key
    ``template``: :func:`_record`), all or nothing: the folder
    is written under a temporary name and renamed over any previous import (kept until
    ``build.json`` is replaced atomically). Returns the recorded name -> SHA-256.

    Raises:
        VivadoImportError: the build folder cannot be written (it is then unchanged).
    """
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".import-", dir=root / "tlut"))
    except OSError as e:
        raise VivadoImportError(f"cannot write into the build folder {root}/tlut: {e.strerror or e}") from None
    dest, old = root / IMPORT_DIR, None
    try:
        os.chmod(tmp, 0o755)
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        hashes = {f"{IMPORT_DIR}/{n}": sha256_file(tmp / n) for n in files}
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=".import-old-", dir=root / "tlut"))
            os.replace(dest, old / "x")
        os.replace(tmp, dest)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not dest.exists():
            os.replace(old / "x", dest)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        if isinstance(e, OSError):
            raise VivadoImportError(f"cannot write into the build folder {root}/tlut: {e.strerror or e}"
                                    f"{f' ({e.filename})' if getattr(e, 'filename', None) else ''}") from None
        raise
    try:
        _record(root, manifest, hashes)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        if old is not None:
            os.replace(old / "x", dest)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return hashes


def _record(root: Path, manifest: dict, hashes: dict[str, str]) -> None:
    """Write ``root/build.json`` (replaced atomically): ``manifest`` (not changed) with the imported
    template recorded — the new files' hashes and key ``template`` (source, folder, the bitstream and
    the import record with their SHA-256; docs/formats.md). Raises VivadoImportError when it cannot be written."""
    bj_path = root / "build.json"
    bj = json.loads(json.dumps(manifest))      # a copy
    bj.setdefault("files", {}).update(hashes)
    bj["template"] = {"source": "vivado", "folder": IMPORT_DIR,
                      "file": IMPORTED_BITSTREAM, "bitstream_sha256": hashes[IMPORTED_BITSTREAM],
                      "record": IMPORT_RECORD, "record_sha256": hashes[IMPORT_RECORD]}
    try:
        write_text_atomic(bj_path, json.dumps(bj, indent=1) + "\n")
    except OSError as e:
        raise VivadoImportError(f"cannot write {bj_path}: {e.strerror or e}; the build folder is unchanged") \
            from None


def synthetic_vivado_result(build_dir, base_bit, out_dir, mutate_frames=None, mutate_dump=None) -> tuple[Path, Path]:
    """Stand-in for a Vivado run (tests, benchmarks; no Vivado here): ``base_bit`` (e.g.
    ``pynq-z1_base.bit``) with every planned TLUT's template INIT written at its planned site by the
    project's writer (:func:`dcsflow.scg.bitstream.write_full`), and the dump ``dump_tluts.tcl`` would write.

    ``mutate_frames(mem, plan)`` / ``mutate_dump(dump)`` may alter either before writing.
    Returns ``(routed.bit, tlut_cells.json)`` in ``out_dir``.
    """
    from .bitstream import FrameMemory, header_part, to_bit, write_full

    plan = _read_json(Path(build_dir) / "vivado" / "tluts.json", "Vivado plan")
    base = read_file(base_bit).frames if not isinstance(base_bit, FrameMemory) else base_bit.copy()
    for p in plan["cells"]:
        base.set_lut(p["site"], p["bel"], physical_init(p["k"], p["pin_map"]))
    if mutate_frames:
        mutate_frames(base, plan)
    out = Path(out_dir)
    bit = out / "routed.bit"
    bit.write_bytes(to_bit(write_full(base), design="synthetic-vivado", part=header_part(base.device)))
    dump = {"format": DUMP_FORMAT, "version": 1, "part": plan["part"], "cells": [
        {"name": p["cell"], "loc": p["site"], "bel": "SLICEL." + p["bel"], "lock_pins": p["lock_pins"].replace(",", " "),
         "init": "64'h" + p["init"], "pins": dict(p["pin_map"])} for p in plan["cells"]]}
    if mutate_dump:
        mutate_dump(dump)
    cells = out / "tlut_cells.json"
    cells.write_text(json.dumps(dump))
    return bit, cells
