"""The one reader of a build folder (written by ``dcsflow build``; contract in docs/formats.md).

:func:`load_build` checks the folder's integrity before anything is used:

1. ``build.json`` is present (else the folder is not a finished build), format :data:`BUILD_FORMAT`
   and version :data:`BUILD_VERSION`;
2. every file listed in its ``files`` is present and has the recorded SHA-256 (a file changed or
   replaced since the build refuses the folder); ``ppc.aig`` and ``ppc.json`` must be listed;
3. ``ppc.json`` is a :data:`PPC_FORMAT` v1 manifest whose ``sha256`` is the SHA-256 of ``ppc.aig``;
4. every key of :data:`MANIFEST_KEYS` is present and well-formed (names, a lower-case SHA-256
   design hash, port widths, the design source, the imported template's record), and the keys
   ``report.json`` records too (:data:`REPORT_KEYS`) agree with it: ``build.json`` is the one file
   no hash protects, so a change to any of its fields is seen here or, for ``design_hash``, by
   the frame map's check;
5. the imported template's link (:func:`_check_import`): ``template`` names the listed routed
   bitstream and import record with their hashes, the record names this build and that bitstream,
   and a folder holding an import that ``build.json`` does not name is refused.

Everything else is read on first use (each reader needs a different part: ``rekey`` never parses
``template.json``, ``specialize`` never reads the template frames), with its own checks:

- :attr:`BuildFolder.ppc`: ``ppc.aig`` parses, has no latches, has the outputs ``ppc.json`` counts;
- :attr:`BuildFolder.module`: the template netlist's top module records the same PPC hash (attribute
  ``dcs_ppc_sha256``) and holds every TLUT ``ppc.json`` names;
- :attr:`BuildFolder.framemap` (``tlut/framemap.json``, listed in ``files``): format
  :data:`FRAMEMAP_FORMAT` v1, design hash, device and IDCODE those of ``build.json``, as many PPC
  outputs as the PPC, every entry inside the device's frames (FAR, word < 101, bit < 32, PPC output);
- :attr:`BuildFolder.transform`: ``transform.json`` (named by ``build.json`` ``transform``, listed):
  the parameter transform's program (:mod:`dcsflow.scg.transform`; a malformed file is refused),
  tied to the build's design hash, its inputs the build's ``user_params``, its outputs every
  circuit parameter;
- :attr:`BuildFolder.template`: the template configuration of :func:`template_folder` (``tlut``, or
  the imported Vivado template that ``build.json`` key ``template`` names), listed in ``files``; the
  logic-only one's header must name the build's design hash (:func:`check_template_header`).

Every refusal is a :class:`BuildFolderError` with a one-line message naming the file. Every JSON
file is read by :func:`read_json` (the runtime's one JSON reader; :meth:`BuildFolder.read_json` for
a listed file); :func:`read_manifest` reads ``build.json`` alone, so that a caller may look at it
before :func:`load_build` checks the folder without the file being read twice.
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import cached_property
from pathlib import Path, PurePosixPath

from dcsflow.fileio import BITSTREAM_LIMIT, JSON_LIMIT, NETLIST_LIMIT, InputError, load_json_file, open_input, \
    read_input_text

from .bitstream import FrameMemory, frame_runs
from .device import DEFAULT_PART, FRAME_WORDS, Device, get_device
from .errors import BitstreamError, BuildFolderError, DeviceError

#: ``build.json`` format name and the version this runtime reads
BUILD_FORMAT = "dcsflow-build"
BUILD_VERSION = 2
#: ``ppc.json`` of a build folder
PPC_FORMAT = "dcsflow-build-ppc"
PPC_VERSION = 1
#: ``tlut/framemap.json``
FRAMEMAP_FORMAT = "dcsflow-frame-map"
FRAMEMAP_VERSION = 1
#: folder of the logic-only template configuration written by the built-in back end
LOGIC_TEMPLATE = "tlut"
#: folder of the imported Vivado template (``dcsflow import``; ``build.json`` key ``template``)
IMPORTED_TEMPLATE = "tlut/imported"
#: the imported routed bitstream and the import's record (``dcsflow-import`` v1) in that folder
IMPORTED_BITSTREAM = f"{IMPORTED_TEMPLATE}/template.bit"
IMPORT_RECORD = f"{IMPORTED_TEMPLATE}/import.json"
IMPORT_FORMAT = "dcsflow-import"
IMPORT_VERSION = 1
#: the record ``dcsflow build`` writes (atomically) before it writes or removes anything else in a
#: build folder, and keeps: from then on the folder is a build folder (:func:`is_build_folder`), also
#: when the build is interrupted before its first stage finished
FOLDER_RECORD = "stages/folder.json"
FOLDER_FORMAT = "dcsflow-build-folder"
FOLDER_VERSION = 1
#: format name of the stage records ``stages/<stage>.json`` (written by :mod:`dcsflow.flow.stages`)
STAGE_FORMAT = "dcsflow-stage"
#: the parameter transform's program (:mod:`dcsflow.scg.transform`; ``build.json`` key ``transform``)
TRANSFORM_FILE = "transform.json"
#: keys every ``build.json`` of version :data:`BUILD_VERSION` has (docs/formats.md "Build folder")
MANIFEST_KEYS = ("format", "version", "design", "design_source", "top", "device", "design_hash", "params",
                 "user_params", "files")
#: ``build.json`` keys that ``report.json`` (listed, hashed) records too: they must agree
REPORT_KEYS = ("design", "top", "device", "params")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEADER_HASH = re.compile(r"(?:^|[\s;])design_hash=([0-9a-f]{64})(?=$|[\s;])")


#: largest file of a build folder that is hashed (bytes): the largest of the readers' limits
#: (:data:`dcsflow.fileio.NETLIST_LIMIT`, :data:`dcsflow.fileio.BITSTREAM_LIMIT`, 256 MiB)
LISTED_FILE_LIMIT = max(NETLIST_LIMIT, BITSTREAM_LIMIT, JSON_LIMIT)


def sha256_file(path, limit: int = LISTED_FILE_LIMIT) -> str:
    """SHA-256 hex digest of the regular file ``path`` (read in 1 MiB chunks, at most ``limit``
    bytes: :func:`dcsflow.fileio.open_input`, so a FIFO or device is refused, never waited on).

    Raises:
        dcsflow.fileio.InputError: not a regular file, larger than ``limit``.
        OSError: missing or unreadable.
    """
    h = hashlib.sha256()
    n = 0
    with open_input(path, limit) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            n += len(chunk)
            if n > limit:
                raise InputError(path, f"larger than the limit of {limit} bytes")
            h.update(chunk)
    return h.hexdigest()


def read_json(path, what: str, error: type[Exception] = BuildFolderError, damaged: str = "corrupted",
              limit: int = JSON_LIMIT) -> dict:
    """The JSON object in the file ``path`` (UTF-8): the one JSON reader of the runtime, for the
    files of a build folder (:meth:`BuildFolder.read_json` adds that the file is listed, so its
    hash was checked) and for the other JSON inputs of its commands (e.g. the TLUT dump of
    ``dcsflow import``).

    ``what`` names the file in the messages; ``error`` is the exception class raised (constructed
    with the message alone), ``damaged`` the word for a file that is there but holds no JSON
    object (the build folder's ``corrupted``, the Vivado import's ``malformed``).

    The file is read by :func:`dcsflow.fileio.load_json_file`: a regular file of at most
    ``limit`` bytes (:data:`dcsflow.fileio.JSON_LIMIT`; netlists :data:`dcsflow.fileio.NETLIST_LIMIT`),
    nested at most :data:`dcsflow.fileio.JSON_MAX_DEPTH` levels.

    Raises:
        error: ``{path}: missing ({what})``; ``{path}: {reason} ({what})`` when the file is refused
            (not a regular file, larger than ``limit``, nested too deeply); ``{path}: {damaged}
            {what} (reason)`` when it cannot be read, is not UTF-8 or JSON, or holds no JSON object.
    """
    try:
        doc = load_json_file(path, limit, what=what)
    except FileNotFoundError:
        raise error(f"{path}: missing ({what})") from None
    except InputError as e:
        raise error(f"{path}: {e.strerror}") from None
    except (OSError, ValueError) as e:       # ValueError: also UnicodeDecodeError
        raise error(f"{path}: {damaged} {what} ({e})") from None
    if not isinstance(doc, dict):
        raise error(f"{path}: {damaged} {what} (not a JSON object)")
    return doc


def read_manifest(path) -> dict:
    """``build.json`` of the build folder ``path`` as a JSON object, before any of
    :func:`load_build`'s checks (a caller may look at it first and then pass it to
    :func:`load_build`, so the file is read once).

    Raises:
        BuildFolderError: no ``build.json`` (not a finished build folder), unreadable, not a JSON
            object.
    """
    root = Path(path)
    bj = root / "build.json"
    if not os.path.lexists(bj) or (bj.is_symlink() and not bj.exists()):
        raise BuildFolderError(f"{root}: not a finished build folder (no build.json); run dcsflow build")
    return read_json(bj, "build manifest")


def _template_dir(root: Path, manifest) -> Path:
    """Folder of the template configuration that ``manifest`` (``build.json``) names (key
    ``template.folder``, written by ``dcsflow import``), else the logic-only :data:`LOGIC_TEMPLATE`."""
    t = manifest.get("template") if isinstance(manifest, dict) else None
    return root / t["folder"] if isinstance(t, dict) and isinstance(t.get("folder"), str) else root / LOGIC_TEMPLATE


def template_folder(path) -> Path:
    """Folder holding the build's template configuration (``template.frm``/``template.bit``): the
    one named by ``build.json`` key ``template.folder`` (``tlut/imported`` after ``dcsflow import`` of
    a Vivado bitstream), else the logic-only ``tlut``. Reads only ``build.json`` (no checks)."""
    root = Path(path)
    try:
        return _template_dir(root, read_json(root / "build.json", "build manifest"))
    except BuildFolderError:
        return root / LOGIC_TEMPLATE


def template_header_hash(path) -> str | None:
    """The design hash the header of the template configuration ``path`` names: ``design_hash=<hex>``
    in the first line of a frame file (``template.frm`` of the built-in back end), or in the design
    field of a ``.bit`` header (its ``template.bit``); None when the header names none.

    Raises:
        BuildFolderError: unreadable file, not UTF-8 / not a ``.bit`` file.
    """
    p = Path(path)
    try:
        if p.suffix == ".frm":
            with open_input(p, NETLIST_LIMIT) as f:
                first = f.readline(1 << 16).decode("utf-8")
        else:
            from .bitstream import parse_bit_header

            with open_input(p, BITSTREAM_LIMIT) as f:
                first = str(parse_bit_header(f.read(4096))[0].get("a", ""))
    except OSError as e:
        raise BuildFolderError(f"{p}: {e.strerror or e}") from None
    except (BitstreamError, ValueError) as e:
        raise BuildFolderError(f"{p}: {e}") from None
    m = _HEADER_HASH.search(first.strip())
    return m.group(1) if m else None


def check_template_header(path, design_hash: str) -> None:
    """Refuse the logic-only template configuration ``path`` unless its header names ``design_hash``
    (:func:`template_header_hash`): a template taken from another build is never applied.

    Raises:
        BuildFolderError: the header names another design hash, or none.
    """
    got = template_header_hash(path)
    if got is None:
        raise BuildFolderError(f"{path}: the template's header names no design hash (not written by this build's "
                               "back end); rebuild with dcsflow build --from backend")
    if got != design_hash:
        raise BuildFolderError(f"{path} is the template of another design (its header names design hash "
                               f"{got[:12]}..., build.json {design_hash[:12]}...); "
                               "rebuild with dcsflow build --from backend")


def load_template(folder, device: Device, design_hash: str | None = None) -> FrameMemory:
    """The template configuration in ``folder``: ``template.frm`` if present (logic-only template of
    the built-in back end, format ``dcsflow-frames 1``), else ``template.bit`` (an imported Vivado
    bitstream; parsing it is ~5x faster than a frame file of all 9996 frames). With ``design_hash``
    the logic-only ``template.frm`` must name it in its header (:func:`check_template_header`).

    Raises:
        BuildFolderError: neither file readable or valid (not UTF-8, malformed; a bitstream that is
            not complete and checked) (code ``design``), a bitstream of another part (code ``device``),
            a frame file of another design.
    """
    folder = Path(folder)
    frm = folder / "template.frm"
    if frm.exists():
        if design_hash is not None:
            check_template_header(frm, design_hash)
        try:
            return FrameMemory.from_frm(read_input_text(frm, NETLIST_LIMIT, "frame file"), device)
        except OSError as e:
            raise BuildFolderError(f"{frm}: {e.strerror or e}") from None
        except (BitstreamError, DeviceError, ValueError) as e:
            raise BuildFolderError(f"{frm}: {e}") from None
    return _load_bit(folder / "template.bit", device)


def _load_bit(path: Path, device: Device) -> FrameMemory:
    """Frames of the checked full bitstream ``path`` of ``device``. Raises BuildFolderError."""
    from .bitstream import read_file

    try:
        bs = read_file(path)
        bs.require_checked("template")
    except BitstreamError as e:
        raise BuildFolderError(f"{path}: {e}") from None
    if bs.device is None or bs.device.name != device.name:
        raise BuildFolderError(f"{path} is not a {device.name} bitstream", "device")
    return bs.frames


class BuildFolder:
    """A build folder that passed :func:`load_build`'s checks; its parts are read on first use.

    Attributes (cheap, from ``build.json`` and ``ppc.json``):
        path: the folder; manifest: ``build.json`` (dict); ppc_manifest: ``ppc.json`` (dict);
        top: top module name; design_hash: hex SHA-256 of the design's sources and options;
        device: :class:`dcsflow.scg.device.Device` of ``build.json`` ``device``.
    Read on first use (each with its checks, module docstring):
        ppc: :class:`dcsflow.scg.ppc.Ppc`; ports: parameter port -> width (from the PPC);
        module: the template netlist's top module (Yosys JSON dict, ``template.json``);
        tlut_entries: TLUT cell -> PPC output of each INIT bit (``ppc.json`` ``tluts``);
        affine_records: ``ppc.json`` ``affine`` (cell -> record dict, ``{}`` if none);
        framemap: ``tlut/framemap.json`` (dict); idcode: its IDCODE (int);
        entries: frame-map entries ``(far, word, bit, ppc_output)``, sorted;
        fars: touched FARs in FDRI order; runs: those FARs in runs of consecutive frames of one row
        (:func:`dcsflow.scg.bitstream.frame_runs`);
        template_dir: folder of the template configuration (:func:`template_folder`);
        imported: True when that is an imported Vivado bitstream (``dcsflow import``);
        template: the template configuration (:class:`dcsflow.scg.bitstream.FrameMemory`).
    """

    def __init__(self, path: Path, manifest: dict, ppc_manifest: dict, digests: dict[str, str]):
        self.path = Path(path)
        self.manifest = manifest
        self.ppc_manifest = ppc_manifest
        self._digests = digests

    def __repr__(self) -> str:
        return f"BuildFolder({str(self.path)!r})"

    # ------------------------------------------------------------------ build.json
    @property
    def top(self) -> str:
        """Top module name (``build.json`` ``top``; ``""`` when absent)."""
        return str(self.manifest.get("top") or "")

    @property
    def design_hash(self) -> str:
        """Design hash (hex) of ``build.json``."""
        return str(self.manifest.get("design_hash") or "")

    @property
    def user_params(self) -> dict[str, int]:
        """Parameter ports the user gives values for: the inputs of the design's parameter transform
        (``build.json`` ``user_params``), else the circuit parameters."""
        return dict(self.manifest.get("user_params") or self.manifest.get("params") or {})

    @property
    def param_widths(self) -> dict[str, int]:
        """Declared widths of the circuit's parameter ports (``build.json`` ``params``): the widths
        ``--param NAME=HEX`` values of ``rekey`` are written in (:mod:`dcsflow.scg.params`), as for
        ``dcsflow specialize`` (:attr:`user_params`, the same ports when the design has no parameter
        transform). :attr:`ports` may be narrower: the PPC's ports end at the highest bit it reads."""
        return dict(self.manifest.get("params") or {})

    @cached_property
    def device(self) -> Device:
        """Target device of ``build.json`` (default: the default device of ``scg/devices.json``)."""
        try:
            return get_device(str(self.manifest.get("device") or DEFAULT_PART))
        except DeviceError as e:
            raise BuildFolderError(f"{self.path}/build.json: {e}", "device") from None

    def input_files(self) -> list[Path]:
        """The files a reader of this folder reads: ``build.json`` and every file it lists (an
        output of ``rekey``/``codegen`` may not be one of them)."""
        return [self.path / "build.json", *(self.path / n for n in self._digests)]

    def _listed(self, name: str, what: str) -> Path:
        if name not in self._digests:
            raise BuildFolderError(f"{self.path}: build.json lists no {name} ({what}); "
                                   "rebuild with dcsflow build")
        return self.path / name

    def lists(self, name: str) -> bool:
        """Whether ``build.json`` lists the file ``name`` (relative, e.g. ``vivado/tluts.json``): then
        :func:`load_build` checked its hash."""
        return name in self._digests

    def read_json(self, name: str, what: str, unlisted: str | None = None) -> dict:
        """The JSON object in the listed file ``name`` of the folder (its hash was checked by
        :func:`load_build`), read with :func:`read_json`; ``what`` names it in the messages
        (``unlisted``, if given, in the message for a file ``build.json`` does not list).

        Raises:
            BuildFolderError: not listed in ``build.json``; missing, unreadable, not a JSON object.
        """
        return read_json(self._listed(name, unlisted or what), what)

    @property
    def tlut_kind(self) -> str:
        """The TLUT realization (``build.json`` ``tlut``): ``frames`` (also when absent) or ``cfglut5``."""
        return str(self.manifest.get("tlut") or "frames")

    @cached_property
    def cfglut_layout(self):
        """The CFGLUT5 chains of a ``cfglut5`` build (``cfglut.json``, listed in ``files``), a
        :class:`dcsflow.scg.cfglut.Layout`.

        Raises:
            BuildFolderError: not a ``cfglut5`` build, the file not listed or malformed, another
                design hash than ``build.json``'s, a chained cell or register member that is not a TLUT
                of ``ppc.json`` (a register member: of one entry).
        """
        from .cfglut import layout_from_json
        from .errors import CfglutError

        if self.tlut_kind != "cfglut5":
            raise BuildFolderError(f"{self.path}: a {self.tlut_kind} build has no CFGLUT5 chains; build with "
                                   "dcsflow build --tlut cfglut5")
        try:
            lay = layout_from_json(self.read_json("cfglut.json", "CFGLUT5 layout"), f"{self.path}/cfglut.json")
        except CfglutError as e:
            raise BuildFolderError(str(e)) from None
        if lay.design_hash != self.design_hash:
            raise BuildFolderError(f"{self.path}/cfglut.json: made for another build (design hash)")
        missing = [n for n in lay.cells() if n not in self.tlut_entries]
        if missing:
            raise BuildFolderError(f"{self.path}/cfglut.json: {missing[0]} is no TLUT of ppc.json")
        try:
            lay.bit_sources(self.tlut_entries)
        except CfglutError as e:
            raise BuildFolderError(f"{self.path}/cfglut.json: {e}") from None
        return lay

    # ------------------------------------------------------------------ parameter transform
    @cached_property
    def transform(self):
        """The build's parameter transform program (:class:`dcsflow.scg.transform.Program`, from
        ``transform.json``, which ``build.json`` names in ``transform`` and lists), or None when the
        build has none (its circuit parameters are what the user gives, or come from a design's
        transform that has no program: only the flow, with the design installed, can run that).

        Raises:
            BuildFolderError: the file is refused (unreadable, larger than
                :data:`dcsflow.scg.transform.MAX_FILE_BYTES`, malformed:
                :func:`dcsflow.scg.transform.from_json`), of another build (design hash), its inputs
                are not ``user_params`` (names, order, widths), or it does not compute every circuit
                parameter (``params``) at its width.
        """
        from .transform import MAX_FILE_BYTES, TransformError, from_json

        if "transform" not in self.manifest:
            return None
        p = self._listed(TRANSFORM_FILE, "parameter transform")
        try:
            prog = from_json(read_json(p, "parameter transform", limit=MAX_FILE_BYTES), str(p))
        except TransformError as e:
            raise BuildFolderError(str(e)) from None
        if prog.design_hash != self.design_hash:
            raise BuildFolderError(f"{p}: the parameter transform of another build (design hash); rebuild")
        if list(prog.input_widths.items()) != list(self.user_params.items()):
            raise BuildFolderError(f"{p}: its inputs are not the build's user parameters (build.json user_params)")
        outs = prog.output_widths
        if any(outs.get(k) != w for k, w in self.param_widths.items()):
            raise BuildFolderError(f"{p}: it does not compute every circuit parameter (build.json params)")
        return prog

    # ------------------------------------------------------------------ PPC
    @cached_property
    def ppc(self):
        """The PPC (:class:`dcsflow.scg.ppc.Ppc`) of ``ppc.aig``.

        Raises:
            BuildFolderError: unreadable AIGER (code ``blob``), latches, output count differs
                from ``ppc.json``.
        """
        from dcsflow.aig import AigerError

        from .ppc import Ppc

        try:
            ppc = Ppc.load(self.path / "ppc.aig")
        except (AigerError, OSError, ValueError) as e:
            raise BuildFolderError(f"{self.path}/ppc.aig: {e}", "blob") from None
        if ppc.aig.num_latches:
            raise BuildFolderError(f"{self.path}/ppc.aig: the PPC has latches", "blob")
        n = self.ppc_manifest.get("outputs")
        if n is not None and n != ppc.num_outputs:
            raise BuildFolderError(f"{self.path}/ppc.json counts {n} PPC outputs, ppc.aig has {ppc.num_outputs}")
        names = self.ppc_manifest.get("params")
        if names is not None and list(names) != list(ppc.inputs):
            raise BuildFolderError(f"{self.path}/ppc.json names other parameter bits than ppc.aig")
        return ppc

    @property
    def ports(self) -> dict[str, int]:
        """Parameter ports of the PPC and their widths (from its input names)."""
        return self.ppc.ports

    @cached_property
    def tlut_entries(self) -> dict[str, list[int]]:
        """TLUT cell -> PPC output of each of its INIT bits (``ppc.json`` ``tluts``).

        Raises:
            BuildFolderError: malformed, or an output out of range.
        """
        raw = self.ppc_manifest.get("tluts") or {}
        n = self.ppc_manifest.get("outputs")
        try:
            out = {str(c): [int(j) for j in ent] for c, ent in raw.items()}
        except (AttributeError, TypeError, ValueError) as e:
            raise BuildFolderError(f"{self.path}/ppc.json: malformed tluts ({e})") from None
        if isinstance(n, int) and any(not 0 <= j < n for ent in out.values() for j in ent):
            raise BuildFolderError(f"{self.path}/ppc.json: a TLUT names a PPC output that does not exist")
        return out

    @property
    def affine_records(self) -> dict:
        """``ppc.json`` ``affine``: template cell -> affine TLUT record (:class:`dcsflow.affine.AffineTlut`
        JSON form); ``{}`` when the build has none."""
        return self.ppc_manifest.get("affine") or {}

    # ------------------------------------------------------------------ template netlist
    @cached_property
    def module(self) -> dict:
        """Top module of the template netlist (``template.json``, Yosys JSON).

        Raises:
            BuildFolderError: not listed, unreadable, no such top module, the PPC hash it records
                (attribute ``dcs_ppc_sha256``) is not ppc.aig's, or a TLUT of ``ppc.json`` is not
                a TLUT cell (or parameter-bit flip-flop) of it.
        """
        p = self.path / "template.json"
        doc = read_json(self._listed("template.json", "template netlist"), "template netlist", limit=NETLIST_LIMIT)
        try:
            module = doc["modules"][self.top]
            cells = module["cells"]
        except (KeyError, TypeError):
            raise BuildFolderError(f"{p}: no module {self.top!r} with cells (corrupted template netlist)") from None
        if (module.get("attributes") or {}).get("dcs_ppc_sha256") != self._digests["ppc.aig"]:
            raise BuildFolderError(f"{self.path}: PPC hash does not match the template netlist (mismatched build folder)")
        for cell in self.tlut_entries:
            attrs = (cells[cell].get("attributes") or {}) if cell in cells else {}
            # a cfglut5 build's parameter bits are flip-flops marked dcs_pbit
            if "dcs_tlut" not in attrs and "dcs_pbit" not in attrs:
                raise BuildFolderError(f"{self.path}: PPC manifest names TLUT {cell!r} absent from the netlist")
        return module

    # ------------------------------------------------------------------ frame map
    @cached_property
    def framemap(self) -> dict:
        """``tlut/framemap.json``, checked against ``build.json`` and the PPC (module docstring).

        Raises:
            BuildFolderError: not listed (no back end), another format or version, another design
                (hash), device or IDCODE (code ``device``), another PPC output count.
        """
        p = self.path / "tlut/framemap.json"
        fm = self.read_json("tlut/framemap.json", "frame map", "frame map; run the back end")
        if fm.get("format") != FRAMEMAP_FORMAT or fm.get("version") != FRAMEMAP_VERSION:
            raise BuildFolderError(f"{p}: not a {FRAMEMAP_FORMAT} version {FRAMEMAP_VERSION} file")
        if fm.get("design_hash") != self.design_hash:
            raise BuildFolderError("design hash of tlut/framemap.json differs from build.json: "
                                   "the frame map belongs to another build")
        dev = self.device
        if fm.get("device", dev.name) != dev.name:
            raise BuildFolderError(f"{p}: frame map of {fm.get('device')}, the build targets {dev.name}", "device")
        try:
            idcode = int(str(fm["idcode"]), 16) if isinstance(fm["idcode"], str) else int(fm["idcode"])
            n_out = int(fm["ppc_outputs"])
        except (KeyError, TypeError, ValueError) as e:
            raise BuildFolderError(f"{p}: malformed ({e!r})") from None
        if (idcode ^ dev.idcode) & 0x0FFFFFFF:
            raise BuildFolderError(f"frame map IDCODE 0x{idcode:08X} is not {dev.name}'s", "device")
        if n_out != self.ppc.num_outputs:
            raise BuildFolderError(f"frame map names {n_out} PPC outputs, ppc.aig has {self.ppc.num_outputs}")
        return fm

    @property
    def idcode(self) -> int:
        """IDCODE recorded in the frame map (the device's, bits [27:0] checked)."""
        v = self.framemap["idcode"]
        return int(str(v), 16) if isinstance(v, str) else int(v)

    @cached_property
    def entries(self) -> list[tuple[int, int, int, int]]:
        """Frame-map entries ``(far, word, bit, ppc_output)``, sorted.

        Raises:
            BuildFolderError: malformed or out of range (FAR not a frame of the device, word >= 101,
                bit >= 32, no such PPC output).
        """
        fm = self.framemap
        p = self.path / "tlut/framemap.json"
        try:
            entries = [tuple(int(x) for x in e) for e in fm["entries"]]
        except (KeyError, TypeError, ValueError) as e:
            raise BuildFolderError(f"{p}: malformed entries ({e!r})") from None
        n_out, far_index = self.ppc.num_outputs, self.device.far_index
        for e in entries:
            if len(e) != 4 or e[0] not in far_index or not 0 <= e[1] < FRAME_WORDS \
                    or not 0 <= e[2] < 32 or not 0 <= e[3] < n_out:
                raise BuildFolderError(f"{p}: frame map entry {list(e)} out of range")
        return sorted(entries)

    @property
    def framemap_tluts(self) -> list[dict]:
        """``tlut/framemap.json`` ``tluts``: per TLUT its ``name``, ``site``, ``bel``, ``pins``."""
        return list(self.framemap.get("tluts") or [])

    @cached_property
    def fars(self) -> list[int]:
        """Touched FARs in FDRI order."""
        return sorted({e[0] for e in self.entries}, key=self.device.far_index.__getitem__)

    @cached_property
    def runs(self) -> list[list[int]]:
        """The touched FARs as runs of consecutive frames inside one configuration row."""
        return frame_runs(self.device, self.fars)

    def check_links(self) -> "BuildFolder":
        """The cross-file checks of a reader that shows the folder without applying it (``dcsflow
        report``): the frame map (:attr:`framemap`, with the PPC) and the logic-only template's
        header (:meth:`check_template_header`), each when ``build.json`` lists it; the imported
        template's link was checked by :func:`load_build`. Returns the folder.

        Raises:
            BuildFolderError: as those checks.
        """
        if self.lists("tlut/framemap.json"):
            self.framemap
        if any(self.lists(f"{LOGIC_TEMPLATE}/template.{x}") for x in ("frm", "bit")):
            self.check_template_header()
        return self

    # ------------------------------------------------------------------ template configuration
    @cached_property
    def template_dir(self) -> Path:
        """Folder of the template configuration (:func:`template_folder`)."""
        return _template_dir(self.path, self.manifest)

    @property
    def imported(self) -> bool:
        """The template is a routed Vivado bitstream (``dcsflow import``), not the logic-only one."""
        return self.template_dir != self.path / LOGIC_TEMPLATE

    @cached_property
    def template(self) -> FrameMemory:
        """The template configuration (:func:`load_template` of :attr:`template_dir`); its file must
        be listed in ``build.json``.

        Raises:
            BuildFolderError: not listed, unreadable, another part, a logic-only template whose
                header names another design hash or none; the frame map's refusals (checked first).
        """
        self.framemap            # first: a changed design hash is named by the same check for every reader
        if self.imported:        # load_build checked its link: manifest, import record, listed hash
            return _load_bit(self._listed(IMPORTED_BITSTREAM, "imported template"), self.device)
        frm, bit = f"{LOGIC_TEMPLATE}/template.frm", f"{LOGIC_TEMPLATE}/template.bit"
        name = frm if (self.path / frm).exists() else bit
        check_template_header(self._listed(name, "template configuration"), self.design_hash)
        return load_template(self.template_dir, self.device)

    def check_template_header(self) -> None:
        """Refuse the folder unless the header of its logic-only template configuration
        (``tlut/template.frm``, else ``tlut/template.bit``; listed) names the build's design hash,
        reading its first line only (:func:`check_template_header`); the imported template's link
        was checked by :func:`load_build`.

        Raises:
            BuildFolderError: not listed, unreadable, of another design or none.
        """
        frm, bit = f"{LOGIC_TEMPLATE}/template.frm", f"{LOGIC_TEMPLATE}/template.bit"
        name = frm if frm in self._digests or not (bit in self._digests) else bit
        check_template_header(self._listed(name, "template configuration"), self.design_hash)


