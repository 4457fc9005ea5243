"""7-series bitstream reader/writer (Xilinx UG470) and the frame memory with its LUT INIT API.

Reading: :func:`parse` takes the bytes of a ``.bit`` file (header + configuration stream) or a raw
``.bin`` stream and returns a :class:`Bitstream`: header fields, the register writes, the CRC checks
and a :class:`FrameMemory` holding every frame the FDRI bursts wrote. Every problem with the input
raises :class:`dcsflow.scg.errors.BitstreamError` (one line, ``user_error = True``) — no other exception
type escapes :func:`parse` for any input bytes (fuzz-tested).

Frame write semantics (shared with :mod:`dcsflow.scg.emulator`; UG470 "frame data input", Project X-Ray's
``Configuration::InitWithPackets``): FDRI words are cut into 101-word frames. A completed frame is
held in the frame buffer and written to the FAR only when the *next* frame completes, so the last
frame of a burst is a pad frame that is never written. After a write the FAR auto-increments in
:attr:`Device.frame_addresses` order; when the increment leaves a configuration row, the next 2
completed frames are discarded (the 2 pad frames Vivado puts between rows). A FAR write, any CMD write
and DESYNC drop the held frame and the pad count. Frames written to an address that is not a frame
of the device are dropped.

Writing: :func:`write_full` (a complete bitstream in Vivado's packet order) and
:func:`write_partial` (sync, RCRC, IDCODE, per run of frames FAR + WCFG + FDRI with one pad frame,
optional CRC check, FAR parked, DESYNC), each as a raw stream; :func:`to_bit` adds a ``.bit`` header.
"""

from __future__ import annotations

import array
import bisect
import os
import re
import struct
import sys
from dataclasses import dataclass, field

from .device import (DEFAULT_PART, DEVICE_FACTS, ECC_MASK, ECC_WORD, FRAME_WORDS, Device, decode_far,
                     device_for_idcode, finish_ecc, frame_ecc, get_device, normalize_part, word_ecc)
from .errors import BitstreamError, DeviceError

# ---- UG470 constants ---------------------------------------------------------------------------
SYNC_WORD = 0xAA995566
NOOP = 0x20000000
DUMMY = 0xFFFFFFFF
BUS_WIDTH_SYNC = 0x000000BB
BUS_WIDTH_DETECT = 0x11220044
BIT_MAGIC = bytes.fromhex("00090FF00FF00FF00FF0000001")

#: Configuration registers (UG470 Table 5-23; FACTS.md). Register 19 is written by Vivado but unnamed.
REGISTERS = {"CRC": 0, "FAR": 1, "FDRI": 2, "FDRO": 3, "CMD": 4, "CTL0": 5, "MASK": 6, "STAT": 7,
             "LOUT": 8, "COR0": 9, "MFWR": 10, "CBC": 11, "IDCODE": 12, "AXSS": 13, "COR1": 14,
             "WBSTAR": 16, "TIMER": 17, "R19": 19, "BOOTSTS": 22, "CTL1": 24, "BSPI": 31}
REG_NAMES = {v: k for k, v in REGISTERS.items()}
R_CRC, R_FAR, R_FDRI, R_FDRO, R_CMD, R_CTL0, R_MASK, R_STAT = 0, 1, 2, 3, 4, 5, 6, 7
R_COR0, R_IDCODE, R_COR1, R_CTL1 = 9, 12, 14, 24

#: CMD register codes (UG470 Table 5-25; FACTS.md).
COMMANDS = {"NULL": 0, "WCFG": 1, "MFW": 2, "LFRM": 3, "RCFG": 4, "START": 5, "RCAP": 6, "RCRC": 7,
            "AGHIGH": 8, "SWITCH": 9, "GRESTORE": 10, "SHUTDOWN": 11, "GCAPTURE": 12, "DESYNC": 13,
            "IPROG": 15, "CRCC": 16, "LTIMER": 17}
CMD_NAMES = {v: k for k, v in COMMANDS.items()}
CMD_WCFG, CMD_RCFG, CMD_RCRC, CMD_DESYNC = 1, 4, 7, 13

OP_NOP, OP_READ, OP_WRITE = 0, 1, 2
#: FAR value written at the end of a partial bitstream to park the address away from real frames
#: (the value Vivado writes at the end of pynq-z1_base.bit; block 7 does not exist).
PARK_FAR = 0x03BE0000


def type1(opcode: int, reg: int, count: int) -> int:
    """Type-1 packet header (UG470 Table 5-20): [31:29]=001, [28:27] opcode, [26:13] register, [10:0] count."""
    if not 0 <= count < (1 << 11):
        raise ValueError("type-1 word count must be < 2048")
    return (1 << 29) | (opcode << 27) | (reg << 13) | count


def type2(opcode: int, count: int) -> int:
    """Type-2 packet header (UG470 Table 5-22): [31:29]=010, [28:27] opcode, [26:0] word count."""
    if not 0 <= count < (1 << 27):
        raise ValueError("type-2 word count must be < 2**27")
    return (2 << 29) | (opcode << 27) | count


# ---- 7-series configuration CRC ----------------------------------------------------------------
_CRC32C_REFLECTED = 0x82F63B78


def _crc_bits(crc: int, val: int, nbits: int) -> int:
    poly = _CRC32C_REFLECTED << 1
    for _ in range(nbits):
        if (val ^ crc) & 1:
            crc ^= poly
        val >>= 1
        crc >>= 1
    return crc


def _build_crc_tables():
    # The update crc' = step37(crc, reg<<32 | word) is linear, so
    # crc' = F(crc ^ word) ^ G(reg) with F linear on 32 bits: F(x) = LO[x & 0xFFFF] ^ HI[x >> 16].
    basis = [_crc_bits(0, 1 << k, 37) for k in range(32)]

    def table(bits):
        t = [0]
        for b in bits:
            t = t + [v ^ b for v in t]
        return t

    lo = table(basis[:16])
    hi = table(basis[16:])
    g = [_crc_bits(0, r << 32, 37) for r in range(32)]
    return lo, hi, g


_CRC_LO, _CRC_HI, _CRC_G = _build_crc_tables()


def crc_update(crc: int, reg: int, word: int) -> int:
    """One step of the 7-series configuration CRC: the register write ``(reg, word)`` into ``crc``.

    The CRC is CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) over 37 bits per write:
    the 32 data bits then the 5-bit register address, LSB first (UG470 "CRC"; Project X-Ray
    ``icap_crc``). Every register write except writes to CRC itself is included; CMD RCRC resets it
    to 0 and a CRC check resets it after comparing (verified on pynq-z1_base.bit, both checks).
    """
    x = crc ^ word
    return _CRC_LO[x & 0xFFFF] ^ _CRC_HI[x >> 16] ^ _CRC_G[reg & 0x1F]


def _apply_basis(basis: list[int], x: int) -> int:
    r = 0
    k = 0
    while x:
        if x & 1:
            r ^= basis[k]
        x >>= 1
        k += 1
    return r


def _invert(basis: list[int]) -> list[int]:
    """Inverse of an invertible 32x32 GF(2) matrix given by the images of the unit vectors."""
    piv: dict[int, tuple[int, int]] = {}
    for k in range(32):
        img, pre = basis[k], 1 << k
        for bit in range(31, -1, -1):
            if not (img >> bit) & 1:
                continue
            if bit in piv:
                img ^= piv[bit][0]
                pre ^= piv[bit][1]
            else:
                piv[bit] = (img, pre)
                break
    for bit in sorted(piv):
        img, pre = piv[bit]
        for b2 in range(bit):
            if (img >> b2) & 1:
                img ^= piv[b2][0]
                pre ^= piv[b2][1]
        piv[bit] = (img, pre)
    return [piv[k][1] for k in range(32)]


