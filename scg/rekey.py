"""Host SCG: new parameter values -> frame patches -> one write per touched frame, with rollback.

Input is a build folder (contract ``notes/build-contract.md``): ``ppc.aig`` (PPC AIGER),
``tlut/framemap.json`` (format ``dcsflow-frame-map`` v1), ``tlut/template.frm`` (template
configuration, ``dcsflow-frames 1``) and, when present, ``build.json`` (its ``design_hash`` must equal
the frame map's).

Steps of :func:`rekey`:

1. evaluate the PPC bit-parallel (:mod:`scg.ppc`; 1..N parameter sets per call);
2. for every frame-map entry set/clear its bit in a shadow copy of the touched frames of the
   template; update each touched frame's ECC (word 50 bits [12:0]) by the ECC of the change (the
   code is linear, :func:`scg.device.frame_ecc`; same result as ``FrameMemory.set_lut(update_ecc=True)``);
3. hand the frames to a transport: runs of consecutive frames inside one configuration row, each
   touched frame written exactly once.

Transports share :class:`HwicapSession`, the register-level driver (same access sequence as the C
driver ``firmware/hwicap.c``: vacancy polling with timeouts, dummy frame on read, pad frame on write,
status check before DESYNC, abort/reset recovery) over any object with ``read(offset)`` and
``write(offset, value)``: the :class:`scg.hwicap.AxiHwicap` model (target ``emulator``) or
``/dev/mem``/UIO (target ``devmem:BASE``). Target ``bitfile:PATH`` writes a partial bitstream of the
touched frames instead (owner-only permissions: it holds key material).

On any failure during the write or the optional read-back compare the previous frames are written
back (rollback) and :class:`RekeyError` carries one of the codes in :data:`ERROR_CODES` (the same
numbers as the firmware's ``SCG_ERR_*``).
"""

from __future__ import annotations

import array
import json
import mmap
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .bitstream import (FrameMemory, PARK_FAR, frame_runs, full_stream_words, partial_stream_words, to_bit,
                        header_part, words_to_bytes)
from .device import ECC_MASK, ECC_WORD, FRAME_WORDS, Device, finish_ecc, get_device, word_ecc
from .errors import DeviceError

FRAMEMAP_FORMAT = "dcsflow-frame-map"

#: Error codes shared with the firmware (firmware/scg_runtime.h, firmware/hwicap.h).
ERROR_CODES = {
    "timeout": -1, "idcode": -2, "config": -3, "sync": -4, "arg": -5,
    "blob": -10, "design": -11, "device": -12, "key": -13, "write": -14, "verify": -15, "rollback": -16,
}


class RekeyError(Exception):
    """A rekey could not be done; ``code`` is a key of :data:`ERROR_CODES`; ``rolled_back`` tells
    whether the previous frames were restored."""

    user_error = True

    def __init__(self, message: str, code: str = "arg", rolled_back: bool = False):
        super().__init__(message)
        self.code = code
        self.rolled_back = rolled_back


class _HwError(Exception):
    def __init__(self, code: str, msg: str):
        super().__init__(msg)
        self.code = code


# ---------------------------------------------------------------------------------- build folder
@dataclass
class ScgBuild:
    """The SCG's inputs from a build folder.

    Attributes:
        path: build folder; ppc: :class:`scg.ppc.Ppc`; device: :class:`Device`; idcode: int;
        design_hash: hex str; entries: list of ``(far, word, bit, ppc_output)`` sorted;
        template: :class:`FrameMemory` (template configuration); fars: touched FARs in FDRI order;
        runs: those FARs grouped into runs of consecutive frames within a row;
        imported: the template is a routed Vivado bitstream (``dcsflow import``), not logic-only.
    """

    path: Path
    ppc: object
    device: Device
    idcode: int
    design_hash: str
    entries: list
    template: FrameMemory
    fars: list
    runs: list
    imported: bool = False

    @property
    def ports(self) -> dict:
        """Parameter ports and their widths (from the PPC input names)."""
        return self.ppc.ports