def _widths(v) -> bool:
    return isinstance(v, dict) and all(isinstance(k, str) and type(w) is int and w > 0 for k, w in v.items())


def _check_manifest(root: Path, bj: Path, manifest: dict, digests: dict[str, str],
                    replacing_import: bool = False) -> None:
    """Every field of ``build.json`` that a reader may use is well-formed and agrees with the hashed
    files that record it too (module docstring, steps 4-5). Raises BuildFolderError."""
    def bad(what: str):
        return BuildFolderError(f"{bj}: corrupted build manifest ({what}); rebuild")

    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        raise bad(f"no {', '.join(missing)}")
    for k in ("design", "top", "device"):
        if not isinstance(manifest[k], str) or not manifest[k]:
            raise bad(f"{k} is not a name")
    if not isinstance(manifest["design_hash"], str) or not _HEX64.fullmatch(manifest["design_hash"]):
        raise bad("design_hash is not a SHA-256 in lower-case hex")
    if not _widths(manifest["params"]):
        raise bad("params is not a map of port names to widths")
    if manifest["user_params"] is not None and not _widths(manifest["user_params"]):
        raise bad("user_params is neither null nor a map of port names to widths")
    src = manifest["design_source"]
    need = {"installed": "name", "project": "path", "files": None}
    kind = src.get("kind") if isinstance(src, dict) else None
    if kind not in need or (need[kind] and not isinstance(src.get(need[kind]), str)):
        raise bad("design_source is not {kind: installed|project|files, name|path}")
    tlut = manifest.get("tlut", "frames")
    if tlut not in ("frames", "cfglut5"):
        raise bad("tlut is neither frames nor cfglut5")
    if tlut == "cfglut5" and "cfglut.json" not in digests:
        raise bad("a cfglut5 build that lists no cfglut.json")
    if "transform" in manifest and (manifest["transform"] != TRANSFORM_FILE or TRANSFORM_FILE not in digests
                                    or not manifest["user_params"]):
        raise bad(f"transform is not {TRANSFORM_FILE}, listed, of a build with user_params")
    if not replacing_import:
        _check_import(root, bj, manifest, digests)
    if "report.json" in digests:
        rep = read_json(root / "report.json", "build report")
        for k in REPORT_KEYS:
            if rep.get(k) != manifest[k]:
                raise BuildFolderError(f"{root}: build.json and report.json name another {k} "
                                       f"({manifest[k]!r}, {rep.get(k)!r}): changed since the build; rebuild")
        if ("cfglut" in rep) != (tlut == "cfglut5"):
            raise BuildFolderError(f"{root}: build.json and report.json disagree on the TLUT realization: "
                                   "changed since the build; rebuild")