_F_BASIS = [_CRC_LO[1 << k] if k < 16 else _CRC_HI[1 << (k - 16)] for k in range(32)]
_F_INV = _invert(_F_BASIS)
_LITTLE = sys.byteorder == "little"
_LEVELS: list[tuple[list[int], list[list[bytes]]]] = []


def _plane_tables(basis: list[int]) -> list[list[bytes]]:
    # tabs[p][j] maps byte plane p of the input words (native byte order) to byte plane j of the output
    tabs = []
    for p in range(4):
        sh = 8 * p if _LITTLE else 8 * (3 - p)
        vals = [0]
        for b in range(8):
            im = basis[sh + b]
            vals = vals + [v ^ im for v in vals]
        row = []
        for j in range(4):
            shj = 8 * j if _LITTLE else 8 * (3 - j)
            row.append(bytes((v >> shj) & 0xFF for v in vals))
        tabs.append(row)
    return tabs


def _level_tables(level: int) -> list[list[bytes]]:
    while len(_LEVELS) <= level:
        m = _F_BASIS if not _LEVELS else [_apply_basis(_LEVELS[-1][0], v) for v in _LEVELS[-1][0]]
        _LEVELS.append((m, _plane_tables(m)))
    return _LEVELS[level][1]


def _xor_bytes(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


def _crc_words_tree(crc: int, reg: int, words) -> int:
    """Same result as the word loop of :func:`crc_words`, computed with C-speed byte operations.

    With F the linear 37-bit CRC step and g = F^-1(G[reg]): crc_N = F(v) where v folds the words
    w'_k = w_k ^ g (w'_1 also ^ crc) pairwise, v = F^(2^level)(left) ^ right, level by level over a
    zero-padded power-of-two array; each F^(2^level) is applied to all words at once by 16 byte
    translations. Checked against the word loop in the tests.
    """
    n = len(words)
    arr = _new_words()
    if isinstance(words, memoryview):
        arr.frombytes(words.cast("B"))
    elif isinstance(words, array.array):
        arr.frombytes(words.tobytes())
    else:
        arr.extend(words)
    arr[0] ^= crc
    g = _CRC_G[reg & 0x1F]
    if g:
        pat = _new_words()
        pat.append(_apply_basis(_F_INV, g))
        arr2 = _new_words()
        arr2.frombytes(_xor_bytes(arr.tobytes(), pat.tobytes() * n))
        arr = arr2
    size = 1
    while size < n:
        size *= 2
    if size > n:
        pad = _new_words(size - n)
        pad.extend(arr)
        arr = pad
    level = 0
    while len(arr) > 1:
        m = len(arr) // 2
        left = arr[0::2].tobytes()
        tabs = _level_tables(level)
        planes = [left[p::4] for p in range(4)]
        out = bytearray(4 * m)
        for j in range(4):
            acc = 0
            for p in range(4):
                acc ^= int.from_bytes(planes[p].translate(tabs[p][j]), "little")
            out[j::4] = acc.to_bytes(m, "little")
        nxt = _new_words()
        nxt.frombytes(_xor_bytes(bytes(out), arr[1::2].tobytes()))
        arr = nxt
        level += 1
    x = arr[0]
    return _CRC_LO[x & 0xFFFF] ^ _CRC_HI[x >> 16]


#: words per piece of :func:`crc_words`'s table-and-bytes method: a long write (a flood of frame
#: data) is taken in pieces of 1 MiB, so that the method's working arrays stay a few MiB, not a few
#: times the data
CRC_PIECE_WORDS = 1 << 18


def crc_words(crc: int, reg: int, words) -> int:
    """Apply :func:`crc_update` for every word of ``words`` (a list, ``array('I')`` or a ``memoryview``
    of one, e.g. a slice of a stream that is not copied) written to ``reg``; returns the new CRC.

    Long sequences (>= 4096 words) use a table-and-bytes method (:func:`_crc_words_tree`) on pieces of
    :data:`CRC_PIECE_WORDS` words (memory: a few MiB beyond ``words``, whatever its length); short
    ones a word loop.
    """
    n = len(words)
    if n > CRC_PIECE_WORDS:
        for i in range(0, n, CRC_PIECE_WORDS):
            crc = crc_words(crc, reg, words[i:i + CRC_PIECE_WORDS])
        return crc
    if n >= 4096:
        return _crc_words_tree(crc, reg, words)
    lo, hi = _CRC_LO, _CRC_HI
    g = _CRC_G[reg & 0x1F]
    if g == 0:
        for w in words:
            x = crc ^ w
            crc = lo[x & 0xFFFF] ^ hi[x >> 16]
    else:
        for w in words:
            x = crc ^ w
            crc = lo[x & 0xFFFF] ^ hi[x >> 16] ^ g
    return crc


# ---- word helpers ------------------------------------------------------------------------------
def _new_words(n: int = 0) -> array.array:
    a = array.array("I", bytes(4 * n)) if n else array.array("I")
    if a.itemsize != 4:  # pragma: no cover - platforms with a 2-byte int
        a = array.array("L", bytes(4 * n)) if n else array.array("L")
    return a


def words_from_bytes(data: bytes) -> array.array:
    """Big-endian bytes (length a multiple of 4) -> array of 32-bit words."""
    a = _new_words()
    a.frombytes(data)
    if sys.byteorder == "little":
        a.byteswap()
    return a


def words_to_bytes(words) -> bytes:
    """Array/list of 32-bit words -> big-endian bytes."""
    a = _new_words()
    a.extend(words) if not isinstance(words, array.array) else a.frombytes(words.tobytes())
    if sys.byteorder == "little":
        a.byteswap()
    return a.tobytes()


# ---- frame memory ------------------------------------------------------------------------------
class FrameMemory:
    """The configuration memory of a device: ``device.n_frames`` frames of 101 words, indexed by FAR.

    Storage is one flat ``array('I')`` (frame ``k`` = words ``k*101 .. k*101+100``, ``k`` the FDRI
    order index of :attr:`Device.far_index`) and a per-frame ``written`` flag (set when a bitstream
    or :meth:`set_frame` wrote the frame). All methods take FARs, not indices.
    """

    def __init__(self, device: Device | str | None = None, words: array.array | None = None):
        self.device = device if isinstance(device, Device) else get_device(device or DEFAULT_PART)
        n = self.device.n_frames * FRAME_WORDS
        if words is not None and len(words) != n:
            raise ValueError(f"frame memory of {self.device.name} needs {n} words, got {len(words)}")
        self._words = words
        self.written = bytearray(self.device.n_frames)

    @property
    def words(self) -> array.array:
        """The flat word array (allocated, zero-filled, on first use: 4 MB for xc7z020)."""
        if self._words is None:
            self._words = _new_words(self.device.n_frames * FRAME_WORDS)
        return self._words

    @words.setter
    def words(self, value: array.array) -> None:
        self._words = value

    def copy(self) -> "FrameMemory":
        """An independent copy (words and written flags)."""
        m = FrameMemory(self.device, array.array(self.words.typecode, self.words))
        m.written[:] = self.written
        return m

    def _base(self, far: int) -> int:
        try:
            return self.device.far_index[far] * FRAME_WORDS
        except KeyError:
            raise DeviceError(f"FAR 0x{far:08X} is not a frame of {self.device.name}") from None

    def frame(self, far: int) -> list[int]:
        """The 101 words of frame ``far`` (a copy). Raises DeviceError for an invalid FAR."""
        b = self._base(far)
        return self.words[b:b + FRAME_WORDS].tolist()

    def set_frame(self, far: int, words) -> None:
        """Overwrite frame ``far`` with 101 words and mark it written. Raises DeviceError / ValueError."""
        if len(words) != FRAME_WORDS:
            raise ValueError(f"a frame has {FRAME_WORDS} words, got {len(words)}")
        b = self._base(far)
        self.words[b:b + FRAME_WORDS] = array.array(self.words.typecode, words)
        self.written[b // FRAME_WORDS] = 1

    def written_fars(self) -> list[int]:
        """FARs of the frames marked written, in FDRI order."""
        fa = self.device.frame_addresses
        return [fa[i] for i, w in enumerate(self.written) if w]

    def nonzero_fars(self) -> list[int]:
        """FARs of the frames that hold at least one set bit, in FDRI order."""
        w, fa = self.words, self.device.frame_addresses
        zero = bytes(4 * FRAME_WORDS)
        raw = w.tobytes()
        return [fa[i] for i in range(len(fa)) if raw[i * 4 * FRAME_WORDS:(i + 1) * 4 * FRAME_WORDS] != zero]

    # ---- bits and LUTs ----
    def get_bit(self, far: int, word: int, bit: int) -> int:
        """Value 0/1 of one configuration bit."""
        return (self.words[self._base(far) + word] >> bit) & 1

    def set_bit(self, far: int, word: int, bit: int, value: int) -> None:
        """Set one configuration bit (does not touch the ECC; see :meth:`set_lut`)."""
        i = self._base(far) + word
        if value:
            self.words[i] |= 1 << bit
        else:
            self.words[i] &= ~(1 << bit) & 0xFFFFFFFF

    def get_lut(self, site: str, bel: str) -> int:
        """The 64-bit INIT of LUT ``bel`` (A6LUT..D6LUT) at ``site`` (bit i = INIT[i]). Raises DeviceError."""
        v = 0
        w = self.words
        for i, (far, word, bit) in enumerate(self.device.lut_bits(site, bel)):
            v |= ((w[self._base(far) + word] >> bit) & 1) << i
        return v

    def set_lut(self, site: str, bel: str, init: int, update_ecc: bool = True) -> list[int]:
        """Write the 64-bit INIT of a LUT; returns the FARs of the frames whose content changed.

        Args:
            init: 0 <= init < 2**64, bit i = INIT[i].
            update_ecc: also update the frame ECC (word 50 bits [12:0]) of every changed frame by
                the ECC of the change (linear code, :func:`dcsflow.scg.device.frame_ecc`), as Vivado and
                Project X-Ray keep it. With False only the 64 INIT bits change.
        Raises:
            DeviceError: unknown site/BEL; ValueError: init out of range.
        """
        if not 0 <= init < (1 << 64):
            raise ValueError("LUT INIT must be a 64-bit unsigned value")
        w = self.words
        delta: dict[int, dict[int, int]] = {}
        for i, (far, word, bit) in enumerate(self.device.lut_bits(site, bel)):
            idx = self._base(far) + word
            old = (w[idx] >> bit) & 1
            new = (init >> i) & 1
            if old != new:
                w[idx] ^= 1 << bit
                d = delta.setdefault(far, {})
                d[word] = d.get(word, 0) ^ (1 << bit)
        if update_ecc:
            for far, words in delta.items():
                e = 0
                for word, x in words.items():
                    e ^= word_ecc(word, x)
                w[self._base(far) + ECC_WORD] ^= finish_ecc(e)
        return list(delta)

    def ecc_mismatches(self) -> list[int]:
        """FARs of nonzero frames whose word-50 ECC bits differ from :func:`frame_ecc` of the frame."""
        out = []
        w = self.words
        for far in self.nonzero_fars():
            b = self._base(far)
            fr = w[b:b + FRAME_WORDS]
            if frame_ecc(fr) != fr[ECC_WORD] & ECC_MASK:
                out.append(far)
        return out

    def update_ecc(self, fars=None) -> None:
        """Recompute the ECC bits of word 50 for ``fars`` (default: every nonzero frame)."""
        w = self.words
        for far in (self.nonzero_fars() if fars is None else fars):
            b = self._base(far)
            e = frame_ecc(w[b:b + FRAME_WORDS])
            w[b + ECC_WORD] = (w[b + ECC_WORD] & ~ECC_MASK & 0xFFFFFFFF) | e

    def __eq__(self, other) -> bool:
        return (isinstance(other, FrameMemory) and other.device.name == self.device.name
                and other.words == self.words)

    def diff(self, other: "FrameMemory", only_written: bool = False) -> list[int]:
        """FARs (FDRI order) of frames whose contents differ.

        Args:
            only_written: compare only frames marked written in both memories (for partial bitstreams).
        Raises:
            ValueError: the memories belong to different parts.
        """
        if other.device.name != self.device.name:
            raise ValueError(f"cannot compare frames of {self.device.name} and {other.device.name}")
        a, b = self.words.tobytes(), other.words.tobytes()
        step = 4 * FRAME_WORDS
        fa = self.device.frame_addresses
        wa, wb = self.written, other.written
        return [fa[i] for i in range(len(fa))
                if (not only_written or (wa[i] and wb[i])) and a[i * step:(i + 1) * step] != b[i * step:(i + 1) * step]]

    def lut_diff(self, other: "FrameMemory", only_written: bool = False) -> list[tuple[str, str, int, int]]:
        """LUTs whose INIT differs: list of ``(site, bel, init_self, init_other)``, sorted by site.

        Only frames that differ (:meth:`diff`, same ``only_written``) are examined: their LUT minors
        (26..29, 32..35) and changed words give the candidate sites.
        """
        dev = self.device
        cands = set()
        col_pair = {c: k for k, c in enumerate(dev.clb_columns)}
        nb = dev.n_bottom_rows
        for far in self.diff(other, only_written):
            fa = decode_far(far)
            if fa.block != 0 or fa.column not in col_pair:
                continue
            if 26 <= fa.minor <= 29:
                x = 2 * col_pair[fa.column] + 1
            elif 32 <= fa.minor <= 35:
                x = 2 * col_pair[fa.column]
            else:
                continue
            cr = nb - 1 - fa.row if fa.bottom else nb + fa.row
            fa_, fb_ = self.frame(far), other.frame(far)
            for word in range(FRAME_WORDS):
                if word == ECC_WORD or fa_[word] == fb_[word]:
                    continue
                l = word // 2 if word < ECC_WORD else (word - 1) // 2
                cands.add(f"SLICE_X{x}Y{cr * 50 + l}")
        out = []
        for site in sorted(cands, key=lambda s: tuple(map(int, re.findall(r"\d+", s)))):
            if site not in dev.sites:
                continue
            for bel in ("A6LUT", "B6LUT", "C6LUT", "D6LUT"):
                va, vb = self.get_lut(site, bel), other.get_lut(site, bel)
                if va != vb:
                    out.append((site, bel, va, vb))
        return out

    # ---- frame file (docs/formats.md "frame file") ----
    def to_frm(self, fars=None) -> str:
        """Text frame dump, format ``dcsflow-frames 1`` (docs/formats.md): a header comment line, then
        one line per frame ``0x<FAR> 0x<w0>,...,0x<w100>`` (Project X-Ray ``.frm`` compatible).

        Args:
            fars: frames to dump (default: every frame that is written or nonzero).
        """
        if fars is None:
            nz = set(self.nonzero_fars()) | set(self.written_fars())
            fars = [f for f in self.device.frame_addresses if f in nz]
        lines = [f"# dcsflow-frames 1 part={self.device.name} idcode=0x{self.device.idcode:08X} frames={len(fars)}"]
        for far in fars:
            lines.append(f"0x{far:08X} " + ",".join(f"0x{x:08X}" for x in self.frame(far)))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_frm(cls, text: str, device: Device | str | None = None) -> "FrameMemory":
        """Parse a frame file (see :meth:`to_frm`); frames not listed are zero.

        The part comes from the header line (``part=``) unless ``device`` is given.
        Raises:
            BitstreamError: malformed line, unknown FAR, wrong word count, unknown version.
        """
        lines = text.splitlines()
        part = None
        if lines and lines[0].startswith("# dcsflow-frames"):
            m = re.match(r"# dcsflow-frames (\d+)(.*)", lines[0])
            if not m or m.group(1) != "1":
                raise BitstreamError(f"frame file: unsupported version line {lines[0]!r}")
            pm = re.search(r"part=(\S+)", m.group(2))
            part = pm.group(1) if pm else None
        try:
            mem = cls(device if device is not None else (part or DEFAULT_PART))
        except DeviceError as e:
            raise BitstreamError(f"frame file: {e}") from None
        for n, line in enumerate(lines, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                far_s, data_s = line.split(None, 1)
                far = int(far_s, 16)
                words = [int(x, 16) for x in data_s.split(",")]
                if any(not 0 <= x <= 0xFFFFFFFF for x in words):
                    raise ValueError("word out of range")
            except ValueError:
                raise BitstreamError(f"frame file line {n}: expected '0x<FAR> 0x<word>,...'") from None
            if len(words) != FRAME_WORDS:
                raise BitstreamError(f"frame file line {n}: {len(words)} words, a frame has {FRAME_WORDS}")
            if far not in mem.device.far_index:
                raise BitstreamError(f"frame file line {n}: FAR 0x{far:08X} is not a frame of {mem.device.name}")
            mem.set_frame(far, words)
        return mem


# ---- parsed bitstream --------------------------------------------------------------------------
#: Limits of :func:`parse`. A UG470 configuration stream synchronizes once (Vivado's, and dcsflow's
#: partial streams) and carries a few packets per frame (compressed and per-frame-CRC bitstreams
#: included); beyond these limits a stream is refused, so that any input is parsed in time and memory
#: linear in its size with a small constant (a flood of sync words or packets stops at the limit).
MAX_SYNCS = 1024
PACKETS_BEFORE_PART = 4096
PACKETS_PER_FRAME = 16
#: longest stream :func:`parse` reads (2**30 words = 4 GiB; a 7-series full bitstream is <= 60 MB)
MAX_STREAM_WORDS = 1 << 30
#: CMD codes kept in :attr:`Bitstream.commands` (more are counted in ``commands_omitted``)
COMMAND_RECORD_LIMIT = 65536
#: entries of the ``commands`` and ``crc_checks`` lists in :meth:`Bitstream.summary` (more are counted)
SUMMARY_LIST_LIMIT = 64
#: words a raw stream may hold before its sync word: padding, the bus-width pattern, NOOPs
#: (FACTS.md "Stream"); anything else is not a raw stream (e.g. a .bit file with a damaged header)
PADDING_WORDS = frozenset({DUMMY, BUS_WIDTH_SYNC, BUS_WIDTH_DETECT, 0, NOOP})
_NOOP_RUN = array.array(_new_words().typecode, [NOOP] * 64)
CMD_START = COMMANDS["START"]


@dataclass
class Packet:
    """One packet of the configuration stream.

    ``index``: word index of the header in the stream; ``opcode``: 1 read, 2 write;
    ``reg``: register number; ``start``/``count``: position and number of data words in the stream
    (``count`` words requested for reads, which carry no data in a file).
    """

    index: int
    opcode: int
    reg: int
    start: int
    count: int

    @property
    def reg_name(self) -> str:
        """Register name (``R<n>`` when unnamed)."""
        return REG_NAMES.get(self.reg, f"R{self.reg}")


@dataclass
class CrcCheck:
    """A write to the CRC register: ``expected`` (the word in the stream), ``computed``, ``index`` (word)."""

    index: int
    expected: int
    computed: int

    @property
    def ok(self) -> bool:
        """True if the stream's CRC equals the computed one."""
        return self.expected == self.computed


def _packet_record(index: int, op: int, reg: int, count: int) -> int:
    # index < 2**30 (MAX_STREAM_WORDS), op < 4, count < 2**27, reg < 32: one 64-bit word
    return index << 34 | op << 32 | count << 5 | reg


@dataclass
class Bitstream:
    """A parsed bitstream.

    Attributes:
        header: ``.bit`` header fields ``{"a": design, "b": part, "c": date, "d": time}`` (str), or
            {} for a raw stream.
        words: the configuration stream as 32-bit words.
        packet_records: every non-NOP packet in order, one 64-bit word each (:attr:`packets` gives
            them as :class:`Packet`).
        device: the part (from the IDCODE write, else the header's part).
        idcode: the IDCODE written in the stream (None if none).
        frames: the :class:`FrameMemory` after the stream (unwritten frames are zero).
        crc_checks: every CRC register write with its verdict.
        fdri_words: total FDRI words; ``frames_written``: number of frame writes (incl. rewrites).
        pad_frames: FDRI frames that were not written (pad frames and the final held frame).
        desynced: the stream ended desynchronized (a DESYNC command and no sync word after it).
        commands: CMD codes in order (the first :data:`COMMAND_RECORD_LIMIT`; ``commands_omitted``
            counts the rest).
        syncs: sync words the stream synchronized on.
        started: a CMD START was written (the startup sequence of a full configuration).
        unchecked_fdri: frame data (FDRI) not covered by a CRC check: the CRC was reset (CMD RCRC)
            or the stream ended after the data without a check.
    """

    header: dict = field(default_factory=dict)
    words: array.array = field(default_factory=_new_words)
    packet_records: array.array = field(default_factory=lambda: array.array("Q"))
    device: Device | None = None
    idcode: int | None = None
    frames: FrameMemory | None = None
    crc_checks: list = field(default_factory=list)
    fdri_words: int = 0
    frames_written: int = 0
    pad_frames: int = 0
    dropped_frames: int = 0
    desynced: bool = False
    commands: list = field(default_factory=list)
    commands_omitted: int = 0
    registers: dict = field(default_factory=dict)
    syncs: int = 0
    started: bool = False
    unchecked_fdri: bool = False

    @property
    def packets(self) -> list[Packet]:
        """Every non-NOP packet in order (:class:`Packet`, made from :attr:`packet_records`)."""
        return [Packet(r >> 34, (r >> 32) & 3, r & 31, (r >> 34) + 1, (r >> 5) & 0x7FFFFFF)
                for r in self.packet_records]

    @property
    def crc_ok(self) -> bool | None:
        """True if every CRC check passed, False if one failed, None if the stream has none."""
        if not self.crc_checks:
            return None
        return all(c.ok for c in self.crc_checks)

    @property
    def fdri_frames(self) -> int:
        """Number of 101-word frames in the FDRI data (including pad frames)."""
        return self.fdri_words // FRAME_WORDS

    @property
    def is_partial(self) -> bool:
        """True if the stream wrote fewer frames than the device has."""
        return self.frames is None or sum(self.frames.written) < self.device.n_frames

    @property
    def unchecked_reasons(self) -> list[str]:
        """Why the stream is not a complete, checked configuration stream ([] if it is).

        The rule (docs/formats.md "Checked streams"; UG470 "Bitstream composition", UG909
        "Downloading a Partial BIT File"): frame data, every frame-data write covered by a passing
        CRC check (no CMD RCRC and no end of stream between the data and its check), a CMD START
        if the stream writes every frame of the device (a full configuration's startup sequence;
        a partial stream has none), and DESYNC at the end. Reasons: ``no frame data``, ``no CRC
        check``, ``CRC mismatch``, ``frame data not covered by a CRC check``, ``no START command``,
        ``no DESYNC at the end``.
        """
        r = []
        if not self.fdri_words:
            r.append("no frame data")
        if not self.crc_checks:
            r.append("no CRC check")
        elif not self.crc_ok:
            r.append("CRC mismatch")
        elif self.unchecked_fdri:
            r.append("frame data not covered by a CRC check")
        if self.fdri_words and not self.is_partial and not self.started:
            r.append("no START command")
        if not self.desynced:
            r.append("no DESYNC at the end")
        return r

    @property
    def checked(self) -> bool:
        """True if the stream is complete and checked (:attr:`unchecked_reasons` is empty)."""
        return not self.unchecked_reasons

    def require_checked(self, what: str = "bitstream") -> None:
        """Raise BitstreamError naming :attr:`unchecked_reasons` unless the stream is checked."""
        r = self.unchecked_reasons
        if r:
            raise BitstreamError(f"unchecked {what}: {', '.join(r)} (a complete stream has a CRC check over "
                                 "its frame data, START if full, and DESYNC: UG470)")

    def summary(self) -> dict:
        """JSON-able summary: part, IDCODE, frame counts, CRC status, checked status, header fields.

        ``commands`` and ``crc_checks`` list at most :data:`SUMMARY_LIST_LIMIT` entries; then
        ``commands_total`` / ``crc_checks_total`` give the counts.
        """
        lim = SUMMARY_LIST_LIMIT
        n_cmd = len(self.commands) + self.commands_omitted
        reasons = self.unchecked_reasons
        s = {
            "part": self.device.name if self.device else None,
            "idcode": f"0x{self.idcode:08X}" if self.idcode is not None else None,
            "header": dict(self.header),
            "stream_words": len(self.words),
            "fdri_frames": self.fdri_frames,
            "frames_written": self.frames_written,
            "distinct_frames_written": sum(self.frames.written) if self.frames else 0,
            "pad_frames": self.pad_frames,
            "device_frames": self.device.n_frames if self.device else None,
            "partial": self.is_partial,
            "crc": ("none" if self.crc_ok is None else "ok" if self.crc_ok else "mismatch"),
            "crc_checks": [{"word": c.index, "expected": f"0x{c.expected:08X}",
                            "computed": f"0x{c.computed:08X}", "ok": c.ok} for c in self.crc_checks[:lim]],
            "checked": not reasons,
            "unchecked": reasons,
            "commands": [CMD_NAMES.get(c, str(c)) for c in self.commands[:lim]],
            "desync": self.desynced,
        }
        if len(self.crc_checks) > lim:
            s["crc_checks_total"] = len(self.crc_checks)
        if n_cmd > lim:
            s["commands_total"] = n_cmd
        return s


def parse_bit_header(data: bytes, size: int | None = None) -> tuple[dict, int, int]:
    """Parse a ``.bit`` header (FACTS.md): magic, fields a/b/c/d with 16-bit lengths, e with 32-bit.

    ``data`` is the file, or its beginning when ``size`` gives the file's length (the stream of field
    ``e`` must end within ``size`` bytes).

    Returns:
        ``(fields, stream_offset, stream_length)``; fields values are str without the trailing NUL.
    Raises:
        BitstreamError: bad magic, unknown field, truncated header.
    """
    if not data.startswith(BIT_MAGIC):
        raise BitstreamError("not a .bit file: header magic 00 09 0F F0 ... 00 00 01 missing")
    i = len(BIT_MAGIC)
    fields = {}
    while True:
        if i >= len(data):
            raise BitstreamError(".bit header truncated before field 'e' (the configuration data)")
        key = chr(data[i])
        i += 1
        if key == "e":
            if i + 4 > len(data):
                raise BitstreamError(".bit header truncated in the length of field 'e'")
            n = struct.unpack(">I", data[i:i + 4])[0]
            i += 4
            total = len(data) if size is None else size
            if i + n > total:
                raise BitstreamError(f".bit file truncated: field 'e' announces {n} bytes, {total - i} present")
            return fields, i, n
        if key not in "abcd" or key in fields:
            raise BitstreamError(f".bit header: unexpected field {key!r} at byte {i - 1}")
        if i + 2 > len(data):
            raise BitstreamError(f".bit header truncated in the length of field {key!r}")
        n = struct.unpack(">H", data[i:i + 2])[0]
        i += 2
        if i + n > len(data):
            raise BitstreamError(f".bit header truncated in field {key!r}")
        fields[key] = data[i:i + n].rstrip(b"\0").decode("latin-1")
        i += n


def _looks_like_damaged_bit_header(data) -> bool:
    """True if ``data`` starts almost like a ``.bit`` header (its first 2 bytes, or >= 9 of its
    13 magic bytes): a damaged header, never to be read as a raw stream."""
    head = data[:len(BIT_MAGIC)]
    return head[:2] == BIT_MAGIC[:2] or sum(x == y for x, y in zip(head, BIT_MAGIC)) >= 9


def parse(data: bytes, *, strict: bool = True, device: Device | str | None = None) -> Bitstream:
    """Parse a ``.bit`` file or raw ``.bin`` stream (UG470 chapter 5).

    Args:
        data: file contents (bytes or any buffer). A ``.bit`` header is recognised by its magic; a
            damaged magic is an error, not a raw stream. Otherwise the bytes are a raw big-endian
            word stream, which may hold only padding words (:data:`PADDING_WORDS`) before its sync.
        strict: raise on a CRC mismatch and on FDRI data that is not a whole number of frames
            (otherwise record them: :attr:`Bitstream.crc_checks`).
        device: the part, if not given by an IDCODE write or the header.
    Returns:
        :class:`Bitstream` (whether it is a complete, checked stream: :attr:`Bitstream.checked`).
    Raises:
        BitstreamError: any malformed, truncated or corrupted input, and streams beyond the limits
            (:data:`MAX_SYNCS` sync words, :data:`PACKETS_BEFORE_PART` packets before the part is
            known plus :data:`PACKETS_PER_FRAME` per frame of the device, :data:`MAX_STREAM_WORDS`
            words) — the only exception raised. Time and memory are linear in ``len(data)``.
    """
    return _parse_guarded([data], strict, device)


def _parse_guarded(box: list, strict: bool, device) -> Bitstream:
    """:func:`_parse` of the data in ``box`` (a one-element list, emptied: a caller that holds no
    other reference lets the file's bytes go once the stream words are made), every error a
    BitstreamError."""
    try:
        return _parse(box, strict, device)
    except BitstreamError:
        raise
    except DeviceError as e:
        raise BitstreamError(str(e)) from None
    except RecursionError:  # pragma: no cover - cannot happen (no recursion), kept for the contract
        raise BitstreamError("bitstream too deeply nested") from None


def _parse(box: list, strict: bool, device) -> Bitstream:
    item = box.pop()
    if isinstance(item, tuple):          # (Bitstream with its header, raw, words): read_file made them
        bs, raw, words = item
    else:
        bs = Bitstream()
        raw, words = _stream_words(item, bs)
    del item
    bs.words = words
    if device is not None:
        bs.device = device if isinstance(device, Device) else get_device(device)
    elif bs.header.get("b"):
        try:
            bs.device = get_device(normalize_part(bs.header["b"]))
        except DeviceError:
            bs.device = None
    _read_packets(bs, words, _first_sync(words, raw), strict)
    if bs.frames is None and bs.device is not None:
        bs.frames = FrameMemory(bs.device)
    return bs


def _stream_words(data, bs: Bitstream):
    """``(raw, words)``: whether ``data`` is a raw stream (no ``.bit`` header; else the header fields go
    to ``bs.header``) and its configuration stream as big-endian 32-bit words. Raises
    BitstreamError: as :func:`_stream_extent`."""
    if not isinstance(data, bytes):
        data = bytes(data)
    raw, off, n = _stream_extent(data, len(data), bs)
    return raw, words_from_bytes(memoryview(data)[off:off + n])   # no copy of the bytes before the words


#: bytes :func:`read_file` reads before the stream: a ``.bit`` header is at most 4 fields of 64 KiB
_HEAD_BYTES = 13 + 4 * (3 + 0xFFFF) + 5


def _stream_extent(head: bytes, size: int, bs: Bitstream) -> tuple[bool, int, int]:
    """``(raw, offset, length)`` of the configuration stream in a file of ``size`` bytes that starts
    with ``head`` (the whole file, or at least its first :data:`_HEAD_BYTES`); the ``.bit`` header
    fields go to ``bs.header``. Raises BitstreamError: bytes after the stream, a damaged ``.bit``
    magic, not whole words, longer than :data:`MAX_STREAM_WORDS`."""
    raw = not head.startswith(BIT_MAGIC)
    if not raw:
        bs.header, off, n = parse_bit_header(head, size)
        if off + n != size:
            raise BitstreamError(f".bit file has {size - off - n} bytes after the configuration data")
    else:
        if _looks_like_damaged_bit_header(head):
            raise BitstreamError("damaged .bit header: the magic bytes are not 00 09 0F F0 0F F0 0F F0 0F F0 "
                                 "00 00 01 (not read as a raw stream)")
        off, n = 0, size
    if n % 4:
        raise BitstreamError(f"configuration stream of {n} bytes is not a whole number of "
                             "32-bit words (truncated?)")
    if n // 4 > MAX_STREAM_WORDS:
        raise BitstreamError(f"configuration stream of {n} bytes: longer than {4 * MAX_STREAM_WORDS} "
                             "bytes (a 7-series bitstream has at most about 60 MB)")
    return raw, off, n


def _first_sync(words, raw: bool) -> int:
    """Index of the word after the first sync word; a raw stream may hold only padding words
    (:data:`PADDING_WORDS`) before it. Raises BitstreamError."""
    try:
        j = words.index(SYNC_WORD)
    except ValueError:
        raise BitstreamError("no sync word 0xAA995566: not a 7-series configuration stream") from None
    if raw and j and not all(set(words[i:min(j, i + 65536)]) <= PADDING_WORDS for i in range(0, j, 65536)):
        bad = next(k for k in range(j) if words[k] not in PADDING_WORDS)
        raise BitstreamError(f"word {bad} before the sync word is 0x{words[bad]:08X}, not padding (FFFFFFFF, "
                             "000000BB, 11220044): not a raw configuration stream (a .bit file with a "
                             "damaged header?)")
    return j + 1


def _read_packets(bs: Bitstream, words, j: int, strict: bool) -> None:
    """Interpret the packets of ``words`` from index ``j`` (just after the first sync word) into
    ``bs`` (:class:`_ParseState`): after a DESYNC up to the next sync word, NOOP runs skipped, each
    write handed to the state, each packet recorded. Raises BitstreamError: more than
    :data:`MAX_SYNCS` syncs or more packets than :func:`_packet_limit`, a bad header
    (:func:`_packet_header`), reserved opcode or unknown register, a packet longer than the rest."""
    n = len(words)
    bs.syncs = 1
    st = _ParseState(bs, strict)
    last_reg = last_op = None      # of the last type-1 packet, which a type-2 packet continues
    packets = 0
    limit = _packet_limit(bs.device)
    records = bs.packet_records
    index = words.index
    while j < n:
        if not st.synced:
            try:
                j = index(SYNC_WORD, j) + 1
            except ValueError:
                break
            bs.syncs += 1
            if bs.syncs > MAX_SYNCS:
                raise BitstreamError(f"more than {MAX_SYNCS} sync words (the last at word {j - 1}): not a "
                                     "7-series configuration stream (UG470 streams synchronize once)")
            st.synced = True
            bs.desynced = False
            last_reg = None
            continue
        h = words[j]
        if h == NOOP:
            j += 1
            while words[j:j + 64] == _NOOP_RUN:
                j += 64
            continue
        packets += 1
        if packets > limit:
            limit = _packet_limit(bs.device)     # the part may have become known (IDCODE write)
            if packets > limit:
                raise BitstreamError(
                    f"more than {limit} packets (at word {j}): not a 7-series configuration stream (UG470 "
                    + (f"streams carry at most a few packets per frame; {bs.device.name} has "
                       f"{bs.device.n_frames} frames)" if bs.device else "streams name the part by an IDCODE "
                       "write within their first packets)"))
        op, reg, cnt = _packet_header(h, j, last_reg, last_op)
        if h >> 29 == 1:
            last_reg, last_op = reg, op
        j += 1
        if op == OP_NOP:
            continue
        if op == 3:
            raise BitstreamError(f"reserved opcode 3 in packet header 0x{h:08X} at word {j - 1}")
        if reg > 31:
            raise BitstreamError(f"packet at word {j - 1} addresses unknown register {reg}")
        if op == OP_READ:
            records.append(_packet_record(j - 1, op, reg, cnt))
            continue
        if j + cnt > n:
            raise BitstreamError(f"truncated stream: packet at word {j - 1} ({REG_NAMES.get(reg, reg)}) "
                                 f"announces {cnt} words, {n - j} remain")
        records.append(_packet_record(j - 1, op, reg, cnt))
        st.write(reg, words, j, cnt)
        j += cnt
    st.finish()


def _packet_limit(device) -> int:
    """Packets :func:`parse` reads before it refuses a stream: :data:`PACKETS_BEFORE_PART`, plus
    :data:`PACKETS_PER_FRAME` per frame of ``device`` once the part is known."""
    return PACKETS_BEFORE_PART + (PACKETS_PER_FRAME * device.n_frames if device else 0)


def _packet_header(h: int, j: int, last_reg: int | None, last_op: int | None) -> tuple[int, int, int]:
    """``(opcode, register, word count)`` of the packet header ``h`` at word ``j``: a type-1 packet
    (UG470 Table 5-20) names its register; a type-2 packet (UG470 Table 5-22) continues the register
    of the last type-1 packet (``last_reg``, ``last_op``; None after a sync) with a 27-bit count.

    Raises:
        BitstreamError: a type-2 packet without a type-1 packet before it or with another opcode
            (a NOP excepted), a header of another type.
    """
    typ = h >> 29
    op = (h >> 27) & 3
    if typ == 1:
        return op, (h >> 13) & 0x3FFF, h & 0x7FF
    if typ == 2:
        if last_reg is None:
            raise BitstreamError(f"type-2 packet at word {j} without a preceding type-1 packet")
        if op != last_op and op != OP_NOP:
            raise BitstreamError(f"type-2 packet at word {j}: opcode {op} differs from its type-1 packet")
        return op, last_reg, h & 0x7FFFFFF
    raise BitstreamError(f"invalid packet header 0x{h:08X} at word {j} (type {typ}, expected 1 or 2)")


class _ParseState:
    """Register-level interpretation of the packets for :func:`parse` (see the module docstring)."""

    def __init__(self, bs: Bitstream, strict: bool):
        self.bs = bs
        self.strict = strict
        self.synced = True
        self.crc = 0
        self.far = 0
        self.chunks: list[tuple[int, int]] = []  # FDRI (start, count) of the current write session
        self.session_far = 0
        self.pending = False   # FDRI data since the last CRC reset, not yet covered by a passing check

    def reset_crc(self) -> None:
        """CMD RCRC: the CRC restarts at 0; frame data not yet checked stays unchecked."""
        self.crc = 0
        if self.pending:
            self.bs.unchecked_fdri = True
            self.pending = False

    def write(self, reg: int, words, start: int, cnt: int) -> None:
        bs = self.bs
        if reg == R_CRC:
            if cnt != 1:
                raise BitstreamError(f"CRC write at word {start - 1} carries {cnt} words, expected 1")
            bs.crc_checks.append(CrcCheck(start, words[start], self.crc))
            if words[start] == self.crc:
                self.pending = False
            elif self.strict:
                raise BitstreamError(f"CRC mismatch at word {start}: stream has 0x{words[start]:08X}, "
                                     f"data gives 0x{self.crc:08X} (corrupted bitstream)")
            self.crc = 0
            return
        if reg == R_FDRI:
            if cnt:
                if bs.device is None:
                    raise BitstreamError(f"FDRI data at word {start} before any IDCODE write: unknown part")
                if bs.frames is None:
                    bs.frames = FrameMemory(bs.device)
                if not self.chunks:
                    self.session_far = self.far
                self.chunks.append((start, cnt))
                bs.fdri_words += cnt
                self.pending = True
                with memoryview(words) as mv:       # no copy of the frame data (a flood may be 64 MB)
                    self.crc = crc_words(self.crc, R_FDRI, mv[start:start + cnt])
            return
        if cnt == 1:                      # the common case: one register word
            v = words[start]
            x = self.crc ^ v
            self.crc = _CRC_LO[x & 0xFFFF] ^ _CRC_HI[x >> 16] ^ _CRC_G[reg]
            data = (v,)
        else:
            data = memoryview(words)[start:start + cnt]      # no copy (released when dropped)
            self.crc = crc_words(self.crc, reg, data)
        if (reg == R_CMD or reg == R_FAR) and self.chunks:
            self.flush()
        if cnt == 0:
            return
        v = data[-1]
        bs.registers[REG_NAMES.get(reg, f"R{reg}")] = v
        if reg == R_CMD:
            if len(bs.commands) < COMMAND_RECORD_LIMIT:
                room = COMMAND_RECORD_LIMIT - len(bs.commands)
                bs.commands.extend(data if cnt <= room else data[:room])
                bs.commands_omitted += max(0, cnt - room)
            else:
                bs.commands_omitted += cnt
            if CMD_RCRC in data:
                self.reset_crc()
            if CMD_START in data:
                bs.started = True
            if CMD_DESYNC in data:
                self.synced = False
                bs.desynced = True
                return
            bs.desynced = False
        elif reg == R_FAR:
            self.far = v
        elif reg == R_IDCODE:
            try:
                dev = device_for_idcode(v)
            except DeviceError as e:
                raise BitstreamError(str(e)) from None
            if bs.device is not None and bs.device.name != dev.name:
                raise BitstreamError(f"IDCODE 0x{v:08X} ({dev.name}) does not match the part {bs.device.name}")
            bs.device, bs.idcode = dev, v

    def finish(self) -> None:
        """End of the stream: write the last FDRI session; frame data never checked stays unchecked."""
        self.flush()
        if self.pending:
            self.bs.unchecked_fdri = True

    def flush(self) -> None:
        """Write the FDRI frames of the finished session into the frame memory (pipeline rules).

        The frame data stays in the stream's word array: each frame is copied from it once into the
        frame memory (no copy of the session's data, which a hostile stream makes 64 MB)."""
        if not self.chunks:
            return
        bs = self.bs
        chunks = [(s, c) for s, c in self.chunks if c]
        self.chunks = []
        total = sum(c for _, c in chunks)
        nfr, rest = divmod(total, FRAME_WORDS)
        if rest and self.strict:
            raise BitstreamError(f"FDRI data of {total} words is not a whole number of {FRAME_WORDS}-word frames")
        mem = bs.frames
        dev = bs.device
        fidx = dev.far_index.get(self.session_far)
        skip = 0
        fa = dev.frame_addresses
        row_end = dev.row_end
        with memoryview(bs.words) as src, memoryview(mem.words) as dst:
            frame = _FrameReader(src, chunks)
            # frame k is committed when frame k+1 completes: the last complete frame stays in the buffer
            for k in range(nfr - 1):
                if skip:
                    skip -= 1
                    bs.pad_frames += 1
                    continue
                if fidx is None:
                    bs.dropped_frames += 1
                    continue
                b = fidx * FRAME_WORDS
                dst[b:b + FRAME_WORDS] = frame(k)
                mem.written[fidx] = 1
                bs.frames_written += 1
                if fidx in row_end:
                    skip = 2
                fidx = fidx + 1 if fidx + 1 < len(fa) else None
            del frame
        if nfr:
            bs.pad_frames += 1  # the held frame
        if fidx is not None:
            self.far = fa[fidx]


class _FrameReader:
    """Frame ``k`` of FDRI data held in pieces ``chunks`` (``(start, count)`` in the word array
    ``src``, a memoryview): a view of ``src`` when the frame lies in one piece (no copy), else a
    101-word array assembled from the pieces it spans (a frame split between packets)."""

    def __init__(self, src: memoryview, chunks: list[tuple[int, int]]):
        self.src = src
        self.chunks = chunks
        self.offsets = []            # word offset of each piece in the session's data
        o = 0
        for _, c in chunks:
            self.offsets.append(o)
            o += c

    def __call__(self, k: int):
        pos = k * FRAME_WORDS
        i = bisect.bisect_right(self.offsets, pos) - 1
        s, c = self.chunks[i]
        off = pos - self.offsets[i]
        if off + FRAME_WORDS <= c:
            return self.src[s + off:s + off + FRAME_WORDS]
        out = _new_words()
        need = FRAME_WORDS
        while need:
            s, c = self.chunks[i]
            take = min(need, c - off)
            out.frombytes(self.src[s + off:s + off + take].cast("B"))
            need -= take
            i, off = i + 1, 0
        return memoryview(out)


class PacketWriter:
    """Builds a configuration word stream and keeps the 7-series CRC of its register writes.

    Methods append to :attr:`words` (an ``array('I')``); :meth:`crc_check` writes the running CRC
    into the CRC register. Use :meth:`to_bytes` for the big-endian stream.
    """

    def __init__(self):
        self.words = _new_words()
        self.crc = 0

    def raw(self, *ws: int) -> "PacketWriter":
        """Append words outside packets (padding, bus-width pattern, sync)."""
        self.words.extend(ws)
        return self

    def nop(self, n: int = 1) -> "PacketWriter":
        """Append ``n`` type-1 NOOP packets."""
        self.words.extend([NOOP] * n)
        return self

    def write(self, reg: int, *values: int) -> "PacketWriter":
        """Type-1 write of ``values`` to ``reg`` (CRC register writes do not enter the CRC)."""
        self.words.append(type1(OP_WRITE, reg, len(values)))
        self.words.extend(values)
        if reg != R_CRC:
            self.crc = crc_words(self.crc, reg, values)
        return self

    def cmd(self, code: int) -> "PacketWriter":
        """Write the CMD register; RCRC also resets the running CRC."""
        self.write(R_CMD, code)
        if code == CMD_RCRC:
            self.crc = 0
        return self

    def fdri(self, data) -> "PacketWriter":
        """Type-1 FDRI write with count 0, then a type-2 packet carrying ``data``."""
        self.words.append(type1(OP_WRITE, R_FDRI, 0))
        self.words.append(type2(OP_WRITE, len(data)))
        self.words.extend(data)
        self.crc = crc_words(self.crc, R_FDRI, data)
        return self

    def crc_check(self) -> "PacketWriter":
        """Write the running CRC to the CRC register (the device compares; the CRC then resets)."""
        self.write(R_CRC, self.crc)
        self.crc = 0
        return self

    def to_bytes(self) -> bytes:
        """The stream as big-endian bytes."""
        return words_to_bytes(self.words)


def _preamble(w: PacketWriter, dummies: int = 8) -> None:
    w.raw(*([DUMMY] * dummies), BUS_WIDTH_SYNC, BUS_WIDTH_DETECT, DUMMY, DUMMY, SYNC_WORD)


def full_stream_words(mem: FrameMemory, *, cor0: int = 0x02003FE5, cor1: int = 0, ctl0: int = 0x501,
                      ctl1: int = 0, mask: int = 0x401, idcode: int | None = None) -> array.array:
    """Configuration stream of a full bitstream of ``mem`` in Vivado's packet order (as in
    pynq-z1_base.bit): setup registers, FAR=0, WCFG, one FDRI burst of all frames in FDRI order with
    2 zero pad frames after every configuration row, CRC check, GRESTORE, LFRM, START, parked FAR,
    CRC check, DESYNC. Defaults are the register values of pynq-z1_base.bit.
    """
    dev = mem.device
    w = PacketWriter()
    _preamble(w)
    w.nop()
    w.write(REGISTERS["TIMER"], 0).write(REGISTERS["WBSTAR"], 0).cmd(COMMANDS["NULL"]).nop()
    w.cmd(CMD_RCRC).nop(2)
    w.write(REGISTERS["R19"], 0).write(R_COR0, cor0).write(R_COR1, cor1)
    w.write(R_IDCODE, dev.idcode if idcode is None else idcode).cmd(COMMANDS["SWITCH"]).nop()
    w.write(R_MASK, mask).write(R_CTL0, ctl0).write(R_MASK, 0).write(R_CTL1, ctl1).nop(8)
    w.write(R_FAR, 0).cmd(CMD_WCFG).nop()
    data = _new_words()
    pad = _new_words(2 * FRAME_WORDS)
    src = mem.words
    for block, bottom, row, counts in dev.rows:
        first = dev.far_index[(block << 23) | (bottom << 22) | (row << 17)]
        n = sum(counts)
        data.extend(src[first * FRAME_WORDS:(first + n) * FRAME_WORDS])
        data.extend(pad)
    w.fdri(data)
    w.crc_check().nop(2)
    w.cmd(COMMANDS["GRESTORE"]).nop().cmd(COMMANDS["LFRM"]).nop(100)
    w.cmd(COMMANDS["START"]).nop()
    w.write(R_FAR, PARK_FAR).write(R_MASK, ctl0).write(R_CTL0, ctl0)
    w.crc_check().nop(2).cmd(CMD_DESYNC).nop(400)
    return w.words


def write_full(mem: FrameMemory, **kw) -> bytes:
    """Raw (``.bin``) full bitstream of ``mem``; keyword arguments as :func:`full_stream_words`."""
    return words_to_bytes(full_stream_words(mem, **kw))


def frame_runs(dev: Device, fars) -> list[list[int]]:
    """Group FARs into runs of consecutive frames (FDRI order) that stay inside one configuration row.

    Raises:
        DeviceError: a FAR is not a frame of the device.
    """
    idx = sorted(set(dev.frame_index(f) for f in fars))
    runs: list[list[int]] = []
    prev = None
    for i in idx:
        if prev is not None and i == prev + 1 and prev not in dev.row_end:
            runs[-1].append(i)
        else:
            runs.append([i])
        prev = i
    fa = dev.frame_addresses
    return [[fa[i] for i in r] for r in runs]


def partial_stream_words(mem: FrameMemory, fars, *, crc: bool = True, sync_preamble: bool = True) -> array.array:
    """Configuration stream of a PARTIAL bitstream writing frames ``fars`` of ``mem``.

    Layout (FACTS.md "Write frame(s)", UG470 partial reconfiguration): [dummy/bus-width words], sync,
    2 NOOP, CMD RCRC, 2 NOOP, IDCODE, then for every run of consecutive frames inside one row
    (:func:`frame_runs`): FAR, CMD WCFG, NOOP, FDRI (type-1 count 0 + type-2) with the frames and
    one zero pad frame; then a CRC check if ``crc`` else CMD RCRC; 2 NOOP; FAR parked at
    :data:`PARK_FAR`; CMD DESYNC; 16 NOOP.

    Args:
        fars: frame addresses to write (any order; duplicates ignored).
        crc: check the CRC over the packets (files); False for the HWICAP path (RCRC only).
        sync_preamble: start with FFFFFFFF, 000000BB, 11220044, FFFFFFFF before the sync word
            (bus-width detection for SelectMAP loaders; ignored by the ICAP).
    Raises:
        DeviceError: a FAR is not a frame of the device.
    """
    dev = mem.device
    w = PacketWriter()
    if sync_preamble:
        _preamble(w, dummies=1)
    else:
        w.raw(DUMMY, SYNC_WORD)
    w.nop(2).cmd(CMD_RCRC).nop(2).write(R_IDCODE, dev.idcode)
    pad = _new_words(FRAME_WORDS)
    src = mem.words
    for run in frame_runs(dev, fars):
        first = dev.far_index[run[0]]
        data = src[first * FRAME_WORDS:(first + len(run)) * FRAME_WORDS]
        data.extend(pad)
        w.write(R_FAR, run[0]).cmd(CMD_WCFG).nop().fdri(data)
    if crc:
        w.crc_check()
    else:
        w.cmd(CMD_RCRC)
    w.nop(2).write(R_FAR, PARK_FAR).cmd(CMD_DESYNC).nop(16)
    return w.words


def write_partial(mem: FrameMemory, fars, **kw) -> bytes:
    """Raw (``.bin``) partial bitstream; arguments as :func:`partial_stream_words`."""
    return words_to_bytes(partial_stream_words(mem, fars, **kw))


def to_bit(stream: bytes, *, design: str = "dcsflow", part: str | None = None, date: str = "",
           time: str = "") -> bytes:
    """Wrap a raw configuration stream in a ``.bit`` header (fields a, b, c, d, e; FACTS.md);
    ``part`` (field b) defaults to the default device's header part (:func:`header_part`)."""
    if part is None:
        part = header_part(get_device(DEFAULT_PART))
    out = bytearray(BIT_MAGIC)
    for key, val in (("a", design), ("b", part), ("c", date), ("d", time)):
        v = val.encode("latin-1") + b"\0"
        out += key.encode() + struct.pack(">H", len(v)) + v
    out += b"e" + struct.pack(">I", len(stream)) + stream
    return bytes(out)


def header_part(dev: Device) -> str:
    """Part name for a ``.bit`` header (Vivado style, e.g. ``7z020clg400``): ``bit_part`` of the
    part's entry in ``devices.json`` (:data:`dcsflow.scg.device.DEVICE_FACTS`), else the device name."""
    facts = DEVICE_FACTS.get(dev.name)
    return facts.bit_part if facts else dev.name


def read_file(path) -> Bitstream:
    """Read and :func:`parse` a ``.bit``/``.bin`` file (strict). The stream is read straight into its
    word array (memory: about the file's size, plus the frame memory).

    Raises:
        BitstreamError: unreadable file, not a regular file, larger than
            :data:`dcsflow.fileio.BITSTREAM_LIMIT`, or bad content.
    """
    from dcsflow.fileio import BITSTREAM_LIMIT, open_input

    bs = Bitstream()
    try:
        with open_input(path, BITSTREAM_LIMIT, "bitstream") as f:
            size = os.fstat(f.fileno()).st_size
            raw, off, n = _stream_extent(f.read(_HEAD_BYTES), size, bs)
            words = _new_words(n // 4)
            f.seek(off)
            with memoryview(words) as mv, mv.cast("B") as buf:
                got = 0
                while got < n:
                    k = f.readinto(buf[got:])
                    if not k:
                        break
                    got += k
            if got != n or f.read(1):
                raise BitstreamError("the file changed while it was read")
    except OSError as e:
        raise BitstreamError(f"cannot read {path}: {e.strerror or e}") from None
    if sys.byteorder == "little":
        words.byteswap()
    return _parse_guarded([(bs, raw, words)], True, None)