def _read_json(p: Path, what: str) -> dict:
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise RekeyError(f"{p}: missing ({what})", "design") from None
    except (OSError, ValueError) as e:
        raise RekeyError(f"{p}: unreadable {what}: {e}", "design") from None


def template_folder(path) -> Path:
    """Folder holding the build's template configuration (``template.frm``/``.bit``): the one named
    by ``build.json`` key ``template.folder`` (``tlut/imported`` after ``dcsflow import`` of a
    Vivado bitstream), else the logic-only ``tlut``."""
    root = Path(path)
    try:
        bj = json.loads((root / "build.json").read_text())
    except (OSError, ValueError):
        return root / "tlut"
    t = bj.get("template") if isinstance(bj, dict) else None
    return root / t["folder"] if isinstance(t, dict) and isinstance(t.get("folder"), str) else root / "tlut"


def load_template(folder, device: Device) -> FrameMemory:
    """The template configuration in ``folder``: ``template.frm`` if present (logic-only template of
    the built-in back end), else ``template.bit`` (an imported Vivado bitstream; parsing it is ~5x
    faster than a frame file of all 9996 frames).

    Raises:
        RekeyError: neither file readable, or a bitstream of another part (code ``design``/``device``).
    """
    from .bitstream import read_file
    from .errors import BitstreamError

    folder = Path(folder)
    frm = folder / "template.frm"
    if frm.exists():
        try:
            return FrameMemory.from_frm(frm.read_text(), device)
        except OSError as e:
            raise RekeyError(f"{frm}: {e.strerror or e}", "design") from None
    try:
        bs = read_file(folder / "template.bit")
    except BitstreamError as e:
        raise RekeyError(f"{folder}/template.bit: {e}", "design") from None
    if bs.device is None or bs.device.name != device.name:
        raise RekeyError(f"{folder}/template.bit is not a {device.name} bitstream", "device")
    return bs.frames


def load_build(path) -> ScgBuild:
    """Load ``ppc.aig``, ``tlut/framemap.json``, the template (:func:`template_folder`) and ``build.json``.

    Raises:
        RekeyError: missing/malformed file, unknown format version, design hash or IDCODE mismatch
            between the files, frame-map entry out of range.
    """
    from .ppc import Ppc

    root = Path(path)
    if not root.is_dir():
        raise RekeyError(f"{root}: not a build folder", "design")
    fm = _read_json(root / "tlut" / "framemap.json", "frame map")
    if fm.get("format") != FRAMEMAP_FORMAT or fm.get("version") != 1:
        raise RekeyError(f"{root}/tlut/framemap.json: not a {FRAMEMAP_FORMAT} v1 file", "design")
    try:
        device = get_device(fm.get("device", "xc7z020"))
        idcode = int(str(fm["idcode"]), 16) if isinstance(fm["idcode"], str) else int(fm["idcode"])
        design_hash = str(fm["design_hash"])
        n_out = int(fm["ppc_outputs"])
        entries = [tuple(int(x) for x in e) for e in fm["entries"]]
    except (KeyError, TypeError, ValueError, DeviceError) as e:
        raise RekeyError(f"{root}/tlut/framemap.json: malformed ({e})", "design") from None
    if (idcode ^ device.idcode) & 0x0FFFFFFF:
        raise RekeyError(f"frame map IDCODE 0x{idcode:08X} is not {device.name}'s", "device")
    bj = root / "build.json"
    if bj.exists():
        bh = _read_json(bj, "build manifest").get("design_hash")
        if bh and bh != design_hash:
            raise RekeyError("design hash of tlut/framemap.json differs from build.json: "
                             "the frame map belongs to another build", "design")
    try:
        ppc = Ppc.load(root / "ppc.aig")
    except FileNotFoundError:
        raise RekeyError(f"{root}/ppc.aig: missing (PPC)", "design") from None
    except Exception as e:  # AigerError and friends
        raise RekeyError(f"{root}/ppc.aig: {e}", "blob") from None
    if ppc.aig.num_latches:
        raise RekeyError("PPC AIG has latches", "blob")
    if ppc.num_outputs != n_out:
        raise RekeyError(f"frame map names {n_out} PPC outputs, ppc.aig has {ppc.num_outputs}", "design")
    for e in entries:
        if len(e) != 4 or e[0] not in device.far_index or not 0 <= e[1] < FRAME_WORDS \
                or not 0 <= e[2] < 32 or not 0 <= e[3] < n_out:
            raise RekeyError(f"frame map entry {list(e)} out of range", "design")
    tdir = template_folder(root)
    template = load_template(tdir, device)
    fars = sorted({e[0] for e in entries}, key=device.far_index.__getitem__)
    return ScgBuild(root, ppc, device, idcode, design_hash, sorted(entries), template, fars,
                    frame_runs(device, fars), tdir != root / "tlut")


