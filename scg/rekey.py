"""Host SCG: new parameter values -> frame patches -> one write per touched frame, with rollback.

Input is a build folder (:mod:`dcsflow.scg.buildfolder`, docs/formats.md "Build folder"): the PPC
(``ppc.aig``), the frame map (``tlut/framemap.json``) and the template configuration
(``tlut/template.frm``, or the imported Vivado bitstream), all checked against ``build.json``.

Steps of :func:`rekey`:

1. evaluate the PPC and patch the touched frames of the template (:mod:`dcsflow.scg.plan`);
2. hand the frames to a transport (:mod:`dcsflow.scg.transports`): runs of consecutive frames inside one
   configuration row, each touched frame written exactly once, through the register-level driver
   :class:`dcsflow.scg.driver.HwicapSession` (targets ``emulator`` and ``devmem:BASE``), as a partial or
   full bitstream file (``bitfile:PATH``, ``partial:PATH``; owner-only permissions: it holds key
   material), through the Linux FPGA manager (``fpgamgr``), as one word stream through the ICAP
   stream controller in the fabric (``icap-dma:BASE``, :class:`dcsflow.scg.icapdma.IcapDmaSession`)
   or through Linux's ``xilinx_hwicap`` character device (``hwicap-dev:/dev/icap0``).

On any failure during the write or the optional read-back compare the previous frames are written
back (rollback) and :class:`RekeyError` carries one of the codes in :data:`ERROR_CODES` (the same
numbers as the firmware's ``SCG_ERR_*``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from dcsflow.fileio import OutputError, check_output_file, write_bytes_atomic

from .bitstream import header_part, to_bit, words_to_bytes
from .buildfolder import build_folder_of
from .device import FRAME_WORDS
from .driver import DriverError, HwicapSession, rekey_icap_words
from .errors import RekeyError
from .plan import frames_hash, plan, words_hash
from .transports import DEVCFG_BASE, DevMemBus, FpgaManager, make_emulator, specialized_stream, words_to_le_bytes

__all__ = ["CFGLUT_KINDS", "DEFAULT_TARGET", "ERROR_CODES", "RekeyError", "RekeyResult", "TARGETS", "Target",
           "apply_hwicap", "parse_target", "rekey", "rekey_cfglut", "rekey_hwicap_dev", "rekey_icap_dma", "target_help"]

#: Error codes shared with the firmware (firmware/scg_runtime.h, firmware/hwicap.h).
ERROR_CODES = {
    "timeout": -1, "idcode": -2, "config": -3, "sync": -4, "arg": -5,
    "blob": -10, "design": -11, "device": -12, "key": -13, "write": -14, "verify": -15, "rollback": -16,
    "transform": -17,
}

#: The targets of :func:`rekey`, one row each: (kind, its form in the error for an unknown target,
#: its form and notes in the help of ``--to``). :func:`parse_target` reads these kinds; both command
#: lines show :func:`target_help`.
TARGETS = (
    ("emulator", "emulator", "emulator"),
    ("bitfile", "bitfile:PATH", "bitfile:PATH(.bit/.bin, mode 0600; full after `dcsflow import`)"),
    ("partial", "partial:PATH", "partial:PATH(.bit/.bin)"),
    ("devmem", "devmem:BASE", "devmem:BASE[@/dev/uioN]"),
    ("fpgamgr", "fpgamgr[:NAME]", "fpgamgr[:NAME.bin] (Linux FPGA manager, PCAP)"),
    ("icap-dma", "icap-dma:BASE", "icap-dma:BASE[@/dev/uioN][:0xPHYS[+SIZE]|:/dev/udmabufN] (ICAP stream "
                                  "controller, --transport icap-dma)"),
    ("hwicap-dev", "hwicap-dev:PATH", "hwicap-dev:/dev/icap0 (Linux xilinx_hwicap driver)"),
    ("cfglut-words", "cfglut-words:PATH", "cfglut-words:PATH (a --tlut cfglut5 build: its chain words file, mode 0600)"),
    ("cfglut", "cfglut:devmem:BASE", "cfglut:devmem:BASE[@/dev/uioN] (a --tlut cfglut5 build: its CFGLUT5 loader)"),
)
#: the target kinds of a ``cfglut5`` build (every other kind is for a ``frames`` build)
CFGLUT_KINDS = ("cfglut-words", "cfglut")
DEFAULT_TARGET = "emulator"
#: files a file target may write (the suffix selects the format: ``.bit`` with header, ``.bin`` raw)
FILE_SUFFIXES = (".bit", ".bin")


def target_help() -> str:
    """Help text of ``--to`` (:data:`TARGETS`), the same in both command lines."""
    return " | ".join(row[2] for row in TARGETS) + f" (default: {DEFAULT_TARGET})"


@dataclass(frozen=True)
class Target:
    """A parsed rekey target (:func:`parse_target`).

    Attributes:
        text: the target as given (reported as ``target`` in :class:`RekeyResult`);
        kind: a kind of :data:`TARGETS`; path: the file of ``bitfile``/``partial`` (else None);
        base: the AXI HWICAP base address of ``devmem`` (the CFGLUT5 loader's of ``cfglut``; bytes;
        else None); device: the memory
        device given after ``@`` (e.g. ``/dev/uio0``); ``""``: ``/dev/mem``, and devcfg PCAP_PR is
        cleared first (a UIO device maps the HWICAP only);
        name: the firmware file name of ``fpgamgr`` (``""``: a name made from the design hash);
        buffer: the DMA buffer of ``icap-dma`` (``0xPHYS[+SIZE]`` or ``/dev/udmabufN``; ``""``:
        :data:`dcsflow.scg.transports.DEFAULT_DMA_BUFFER`); path is the device of ``hwicap-dev``.
    """

    text: str
    kind: str
    path: Path | None = None
    base: int | None = None
    device: str = ""
    name: str = ""
    buffer: str = ""


def parse_target(text: str) -> Target:
    """Parse a rekey target (:data:`TARGETS`): ``emulator``, ``bitfile:PATH``, ``partial:PATH``
    (``PATH`` ending in ``.bit`` or ``.bin``), ``devmem:BASE`` or ``devmem:BASE@/dev/uioN`` (``BASE``
    in C notation, e.g. ``0x40000000``), ``fpgamgr`` or ``fpgamgr:NAME``,
    ``icap-dma:BASE[@/dev/uioN][:BUFFER]`` (BUFFER ``0xPHYS[+SIZE]`` or ``/dev/udmabufN``),
    ``hwicap-dev:PATH``; for a ``cfglut5`` build ``cfglut-words:PATH`` and
    ``cfglut:devmem:BASE[@/dev/uioN]``.

    Raises:
        RekeyError: code ``arg``: unknown target, a file name without ``.bit``/``.bin``, a bad base
            address.
    """
    kind, _, rest = text.partition(":")
    if text.startswith(("bitfile:", "partial:")):
        path = Path(rest)
        if path.suffix not in FILE_SUFFIXES:
            raise RekeyError(f"{kind} target {path}: use a .bit or .bin file name", "arg")
        return Target(text, kind, path=path)
    if text == "fpgamgr" or text.startswith("fpgamgr:"):
        return Target(text, "fpgamgr", name=rest)
    if text == "emulator":
        return Target(text, "emulator")
    if text.startswith("hwicap-dev:"):
        if not rest:
            raise RekeyError("hwicap-dev target: name the device (hwicap-dev:/dev/icap0)", "arg")
        return Target(text, kind, path=Path(rest))
    if text.startswith("icap-dma:"):
        regs, _, buf = rest.partition(":")
        base_s, _, dev_path = regs.partition("@")
        try:
            base = int(base_s, 0)
        except ValueError:
            raise RekeyError(f"icap-dma target: bad base address {base_s!r}", "arg") from None
        return Target(text, kind, base=base, device=dev_path, buffer=buf)
    if text.startswith("cfglut-words:"):
        if not rest:
            raise RekeyError("cfglut-words target: name the words file (cfglut-words:PATH)", "arg")
        return Target(text, kind, path=Path(rest))
    if text.startswith(("devmem:", "cfglut:devmem:")):
        kind = "cfglut" if text.startswith("cfglut:") else "devmem"
        base_s, _, dev_path = text.split("devmem:", 1)[1].partition("@")
        try:
            base = int(base_s, 0)
        except ValueError:
            raise RekeyError(f"{kind} target: bad base address {base_s!r}", "arg") from None
        return Target(text, kind, base=base, device=dev_path)
    raise RekeyError(f"unknown target {text!r} ({', '.join(row[1] for row in TARGETS)})", "arg")


def frame_words(runs: list[list[int]]) -> int:
    """Words of frame data a rekey writes for the frame ``runs``: each run's frames and its one pad
    frame (UG470), without any configuration packet."""
    return sum((len(run) + 1) * FRAME_WORDS for run in runs)


@dataclass
class RekeyResult:
    """Outcome of :func:`rekey`: counts for the report (``--json``); ``frames_hash`` (FNV-1a 64 of the
    new frames, :func:`dcsflow.scg.plan.frames_hash`) is key-dependent and printed only on request.

    The word counts, each named for what it counts (the same in the build's report, ``rekey``'s line
    and ``--json``): :attr:`icap_words` is the rekey's ICAP words through the AXI HWICAP (the ICAP
    stream controller and the xilinx_hwicap device send the same words) — frame
    data with its pad frames (``frame_words`` in :attr:`extra`) plus each run's configuration
    packets (:func:`dcsflow.scg.driver.frame_write_sequence`) — the build's
    ``backend.rekey.icap_words_batched``; with ``--verify``, ``verify_words`` counts the words
    written to request the read-back and :attr:`readback_words` the words read; a file target's
    ``bitstream_words`` counts the words of the file's configuration stream (one synchronization
    for every run, the bus-width preamble, the CRC check, trailing NOOPs), which differs from
    :attr:`icap_words`."""

    target: str
    frames: int
    runs: int
    icap_words: int
    reg_accesses: int
    readback_words: int
    seconds: float
    frames_hash: str
    verified: bool
    extra: dict = field(default_factory=dict)

    def as_dict(self, frames_hash: bool = False) -> dict:
        """JSON-ready dict (docs/formats.md "Rekey results").

        ``frames_hash``: include :attr:`frames_hash`. Off by default: the hash of the specialized
        frames depends on the key only, so for a short key it identifies the key by brute force.
        """
        d = {"target": self.target, "frames": self.frames, "runs": self.runs, "icap_words": self.icap_words,
             "register_accesses": self.reg_accesses, "readback_words": self.readback_words,
             "seconds": round(self.seconds, 6), "verified": self.verified, **self.extra}
        if frames_hash:
            d["frames_hash"] = self.frames_hash
        return d


def apply_hwicap(session: HwicapSession, build, new: dict, previous: dict, verify: bool = False) -> int:
    """Write ``new`` (FAR -> 101 words) run by run of ``build.runs`` through ``session``; optional
    read-back compare. On any failure recover the core, write ``previous`` back (and compare it when
    ``verify``). Returns the session's ICAP word count after the frames were written, before any
    read-back request.

    Raises:
        RekeyError: code ``write``/``verify`` (previous frames restored, ``rolled_back``), or
            ``rollback`` when restoring failed too; the driver's code in the message.
    """
    def write_all(frames):
        for run in build.runs:
            session.write_frames(run[0], [frames[f] for f in run])

    def check(frames):
        for run in build.runs:
            got = session.read_frames(run[0], len(run))
            if any(g != frames[f] for g, f in zip(got, run)):
                raise DriverError("verify", f"read-back of run at FAR 0x{run[0]:08X} differs")

    try:
        write_all(new)
        written = session.icap_words_in
        if verify:
            check(new)
    except DriverError as e:
        code = "verify" if e.code == "verify" else "write"
        try:
            session.recover()
            write_all(previous)
            if verify:
                check(previous)
        except DriverError as e2:
            raise RekeyError(f"rekey failed ({e}); rollback failed too ({e2}): device state unknown",
                             "rollback") from None
        raise RekeyError(f"rekey failed ({e} [{e.code}]); previous frames restored", code,
                         rolled_back=True) from None
    return written


def rekey(build, assignment: dict, target: str = DEFAULT_TARGET, *, verify: bool = False,
          hwicap=None, previous: dict | None = None, timeout: int = 1000, fpga_manager=None,
          icap_dma=None) -> RekeyResult:
    """Rekey ``build`` (:class:`dcsflow.scg.buildfolder.BuildFolder`) for ``assignment`` (parameter port ->
    value, e.g. from :func:`dcsflow.scg.params.parse_param_args`) through ``target``.

    Args:
        target: (:func:`parse_target`) ``emulator`` (``hwicap`` or a new model holding the template),
            ``bitfile:PATH`` (``.bit``/``.bin``, mode 0600: the full specialized bitstream after
            ``dcsflow import`` of a Vivado bitstream, else the partial one), ``partial:PATH``
            (partial bitstream of the touched frames), ``devmem:BASE`` (AXI HWICAP through
            ``/dev/mem``, devcfg PCAP_PR cleared first) or ``devmem:BASE@/dev/uioN``,
            ``fpgamgr[:NAME.bin]`` (PCAP through the Linux FPGA manager, :class:`FpgaManager`;
            ``fpga_manager`` overrides its folders), ``icap-dma:BASE[@/dev/uioN][:BUFFER]`` (the
            ICAP stream controller of a ``--transport icap-dma`` Vivado build, :func:`rekey_icap_dma`;
            ``icap_dma`` = (register bus, DMA buffer) overrides the mapped device and buffer),
            ``hwicap-dev:PATH`` (Linux's xilinx_hwicap character device, :func:`rekey_hwicap_dev`;
            no rollback after a failed write: the message says so).
            A ``cfglut5`` build (``dcsflow build --tlut
            cfglut5``) takes only ``cfglut-words:PATH`` (its chain words file, mode 0600) and
            ``cfglut:devmem:BASE[@/dev/uioN]`` (its CFGLUT5 loader, :func:`rekey_cfglut`).
        verify: read the frames back and compare. previous: the frames now in the device (FAR ->
            words; default: the template's) used for rollback. timeout: maximum polls of the HWICAP
            per wait (:class:`dcsflow.scg.driver.HwicapSession`).
    Returns:
        :class:`RekeyResult`.
    Raises:
        RekeyError: bad target, or a target of the other TLUT realization (code ``arg``; before any
            work), IDCODE mismatch (``idcode``),
            write/verify failure (rolled back), a file target that cannot be written or is a file
            of the build folder (``write``, checked before the PPC is evaluated; nothing is written).
        BuildFolderError: the frame map or template is refused (read on first use).
    """
    t0 = time.perf_counter()
    t = parse_target(target)
    _check_kind(build, t)
    if t.kind in CFGLUT_KINDS:
        return _rekey_cfglut(build, assignment, t, t0, verify)
    if verify and t.kind in ("icap-dma", "hwicap-dev"):
        raise RekeyError(f"--verify: the {t.kind} transport cannot read frames back (write only); rekey without "
                         "--verify, or through devmem: (AXI HWICAP) to read back", "arg")
    if t.path is not None and t.kind != "hwicap-dev":      # the output is checked before any work
        _check_file_target(build, t)
    p = plan(build, assignment)
    h = frames_hash(p.frames, build.device)
    prev = previous if previous is not None else {f: build.template.frame(f) for f in build.fars}
    if t.kind in ("icap-dma", "hwicap-dev"):
        if t.kind == "icap-dma":
            extra = rekey_icap_dma(build, t, p.frames, prev, icap_dma)
        else:
            extra = rekey_hwicap_dev(build, t, p.frames)
        extra["frame_words"] = frame_words(build.runs)
        return RekeyResult(t.text, len(build.fars), len(build.runs), extra.pop("icap_words"),
                           extra.pop("register_accesses"), 0, time.perf_counter() - t0, h, False, extra)
    if t.path is not None:
        return _write_file(build, t, p, h, t0)
    if t.kind == "fpgamgr":
        return _load_fpga_manager(build, t, p, h, t0, fpga_manager)
    if t.kind == "emulator":
        hw, devcfg = (hwicap if hwicap is not None else make_emulator(build)), None
    else:
        hw = DevMemBus(t.base, t.device or "/dev/mem")
        devcfg = DevMemBus(DEVCFG_BASE) if not t.device else None
    s = HwicapSession(hw, build.idcode, timeout)
    try:
        s.init(devcfg)
    except DriverError as e:
        raise RekeyError(f"refusing to rekey: {e}", e.code) from None
    s.icap_words_in = s.icap_words_out = s.reg_accesses = 0  # count the rekey only (as the firmware)
    written = apply_hwicap(s, build, p.frames, prev, verify)
    extra = {"frame_words": frame_words(build.runs)}
    if verify:
        extra["verify_words"] = s.icap_words_in - written
    return RekeyResult(t.text, len(build.fars), len(build.runs), written, s.reg_accesses,
                       s.icap_words_out, time.perf_counter() - t0, h, verify, extra)


def rekey_icap_dma(build, t: Target, frames: dict, previous: dict, icap_dma=None) -> dict:
    """Write ``frames`` (FAR -> words) through the ICAP stream controller of target ``t``
    (``icap-dma:BASE[@/dev/uioN][:BUFFER]``) as one stream (:func:`dcsflow.scg.icapdma.rekey_stream`):
    map its registers (``/dev/mem``, devcfg PCAP_PR cleared first, or the UIO device) and the DMA
    buffer (:func:`dcsflow.scg.transports.open_dma_buffer`), check the controller (MAGIC, INFO,
    BUILD_ID, REKEY_WORDS), send; on a failure send ``previous`` the same way (rollback).

    Args:
        icap_dma: (register bus, buffer) in place of the mapped device and buffer (tests: the
            Python model :class:`dcsflow.scg.icapdma.IcapDmaModel` and a
            :class:`dcsflow.scg.icapdma.PhysMemory`).
    Returns:
        the counts of the report: ``icap_words``, ``register_accesses``, ``transport``, ``polls``,
        ``buffer`` (its bus address).
    Raises:
        RekeyError: ``design`` (no controller, or another build's: nothing written), ``arg`` (a
            buffer that cannot hold the stream), ``write``/``config``/``timeout`` with the previous
            frames written back (the message names the last frame the failed stream wrote),
            ``rollback`` when that failed too.
    """
    from .icapdma import IcapDmaSession, build_id_of, buffer_bytes, rekey_stream
    from .transports import DEFAULT_DMA_BUFFER, open_dma_buffer

    new, old = rekey_stream(build, frames), rekey_stream(build, previous)
    if icap_dma is not None:
        bus, buf = icap_dma
    else:
        bus = DevMemBus(t.base, t.device or "/dev/mem")
        buf = open_dma_buffer(t.buffer or DEFAULT_DMA_BUFFER, buffer_bytes(len(new.words)))
        if not t.device:
            from .transports import clear_pcap_pr

            clear_pcap_pr(DevMemBus(DEVCFG_BASE))
    s = IcapDmaSession(bus, buf, build_id_of(build.design_hash), len(new.words))
    try:
        s.check()
        s.send(new)
    except DriverError as e:
        if e.code not in ("config", "timeout"):        # refused before the first word: nothing written
            raise RekeyError(f"refusing to rekey: {e}", e.code) from None
        try:
            s.send(old)
        except DriverError as e2:
            raise RekeyError(f"rekey failed ({e}); rollback failed too ({e2}): device state unknown",
                             "rollback") from None
        raise RekeyError(f"rekey failed ({e} [{e.code}]); previous frames restored", e.code,
                         rolled_back=True) from None
    return {"icap_words": len(new.words), "register_accesses": s.reg_accesses, "transport": "icap-dma",
            "polls": s.polls_used, "buffer": f"0x{buf.phys:08X}"}


def rekey_hwicap_dev(build, t: Target, frames: dict) -> dict:
    """Write ``frames`` through Linux's xilinx_hwicap character device ``t.path``
    (:class:`dcsflow.scg.transports.HwicapDevice`): the rekey's words
    (:func:`dcsflow.scg.icapdma.rekey_stream`, the AXI HWICAP driver's sequence) in one open, a
    frame per write.

    A write that fails leaves the configuration logic where the driver stopped, possibly inside a
    frame packet, and the driver has no ICAP abort (its open only resets the AXI HWICAP core): more
    words would be taken as frame data. So there is no rollback: the error names the last frame
    confirmed written (the calls that returned) and says that the device state is unknown.

    Returns:
        the counts of the report: ``icap_words``, ``register_accesses`` (0), ``transport``,
        ``device``, ``writes``.
    Raises:
        RekeyError: ``arg`` (the device cannot be opened: nothing written), ``write`` (a write
            failed: the message names the last frame confirmed written).
    """
    from .icapdma import rekey_stream, written_message
    from .transports import HwicapDevice

    new = rekey_stream(build, frames)
    dev = HwicapDevice(str(t.path))
    try:
        dev.send(new.words)
    except OSError as e:
        done = getattr(e, "words_done", None)
        why = f"{e.strerror or e}"
        if done is None:
            raise RekeyError(f"hwicap-dev {t.path}: cannot open ({why}): nothing written", "arg") from None
        raise RekeyError(f"hwicap-dev {t.path}: write failed ({why}); {written_message(new, done)} (confirmed); "
                         "the configuration logic may be inside a frame packet, which this driver cannot abort: "
                         "device state unknown (load the full bitstream again)", "write") from None
    return {"icap_words": len(new.words), "register_accesses": 0, "transport": "hwicap-dev", "device": str(t.path),
            "writes": dev.writes}


def _check_kind(build, t: Target) -> None:
    """A ``cfglut5`` build takes the targets of :data:`CFGLUT_KINDS` only, a ``frames`` build every
    other. Raises RekeyError (code ``arg``, one line)."""
    kind = build.tlut_kind
    if kind == "cfglut5" and t.kind not in CFGLUT_KINDS:
        raise RekeyError(f"{t.text}: {build.path} is a --tlut cfglut5 build (its TLUTs load through the CFGLUT5 "
                         "loader, not configuration frames): use --to cfglut-words:PATH or cfglut:devmem:BASE", "arg")
    if kind != "cfglut5" and t.kind in CFGLUT_KINDS:
        raise RekeyError(f"{t.text}: {build.path} is a --tlut {kind} build (no CFGLUT5 chains): use a frames "
                         "target (emulator, partial:PATH, devmem:BASE, ...)", "arg")


def rekey_cfglut(build, words, target: str, *, polls: int = 0, bus=None) -> dict:
    """Hand the chain words of a ``cfglut5`` build to ``target`` (``cfglut-words:PATH`` or
    ``cfglut:devmem:BASE[@/dev/uioN]``).

    Args:
        words: G*S chain words (:func:`dcsflow.scg.cfglut_loader.words_for_values`).
        polls: STATUS polls before a timeout (0: the driver's default). bus: replaces the mapped
            device of ``cfglut:devmem`` (a :class:`dcsflow.scg.cfglut_loader.LoaderModel` in tests).
    Returns:
        the counts of the report: ``chain_words``, ``chains``, ``chain_luts``, ``build_id``,
        ``register_accesses`` and ``polls`` (loader) or ``file`` (words file).
    Raises:
        RekeyError: code ``arg`` (not a cfglut target), ``write`` (the file cannot be written, or is
            in a build folder; nothing written), the codes of
            :class:`dcsflow.scg.cfglut_loader.LoaderSession` (loader).
    """
    from .cfglut import write_words_file
    from .cfglut_loader import DEFAULT_POLLS, LoaderSession

    t = parse_target(target)
    lay = build.cfglut_layout
    out = {"chain_words": len(words), "chains": lay.n_chains, "chain_luts": lay.chain_luts,
           "build_id": f"{lay.build_id:08x}"}
    if t.kind == "cfglut-words":
        _check_file_target(build, t, "a chain words file")
        try:
            write_words_file(t.path, words, lay.n_chains, lay.chain_luts, lay.build_id)
        except OSError as e:
            raise RekeyError(f"{t.kind} target {t.path}: cannot write ({e.strerror or e})", "write") from None
        return {**out, "file": str(t.path), "register_accesses": 0}
    if t.kind != "cfglut":
        raise RekeyError(f"{t.text}: not a CFGLUT5 target (cfglut-words:PATH, cfglut:devmem:BASE)", "arg")
    if bus is None:
        bus = DevMemBus(t.base, t.device or "/dev/mem", size=1 << lay.addr_width)
    s = LoaderSession(bus, lay, polls or DEFAULT_POLLS)
    s.check()
    n = s.load(words)
    return {**out, "register_accesses": s.reg_accesses, "polls": n}


def _rekey_cfglut(build, assignment: dict, t: Target, t0: float, verify: bool) -> RekeyResult:
    """:func:`rekey` of a ``cfglut5`` build: evaluate the PPC, order the chain words, hand them to
    :func:`rekey_cfglut`. The output file is checked before the PPC is evaluated."""
    from .cfglut_loader import words_for_values

    if verify:
        raise RekeyError("--verify: the CFGLUT5 loader cannot read its CFGLUT5s back (its word window reads 0)", "arg")
    if t.path is not None:
        _check_file_target(build, t, "a chain words file")
    lay = build.cfglut_layout
    words = words_for_values(build, assignment)
    extra = rekey_cfglut(build, words, t.text)
    return RekeyResult(t.text, 0, 0, 0, extra.pop("register_accesses"), 0, time.perf_counter() - t0,
                       words_hash(words), False, {**extra, "shift_cycles": lay.shift_cycles + 2})


def _check_file_target(build, t: Target, holds: str = "a specialized bitstream") -> None:
    """The file of a ``bitfile``/``partial`` target can be written, its folder exists (it is not
    created), and it is neither a file of the build folder nor inside any build folder (a specialized
    bitstream holds key material). Raises RekeyError."""
    try:
        check_output_file(t.path, inputs=build.input_files())
    except OutputError as e:
        raise RekeyError(f"{t.kind} target {t.path}: cannot write ({e.strerror})", "write") from None
    if not t.path.parent.is_dir():      # a mistyped folder is not created: the key material stays put
        raise RekeyError(f"{t.kind} target {t.path}: cannot write (the folder {t.path.parent} does not "
                         "exist; create it first)", "write")
    inside = build_folder_of(t.path)
    if inside is not None:
        raise RekeyError(f"{t.kind} target {t.path}: inside the build folder {inside}; {holds} "
                         "holds key material: write it elsewhere", "arg")


def _write_file(build, t: Target, p, h: str, t0: float) -> RekeyResult:
    """Write the specialized bitstream of plan ``p`` to the file of target ``t`` (mode 0600): the full
    configuration after ``dcsflow import``, else the partial one; ``.bit`` with a header naming the
    design hash and the part (UG470 ``.bit`` fields a and b). Raises RekeyError (code ``write``)."""
    full = t.kind == "bitfile" and build.imported
    words = specialized_stream(build, p, full=full)
    data = words_to_bytes(words)
    if t.path.suffix == ".bit":
        data = to_bit(data, design=f"dcsflow;hash={build.design_hash[:16]};{'full' if full else 'partial'}",
                      part=header_part(build.device))
    res = RekeyResult(t.text, len(build.fars), len(build.runs), rekey_icap_words(build.runs, build.idcode), 0, 0,
                      0.0, h, False,
                      {"frame_words": frame_words(build.runs), "bitstream_words": len(words), "file": str(t.path),
                       "bytes": len(data), "bitstream": "full" if full else "partial"})
    try:
        # the file is the command's result: written last, and a signal once it is in place changes nothing
        write_bytes_atomic(t.path, data, private=True, inputs=build.input_files(), commit=True)
    except OSError as e:
        raise RekeyError(f"{t.kind} target {t.path}: cannot write ({e.strerror or e})", "write") from None
    return replace(res, seconds=time.perf_counter() - t0)


def _load_fpga_manager(build, t: Target, p, h: str, t0: float, fpga_manager=None) -> RekeyResult:
    """Load the partial bitstream of plan ``p`` through the Linux FPGA manager (PCAP,
    :class:`dcsflow.scg.transports.FpgaManager`; ``fpga_manager`` overrides its folders)."""
    fm = fpga_manager if fpga_manager is not None else FpgaManager()
    name = t.name or f"dcsflow_{build.design_hash[:12]}_partial.bin"
    data = words_to_le_bytes(specialized_stream(build, p, full=False))
    fm.load_partial(name, data)
    return RekeyResult(t.text, len(build.fars), len(build.runs), rekey_icap_words(build.runs, build.idcode), 0, 0,
                       time.perf_counter() - t0, h, False,
                       {"frame_words": frame_words(build.runs), "bitstream_words": len(data) // 4, "firmware": name,
                        "bytes": len(data), "bitstream": "partial", "transport": "pcap"})