def _check_import(root: Path, bj: Path, manifest: dict, digests: dict[str, str]) -> None:
    """The imported template's link (docs/formats.md "Imported template"): ``build.json`` key
    ``template`` names :data:`IMPORTED_BITSTREAM` and :data:`IMPORT_RECORD` with their listed
    hashes, and the record is this build's import of that bitstream (design hash, device,
    bitstream hash); a folder holding an import that ``build.json`` does not name (a manifest from
    before the import, or its ``template`` key removed) is refused too, so that no reader falls back
    to the logic-only template unnoticed. Raises BuildFolderError."""
    t = manifest.get("template")
    if t is None:
        held = (root / IMPORTED_TEMPLATE).exists() or any(n.startswith(IMPORTED_TEMPLATE + "/") for n in digests)
        if held:
            raise BuildFolderError(f"{root}: {IMPORTED_TEMPLATE} holds a Vivado import that build.json does not name "
                                   "(build.json replaced or edited since the import); run dcsflow import again")
        return
    want = {"source": "vivado", "folder": IMPORTED_TEMPLATE, "file": IMPORTED_BITSTREAM, "record": IMPORT_RECORD}
    if not isinstance(t, dict) or any(t.get(k) != v for k, v in want.items()) \
            or IMPORTED_BITSTREAM not in digests or IMPORT_RECORD not in digests \
            or t.get("bitstream_sha256") != digests[IMPORTED_BITSTREAM] \
            or t.get("record_sha256") != digests[IMPORT_RECORD]:
        raise BuildFolderError(f"{bj}: corrupted build manifest (template is not the imported Vivado template "
                               f"{IMPORTED_BITSTREAM} and its record {IMPORT_RECORD}, both listed); "
                               "run dcsflow import again")
    rec = read_json(root / IMPORT_RECORD, "import record")
    if rec.get("format") != IMPORT_FORMAT or rec.get("version") != IMPORT_VERSION:
        raise BuildFolderError(f"{root}/{IMPORT_RECORD}: not a {IMPORT_FORMAT} version {IMPORT_VERSION} record")
    for key, mine in (("design_hash", manifest["design_hash"]), ("device", manifest["device"]),
                      ("bitstream_sha256", t["bitstream_sha256"])):
        if rec.get(key) != mine:
            raise BuildFolderError(f"{root}/{IMPORT_RECORD} records another {key} than build.json: the import "
                                   "of another build or bitstream; run dcsflow import again")


