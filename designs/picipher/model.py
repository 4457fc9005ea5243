"""Golden model of π-Cipher v2 at every word size: π16, π32 and π64 (R = 3 rounds).

One algorithm, parametrized by the word size ω (:class:`PiCipher`); the module-level functions and
constants are the π16 instance (:data:`PI16`), the API the π16 designs use. Standard library only.
It reproduces every record of the official vector files: ``pi16cipher096v2_4``, ``pi16cipher128v2_4``
(11,250 records), ``pi32cipher128v2_16`` / ``pi32cipher256v2_16`` (873 each) and
``pi64cipher128v2_16`` / ``pi64cipher256v2_16`` (1,737 each; the π32/π64 files are the sections with
an empty AD or an empty message, ``shared/SOURCES.md``).

Sources of the facts (π16: ``shared/vectors/picipher/PI16CIPHER.md``; all sizes: the v2 reference by
D. Otte, repository nerilex/pi-cipher-ref, and the v2 CAESAR document "π-Cipher v2.0",
12.10.2015):
    * word sizes, tag size ``PI_TAG_BITS`` = 8ω, μ/ν constants and rotation amounts
      (``PI_MU_CONST``, ``PI_MU_ROT_CONST``, ``PI_NY_CONST``, ``PI_NY_ROT_CONST``) and the round
      constants (``PI_CONST``, rows C1, C2 of rounds 0..2): the reference's parameter headers
      ``pi16_parameter.h``, ``pi32_parameter.h`` and ``pi64_parameter.h`` (commit a7aa1c6 for π64).
      Every constant of every size is a window of one cyclic byte sequence, the 70 bytes of Hamming
      weight 4 in decreasing order F0 E8 E4 … 17 0F (μ from byte 0, ν from byte ω/2, the round
      constants from byte ω), which ``tests/test_picipher_model.py`` checks;
    * the algorithm (``pi-cipher.c``/``pi-cipher.h`` at commit 5429da4, folder ``gcc_vector``, the
      code that generated the π32/π64 files): state 16 words = 4 chunks of 4 words, rate = chunks 0
      and 2 (8 words, ``PI_RATE_BITS`` = half the state), SMN and every block one rate (8ω bits);
      ``PI_INIT`` loads Key ‖ PMN ‖ 0x01 ‖ zeros (16ω/8 bytes) little-endian per word, applies π and
      takes the 64-bit counter from chunk 1, word i at bits [iω, iω+ω) (``ctr_trans`` XORs it back
      into chunk 0 the same way: 4 words for π16, 2 for π32, 1 for π64);
    * key and PMN sizes of the official variants: π16 96/128-bit key with a 32-bit PMN, π32 and π64
      128/256-bit key with a 128-bit PMN (the vector files' headers and records).

Conventions (ω = word size in bits, B = ω/8 bytes per word):
    * a *word* is an int 0..2^ω-1; a *chunk* is a 4-tuple of words; a *state* is a 16-tuple of
      words W0..W15 (chunks IS0 = W0..W3, IS1 = W4..W7, IS2 = W8..W11, IS3 = W12..W15);
    * bytes ↔ words are little-endian: word k = bytes[kB .. kB+B) read little-endian;
    * the rate is W0..W3 (bytes 0..4B-1 of a block) and W8..W11 (bytes 4B..8B-1): 16/32/64 bytes;
    * the tag accumulator T is an 8-tuple of words (T[j] belongs to rate word j); tag = 8B bytes.

The building blocks the flow needs to compute parameter-derived values are public:
:func:`star`, :func:`pi`, :func:`initialize`, :func:`empty_ad_step`, :func:`process_ad`,
:func:`cis_parameters` (and the same methods of :class:`PiCipher` for π32/π64).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import AuthenticationError, InputError

MASK16 = 0xFFFF
MASK64 = (1 << 64) - 1

#: Word sizes ω of the π-Cipher family, in bits.
WORD_BITS = (16, 32, 64)
#: Number of rounds of π in v2 (``PI_ROUNDS``), every word size.
ROUNDS = 3

#: μ constants per word size (``PI_MU_CONST`` of the reference's parameter headers).
MU_CONST = {
    16: (0xF0E8, 0xE4E2, 0xE1D8, 0xD4D2),
    32: (0xF0E8E4E2, 0xE1D8D4D2, 0xD1CCCAC9, 0xC6C5C3B8),
    64: (0xF0E8E4E2E1D8D4D2, 0xD1CCCAC9C6C5C3B8, 0xB4B2B1ACAAA9A6A5, 0xA39C9A999695938E),
}
#: μ rotation amounts (``PI_MU_ROT_CONST``).
MU_ROT = {16: (1, 4, 9, 11), 32: (5, 11, 17, 23), 64: (7, 19, 31, 53)}
#: ν constants (``PI_NY_CONST``).
NU_CONST = {
    16: (0xD1CC, 0xCAC9, 0xC6C5, 0xC3B8),
    32: (0xB4B2B1AC, 0xAAA9A6A5, 0xA39C9A99, 0x9695938E),
    64: (0x8D8B87787472716C, 0x6A696665635C5A59, 0x5655534E4D4B473C, 0x3A393635332E2D2B),
}
#: ν rotation amounts (``PI_NY_ROT_CONST``).
NU_ROT = {16: (2, 5, 7, 13), 32: (3, 10, 19, 29), 64: (11, 23, 37, 59)}
#: Round constants per word size, rows r0..r2: row r = C1 (4 words) then C2 (4 words) (``PI_CONST``;
#: π16: PI16CIPHER.md).
ROUND_CONST = {
    16: (
        (0xB4B2, 0xB1AC, 0xAAA9, 0xA6A5, 0xA39C, 0x9A99, 0x9695, 0x938E),
        (0x8D8B, 0x8778, 0x7472, 0x716C, 0x6A69, 0x6665, 0x635C, 0x5A59),
        (0x5655, 0x534E, 0x4D4B, 0x473C, 0x3A39, 0x3635, 0x332E, 0x2D2B),
    ),
    32: (
        (0x8D8B8778, 0x7472716C, 0x6A696665, 0x635C5A59, 0x5655534E, 0x4D4B473C, 0x3A393635, 0x332E2D2B),
        (0x271E1D1B, 0x170FF0E8, 0xE4E2E1D8, 0xD4D2D1CC, 0xCAC9C6C5, 0xC3B8B4B2, 0xB1ACAAA9, 0xA6A5A39C),
        (0x9A999695, 0x938E8D8B, 0x87787472, 0x716C6A69, 0x6665635C, 0x5A595655, 0x534E4D4B, 0x473C3A39),
    ),
    64: (
        (0x271E1D1B170FF0E8, 0xE4E2E1D8D4D2D1CC, 0xCAC9C6C5C3B8B4B2, 0xB1ACAAA9A6A5A39C,
         0x9A999695938E8D8B, 0x87787472716C6A69, 0x6665635C5A595655, 0x534E4D4B473C3A39),
        (0x3635332E2D2B271E, 0x1D1B170FF0E8E4E2, 0xE1D8D4D2D1CCCAC9, 0xC6C5C3B8B4B2B1AC,
         0xAAA9A6A5A39C9A99, 0x9695938E8D8B8778, 0x7472716C6A696665, 0x635C5A595655534E),
        (0x4D4B473C3A393635, 0x332E2D2B271E1D1B, 0x170FF0E8E4E2E1D8, 0xD4D2D1CCCAC9C6C5,
         0xC3B8B4B2B1ACAAA9, 0xA6A5A39C9A999695, 0x938E8D8B87787472, 0x716C6A696665635C),
    ),
}
#: Key sizes in bytes of the official variants per word size.
KEY_SIZES = {16: (12, 16), 32: (16, 32), 64: (16, 32)}
#: PMN ("NPUB") size in bytes per word size.
PMN_SIZES = {16: 4, 32: 16, 64: 16}

ZERO_TAG = (0,) * 8


def _ct_equal(a: bytes, b: bytes) -> bool:
    diff = len(a) ^ len(b)
    for x, y in zip(a, b):
        diff |= x ^ y
    return diff == 0


def _sizes_text(sizes) -> str:
    return " or ".join(f"{n} bytes ({8 * n} bits)" for n in sizes)


@dataclass(frozen=True)
class CisParameters:
    """Parameter-derived values of the ``picipher_cis_mp`` variant (state after init + empty-AD step).

    Attributes:
        cis: 16 words W0..W15 of the common internal state after the empty-AD step.
        ctr: 64-bit counter after the empty-AD step (ctr0 + 1); message block j uses ctr + j.
        tag: 8-word tag accumulator after the empty-AD step.
        word_bits: ω, the word size (16 unless given).
    """

    cis: tuple[int, ...]
    ctr: int
    tag: tuple[int, ...]
    word_bits: int = 16

    @property
    def bits(self) -> int:
        """Width of the ``cis_param`` value: 16ω + 64 + 8ω (448 for π16, 832 for π32, 1600 for π64)."""
        return 24 * self.word_bits + 64

    def as_int(self) -> int:
        """The value of the ``cis_param`` port (π16: 448 bits): bits [16ω-1:0] = CIS, W_n at
        [ωn+ω-1:ωn]; [16ω+63:16ω] = ctr; then T[j] at [16ω+64+ωj+ω-1 : 16ω+64+ωj]."""
        w = self.word_bits
        v = 0
        for n, x in enumerate(self.cis):
            v |= x << (w * n)
        v |= self.ctr << (16 * w)
        for j, t in enumerate(self.tag):
            v |= t << (16 * w + 64 + w * j)
        return v


class PiCipher:
    """π-Cipher v2 with ω-bit words (ω = 16, 32 or 64), R = 3 rounds.

    Sizes (attributes, in bytes): ``key_bytes`` (the official key sizes), ``pmn_bytes``,
    ``block_bytes`` = ``smn_bytes`` = ``tag_bytes`` = 8ω/8 (one rate: 16/32/64), ``state_bytes`` =
    16ω/8. Constants: ``mu_const``, ``mu_rot``, ``nu_const``, ``nu_rot``, ``rc`` (module docstring
    for their sources). Instances are immutable; :func:`cipher` returns the shared one per size.

    Raises:
        InputError: ``word_bits`` not 16, 32 or 64.
    """

    def __init__(self, word_bits: int):
        if word_bits not in WORD_BITS:
            raise InputError(f"word size must be 16, 32 or 64 bits, got {word_bits!r}")
        w = self.word_bits = word_bits
        self.word_bytes = w // 8
        self.mask = (1 << w) - 1
        self.name = f"π{w}-Cipher"
        self.mu_const, self.mu_rot = MU_CONST[w], MU_ROT[w]
        self.nu_const, self.nu_rot = NU_CONST[w], NU_ROT[w]
        self.rc = ROUND_CONST[w]
        self.key_bytes = KEY_SIZES[w]
        self.pmn_bytes = PMN_SIZES[w]
        self.block_bytes = self.smn_bytes = self.tag_bytes = 8 * self.word_bytes
        self.state_bytes = 16 * self.word_bytes
        self.ctr_words = 64 // w
        self._star = self._make_star()

    def __repr__(self) -> str:
        return f"PiCipher({self.word_bits})"

    # ----------------------------------------------------------------------------- the permutation
    def _make_star(self):
        w, m = self.word_bits, self.mask
        mc0, mc1, mc2, mc3 = self.mu_const
        mr0, mr1, mr2, mr3 = self.mu_rot
        nc0, nc1, nc2, nc3 = self.nu_const
        nr0, nr1, nr2, nr3 = self.nu_rot

        def star(x, y):
            x0, x1, x2, x3 = x
            y0, y1, y2, y3 = y
            t = (mc0 + x0 + x1 + x2) & m
            a0 = ((t << mr0) | (t >> (w - mr0))) & m
            t = (mc1 + x0 + x1 + x3) & m
            a1 = ((t << mr1) | (t >> (w - mr1))) & m
            t = (mc2 + x0 + x2 + x3) & m
            a2 = ((t << mr2) | (t >> (w - mr2))) & m
            t = (mc3 + x1 + x2 + x3) & m
            a3 = ((t << mr3) | (t >> (w - mr3))) & m
            t = (nc0 + y0 + y2 + y3) & m
            e0 = ((t << nr0) | (t >> (w - nr0))) & m
            t = (nc1 + y1 + y2 + y3) & m
            e1 = ((t << nr1) | (t >> (w - nr1))) & m
            t = (nc2 + y0 + y1 + y2) & m
            e2 = ((t << nr2) | (t >> (w - nr2))) & m
            t = (nc3 + y0 + y1 + y3) & m
            e3 = ((t << nr3) | (t >> (w - nr3))) & m
            # σ(μ, ν) = (b1+f1, b2+f2, b3+f3, b0+f0), b = μ output, f = ν output
            return (((a0 ^ a1 ^ a2) + (e0 ^ e2 ^ e3)) & m, ((a1 ^ a2 ^ a3) + (e0 ^ e1 ^ e3)) & m,
                    ((a0 ^ a2 ^ a3) + (e0 ^ e1 ^ e2)) & m, ((a0 ^ a1 ^ a3) + (e1 ^ e2 ^ e3)) & m)

        return star

    def _rotl(self, x: int, r: int) -> int:
        return ((x << r) | (x >> (self.word_bits - r))) & self.mask

    def mu(self, x: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """The μ transform of a chunk (4 words → 4 words): a_i = ROTL(c_i + the sum of three of the
        words, r_i) (a0 leaves out x3, a1 x2, a2 x1, a3 x0); b = (a0^a1^a3, a0^a1^a2, a1^a2^a3,
        a0^a2^a3) (PI16CIPHER.md "The * operation"; ``mu``/``phi`` of ``pi-cipher.c``)."""
        x0, x1, x2, x3 = x
        c, r, m = self.mu_const, self.mu_rot, self.mask
        a0 = self._rotl((c[0] + x0 + x1 + x2) & m, r[0])
        a1 = self._rotl((c[1] + x0 + x1 + x3) & m, r[1])
        a2 = self._rotl((c[2] + x0 + x2 + x3) & m, r[2])
        a3 = self._rotl((c[3] + x1 + x2 + x3) & m, r[3])
        return (a0 ^ a1 ^ a3, a0 ^ a1 ^ a2, a1 ^ a2 ^ a3, a0 ^ a2 ^ a3)

    def nu(self, y: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """The ν transform of a chunk (4 words → 4 words): e_i = ROTL(c_i + three words, r_i)
        (e0 leaves out y1, e1 y0, e2 y3, e3 y2); f = (e1^e2^e3, e0^e2^e3, e0^e1^e3, e0^e1^e2)."""
        y0, y1, y2, y3 = y
        c, r, m = self.nu_const, self.nu_rot, self.mask
        e0 = self._rotl((c[0] + y0 + y2 + y3) & m, r[0])
        e1 = self._rotl((c[1] + y1 + y2 + y3) & m, r[1])
        e2 = self._rotl((c[2] + y0 + y1 + y2) & m, r[2])
        e3 = self._rotl((c[3] + y0 + y1 + y3) & m, r[3])
        return (e1 ^ e2 ^ e3, e0 ^ e2 ^ e3, e0 ^ e1 ^ e3, e0 ^ e1 ^ e2)

    def star(self, x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The ARX operation X * Y = σ(μ(X), ν(Y)) on two chunks of 4 words; σ(b, f) = (b1+f1,
        b2+f2, b3+f3, b0+f0), additions mod 2^ω."""
        return self._star(tuple(x), tuple(y))

    def pi(self, state: tuple[int, ...]) -> tuple[int, ...]:
        """The permutation π (R = 3 rounds, 24 * operations) on a 16-word state; returns 16 words.

        Round r: J0 = C1*IS0, J1 = J0*IS1, J2 = J1*IS2, J3 = J2*IS3; K3 = J3*C2, K2 = J2*K3,
        K1 = J1*K2, K0 = J0*K1; new state (K0, K1, K2, K3).

        Raises:
            ValueError: the state is not 16 words.
        """
        if len(state) != 16:
            raise ValueError("pi() needs a state of 16 words")
        star = self._star
        s = tuple(state)
        for row in self.rc:
            c1, c2 = row[:4], row[4:]
            j0 = star(c1, s[0:4])
            j1 = star(j0, s[4:8])
            j2 = star(j1, s[8:12])
            j3 = star(j2, s[12:16])
            k3 = star(j3, c2)
            k2 = star(j2, k3)
            k1 = star(j1, k2)
            k0 = star(j0, k1)
            s = k0 + k1 + k2 + k3
        return s

    # ------------------------------------------------------------------------------ bytes and words
    def bytes_to_words(self, b: bytes) -> tuple[int, ...]:
        """Little-endian bytes (a multiple of ω/8) → words."""
        n = self.word_bytes
        return tuple(int.from_bytes(b[n * k:n * k + n], "little") for k in range(len(b) // n))

    def words_to_bytes(self, w) -> bytes:
        """Words → little-endian bytes (inverse of :meth:`bytes_to_words`)."""
        n = self.word_bytes
        return b"".join(int(x).to_bytes(n, "little") for x in w)

    def rate_bytes(self, state: tuple[int, ...]) -> bytes:
        """The rate bytes of a state (one block, 8ω/8 bytes): W0..W3 then W8..W11."""
        return self.words_to_bytes(state[0:4] + state[8:12])

    def with_rate(self, state: tuple[int, ...], block: bytes) -> tuple[int, ...]:
        """The state with its rate replaced by a block of :attr:`block_bytes` bytes."""
        w = self.bytes_to_words(block)
        return w[0:4] + tuple(state[4:8]) + w[4:8] + tuple(state[12:16])

    def pad_block(self, data: bytes) -> bytes:
        """v2 padding of a final block of 0..block_bytes-1 bytes: data, 0x01, zeros.

        Raises:
            ValueError: a full block or more.
        """
        if len(data) >= self.block_bytes:
            raise ValueError(f"pad_block() takes 0..{self.block_bytes - 1} bytes")
        return data + b"\x01" + bytes(self.block_bytes - 1 - len(data))

    def split_blocks(self, data: bytes) -> list[bytes]:
        """Split data into v2 blocks: full blocks, then one padded final block (always present)."""
        bb = self.block_bytes
        n = len(data) // bb
        blocks = [data[bb * i:bb * (i + 1)] for i in range(n)]
        blocks.append(self.pad_block(data[bb * n:]))
        return blocks

    # ----------------------------------------------------------------------------- the mode
    def check_key_pmn(self, key: bytes, pmn: bytes) -> None:
        """Check the key and PMN sizes for this word size (π16: key 12 or 16 bytes, PMN 4 bytes;
        π32/π64: key 16 or 32 bytes, PMN 16 bytes).

        Raises:
            InputError: wrong type or length; the message names the expected size.
        """
        sizes = " or ".join(map(str, self.key_bytes))
        if not isinstance(key, (bytes, bytearray)):
            raise InputError(f"key must be bytes ({sizes} bytes), got {type(key).__name__}")
        if len(key) not in self.key_bytes:
            raise InputError(f"{self.name} key must be {_sizes_text(self.key_bytes)}, got {len(key)} bytes")
        if not isinstance(pmn, (bytes, bytearray)) or len(pmn) != self.pmn_bytes:
            got = f"{len(pmn)} bytes" if isinstance(pmn, (bytes, bytearray)) else type(pmn).__name__
            raise InputError(f"{self.name} PMN (nonce) must be {_sizes_text((self.pmn_bytes,))}, got {got}")

    def initial_state(self, key: bytes, pmn: bytes) -> tuple[int, ...]:
        """The 16-word state before initialization's π: Key ‖ PMN ‖ 0x01 ‖ zeros (16ω/8 bytes).

        Raises:
            InputError: wrong key/PMN size.
        """
        self.check_key_pmn(key, pmn)
        buf = bytes(key) + bytes(pmn) + b"\x01"
        buf += bytes(self.state_bytes - len(buf))
        return self.bytes_to_words(buf)

    def initialize(self, key: bytes, pmn: bytes) -> tuple[tuple[int, ...], int]:
        """Initialization: CIS = π(Key ‖ PMN ‖ 0x01 ‖ 0…); ctr0 = the 64 bits of chunk IS1 from W4
        up (W4 | W5<<ω | …, 64/ω words).

        Returns:
            (cis, ctr0): the 16-word common internal state and the 64-bit counter start value.
            The tag accumulator starts at zero (8 words).
        Raises:
            InputError: wrong key/PMN size (message names the expected size).
        """
        cis = self.pi(self.initial_state(key, pmn))
        w = self.word_bits
        ctr0 = 0
        for i in range(self.ctr_words):
            ctr0 |= cis[4 + i] << (w * i)
        return cis, ctr0

    def inject_counter(self, cis: tuple[int, ...], ctr: int) -> tuple[int, ...]:
        """CIS with W0.. XORed with the ω-bit words of the 64-bit counter, least significant first
        (64/ω words)."""
        ctr &= MASK64
        w, m, n = self.word_bits, self.mask, self.ctr_words
        return tuple(cis[k] ^ ((ctr >> (w * k)) & m) if k < n else cis[k] for k in range(16))

    def triplex(self, cis: tuple[int, ...], ctr: int, block: bytes, tag: tuple[int, ...],
                decrypt: bool = False, length: int | None = None):
        """One triplex call on a (padded) block of :attr:`block_bytes` bytes with counter ``ctr``.

        Encryption: S = π(CIS ⊕ ctr); rate(S) ^= block (the new rate is the ciphertext block);
        S = π(S); T[j] += rate word j. Decryption (``decrypt=True``, ``block`` = ciphertext padded
        to a block, ``length`` = number of real ciphertext bytes, default a whole block): the first
        ``length`` rate bytes become the ciphertext bytes, the rest stays keystream ⊕ padding (0x01
        at byte ``length``).

        Returns:
            (out, state, tag): ``out`` the block's output bytes (ciphertext, or plaintext when
            decrypting; only the first ``length`` are meaningful), the state after the second π,
            the new tag (8 words).
        """
        bb = self.block_bytes
        if length is None:
            length = bb
        s = self.pi(self.inject_counter(cis, ctr))
        ks = self.rate_bytes(s)
        if not decrypt:
            new_rate = bytes(a ^ b for a, b in zip(ks, block))
            out = new_rate
        else:
            out = bytes(a ^ b for a, b in zip(ks[:length], block[:length]))
            rest = bytearray(ks[length:])
            if length < bb:
                rest[0] ^= 0x01
            new_rate = bytes(block[:length]) + bytes(rest)
            out = out + bytes(bb - length)
        s = self.pi(self.with_rate(s, new_rate))
        r = s[0:4] + s[8:12]
        m = self.mask
        tag = tuple((t + x) & m for t, x in zip(tag, r))
        return out, s, tag

    def process_ad(self, cis: tuple[int, ...], ctr0: int, ad: bytes, tag: tuple[int, ...] = ZERO_TAG):
        """Associated-data processing: blocks i = 1..nAD (nAD = ⌊len/block⌋ + 1) with counter
        ctr0 + i, then ctr = ctr0 + nAD and CIS = π(CIS with its rate XORed with T). T is not reset.

        Returns:
            (cis', ctr, tag): the updated 16-word CIS, the 64-bit counter and the 8-word tag.
        """
        blocks = self.split_blocks(bytes(ad))
        for i, b in enumerate(blocks, start=1):
            _, _, tag = self.triplex(cis, ctr0 + i, b, tag)
        ctr = (ctr0 + len(blocks)) & MASK64
        rate = self.words_to_bytes(tag)
        cis = self.pi(self.with_rate(cis, bytes(a ^ b for a, b in zip(self.rate_bytes(cis), rate))))
        return cis, ctr, tag

    def empty_ad_step(self, cis: tuple[int, ...], ctr0: int):
        """The v2 empty-AD step: the padding block ``01 00…00`` with counter ctr0 + 1, then the CIS
        update. This is what the message processor (no AD in hardware) computes after initialization.

        Returns:
            (cis', ctr, tag): CIS after the update, ctr = ctr0 + 1, tag accumulator (8 words).
        """
        return self.process_ad(cis, ctr0, b"")

    def cis_parameters(self, key: bytes, pmn: bytes) -> CisParameters:
        """Initialization followed by the empty-AD step, for Key ‖ PMN.

        Raises:
            InputError: wrong key/PMN size.
        """
        cis, ctr0 = self.initialize(key, pmn)
        cis, ctr, tag = self.empty_ad_step(cis, ctr0)
        return CisParameters(cis, ctr, tag, self.word_bits)

    def _check_smn(self, smn) -> None:
        if smn is not None and (not isinstance(smn, (bytes, bytearray)) or len(smn) != self.smn_bytes):
            got = f"{len(smn)} bytes" if isinstance(smn, (bytes, bytearray)) else type(smn).__name__
            raise InputError(f"{self.name} SMN must be {_sizes_text((self.smn_bytes,))} or absent, got {got}")

    def _prologue(self, key, pmn, ad):
        cis, ctr0 = self.initialize(bytes(key) if isinstance(key, bytearray) else key,
                                    bytes(pmn) if isinstance(pmn, bytearray) else pmn)
        return self.process_ad(cis, ctr0, bytes(ad))

    def encrypt(self, key: bytes, pmn: bytes, msg: bytes, ad: bytes = b"", smn: bytes | None = None) -> bytes:
        """π-Cipher v2 authenticated encryption.

        Args:
            key: :attr:`key_bytes` (π16: 12 or 16; π32/π64: 16 or 32 bytes).
            pmn: public message number, :attr:`pmn_bytes` (4 or 16 bytes).
            msg: plaintext, any length. ad: associated data, any length.
            smn: secret message number, :attr:`smn_bytes` (16/32/64 bytes), or None.
        Returns:
            [C0 (encrypted SMN, one block) if smn] ‖ C (len(msg) bytes) ‖ tag (:attr:`tag_bytes`) —
            the official ``CIPHER`` field.
        Raises:
            InputError: wrong key / PMN / SMN size.
        """
        self._check_smn(smn)
        cis, ctr, tag = self._prologue(key, pmn, ad)
        out = b""
        if smn is not None:
            ctr = (ctr + 1) & MASK64
            c0, cis, tag = self.triplex(cis, ctr, bytes(smn), tag)
            out += c0
        msg = bytes(msg)
        bb = self.block_bytes
        for j, b in enumerate(self.split_blocks(msg), start=1):
            c, _, tag = self.triplex(cis, ctr + j, b, tag)
            out += c[:min(bb, len(msg) - bb * (j - 1))]
        return out + self.words_to_bytes(tag)

    def decrypt(self, key: bytes, pmn: bytes, cipher: bytes, ad: bytes = b"", with_smn: bool = False):
        """π-Cipher v2 authenticated decryption; releases nothing unless the tag is right.

        Args:
            key, pmn, ad: as for :meth:`encrypt`.
            cipher: the ``CIPHER`` field: [C0 (one block) if with_smn] ‖ C ‖ tag.
            with_smn: whether the ciphertext starts with an encrypted SMN.
        Returns:
            plaintext (bytes) if ``with_smn`` is False, else (smn, plaintext).
        Raises:
            InputError: wrong key/PMN size, or a ciphertext shorter than the tag (+ C0).
            AuthenticationError: the tag does not match (no plaintext is returned).
        """
        cipher = bytes(cipher)
        tb, bb = self.tag_bytes, self.block_bytes
        need = tb + (self.smn_bytes if with_smn else 0)
        if len(cipher) < need:
            raise InputError(f"ciphertext must be at least {need} bytes (tag{' + C0' if with_smn else ''}), "
                             f"got {len(cipher)}")
        cis, ctr, tag = self._prologue(key, pmn, ad)
        pos = 0
        smn = None
        if with_smn:
            ctr = (ctr + 1) & MASK64
            smn, cis, tag = self.triplex(cis, ctr, cipher[:self.smn_bytes], tag, decrypt=True)
            pos = self.smn_bytes
        body, given = cipher[pos:-tb], cipher[-tb:]
        nfull = len(body) // bb
        plain = bytearray()
        for j in range(nfull + 1):
            chunk = body[bb * j:bb * (j + 1)]
            p, _, tag = self.triplex(cis, ctr + j + 1, chunk + bytes(bb - len(chunk)), tag,
                                     decrypt=True, length=len(chunk))
            plain += p[:len(chunk)]
        if not _ct_equal(self.words_to_bytes(tag), given):
            plain[:] = bytes(len(plain))
            raise AuthenticationError("tag mismatch: ciphertext or associated data not authentic; "
                                      "no plaintext released")
        return (smn, bytes(plain)) if with_smn else bytes(plain)


_CIPHERS: dict[int, PiCipher] = {}


def cipher(word_bits: int = 16) -> PiCipher:
    """The shared :class:`PiCipher` of a word size (16, 32 or 64).

    Raises:
        InputError: another word size.
    """
    c = _CIPHERS.get(word_bits)
    if c is None:
        c = _CIPHERS[word_bits] = PiCipher(word_bits)
    return c


# ------------------------------------------------------------------ π16: the module-level API
#: The π16-Cipher instance behind the module-level functions.
PI16 = cipher(16)
#: π32-Cipher and π64-Cipher.
PI32, PI64 = cipher(32), cipher(64)

#: Key sizes in bytes of the two official π16 variants (pi16cipher096v2, pi16cipher128v2).
KEY_BYTES = PI16.key_bytes
#: π16 public message number (PMN, "NPUB") size in bytes.
PMN_BYTES = PI16.pmn_bytes
#: π16 secret message number (SMN, "NSEC") size in bytes, when present.
SMN_BYTES = PI16.smn_bytes
#: π16 tag size in bytes.
TAG_BYTES = PI16.tag_bytes
#: π16 rate in bytes (one block).
BLOCK_BYTES = PI16.block_bytes
#: π16 round constants, rows r0..r2 (PI16CIPHER.md): row r = C1 (4 words) then C2 (4 words).
RC = ROUND_CONST[16]

mu = PI16.mu
nu = PI16.nu
star = PI16.star
pi = PI16.pi
bytes_to_words = PI16.bytes_to_words
words_to_bytes = PI16.words_to_bytes
rate_bytes = PI16.rate_bytes
with_rate = PI16.with_rate
pad_block = PI16.pad_block
split_blocks = PI16.split_blocks
check_key_pmn = PI16.check_key_pmn
initial_state = PI16.initial_state
initialize = PI16.initialize
inject_counter = PI16.inject_counter
process_ad = PI16.process_ad
empty_ad_step = PI16.empty_ad_step
cis_parameters = PI16.cis_parameters
encrypt = PI16.encrypt
decrypt = PI16.decrypt


def triplex(cis: tuple[int, ...], ctr: int, block: bytes, tag: tuple[int, ...],
            decrypt: bool = False, length: int = BLOCK_BYTES):
    """π16 :meth:`PiCipher.triplex` (a 16-byte block; ``length`` defaults to 16)."""
    return PI16.triplex(cis, ctr, block, tag, decrypt=decrypt, length=length)


def parse_hex(text: str, what: str, size: int | tuple[int, ...] | None = None) -> bytes:
    """Parse a hex string (whitespace ignored, optional 0x) into bytes, checking its size.

    Args:
        text: hex digits.
        what: name used in error messages (e.g. "key").
        size: expected length(s) in bytes, or None for any.
    Raises:
        InputError: not hex (the message gives the 1-based position of the first character that is
        not a hex digit, never the text: it may be a key), odd number of digits, or the wrong size
        (the message names the expected size).
    """
    t = "".join(str(text).split())
    if t[:2].lower() == "0x":
        t = t[2:]
    exp = _size_text(size)
    s = str(text)
    start = len(s) - len(s.lstrip())
    if s.lstrip()[:2].lower() == "0x":
        start += 2
    bad = next((i for i, c in enumerate(s[start:], start=start + 1) if not c.isspace()
                and c not in "0123456789abcdefABCDEF"), None)
    if bad is not None:
        raise InputError(f"{what} is not a hex string of whole bytes{exp}: not hex at character {bad}")
    if len(t) % 2:
        raise InputError(f"{what} is not a hex string of whole bytes{exp}: {len(t)} hex digits, an odd number")
    b = bytes.fromhex(t)
    if size is not None:
        sizes = (size,) if isinstance(size, int) else tuple(size)
        if len(b) not in sizes:
            raise InputError(f"{what} must be{_size_text(size, lead=False)}, got {len(b)} bytes")
    return b


def _size_text(size, lead=True) -> str:
    if size is None:
        return ""
    sizes = (size,) if isinstance(size, int) else tuple(size)
    s = " or ".join(f"{n} bytes ({2 * n} hex digits)" for n in sizes)
    return f" (expected {s})" if lead else f" {s}"
