"""CFGLUT5 chain words: the INITs of CFGLUT5 TLUTs in the order the fabric loader shifts them in.

In the CFGLUT5 realization of a TLUT (docs/architecture.md, "Two TLUT realizations") every TLUT is a
CFGLUT5 (UG953, "CFGLUT5": SLICEM only, 5 inputs, 32 INIT bits) whose contents are shifted in
serially from the fabric: on a rising clock edge with ``CE`` high the CFGLUT5 shifts its 32 bits up
by one and takes ``CDI`` as bit 0; ``CDO`` is bit 31. Yosys's model
(``<yosys datdir>/xilinx/cells_sim.v``, module ``CFGLUT5``) states it exactly::

    reg [31:0] r = INIT;  CDO = r[31];  O6 = r[{I4,I3,I2,I1,I0}];  O5 = r[{1'b0,I3,I2,I1,I0}];
    always @(posedge CLK) if (CE) r <= {r[30:0], CDI};

The loader (``flow/templates/cfglut/dcs_cfglut_loader.v``, docs/formats.md "CFGLUT5 chain words and
loader, version 1") drives many **chains** at once, one bit per chain per clock cycle:

- A chain is a list of CFGLUT5 names ``[lut_0, ..., lut_{n-1}]``: ``lut_0.CDI`` is driven by the
  loader's ``cdi[c]``, ``lut_j.CDO`` drives ``lut_{j+1}.CDI``. Chains are numbered 0..C-1 in the
  order given.
- All chains shift together for ``S = 32 * L`` cycles, L = :func:`chain_luts` (the longest chain's
  length). The bit fed at shift cycle t (0-based) ends in ``lut_j`` INIT bit b with
  ``32*j + b = S-1-t``; a chain of n < L CFGLUT5s lets its first ``32*(L-n)`` bits fall out of its
  end (they are sent as 0).
- Chains are grouped by 32: group g holds chains 32g..32g+31, G = ceil(C/32) groups. The **chain
  word** (g, t) is 32 bits: bit k = the bit chain 32g+k takes at cycle t (0 for a chain that does
  not exist).
- Word order (the loader's AXI4-Stream input and the words file): group-major, all t = 0..S-1 of
  group 0, then of group 1, ...: word (g, t) is item ``g*S + t`` of the list of G*S words.
- In the loader's AXI4-Lite word window word (g, t) sits at byte address
  ``2**(ADDR_WIDTH-1) + 4*(g*STRIDE + t)`` with STRIDE = ``2**STRIDE_LOG2``,
  ``STRIDE_LOG2 = ceil(log2(S))`` (:func:`word_address`).

Words file, format ``dcsflow-cfglut-words 1`` (for simulators and for the host's loader driver)::

    # dcsflow-cfglut-words 1 chains=37 chain_luts=3 build=0000c0de
    00000000                       <- word 0 (g=0, t=0): 8 hex digits
    ...                            <- G*S word lines in word order

A chain element may also be a **parameter-bit register** (:attr:`Layout.registers`): up to 32
flip-flops ``FF_0 .. FF_{m-1}`` with ``FF_0.D = CDI``, ``FF_b.D = FF_{b-1}.Q`` (FDRE, UG953; CE and
clock the chain's), each holding one parameter bit that a static LUT reads (a TLUT whose truth table
depends on the parameters through one PPC function only needs that bit, not 32 INIT bits). It
shifts exactly like a CFGLUT5's 32 bits (``r <= {r[30:0], CDI}``), so bit b of its 32-bit "INIT"
is ``FF_b``; a register of m < 32 bits is the last element of its chain (its upper bits fall out).

The words hold the specialized configuration (the key lives in the INITs): :func:`write_words_file`
writes the file with owner-only permissions.

Standard library and the core (:mod:`dcsflow.fileio`) only. Errors: :class:`~dcsflow.scg.errors.CfglutError`
(a ``ValueError``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from dcsflow.fileio import read_input_text, write_text_atomic

from .errors import CfglutError

#: INIT bits of a CFGLUT5 (UG953), = shift cycles per CFGLUT5 in a chain
INIT_BITS = 32
#: chains per chain word (the loader's memory width)
GROUP = 32
#: largest number of chains and of CFGLUT5s per chain: the loader's INFO register has 16 bits for each
MAX_CHAINS = 0xFFFF
MAX_CHAIN_LUTS = 0xFFFF
#: the loader's default AXI4-Lite address width (bits of a byte address)
DEFAULT_ADDR_WIDTH = 16
#: words file magic and version
WORDS_MAGIC = "dcsflow-cfglut-words"
WORDS_VERSION = 1

_MASK32 = (1 << 32) - 1


# ---- layout ----------------------------------------------------------------------------------------
def _check_chains(chains: Sequence[Sequence[str]]) -> None:
    """Refuse an empty chain list, an empty chain, a non-string name, a name in two chains, and
    more chains or longer chains than the loader's INFO register can state."""
    if isinstance(chains, (str, bytes)) or not isinstance(chains, Sequence) or not chains:
        raise CfglutError("chains: a non-empty list of chains (lists of CFGLUT5 names) expected")
    if len(chains) > MAX_CHAINS:
        raise CfglutError(f"{len(chains)} chains: the loader holds at most {MAX_CHAINS}")
    seen: dict[str, int] = {}
    for c, chain in enumerate(chains):
        if isinstance(chain, (str, bytes)) or not isinstance(chain, Sequence):
            raise CfglutError(f"chain {c}: a list of CFGLUT5 names expected, got {type(chain).__name__}")
        if not chain:
            raise CfglutError(f"chain {c} is empty: every chain holds at least one CFGLUT5")
        if len(chain) > MAX_CHAIN_LUTS:
            raise CfglutError(f"chain {c}: {len(chain)} CFGLUT5s, at most {MAX_CHAIN_LUTS} per chain")
        for name in chain:
            if not isinstance(name, str):
                raise CfglutError(f"chain {c}: CFGLUT5 name {name!r} is not a string")
            if name in seen:
                where = "twice in chain" if seen[name] == c else f"in chains {seen[name]} and"
                raise CfglutError(f"CFGLUT5 {name!r} is {where} {c}: each CFGLUT5 sits in one place of one chain")
            seen[name] = c