def parse_params(build: ScgBuild, items) -> dict:
    """``["key=0A1B..", ...]`` -> ``{"key": int}``; every port must be given once.

    Raises:
        RekeyError: syntax, unknown or missing port, value not hex or of the wrong width.
    """
    from .ppc import PpcError, parse_hex_value

    out: dict[str, int] = {}
    for it in items:
        if "=" not in it:
            raise RekeyError(f"--param {it!r}: expected NAME=HEX", "key")
        name, val = it.split("=", 1)
        if name not in build.ports:
            raise RekeyError(f"--param {name}: not a parameter of this build "
                             f"(parameters: {', '.join(sorted(build.ports))})", "key")
        try:
            out[name] = parse_hex_value(val, name, build.ports[name])
        except PpcError as e:
            raise RekeyError(str(e), "key") from None
    missing = sorted(set(build.ports) - set(out))
    if missing:
        raise RekeyError(f"missing --param for {', '.join(missing)}", "key")
    return out


def param_layout(ppc) -> list[tuple[str, int, int]]:
    """Parameter vector layout of the firmware: ``(port, offset, width)`` in order of first
    appearance among the PPC inputs; the vector is the ports concatenated, port 0 at bit 0."""
    out, off = [], 0
    seen = []
    for n in ppc.inputs:
        p = n.split("[")[0] if n.endswith("]") else n
        if p not in seen:
            seen.append(p)
    for p in seen:
        out.append((p, off, ppc.ports[p]))
        off += ppc.ports[p]
    return out


def parameter_vector(ppc, assignment: dict) -> int:
    """The firmware's parameter vector (see :func:`param_layout`) of an assignment."""
    v = 0
    for p, off, w in param_layout(ppc):
        v |= (assignment[p] & ((1 << w) - 1)) << off
    return v


# ---------------------------------------------------------------------------------- patches
@dataclass
class RekeyPlan:
    """New contents of the touched frames: ``frames`` FAR -> 101 words; ``runs`` as in ScgBuild."""

    frames: dict
    runs: list


def plan_many(build: ScgBuild, assignments: list[dict]) -> list[RekeyPlan]:
    """Evaluate the PPC for several assignments at once (bit-parallel) and patch the template's
    touched frames for each. Raises scg.ppc.PpcError for a bad assignment."""
    bits = build.ppc.evaluate_many(assignments)
    tpl = build.template
    plans = []
    for b in bits:
        frames = {far: tpl.frame(far) for far in build.fars}
        for far, word, bit, j in build.entries:
            fr = frames[far]
            fr[word] = (fr[word] & ~(1 << bit) & 0xFFFFFFFF) | (b[j] << bit)
        for far, fr in frames.items():
            old = tpl.frame(far)
            e = 0
            for k in range(FRAME_WORDS):
                if fr[k] != old[k]:
                    e ^= word_ecc(k, fr[k] ^ old[k])
            fr[ECC_WORD] = (fr[ECC_WORD] & ~ECC_MASK & 0xFFFFFFFF) | ((old[ECC_WORD] ^ finish_ecc(e)) & ECC_MASK)
        plans.append(RekeyPlan(frames, build.runs))
    return plans


def plan(build: ScgBuild, assignment: dict) -> RekeyPlan:
    """:func:`plan_many` for one assignment."""
    return plan_many(build, [assignment])[0]