def _safe_name(name) -> bool:
    p = PurePosixPath(str(name))
    return isinstance(name, str) and bool(name) and not p.is_absolute() and ".." not in p.parts


def _digests(root: Path, bj: Path, manifest: dict) -> dict[str, str]:
    """SHA-256 of every file ``build.json`` lists, each equal to the recorded one (module docstring,
    step 2): file name -> hex digest. Raises BuildFolderError."""
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(_safe_name(n) and isinstance(d, str) for n, d in files.items()):
        raise BuildFolderError(f"{bj}: corrupted build manifest (files is not a map of relative names to SHA-256)")
    digests = {}
    for name, digest in files.items():
        try:
            digests[name] = sha256_file(root / name)
        except FileNotFoundError:
            raise BuildFolderError(f"{root}: {name} missing (listed in build.json); rebuild") from None
        except OSError as e:
            raise BuildFolderError(f"{root}: {name} unreadable ({e.strerror or e})") from None
        if digests[name] != digest:
            raise BuildFolderError(f"{root}: {name} does not match build.json (corrupted or replaced); rebuild")
    for name in ("ppc.aig", "ppc.json"):
        if name not in digests:
            raise BuildFolderError(f"{root}: build.json lists no {name}; rebuild with dcsflow build")
    return digests


def load_build(path, manifest: dict | None = None, *, replacing_import: bool = False) -> BuildFolder:
    """Open the build folder ``path`` after checking its integrity (module docstring, steps 1-5).

    ``manifest``: its ``build.json`` if the caller already read it (:func:`read_manifest`), so that
    the file is read once; it is checked here as if read here. ``replacing_import``: for ``dcsflow
    import``, which replaces any earlier import: the manifest is taken without its ``template`` key
    and the files under :data:`IMPORTED_TEMPLATE` (:attr:`BuildFolder.manifest` is that copy), and
    an import it does not name is not refused (step 5), so that a broken link can be imported anew.

    Returns:
        :class:`BuildFolder` (the rest is read and checked on first use).
    Raises:
        BuildFolderError: not a finished build folder, another format or version, a listed file
            missing or changed, a manifest field missing, malformed or disagreeing with
            ``report.json``, ``ppc.json`` not the manifest of ``ppc.aig``.
    """
    root = Path(path)
    bj = root / "build.json"
    if manifest is None:
        manifest = read_manifest(root)
    if manifest.get("format") != BUILD_FORMAT:
        raise BuildFolderError(f"{bj}: not a {BUILD_FORMAT} manifest")
    if manifest.get("version") != BUILD_VERSION:
        raise BuildFolderError(f"{root}: build folder of format version {manifest.get('version')}; this dcsflow "
                               f"reads version {BUILD_VERSION}: rebuild it with dcsflow build")
    if replacing_import:
        manifest = {k: v for k, v in manifest.items() if k != "template"}
        if isinstance(manifest.get("files"), dict):
            manifest["files"] = {n: d for n, d in manifest["files"].items()
                                 if not str(n).startswith(IMPORTED_TEMPLATE + "/")}
    digests = _digests(root, bj, manifest)
    _check_manifest(root, bj, manifest, digests, replacing_import)
    pj = read_json(root / "ppc.json", "PPC manifest")
    if pj.get("format") != PPC_FORMAT or pj.get("version") != PPC_VERSION:
        raise BuildFolderError(f"{root}: ppc.json is not a {PPC_FORMAT} version {PPC_VERSION} manifest")
    if pj.get("sha256") != digests["ppc.aig"]:
        raise BuildFolderError(f"{root}: PPC hash does not match ppc.json (ppc.aig of another build: "
                               "mismatched build folder)")
    return BuildFolder(root, manifest, pj, digests)