def chain_luts(chains: Sequence[Sequence[str]]) -> int:
    """CHAIN_LUTS: the length of the longest chain (CFGLUT5s), the loader's ``CHAIN_LUTS`` parameter.

    Raises:
        CfglutError: no chain, an empty chain, a name not a string or in two chains, more than
            :data:`MAX_CHAINS` chains or :data:`MAX_CHAIN_LUTS` CFGLUT5s in a chain.
    """
    _check_chains(chains)
    return max(len(ch) for ch in chains)


def groups(n_chains: int) -> int:
    """G = ceil(n_chains / 32): the number of 32-chain groups (one loader memory each)."""
    return (n_chains + GROUP - 1) // GROUP


def shift_cycles(n_chain_luts: int) -> int:
    """S = 32 * CHAIN_LUTS: the cycles of a shift (``ce`` is high exactly this long)."""
    return INIT_BITS * n_chain_luts


def stride_log2(n_chain_luts: int) -> int:
    """STRIDE_LOG2 = ceil(log2(S)): each group's memory holds STRIDE = 2**STRIDE_LOG2 >= S words
    (the loader's register 0x14)."""
    return (shift_cycles(n_chain_luts) - 1).bit_length()


def word_count(n_chains: int, n_chain_luts: int) -> int:
    """G * S: the number of chain words of a load (the loader's register 0x10 WORDS)."""
    return groups(n_chains) * shift_cycles(n_chain_luts)


def min_addr_width(n_chains: int, n_chain_luts: int) -> int:
    """The smallest loader ``ADDR_WIDTH`` whose word window (the upper half of the byte address
    space, 4 bytes per word) holds ``G * STRIDE`` words; at least 6 (the registers 0x00..0x14)."""
    used = groups(n_chains) << stride_log2(n_chain_luts)
    return max(6, 3 + (used - 1).bit_length())


def addr_width(n_chains: int, n_chain_luts: int) -> int:
    """The ``ADDR_WIDTH`` a build gives its loader: :func:`min_addr_width`, at least
    :data:`DEFAULT_ADDR_WIDTH` (16). The loader's register space is ``2**ADDR_WIDTH`` bytes (what a
    driver maps)."""
    return max(min_addr_width(n_chains, n_chain_luts), DEFAULT_ADDR_WIDTH)