def frames_hash(frames: dict, device: Device) -> str:
    """FNV-1a 64-bit hash (hex) over the frames in FDRI order, words little-endian: the value the
    firmware's host-test and qemu-test print (``scg_frames_hash`` in firmware/scg_runtime.c)."""
    h = 0xCBF29CE484222325
    for far in sorted(frames, key=device.far_index.__getitem__):
        for w in frames[far]:
            for k in range(4):
                h ^= (w >> (8 * k)) & 0xFF
                h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


# ---------------------------------------------------------------------------------- HWICAP driver
DUMMY, SYNC, NOOP = 0xFFFFFFFF, 0xAA995566, 0x20000000
WFV, WF, CR, RFO, RF, SZ, SR = 0x114, 0x100, 0x10C, 0x118, 0x104, 0x108, 0x110
CR_WRITE, CR_READ, CR_FIFO_CLEAR, CR_SW_RESET, CR_ABORT = 1, 2, 4, 8, 16
SR_DALIGN, SR_CFGERR_N = 1 << 7, 1 << 8


def _t1w(reg, n):
    return (1 << 29) | (2 << 27) | (reg << 13) | n


def _t1r(reg, n):
    return (1 << 29) | (1 << 27) | (reg << 13) | n


class HwicapSession:
    """Register-level AXI HWICAP driver; the same access sequence as ``firmware/hwicap.c``.

    Args:
        bus: object with ``read(offset) -> int`` and ``write(offset, value)`` (32-bit registers).
        idcode: expected device IDCODE; timeout: maximum polls per wait.
    Attributes:
        icap_words_in / icap_words_out / reg_accesses: counters.
    Errors are raised as ``_HwError(code)`` internally and turned into :class:`RekeyError` by
    :func:`rekey`.
    """

    def __init__(self, bus, idcode: int, timeout: int = 1000):
        self.bus = bus
        self.idcode = idcode
        self.timeout = timeout
        self.icap_words_in = self.icap_words_out = self.reg_accesses = 0

    def _rd(self, off):
        self.reg_accesses += 1
        return self.bus.read(off)

    def _wr(self, off, v):
        self.reg_accesses += 1
        self.bus.write(off, v)

    def write_words(self, words) -> None:
        """Fill the write FIFO up to its vacancy, start Write, poll CR; repeat."""
        i, n = 0, len(words)
        while i < n:
            vac = 0
            for _ in range(self.timeout):
                vac = self._rd(WFV)
                if vac:
                    break
            if not vac:
                raise _HwError("timeout", "AXI HWICAP write FIFO has no vacancy (timeout)")
            k = min(vac, n - i)
            for w in words[i:i + k]:
                self._wr(WF, w)
            i += k
            self._wr(CR, CR_WRITE)
            for _ in range(self.timeout):
                if not self._rd(CR) & CR_WRITE:
                    break
            else:
                raise _HwError("timeout", "AXI HWICAP write did not complete (timeout)")
            self.icap_words_in += k

    def read_words(self, n: int) -> list[int]:
        """SZ, CR Read, then RFO polls and RF reads until ``n`` words arrived."""
        self._wr(SZ, n)
        self._wr(CR, CR_READ)
        out: list[int] = []
        idle = 0
        while len(out) < n:
            occ = self._rd(RFO)
            if not occ:
                idle += 1
                if idle >= self.timeout:
                    raise _HwError("timeout", f"AXI HWICAP read stalled after {len(out)} of {n} words")
                continue
            idle = 0
            for _ in range(min(occ, n - len(out))):
                out.append(self._rd(RF))
        self.icap_words_out += n
        return out

    def _desync(self):
        self.write_words([_t1w(4, 1), 13, NOOP, NOOP])

    def recover(self) -> None:
        """CR Abort, SW reset, FIFO clear, then DESYNC."""
        self._wr(CR, CR_ABORT)
        self._wr(CR, CR_SW_RESET)
        self._wr(CR, CR_FIFO_CLEAR)
        self._desync()

    def read_idcode(self) -> int:
        """The device's IDCODE register, read through the ICAP."""
        self.write_words([DUMMY, SYNC, NOOP, NOOP, _t1r(12, 1), NOOP, NOOP])
        v = self.read_words(1)[0]
        self._desync()
        return v

    def init(self, devcfg=None) -> None:
        """PCAP->ICAP switch (devcfg CTRL bit 27 cleared, if ``devcfg`` given), SW reset, FIFO clear,
        IDCODE check (bits [27:0])."""
        if devcfg is not None:
            clear_pcap_pr(devcfg)
        self._wr(CR, CR_SW_RESET)
        self._wr(CR, CR_FIFO_CLEAR)
        got = self.read_idcode()
        if (got ^ self.idcode) & 0x0FFFFFFF:
            raise _HwError("idcode", f"device IDCODE 0x{got:08X} differs from the template's 0x{self.idcode:08X}")

    def read_frames(self, far: int, count: int) -> list[list[int]]:
        """Read ``count`` frames from ``far`` (dummy frame dropped)."""
        n = (count + 1) * FRAME_WORDS
        self.write_words([DUMMY, 0xBB, 0x11220044, DUMMY, SYNC, NOOP, _t1w(4, 1), 7, *[NOOP] * 6,
                          _t1w(4, 1), 4, NOOP, _t1w(1, 1), far, _t1r(3, 0), (2 << 29) | (1 << 27) | n])
        self.write_words([NOOP] * 32)
        self.read_words(FRAME_WORDS)
        data = self.read_words(count * FRAME_WORDS)
        self._desync()
        return [data[k * FRAME_WORDS:(k + 1) * FRAME_WORDS] for k in range(count)]

    def write_frames(self, far: int, frames: list[list[int]]) -> None:
        """Write consecutive frames from ``far`` (one row) followed by a pad frame; check SR."""
        head, tail = frame_write_sequence(self.idcode, far, len(frames))
        self.write_words(head)
        self.write_words([w for fr in frames for w in fr])
        self.write_words([0] * FRAME_WORDS)
        sr = self._rd(SR)
        if not sr & SR_CFGERR_N:
            raise _HwError("config", "configuration logic reported an error (CFGERR_N low)")
        if not sr & SR_DALIGN:
            raise _HwError("sync", "ICAP lost synchronisation during the frame write (abort)")
        self.write_words(tail)


