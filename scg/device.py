"""7-series device model: frame addresses (FAR), FDRI frame order, CLB sites and LUT INIT bit positions.

Supported parts and their facts (default part, Vivado part, ``.bit`` header part, where the CLB
sites come from, family, processor, speed grade, the resources the part offers) are listed in the
package's ``devices.json`` (format ``dcsflow-devices`` v2,
docs/formats.md; :data:`DEVICE_FACTS`): ``xc7z020`` (default) and ``xc7a35t``. Everything else is
loaded at run time from the Project X-Ray extracts in ``<shared>/xc7/<part>/`` (located by
:mod:`dcsflow.scg.data`); the formulas are the
ones of ``shared/xc7/FACTS.md`` and are checked in the tests against every LUT INIT entry of the
``segbits_clb*.db`` files and every ``baseaddr``/``offset`` of the partial tile grids.

Terms: a *frame* is 101 32-bit words (UG470); its *frame address* (FAR) is
``block<<23 | bottom<<22 | row<<17 | column<<7 | minor``. Word 50 of a frame holds the HCLK bits and,
in bits [12:0], the frame ECC (:func:`frame_ecc`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from .data import load_json
from .errors import DeviceError

#: Words per configuration frame (UG470).
FRAME_WORDS = 101
#: Index of the HCLK / ECC word in a frame.
ECC_WORD = 50
#: Mask of the ECC bits in word 50.
ECC_MASK = 0x1FFF
#: Block types of the FAR (UG470): logic + routing, block RAM content, CFG_CLB.
BLOCK_CLB_IO_CLK, BLOCK_BRAM, BLOCK_CFG_CLB = 0, 1, 2
_BUS_OF_BLOCK = {BLOCK_CLB_IO_CLK: "CLB_IO_CLK", BLOCK_BRAM: "BLOCK_RAM"}

#: The device facts file of the package (format ``dcsflow-devices`` v1, docs/formats.md).
DEVICES_FILE = "devices.json"
DEVICES_FORMAT = "dcsflow-devices"
DEVICES_VERSION = 2
#: Where a part's CLB slice sites come from (``clb_sites`` of devices.json), files of ``xc7/<part>/``.
CLB_SITE_SOURCES = ("clb_tile_types.json", "tilegrid.json")


@dataclass(frozen=True)
class DeviceFacts:
    """Facts of one supported part (an entry of ``devices.json``).

    Attributes:
        name: part name (``xc7z020``).
        vivado_part: the Vivado part when no board names one (``xc7z020clg400-1``).
        bit_part: the part string of a ``.bit`` header (``7z020clg400``).
        clb_sites: the file of ``xc7/<part>/`` the CLB slice sites are read from
            (:data:`CLB_SITE_SOURCES`).
        family: ``zynq-7000`` or ``artix-7``.
        processor: the hard processor of the part (``Cortex-A9``), or None (no processing system:
            no PCAP, no Cortex-A9 to run the SCG).
        speed_grade: the speed grade of :attr:`vivado_part` (``-1``).
        resources: what the part offers, by resource (:data:`RESOURCES`) -> count.
        resources_source: where those counts come from (data sheet tables).
    """

    name: str
    vivado_part: str
    bit_part: str
    clb_sites: str
    family: str = ""
    processor: str | None = None
    speed_grade: str = ""
    resources: dict = field(default_factory=dict)
    resources_source: str = ""


#: the resources ``devices.json`` counts for every part: slices (of them SLICEMs), LUTs (of them
#: usable as memory), flip-flops, CARRY4, MUXF7, MUXF8, DSP48E1, block RAM (36 Kb, 18 Kb), user I/O
#: pins of the package, global clock buffers
RESOURCES = ("slices", "slicem", "luts", "lutram", "ffs", "carry4", "muxf7", "muxf8", "dsp48e1", "ramb36",
             "ramb18", "iob", "bufg")


def _load_device_facts() -> tuple[dict[str, DeviceFacts], str]:
    """Read ``devices.json`` of the package: ({part: DeviceFacts}, default part). Raises DeviceError."""
    try:
        d = json.loads(resources.files(__package__).joinpath(DEVICES_FILE).read_text(encoding="utf-8"))
        if d.get("format") != DEVICES_FORMAT or d.get("version") != DEVICES_VERSION:
            raise ValueError(f"not a {DEVICES_FORMAT} v{DEVICES_VERSION} file")
        facts = {}
        for name, e in d["devices"].items():
            if not re.fullmatch(r"xc7[a-z]\d+[a-z]?", name) or e["clb_sites"] not in CLB_SITE_SOURCES:
                raise ValueError(f"bad entry {name!r}")
            res = e["resources"]
            if set(res) != set(RESOURCES) or not all(isinstance(v, int) and v > 0 for v in res.values()):
                raise ValueError(f"{name}: resources must give a positive count of each of {', '.join(RESOURCES)}")
            facts[name] = DeviceFacts(name, str(e["vivado_part"]), str(e["bit_part"]), e["clb_sites"],
                                      str(e["family"]), e["processor"], str(e["speed_grade"]), dict(res),
                                      str(e["resources_source"]))
        if d["default"] not in facts:
            raise ValueError(f"default {d['default']!r} is not a listed device")
        return facts, d["default"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise DeviceError(f"device facts {DEVICES_FILE} of {__package__} unreadable: {e}") from None


#: Facts of the parts this model knows, from devices.json; the IDCODEs are read from part.json
#: (FACTS.md lists the same values).
DEVICE_FACTS, DEFAULT_PART = _load_device_facts()
PARTS = tuple(DEVICE_FACTS)
#: Aliases accepted for part names (as written in .bit headers, e.g. ``7z020clg400``).
_PART_RE = re.compile(r"^(?:xc)?(" + "|".join(re.escape(p[2:]) for p in sorted(PARTS, key=len, reverse=True))
                      + ")", re.IGNORECASE)

#: LUT letters -> index L of FACTS.md.
LUT_INDEX = {"A": 0, "B": 1, "C": 2, "D": 3}


class FrameAddress(NamedTuple):
    """A decoded frame address (UG470 FAR register).

    Fields: ``block`` (0 CLB/IO/CLK, 1 BRAM content, 2 CFG_CLB; 3 bits), ``bottom`` (0 top half,
    1 bottom half), ``row`` (5 bits, counted outward from the device centre), ``column`` (10 bits,
    index into the row's configuration columns), ``minor`` (7 bits, frame within the column).
    """

    block: int
    bottom: int
    row: int
    column: int
    minor: int

    def encode(self) -> int:
        """Return the 32-bit FAR value. Raises DeviceError if a field is out of range."""
        return encode_far(*self)

    def __str__(self) -> str:
        return (f"0x{self.encode():08X}(block={self.block},{'bottom' if self.bottom else 'top'},"
                f"row={self.row},col={self.column},minor={self.minor})")


def encode_far(block: int, bottom: int, row: int, column: int, minor: int) -> int:
    """FAR = block<<23 | bottom<<22 | row<<17 | column<<7 | minor (FACTS.md, UG470 Table 5-24).

    Raises:
        DeviceError: a field does not fit its bit width (block 3, bottom 1, row 5, column 10, minor 7).
    """
    for name, v, width in (("block", block, 3), ("bottom", bottom, 1), ("row", row, 5),
                           ("column", column, 10), ("minor", minor, 7)):
        if not 0 <= v < (1 << width):
            raise DeviceError(f"FAR field {name}={v} out of range 0..{(1 << width) - 1}")
    return (block << 23) | (bottom << 22) | (row << 17) | (column << 7) | minor


def decode_far(far: int) -> FrameAddress:
    """Split a 32-bit FAR into its fields (bits 31:26 are ignored; UG470)."""
    return FrameAddress((far >> 23) & 7, (far >> 22) & 1, (far >> 17) & 0x1F, (far >> 7) & 0x3FF, far & 0x7F)


class BitLocation(NamedTuple):
    """Position of one configuration bit: frame address, word 0..100 in the frame, bit 0..31 (0 = LSB)."""

    far: int
    word: int
    bit: int


def lut_init_bit(slice_kind: str, site_index: int, lut: int, i: int) -> tuple[int, int]:
    """Minor frame and bit offset inside the tile's 64-bit segment of INIT bit ``i`` of a LUT.

    Args:
        slice_kind: ``"SLICEL"`` or ``"SLICEM"`` (SLICEM only at site X0 of a CLBLM tile).
        site_index: 0 for tile site X0 (even slice X), 1 for X1 (odd slice X).
        lut: 0..3 for LUT A..D.
        i: INIT bit index 0..63 (the LUT6 truth-table index of physical pins A6..A1, A1 = LSB).
    Returns:
        ``(minor, b)``: the bit is at ``word_offset + b // 32``, bit ``b % 32`` of minor frame ``minor``
        (the segbits notation ``<minor>_<b>``). Source: FACTS.md "LUT INIT bit i".
    Raises:
        DeviceError: an argument is out of range.
    """
    if not 0 <= i < 64 or not 0 <= lut < 4 or site_index not in (0, 1):
        raise DeviceError(f"LUT INIT bit out of range (lut={lut}, i={i}, site X{site_index})")
    f0 = 32 if site_index == 0 else 26
    r = i & 1
    p = (i >> 3) & 1
    if slice_kind == "SLICEM":
        minor = f0 + (r if p else 2 + r)
    elif slice_kind == "SLICEL":
        minor = f0 + ((3 - r) if p else r)
    else:
        raise DeviceError(f"unknown slice kind {slice_kind!r} (SLICEL or SLICEM)")
    b = 16 * lut + 15 - 4 * (i >> 4) - ((i >> 1) & 3)
    return minor, b


def word_offset_of_y(y: int) -> int:
    """Word offset of the CLB tile at slice/tile row ``y`` inside each frame of its clock region.

    ``l = y % 50``; ``word = 2*l + (1 if l >= 25 else 0)`` (word 50 is the HCLK/ECC word; FACTS.md).
    """
    l = y % 50
    return 2 * l + (1 if l >= 25 else 0)


@dataclass(frozen=True)
class Slice:
    """A CLB slice site and where it lives in configuration memory.

    Attributes:
        name: site name ``SLICE_X<x>Y<y>``.
        x, y: slice coordinates.
        kind: ``"SLICEL"`` or ``"SLICEM"``.
        tile: tile name, e.g. ``CLBLM_L_X10Y34``; ``tile_type`` e.g. ``CLBLM_L``.
        site_index: 0 (tile site X0, even x) or 1 (X1, odd x).
        bottom, row, column: FAR fields of the tile's frames (block 0).
        word_offset: first of the two words of the tile in each frame (0..100, never 50).
    """

    name: str
    x: int
    y: int
    kind: str
    tile: str
    tile_type: str
    site_index: int
    bottom: int
    row: int
    column: int
    word_offset: int

    @property
    def base_far(self) -> int:
        """FAR of minor 0 of the tile's column (the tile grid's ``baseaddr``)."""
        return encode_far(BLOCK_CLB_IO_CLK, self.bottom, self.row, self.column, 0)

    @property
    def lut_minors(self) -> tuple[int, int, int, int]:
        """The 4 consecutive minors holding all LUT INIT bits of this site (26..29 for X1, 32..35 for X0)."""
        f0 = 32 if self.site_index == 0 else 26
        return (f0, f0 + 1, f0 + 2, f0 + 3)


_SITE_RE = re.compile(r"^SLICE_X(\d+)Y(\d+)$")
_BEL_RE = re.compile(r"^([ABCD])(6?)LUT$")


def parse_bel(bel: str) -> int:
    """LUT index 0..3 of a BEL name ``A6LUT``..``D6LUT`` (``ALUT``..``DLUT`` accepted).

    Raises:
        DeviceError: not a 6-LUT BEL (the 5-LUT ``A5LUT`` shares INIT[31:0] of ``A6LUT``).
    """
    m = _BEL_RE.match(bel.upper())
    if not m:
        raise DeviceError(f"unknown LUT BEL {bel!r}: expected A6LUT, B6LUT, C6LUT or D6LUT "
                          "(a 5-LUT uses INIT[31:0] of its 6-LUT)")
    return LUT_INDEX[m.group(1)]


def parse_site_bel(text: str) -> tuple[str, str]:
    """Split ``SLICE_X54Y10/A6LUT`` into ``("SLICE_X54Y10", "A6LUT")``. Raises DeviceError."""
    if text.count("/") != 1:
        raise DeviceError(f"expected SITE/BEL such as SLICE_X54Y10/A6LUT, got {text!r}")
    site, bel = text.split("/")
    return site.strip().upper(), bel.strip().upper()


class Device:
    """Device model of one part, built from ``part.json`` and the CLB site list.

    Attributes:
        name: part name (one of :data:`PARTS`).
        idcode: 32-bit JTAG IDCODE from part.json (bits [31:28] = revision).
        rows: list of ``(block, bottom, row, frame_counts)`` in FDRI order, ``frame_counts`` a tuple
            with the frame count of each configuration column.
        frame_addresses: tuple of all valid FARs in FDRI auto-increment order (block, then half
            top before bottom, then row, column, minor).
        far_index: dict FAR -> position in ``frame_addresses`` (= frame index of a FrameMemory).
        row_end: frozenset of frame indices that are the last frame of a configuration row; after
            such a frame an FDRI burst carries 2 pad frames (FACTS.md).
        clb_columns: the list ``C`` of FACTS.md (configuration columns with 36 frames in the widest
            row): slice X pair ``x // 2`` lives in column ``C[x // 2]``.
    """

    def __init__(self, name: str):
        self.name = name
        part = load_json("xc7", name, "part.json")
        self.idcode = int(part["idcode"])
        gcr = part["global_clock_regions"]
        self.n_bottom_rows = len(gcr.get("bottom", {}).get("rows", {}))
        self.n_top_rows = len(gcr.get("top", {}).get("rows", {}))
        rows = []
        for block, bus in _BUS_OF_BLOCK.items():
            for bottom, half in ((0, "top"), (1, "bottom")):
                hrows = gcr.get(half, {}).get("rows", {})
                for r in sorted(hrows, key=int):
                    cols = hrows[r]["configuration_buses"].get(bus, {}).get("configuration_columns", {})
                    counts = tuple(int(cols[c]["frame_count"]) for c in sorted(cols, key=int))
                    if counts:
                        rows.append((block, bottom, int(r), counts))
        self.rows = rows
        fars, row_end = [], set()
        for block, bottom, row, counts in rows:
            for col, n in enumerate(counts):
                for minor in range(n):
                    fars.append((block << 23) | (bottom << 22) | (row << 17) | (col << 7) | minor)
            row_end.add(len(fars) - 1)
        self.frame_addresses = tuple(fars)
        self.far_index = {f: i for i, f in enumerate(fars)}
        self.row_end = frozenset(row_end)
        widest = max((c for b, _, _, c in rows if b == BLOCK_CLB_IO_CLK), key=len)
        self.clb_columns = [i for i, n in enumerate(widest) if n == 36]
        self._col_pair = {c: k for k, c in enumerate(self.clb_columns)}
        self._sites: dict[str, Slice] | None = None

    # ---- frame addresses -------------------------------------------------------------------
    @property
    def n_frames(self) -> int:
        """Number of valid frames (xc7z020: 9996)."""
        return len(self.frame_addresses)

    def frame_index(self, far: int) -> int:
        """Index of a FAR in FDRI order. Raises DeviceError for an address that is not a frame."""
        try:
            return self.far_index[far]
        except KeyError:
            raise DeviceError(f"FAR 0x{far:08X} is not a frame of {self.name}") from None

    def next_far(self, far: int) -> tuple[int | None, bool]:
        """FAR auto-increment of an FDRI/FDRO burst (UG470).

        Returns:
            ``(next_far, crossed)``: the next frame address in FDRI order (None after the last
            frame of the device) and whether the increment leaves the current configuration row
            (then a full bitstream carries 2 pad frames).
        Raises:
            DeviceError: ``far`` is not a frame address of the device.
        """
        i = self.frame_index(far)
        crossed = i in self.row_end
        return (self.frame_addresses[i + 1] if i + 1 < len(self.frame_addresses) else None), crossed

    # ---- sites ----------------------------------------------------------------------------
    def _row_of_y(self, y: int) -> tuple[int, int]:
        cr = y // 50
        nb = self.n_bottom_rows
        return (1, nb - 1 - cr) if cr < nb else (0, cr - nb)

    def _make_slice(self, x: int, y: int, kind: str, tile_type: str, column: int) -> Slice:
        bottom, row = self._row_of_y(y)
        return Slice(f"SLICE_X{x}Y{y}", x, y, kind, f"{tile_type}_X{column}Y{y}", tile_type,
                     x & 1, bottom, row, column, word_offset_of_y(y))

    def _load_sites(self) -> dict[str, Slice]:
        sites: dict[str, Slice] = {}
        source = device_facts(self.name).clb_sites
        if source == "clb_tile_types.json":     # the CLB columns of the whole part, one entry per column
            d = load_json("xc7", self.name, source)
            for col in d["columns"]:
                x0 = col["slice_x_pair"][0]
                tile_type = f"{col['type']}_{col['side']}"
                column = int(col["tile_x"])
                for lo, hi in col["y_ranges"]:
                    for y in range(lo, hi + 1):
                        for k in (0, 1):
                            kind = col["sites"][f"SLICE_X{x0 + k}"]
                            sites[f"SLICE_X{x0 + k}Y{y}"] = self._make_slice(x0 + k, y, kind, tile_type, column)
        else:                                   # tilegrid.json: every tile with its sites
            grid = load_json("xc7", self.name, source)
            tre = re.compile(r"^(CLBL[LM]_[LR])_X(\d+)Y(\d+)$")
            for tname, t in grid.items():
                m = tre.match(tname)
                if not m:
                    continue
                column, ty = int(m.group(2)), int(m.group(3))
                for sname, kind in t.get("sites", {}).items():
                    sm = _SITE_RE.match(sname)
                    if not sm:
                        continue
                    x, y = int(sm.group(1)), int(sm.group(2))
                    s = self._make_slice(x, y, kind, m.group(1), column)
                    # keep only sites whose LUT frames exist in this part's FAR space
                    if ty == y and all(encode_far(0, s.bottom, s.row, column, mi) in self.far_index
                                       for mi in s.lut_minors):
                        sites[sname] = s
        return sites

    @property
    def sites(self) -> dict[str, Slice]:
        """All valid CLB slice sites of the device, name -> :class:`Slice` (xc7z020: 13,300)."""
        if self._sites is None:
            self._sites = self._load_sites()
        return self._sites

    def slice(self, site: str) -> Slice:
        """The :class:`Slice` of a site name ``SLICE_X<x>Y<y>``.

        Raises:
            DeviceError: malformed name or no CLB slice at that site on this part.
        """
        s = self.sites.get(site.upper())
        if s is None:
            if not _SITE_RE.match(site.upper()):
                raise DeviceError(f"bad site name {site!r}: expected SLICE_X<x>Y<y>")
            raise DeviceError(f"{site} is not a CLB slice site of {self.name}")
        return s

    def column_of_slice_x(self, x: int) -> int:
        """Configuration column ``C[x // 2]`` of slice X (FACTS.md). Raises DeviceError."""
        if not 0 <= x // 2 < len(self.clb_columns):
            raise DeviceError(f"slice X{x} outside the {len(self.clb_columns) * 2} CLB slice columns of {self.name}")
        return self.clb_columns[x // 2]

    def lut_bits(self, site: str, bel: str) -> list[BitLocation]:
        """The 64 :class:`BitLocation` of the INIT bits 0..63 of the LUT ``bel`` at ``site``.

        Args:
            site: ``SLICE_X<x>Y<y>``; bel: ``A6LUT``..``D6LUT``.
        Returns:
            list of 64 (far, word, bit); element ``i`` is INIT[i] (FACTS.md formula).
        Raises:
            DeviceError: unknown site or BEL.
        """
        return _lut_bits(self, self.slice(site), parse_bel(bel))

    def lut_frames(self, site: str) -> list[int]:
        """The 4 FARs (consecutive minors) that hold all LUT INIT bits of ``site``."""
        s = self.slice(site)
        return [encode_far(0, s.bottom, s.row, s.column, m) for m in s.lut_minors]

    def tile_base(self, tile_x: int, y: int) -> tuple[int, int]:
        """``(baseaddr, offset)`` of the interconnect/CLB tile column ``tile_x`` at row ``y``
        (the tile grid's fields): FAR of minor 0 in block 0, and the word offset."""
        bottom, row = self._row_of_y(y)
        return encode_far(0, bottom, row, tile_x, 0), word_offset_of_y(y)


def _lut_bits(dev: Device, s: Slice, lut: int) -> list[BitLocation]:
    out = []
    for i in range(64):
        minor, b = lut_init_bit(s.kind, s.site_index, lut, i)
        far = (s.bottom << 22) | (s.row << 17) | (s.column << 7) | minor
        out.append(BitLocation(far, s.word_offset + b // 32, b % 32))
    return out


def normalize_part(name: str) -> str:
    """Map ``xc7z020``, ``7z020clg400``, ``XC7A35T-CSG324`` ... to a supported part name.

    Raises:
        DeviceError: not one of :data:`PARTS`.
    """
    m = _PART_RE.match(name.strip())
    if not m:
        raise DeviceError(f"unsupported part {name!r}: supported are {', '.join(PARTS)}")
    return "xc" + m.group(1).lower()


def device_facts(name: str) -> DeviceFacts:
    """The :class:`DeviceFacts` of a part (any name :func:`normalize_part` accepts). Raises DeviceError."""
    return DEVICE_FACTS[normalize_part(name)]


@lru_cache(maxsize=None)
def get_device(name: str = DEFAULT_PART) -> Device:
    """Return the (cached) :class:`Device` of a part. Raises DeviceError / DataMissing."""
    return Device(normalize_part(name))


def device_for_idcode(idcode: int) -> Device:
    """Return the device whose IDCODE matches ``idcode`` (revision bits [31:28] ignored).

    Raises:
        DeviceError: no supported part has that IDCODE.
    """
    for p in PARTS:
        d = get_device(p)
        if (d.idcode & 0x0FFFFFFF) == (idcode & 0x0FFFFFFF):
            return d
    raise DeviceError(f"IDCODE 0x{idcode:08X} is not a supported part ({', '.join(PARTS)})")


# ---- frame ECC ---------------------------------------------------------------------------------
def _ecc_tables():
    # ECC of word idx with value v = XOR over set bits i of (base(idx) + i); base is a multiple of 32,
    # so it equals (parity(v) ? base : 0) ^ (XOR of set bit positions). Per-byte tables make it fast.
    par = [bin(v).count("1") & 1 for v in range(256)]
    xpos = [[0] * 256 for _ in range(4)]
    for k in range(4):
        for v in range(256):
            acc = 0
            for b in range(8):
                if v >> b & 1:
                    acc ^= 8 * k + b
            xpos[k][v] = acc
    bases = []
    for idx in range(FRAME_WORDS):
        val = idx * 32 + (0x1360 if idx > 0x25 else 0x1340 if idx > 0x6 else 0x1320)
        bases.append(val)
    return par, xpos, bases


_PAR, _XPOS, _BASES = _ecc_tables()


def word_ecc(idx: int, data: int) -> int:
    """Contribution of word ``idx`` (value ``data``) of a frame to its 12-bit ECC syndrome (before parity)."""
    if idx == ECC_WORD:
        data &= 0xFFFFE000
    b0, b1, b2, b3 = data & 0xFF, (data >> 8) & 0xFF, (data >> 16) & 0xFF, data >> 24
    e = _XPOS[0][b0] ^ _XPOS[1][b1] ^ _XPOS[2][b2] ^ _XPOS[3][b3]
    if _PAR[b0] ^ _PAR[b1] ^ _PAR[b2] ^ _PAR[b3]:
        e ^= _BASES[idx]
    return e


def bit_code(word: int, bit: int) -> int:
    """ECC syndrome of one set frame bit (:func:`word_ecc` of a single bit; 0 for the ECC bits
    [12:0] of word 50). Linear: a word's syndrome is the XOR of its set bits' codes."""
    if word == ECC_WORD and bit < 13:
        return 0
    return _BASES[word] ^ bit


def finish_ecc(e: int) -> int:
    """Fold the accumulated syndrome into the 13-bit ECC: bit 12 = parity of bits [11:0]."""
    v = e & 0xFFF
    v ^= v >> 8
    v ^= v >> 4
    v ^= v >> 2
    v ^= v >> 1
    return (e ^ ((v & 1) << 12)) & ECC_MASK


def frame_ecc(words) -> int:
    """13-bit frame ECC of a 101-word frame (the value Vivado stores in word 50 bits [12:0]).

    Hamming-style code over the frame's bit positions, as in Project X-Ray's ``icap_ecc``
    (lib/xilinx/xc7series/ecc.cc); bits [12:0] of word 50 are excluded. The code is linear over
    GF(2): ``ecc(a ^ b) == ecc(a) ^ ecc(b)``, so a patch can update word 50 by the ECC of the change.
    Checked against pynq-z1_base.bit (all frames except LUTRAM/BRAM-content frames, for which Vivado
    stores a different value).
    """
    e = 0
    for idx, w in enumerate(words):
        if w:
            e ^= word_ecc(idx, w)
    return finish_ecc(e)