def word_address(g: int, t: int, stride_log2: int, addr_width: int = DEFAULT_ADDR_WIDTH) -> int:
    """AXI4-Lite byte address of chain word (g, t) in the loader's word window:
    ``2**(addr_width-1) + 4*(g * 2**stride_log2 + t)``.

    Args:
        g: group (chains 32g..32g+31). t: shift cycle, 0 <= t < 2**stride_log2 (t < S for a used word).
        stride_log2: the loader's STRIDE_LOG2 (:func:`stride_log2` of CHAIN_LUTS).
        addr_width: the loader's ``ADDR_WIDTH`` parameter.
    Raises:
        CfglutError: g or t negative, t >= 2**stride_log2, or the address beyond the window.
    """
    stride = 1 << stride_log2
    if g < 0 or not 0 <= t < stride:
        raise CfglutError(f"chain word (g={g}, t={t}): 0 <= t < STRIDE = {stride} and g >= 0 expected")
    index = g * stride + t
    if index >= 1 << (addr_width - 3):
        raise CfglutError(f"chain word (g={g}, t={t}) lies beyond the word window of a loader with "
                          f"ADDR_WIDTH={addr_width} ({1 << (addr_width - 3)} words)")
    return (1 << (addr_width - 1)) + 4 * index


# ---- words <-> INITs -------------------------------------------------------------------------------
def _init_of(name: str, inits: Mapping[str, int]) -> int:
    if name not in inits:
        raise CfglutError(f"CFGLUT5 {name!r} is in a chain but has no INIT")
    v = inits[name]
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MASK32:
        raise CfglutError(f"CFGLUT5 {name!r}: INIT {v!r} is not a 32-bit value (0 .. 0xFFFFFFFF)")
    return v