def frame_write_sequence(idcode: int, far: int, count: int) -> tuple[list[int], list[int]]:
    """ICAP words the SCG driver sends around ``count`` consecutive frames written from ``far``
    (FACTS.md "Write frame(s)", UG470 type-1/type-2 packets): (header, trailer). The header is dummy,
    sync, 2 NOOP, CMD RCRC, 2 NOOP, IDCODE, FAR, CMD WCFG, NOOP, FDRI type-1 (count 0) + type-2 with
    (count + 1) frames; then come the frames and one zero pad frame; the trailer is CMD RCRC, 2 NOOP,
    FAR parked at PARK_FAR, CMD DESYNC, 2 NOOP. The C firmware (firmware/scg_runtime.c) sends the same."""
    head = [DUMMY, SYNC, NOOP, NOOP, _t1w(4, 1), 7, NOOP, NOOP, _t1w(12, 1), idcode,
            _t1w(1, 1), far, _t1w(4, 1), 1, NOOP, _t1w(2, 0),
            (2 << 29) | (2 << 27) | ((count + 1) * FRAME_WORDS)]
    tail = [_t1w(4, 1), 7, NOOP, NOOP, _t1w(1, 1), PARK_FAR, _t1w(4, 1), 13, NOOP, NOOP]
    return head, tail


def rekey_icap_words(runs: list[list[int]], idcode: int = 0) -> int:
    """ICAP words written per rekey (no read-back) by :func:`apply_hwicap` for the frame ``runs``
    (lists of consecutive FARs, :func:`scg.bitstream.frame_runs`): per run the
    :func:`frame_write_sequence` plus the frames and one pad frame."""
    total = 0
    for run in runs:
        head, tail = frame_write_sequence(idcode, run[0] if run else 0, len(run))
        total += len(head) + (len(run) + 1) * FRAME_WORDS + len(tail)
    return total