def is_build_folder(folder) -> bool:
    """True when ``folder`` holds a build of dcsflow, finished or not, as its own records say: a
    ``build.json`` manifest of dcsflow (format :data:`BUILD_FORMAT`, any version), the record every
    build writes before anything else (:data:`FOLDER_RECORD`, format :data:`FOLDER_FORMAT`), or a
    stage record (``stages/<stage>.json``, format :data:`STAGE_FORMAT`; builds of dcsflow versions
    before the folder record). A folder that merely has a ``stages/`` subfolder is not one."""
    d = Path(folder)
    try:
        if read_json(d / "build.json", "build manifest").get("format") == BUILD_FORMAT:
            return True
    except BuildFolderError:
        pass
    try:
        if read_json(d / FOLDER_RECORD, "build folder record").get("format") == FOLDER_FORMAT:
            return True
    except BuildFolderError:
        pass
    try:
        records = sorted((d / "stages").glob("*.json"))[:8]
    except OSError:
        return False
    for r in records:
        try:
            if read_json(r, "stage record").get("format") == STAGE_FORMAT:
                return True
        except BuildFolderError:
            pass
    return False


def build_folder_of(path) -> Path | None:
    """The build folder that holds ``path`` (the path itself or any folder above it,
    :func:`is_build_folder`), or None. Key-bearing outputs (specialized netlists and bitstreams) must
    never be written there."""
    p = Path(path).resolve()
    return next((d for d in (p, *p.parents) if is_build_folder(d)), None)