def chain_words(chains: Sequence[Sequence[str]], inits: Mapping[str, int]) -> list[int]:
    """The chain words that load ``inits`` into the CFGLUT5s of ``chains``, in word order.

    Args:
        chains: C chains, each a list of CFGLUT5 names, ``lut_0`` (fed by the loader's ``cdi[c]``) first.
        inits: CFGLUT5 name -> INIT (32-bit int, bit a = O6 at input address a = {I4,I3,I2,I1,I0}, as
            the ``INIT`` parameter of UG953's CFGLUT5). Names in no chain are ignored.
    Returns:
        G*S words (ints < 2**32), word (g, t) at index ``g*S + t``: bit k = INIT bit b of ``lut_j`` of
        chain 32g+k with ``32*j + b = S-1-t`` (0 where no CFGLUT5 takes it).
    Raises:
        CfglutError: a bad chain list (:func:`chain_luts`), a CFGLUT5 without INIT, an INIT that is
            not a 32-bit value.
    """
    n_luts = chain_luts(chains)
    s = shift_cycles(n_luts)
    words = [0] * word_count(len(chains), n_luts)
    for c, chain in enumerate(chains):
        # the chain's contents as one integer: lut_j's INIT at bits 32j..32j+31; the bit sent at cycle
        # t is bit S-1-t of it (bits at or above 32*len(chain) are zero: they fall out of the end)
        value = 0
        for j, name in enumerate(chain):
            value |= _init_of(name, inits) << (INIT_BITS * j)
        base, k = (c // GROUP) * s, c % GROUP
        for t in range(s):
            if (value >> (s - 1 - t)) & 1:
                words[base + t] |= 1 << k
    return words


def inits_from_words(chains: Sequence[Sequence[str]], words: Sequence[int]) -> dict[str, int]:
    """The INITs that ``words`` load into the CFGLUT5s of ``chains``: the inverse of :func:`chain_words`.

    Bits that reach no CFGLUT5 (the first bits of a chain shorter than CHAIN_LUTS, the bits of chains
    beyond C in the last group) are ignored.

    Args:
        chains: as :func:`chain_words`. words: G*S words in word order.
    Returns:
        CFGLUT5 name -> INIT (32-bit int), every CFGLUT5 of ``chains``.
    Raises:
        CfglutError: a bad chain list, a words list of another length than G*S, a word that is not a
            32-bit value.
    """
    n_luts = chain_luts(chains)
    s = shift_cycles(n_luts)
    _check_words(words, len(chains), n_luts, "words")
    out: dict[str, int] = {}
    for c, chain in enumerate(chains):
        base, k = (c // GROUP) * s, c % GROUP
        value = 0
        for p in range(INIT_BITS * len(chain)):           # p = 32*j + b = S-1-t
            value |= ((words[base + s - 1 - p] >> k) & 1) << p
        for j, name in enumerate(chain):
            out[name] = (value >> (INIT_BITS * j)) & _MASK32
    return out


def _check_words(words: Sequence[int], n_chains: int, n_chain_luts: int, what: str) -> None:
    n = word_count(n_chains, n_chain_luts)
    if len(words) != n:
        raise CfglutError(f"{what}: {len(words)} chain words, {n} expected for chains={n_chains} "
                          f"chain_luts={n_chain_luts} ({groups(n_chains)} groups x {shift_cycles(n_chain_luts)} cycles)")
    for i, w in enumerate(words):
        if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= _MASK32:
            raise CfglutError(f"{what}: word {i} ({w!r}) is not a 32-bit value")


# ---- a build's layout --------------------------------------------------------------------------------
#: ``cfglut.json`` of a ``cfglut5`` build: format name and version
LAYOUT_FORMAT = "dcsflow-cfglut-layout"
#: version 2 added the parameter-bit registers (``registers``); version 1 is still read
LAYOUT_VERSION = 2


def build_id_of(design_hash: str) -> int:
    """The 32-bit build id of a build (the loader's ``BUILD_ID``, a words file's ``build=``): the first
    8 hex digits of its design hash. Raises CfglutError: not a hex design hash."""
    if not isinstance(design_hash, str) or not re.fullmatch(r"[0-9a-f]{8,64}", design_hash):
        raise CfglutError(f"design hash {design_hash!r}: lower-case hex expected")
    return int(design_hash[:8], 16)


def cfglut_init(init: int, entries: int) -> int:
    """The 32-bit CFGLUT5 INIT of a TLUT of ``entries`` = 2**k truth-table bits (k <= 5 inputs on
    I0..I(k-1), the other inputs tied to 0): ``init`` repeated, so every address reads the entry of
    its low k bits. Raises CfglutError: ``entries`` not 1, 2, 4, 8, 16 or 32, or ``init`` wider."""
    if entries not in (1, 2, 4, 8, 16, 32):
        raise CfglutError(f"a TLUT of {entries} entries cannot be a CFGLUT5 (at most 32, a power of two)")
    if isinstance(init, bool) or not isinstance(init, int) or not 0 <= init < 1 << entries:
        raise CfglutError(f"INIT {init!r} is not a {entries}-bit value")
    v = init
    while entries < INIT_BITS:
        v |= v << entries
        entries *= 2
    return v


@dataclass(frozen=True)
class Layout:
    """The CFGLUT5 chains of a ``cfglut5`` build (``cfglut.json``, format ``dcsflow-cfglut-layout 2``,
    docs/formats.md).

    Attributes:
        chains: per chain its element names, ``lut_0`` (fed by the loader's ``cdi[c]``) first: a
            template TLUT cell (a CFGLUT5) or a parameter-bit register of ``registers``.
        chain_luts: CHAIN_LUTS, the longest chain. build_id: the loader's ``BUILD_ID``.
        design_hash: the build's design hash.
        registers: ``(name, members)`` pairs: a parameter-bit register (module docstring) and its
            flip-flops, the template's parameter-bit cells, ``FF_0`` first (1 to 32 of them).
    """

    chains: tuple
    chain_luts: int
    build_id: int
    design_hash: str
    registers: tuple = ()

    @property
    def n_chains(self) -> int:
        """C, the number of chains (the loader's ``CHAINS``)."""
        return len(self.chains)

    @property
    def words(self) -> int:
        """G * S, the chain words of one load."""
        return word_count(len(self.chains), self.chain_luts)

    @property
    def shift_cycles(self) -> int:
        """S = 32 * CHAIN_LUTS."""
        return shift_cycles(self.chain_luts)

    @property
    def stride_log2(self) -> int:
        """The loader's STRIDE_LOG2 (register 0x14)."""
        return stride_log2(self.chain_luts)

    @property
    def addr_width(self) -> int:
        """The loader's ``ADDR_WIDTH`` in a build of this layout (:func:`addr_width`)."""
        return addr_width(len(self.chains), self.chain_luts)

    @property
    def register_map(self) -> dict:
        """Parameter-bit register name -> its members (tuple of cell names, ``FF_0`` first)."""
        return dict(self.registers)

    @property
    def cfglut5s(self) -> list:
        """The chained elements that are CFGLUT5s (not registers), in chain order."""
        regs = self.register_map
        return [n for c in self.chains for n in c if n not in regs]

    @property
    def param_bits(self) -> int:
        """Flip-flops of the parameter-bit registers."""
        return sum(len(m) for _, m in self.registers)

    def cells(self) -> list:
        """Every template cell the chains load: CFGLUT5s and register members, in chain order."""
        regs = self.register_map
        return [m for c in self.chains for n in c for m in regs.get(n, (n,))]

    def bit_sources(self, entries: Mapping[str, Sequence[int]]) -> dict:
        """Element name -> its 32 bit sources, bit b the index of the PPC output that bit b of the
        element's INIT takes (None: constant 0): a CFGLUT5 of n entries has entry ``b mod n`` there
        (:func:`cfglut_init`), a register member b's only entry (bits beyond its members: None).

        Raises:
            CfglutError: an element or member without entries, a register member with more than one.
        """
        regs = self.register_map
        out = {}
        for chain in self.chains:
            for name in chain:
                if name in regs:
                    src: list = [None] * INIT_BITS
                    for b, m in enumerate(regs[name]):
                        e = entries.get(m)
                        if e is None or len(e) != 1:
                            raise CfglutError(f"parameter bit {m!r} of register {name!r} is no one-entry TLUT of the build")
                        src[b] = e[0]
                    out[name] = src
                else:
                    e = entries.get(name)
                    if not e:
                        raise CfglutError(f"CFGLUT5 {name!r} is in a chain but the build has no TLUT of that name")
                    out[name] = [e[b % len(e)] for b in range(INIT_BITS)]
        return out

    def to_json_obj(self) -> dict:
        """The ``cfglut.json`` document."""
        return {"format": LAYOUT_FORMAT, "version": LAYOUT_VERSION, "design_hash": self.design_hash,
                "build_id": self.build_id, "chain_luts": self.chain_luts, "chains": [list(c) for c in self.chains],
                "registers": {n: list(m) for n, m in self.registers}}

    def words_for(self, inits: Mapping[str, int], entries: Mapping[str, int]) -> list[int]:
        """The chain words (:func:`chain_words`) loading the TLUT INITs ``inits`` (cell -> INIT of
        ``entries[cell]`` bits, as :func:`dcsflow.scg.ppc.tlut_inits` gives them; a parameter bit's
        INIT is its one bit).

        Raises:
            CfglutError: a chained cell or register member without INIT or entry count, an INIT too
                wide, a register member of more than one entry.
        """
        regs = self.register_map
        full = {}
        for chain in self.chains:
            for name in chain:
                for m in regs.get(name, (name,)):
                    if m not in inits or m not in entries:
                        raise CfglutError(f"CFGLUT5 {m!r} is in a chain but the build has no TLUT of that name")
                if name in regs:
                    v = 0
                    for b, m in enumerate(regs[name]):
                        if entries[m] != 1:
                            raise CfglutError(f"parameter bit {m!r} of register {name!r} has {entries[m]} entries, not 1")
                        v |= (cfglut_init(inits[m], 1) & 1) << b
                    full[name] = v
                else:
                    full[name] = cfglut_init(inits[name], entries[name])
        return chain_words(self.chains, full)


def _check_registers(chains: Sequence[Sequence[str]], registers) -> tuple:
    """``registers`` (mapping or pairs name -> members) as sorted-by-chain pairs; refuse a register
    in no chain or in a chain's middle with fewer than 32 members, no or more than 32 members, a
    member twice or also a chain element, a non-string name. Raises CfglutError."""
    items = list(registers.items()) if isinstance(registers, Mapping) else list(registers or ())
    where = {n: (c, j, len(ch)) for c, ch in enumerate(chains) for j, n in enumerate(ch)}
    seen: set = set()
    out = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise CfglutError("registers: name -> list of parameter-bit cell names expected")
        name, members = item
        if not isinstance(name, str) or isinstance(members, (str, bytes)) or not isinstance(members, Sequence):
            raise CfglutError(f"register {name!r}: a list of parameter-bit cell names expected")
        if not 1 <= len(members) <= INIT_BITS:
            raise CfglutError(f"register {name!r}: {len(members)} bits, 1 to {INIT_BITS} expected")
        if name not in where:
            raise CfglutError(f"register {name!r} is in no chain")
        c, j, n = where[name]
        if len(members) < INIT_BITS and j != n - 1:
            raise CfglutError(f"register {name!r} has {len(members)} bits but is not the last element of chain {c}: "
                              f"a shorter register would shift the rest of the chain out of place")
        for m in members:
            if not isinstance(m, str) or m in seen or m in where:
                raise CfglutError(f"register {name!r}: member {m!r} is not a name, or named twice")
            seen.add(m)
        out.append((name, tuple(members)))
    return tuple(out)


def make_layout(chains: Sequence[Sequence[str]], design_hash: str, registers=()) -> Layout:
    """A :class:`Layout` of ``chains`` for the build of ``design_hash``; ``registers``: parameter-bit
    register name -> members (a mapping or pairs).

    Raises:
        CfglutError: a bad chain list (:func:`chain_luts`), design hash or register.
    """
    n = chain_luts(chains)
    return Layout(tuple(tuple(c) for c in chains), n, build_id_of(design_hash), design_hash,
                  _check_registers(chains, registers))


def layout_from_json(doc, where: str = "cfglut.json") -> Layout:
    """The :class:`Layout` of a ``cfglut.json`` document (dict), version 1 (no registers) or 2.

    Raises:
        CfglutError: another format or version, a bad chain list or register, a chain_luts or
            build_id that does not match the chains and the design hash.
    """
    if not isinstance(doc, dict) or doc.get("format") != LAYOUT_FORMAT or doc.get("version") not in (1, LAYOUT_VERSION):
        raise CfglutError(f"{where}: not a {LAYOUT_FORMAT} version 1 or {LAYOUT_VERSION} document")
    regs = doc.get("registers", {}) if doc.get("version") == LAYOUT_VERSION else {}
    try:
        if not isinstance(regs, dict):
            raise CfglutError("registers: an object expected")
        lay = make_layout(doc.get("chains"), doc.get("design_hash"), regs)
    except CfglutError as e:
        raise CfglutError(f"{where}: {e}") from None
    if doc.get("chain_luts") != lay.chain_luts or doc.get("build_id") != lay.build_id:
        raise CfglutError(f"{where}: chain_luts or build_id does not match its chains and design hash")
    return lay


# ---- words file ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WordsFile:
    """A words file's contents (format ``dcsflow-cfglut-words 1``).

    Attributes:
        chains: C, the number of chains (the loader's ``CHAINS``).
        chain_luts: L, the longest chain's CFGLUT5s (``CHAIN_LUTS``).
        build_id: the 32-bit build id (the loader's ``BUILD_ID``) the words belong to.
        words: G*S chain words in word order.
    """

    chains: int
    chain_luts: int
    build_id: int
    words: list


_HEADER = re.compile(rf"# {WORDS_MAGIC} (\d+) chains=(\d+) chain_luts=(\d+) build=([0-9a-fA-F]{{1,8}})")
_WORD = re.compile(r"[0-9a-fA-F]{8}")


def _check_counts(n_chains: int, n_chain_luts: int, build_id: int) -> None:
    if not 1 <= n_chains <= MAX_CHAINS or not 1 <= n_chain_luts <= MAX_CHAIN_LUTS:
        raise CfglutError(f"chains={n_chains} chain_luts={n_chain_luts}: 1..{MAX_CHAINS} each expected")
    if isinstance(build_id, bool) or not isinstance(build_id, int) or not 0 <= build_id <= _MASK32:
        raise CfglutError(f"build id {build_id!r} is not a 32-bit value")


def format_words_file(words: Sequence[int], n_chains: int, n_chain_luts: int, build_id: int) -> str:
    """The text of a words file: the header line, then one 8-hex-digit word per line (lower case).

    Raises:
        CfglutError: counts out of range, a build id or word that is not a 32-bit value, a words
            list of another length than G*S.
    """
    _check_counts(n_chains, n_chain_luts, build_id)
    _check_words(words, n_chains, n_chain_luts, "words")
    head = f"# {WORDS_MAGIC} {WORDS_VERSION} chains={n_chains} chain_luts={n_chain_luts} build={build_id:08x}"
    return "\n".join([head, *(f"{w:08x}" for w in words)]) + "\n"


def write_words_file(path: str | os.PathLike, words: Sequence[int], n_chains: int, n_chain_luts: int,
                     build_id: int) -> None:
    """Write a words file atomically (temporary file beside ``path``, renamed when complete) with
    owner-only permissions (0600): the words are the specialized configuration.

    Raises:
        CfglutError: as :func:`format_words_file` (nothing is written).
        dcsflow.fileio.OutputError: the destination cannot be written.
    """
    write_text_atomic(path, format_words_file(words, n_chains, n_chain_luts, build_id), private=True)


def parse_words_file(text: str, name: str = "<words>", *, build_id: int | None = None,
                     n_chains: int | None = None, n_chain_luts: int | None = None) -> WordsFile:
    """Parse the text of a words file; ``name`` is the file name in messages.

    Args:
        build_id, n_chains, n_chain_luts: when given, the header must state these values (the
            loader's ``BUILD_ID``, ``CHAINS``, ``CHAIN_LUTS``).
    Raises:
        CfglutError: one line ``NAME:LINE: reason``: not a words file, another version, counts out
            of range, a line that is not 8 hex digits, another number of words than G*S, another
            build id or chain layout than expected.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    m = _HEADER.fullmatch(lines[0].rstrip()) if lines else None
    if not m:
        raise CfglutError(f"{name}:1: not a {WORDS_MAGIC} file (header "
                          f"'# {WORDS_MAGIC} {WORDS_VERSION} chains=C chain_luts=L build=HEX')")
    if int(m.group(1)) != WORDS_VERSION:
        raise CfglutError(f"{name}:1: {WORDS_MAGIC} version {m.group(1)} not supported (this reader: {WORDS_VERSION})")
    c, ln, bid = int(m.group(2)), int(m.group(3)), int(m.group(4), 16)
    if not 1 <= c <= MAX_CHAINS or not 1 <= ln <= MAX_CHAIN_LUTS:
        raise CfglutError(f"{name}:1: chains={c} chain_luts={ln} out of range (1..{MAX_CHAINS} each)")
    if build_id is not None and bid != build_id:
        raise CfglutError(f"{name}:1: words of build {bid:08x}, this loader is build {build_id:08x}")
    if (n_chains is not None and c != n_chains) or (n_chain_luts is not None and ln != n_chain_luts):
        raise CfglutError(f"{name}:1: words for chains={c} chain_luts={ln}, this loader has "
                          f"chains={n_chains if n_chains is not None else c} "
                          f"chain_luts={n_chain_luts if n_chain_luts is not None else ln}")
    n = word_count(c, ln)
    words = []
    for i, raw in enumerate(lines[1:], start=2):
        t = raw.rstrip("\r \t")
        if not _WORD.fullmatch(t):
            raise CfglutError(f"{name}:{i}: bad line {t[:40]!r} (one word of 8 hex digits per line expected)")
        words.append(int(t, 16))
    if len(words) != n:
        raise CfglutError(f"{name}: {len(words)} words, the header's chains={c} chain_luts={ln} need {n}")
    return WordsFile(c, ln, bid, words)


def read_words_file(path: str | os.PathLike, *, build_id: int | None = None, n_chains: int | None = None,
                    n_chain_luts: int | None = None) -> WordsFile:
    """Read a words file (:func:`parse_words_file` on the text of ``path``).

    Raises:
        CfglutError: as :func:`parse_words_file`, or the file is not UTF-8 text.
        dcsflow.fileio.InputError: not a regular file or larger than the text limit.
        OSError: the file cannot be read.
    """
    try:
        text = read_input_text(path, what="CFGLUT5 words file")
    except UnicodeDecodeError:
        raise CfglutError(f"{path}: not a {WORDS_MAGIC} file (not UTF-8 text)") from None
    return parse_words_file(text, str(path), build_id=build_id, n_chains=n_chains, n_chain_luts=n_chain_luts)