# ---------------------------------------------------------------------------------- transports
class DevMemBus:
    """AXI HWICAP registers through ``/dev/mem`` (or a UIO device) mapped with mmap.

    Args:
        base: physical base address of the AXI HWICAP (e.g. 0x40020000 on PYNQ overlays);
        path: ``/dev/mem`` or ``/dev/uioN`` (then ``base`` is the map offset, normally 0).
    Raises:
        RekeyError: the device cannot be opened or mapped.
    """

    SIZE = 0x1000

    def __init__(self, base: int, path: str = "/dev/mem"):
        try:
            fd = os.open(path, os.O_RDWR | os.O_SYNC)
        except OSError as e:
            raise RekeyError(f"cannot open {path}: {e.strerror}", "arg") from None
        try:
            self._mm = mmap.mmap(fd, self.SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                                 offset=base)
        except (OSError, ValueError) as e:
            raise RekeyError(f"cannot map {path} at 0x{base:X}: {e}", "arg") from None
        finally:
            os.close(fd)

    def read(self, off: int) -> int:
        """32-bit register read."""
        return int.from_bytes(self._mm[off:off + 4], "little")

    def write(self, off: int, value: int) -> None:
        """32-bit register write."""
        self._mm[off:off + 4] = value.to_bytes(4, "little")


@dataclass
class RekeyResult:
    """Outcome of :func:`rekey`: counts for the report (``--json``)."""

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

    def as_dict(self) -> dict:
        """JSON-ready dict."""
        return {"target": self.target, "frames": self.frames, "runs": self.runs, "icap_words": self.icap_words,
                "register_accesses": self.reg_accesses, "readback_words": self.readback_words,
                "seconds": round(self.seconds, 6), "frames_hash": self.frames_hash, "verified": self.verified,
                **self.extra}


def apply_hwicap(session: HwicapSession, build: ScgBuild, new: dict, previous: dict,
                 verify: bool = False) -> None:
    """Write ``new`` (FAR -> words) run by run; optional read-back compare; on any failure recover
    the core, write ``previous`` back (and compare it when ``verify``) and raise RekeyError
    (code ``write``/``verify``, or ``rollback`` if restoring failed too; ``hw_code`` in the message)."""
    def write_all(frames):
        for run in build.runs:
            session.write_frames(run[0], [frames[f] for f in run])

    def check(frames):
        for run in build.runs:
            got = session.read_frames(run[0], len(run))
            if any(g != frames[f] for g, f in zip(got, run)):
                raise _HwError("verify", f"read-back of run at FAR 0x{run[0]:08X} differs")

    try:
        write_all(new)
        if verify:
            check(new)
    except _HwError as e:
        code = "verify" if e.code == "verify" else "write"
        try:
            session.recover()
            write_all(previous)
            if verify:
                check(previous)
        except _HwError as e2:
            raise RekeyError(f"rekey failed ({e}); rollback failed too ({e2}): device state unknown",
                             "rollback") from None
        raise RekeyError(f"rekey failed ({e} [{e.code}]); previous frames restored", code,
                         rolled_back=True) from None


def specialized_stream(build: ScgBuild, p: RekeyPlan, full: bool = False):
    """Configuration words (UG470) of the specialized configuration ``p``.

    ``full=False``: partial bitstream of the touched frames only (:func:`scg.bitstream.partial_stream_words`:
    sync, RCRC, IDCODE, per run FAR + WCFG + FDRI with the frames and one pad frame, CRC, DESYNC).
    ``full=True``: the whole template with the touched frames replaced
    (:func:`scg.bitstream.full_stream_words`, Vivado's packet order).
    """
    if full:
        mem = build.template.copy()
        for far, fr in p.frames.items():
            mem.set_frame(far, fr)
        return full_stream_words(mem)
    mem = FrameMemory(build.device)
    for far, fr in p.frames.items():
        mem.set_frame(far, fr)
    return partial_stream_words(mem, build.fars, crc=True)


def words_to_le_bytes(words) -> bytes:
    """32-bit words -> little-endian bytes (the byte order the Linux zynq FPGA manager expects)."""
    a = array.array("I", words)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


#: Zynq-7000 devcfg registers (UG585, appendix B.16 "Device Configuration Interface (devcfg)").
DEVCFG_BASE = 0xF8007000
DEVCFG_CTRL_PCAP_PR = 1 << 27


def clear_pcap_pr(devcfg) -> int:
    """Select the ICAP for partial reconfiguration: clear devcfg CTRL bit 27 (PCAP_PR, UG585).

    The Linux zynq FPGA manager (used by ``fpgamgr`` and by PYNQ) sets PCAP_PR = 1 (PCAP) on every
    load; while it is set, AXI HWICAP writes do not reach the configuration memory. ``devcfg``: bus
    with ``read(offset)``/``write(offset, value)`` at :data:`DEVCFG_BASE`. Returns the old CTRL value.
    """
    ctrl = devcfg.read(0)
    if ctrl & DEVCFG_CTRL_PCAP_PR:
        devcfg.write(0, ctrl & ~DEVCFG_CTRL_PCAP_PR & 0xFFFFFFFF)
    return ctrl


class FpgaManager:
    """PCAP transport through the Linux FPGA manager, as PYNQ loads partial bitstreams.

    ``load_partial(name, data)`` writes ``data`` (a raw ``.bin`` with little-endian words: the
    zynq FPGA manager looks for the sync word as bytes 66 55 99 AA) to ``firmware_dir/name`` (mode
    0600: it holds key material), writes ``1`` (FPGA_MGR_PARTIAL_RECONFIG) to ``sysfs/flags``, then
    ``name`` to ``sysfs/firmware``, which loads it; the file is removed afterwards unless ``keep``.
    No logic in the PL is needed. The driver leaves devcfg PCAP_PR set: a later AXI HWICAP rekey
    (``devmem:``) clears it first (:func:`clear_pcap_pr`).

    Args:
        sysfs: the FPGA manager's sysfs folder; firmware_dir: the kernel's firmware search folder.
    Raises (from load_partial):
        RekeyError: the folders are missing or not writable (code ``write``).
    """

    def __init__(self, sysfs: str = "/sys/class/fpga_manager/fpga0", firmware_dir: str = "/lib/firmware",
                 keep: bool = False):
        self.sysfs = Path(sysfs)
        self.firmware_dir = Path(firmware_dir)
        self.keep = keep

    def load_partial(self, name: str, data: bytes) -> None:
        """Load a partial bitstream (see the class docstring)."""
        if "/" in name or not name:
            raise RekeyError(f"fpgamgr: firmware name {name!r} must be a plain file name", "arg")
        if not (self.sysfs / "firmware").exists():
            raise RekeyError(f"fpgamgr: {self.sysfs}/firmware missing (no Linux FPGA manager?)", "arg")
        fw = self.firmware_dir / name
        try:
            _write_private(fw, data)
            (self.sysfs / "flags").write_text("1\n")
            (self.sysfs / "firmware").write_text(name + "\n")
        except OSError as e:
            raise RekeyError(f"fpgamgr: {e.strerror or e} ({e.filename})", "write") from None
        finally:
            if not self.keep:
                try:
                    fw.unlink()
                except FileNotFoundError:
                    pass


def make_emulator(build: ScgBuild, device: str | None = None):
    """An :class:`scg.hwicap.AxiHwicap` whose configuration memory holds the template."""
    from .emulator import ConfigEmulator
    from .hwicap import AxiHwicap

    dev = get_device(device) if device else build.device
    mem = build.template if dev.name == build.device.name else FrameMemory(dev)
    return AxiHwicap(ConfigEmulator(dev, mem.copy()))


def rekey(build: ScgBuild, assignment: dict, target: str = "emulator", *, verify: bool = False,
          hwicap=None, previous: dict | None = None, timeout: int = 1000, fpga_manager=None) -> RekeyResult:
    """Rekey ``build`` for ``assignment`` through ``target``.

    Args:
        target: ``emulator`` (``hwicap`` or a new model holding the template), ``bitfile:PATH``
            (``.bit``/``.bin``, mode 0600: the full specialized bitstream after ``dcsflow import``
            of a Vivado bitstream, else the partial one), ``partial:PATH`` (partial bitstream of the
            touched frames), ``devmem:BASE`` (AXI HWICAP through ``/dev/mem``, devcfg PCAP_PR
            cleared first) or ``devmem:BASE@/dev/uioN``, ``fpgamgr[:NAME.bin]`` (PCAP through the
            Linux FPGA manager, :class:`FpgaManager`; ``fpga_manager`` overrides its folders).
        verify: read the frames back and compare. previous: the frames now in the device (FAR ->
            words; default: the template's) used for rollback.
    Returns:
        :class:`RekeyResult`.
    Raises:
        RekeyError: bad target, IDCODE mismatch (``idcode``), write/verify failure (rolled back).
    """
    t0 = time.perf_counter()
    p = plan(build, assignment)
    prev = previous if previous is not None else {f: build.template.frame(f) for f in build.fars}
    h = frames_hash(p.frames, build.device)
    if target.startswith(("bitfile:", "partial:")):
        kind, _, name = target.partition(":")
        path = Path(name)
        if path.suffix not in (".bit", ".bin"):
            raise RekeyError(f"{kind} target {path}: use a .bit or .bin file name", "arg")
        full = kind == "bitfile" and build.imported
        words = specialized_stream(build, p, full=full)
        data = words_to_bytes(words)
        if path.suffix == ".bit":
            data = to_bit(data, design=f"dcsflow;hash={build.design_hash[:16]};{'full' if full else 'partial'}",
                          part=header_part(build.device))
        _write_private(path, data)
        return RekeyResult(target, len(build.fars), len(build.runs), len(words), 0, 0,
                           time.perf_counter() - t0, h, False,
                           {"file": str(path), "bytes": len(data), "bitstream": "full" if full else "partial"})
    if target == "fpgamgr" or target.startswith("fpgamgr:"):
        fm = fpga_manager if fpga_manager is not None else FpgaManager()
        name = target.partition(":")[2] or f"dcsflow_{build.design_hash[:12]}_partial.bin"
        data = words_to_le_bytes(specialized_stream(build, p, full=False))
        fm.load_partial(name, data)
        return RekeyResult(target, len(build.fars), len(build.runs), len(data) // 4, 0, 0,
                           time.perf_counter() - t0, h, False,
                           {"firmware": name, "bytes": len(data), "bitstream": "partial", "transport": "pcap"})
    if target == "emulator":
        hw = hwicap if hwicap is not None else make_emulator(build)
        devcfg = None
    elif target.startswith("devmem:"):
        spec = target[len("devmem:"):]
        base_s, _, dev_path = spec.partition("@")
        try:
            base = int(base_s, 0)
        except ValueError:
            raise RekeyError(f"devmem target: bad base address {base_s!r}", "arg") from None
        hw = DevMemBus(base, dev_path or "/dev/mem")
        devcfg = DevMemBus(DEVCFG_BASE) if not dev_path else None
    else:
        raise RekeyError(f"unknown target {target!r} (emulator, bitfile:PATH, partial:PATH, devmem:BASE, "
                         "fpgamgr[:NAME])", "arg")
    s = HwicapSession(hw, build.idcode, timeout)
    try:
        s.init(devcfg)
    except _HwError as e:
        raise RekeyError(f"refusing to rekey: {e}", e.code) from None
    s.icap_words_in = s.icap_words_out = s.reg_accesses = 0  # count the rekey only (as the firmware)
    apply_hwicap(s, build, p.frames, prev, verify)
    return RekeyResult(target, len(build.fars), len(build.runs), s.icap_words_in, s.reg_accesses,
                       s.icap_words_out, time.perf_counter() - t0, h, verify)


def _write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
