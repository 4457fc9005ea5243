"""Golden model of the hash function BMW-512 (Blue Midnight Wish, SHA-3 round 2 tweaked version).

Written from the specification: D. Gligoroski, V. Klima, S. J. Knapskog, M. El-Hadedy, J. Amundsen,
S. F. Mjolsnes, "Cryptographic Hash Function BLUE MIDNIGHT WISH", SHA-3 round 2 submission with the
tweak of 15 September 2009 (tweaked f0 and f1, final compression with CONST_final). The specification
PDF was not in the reference material available here; its formulas were read in the designers'
reference C code of that version, ``crypto_hash/bmw512/ref/BlueMidnightWish.c`` in floodyberry/supercop
(commit 3a8acbab, "Programmed by Danilo Gligoroski, August 2009": ``Compression512``, ``expand64_1``,
``expand64_2``, ``Final``), and cross-checked against sphlib 3.0's ``src/c/bmw.c`` in coruus/sphlib
(commit 28d35ec: ``IV512``, ``sb0..sb5``, ``rb1..rb7``, ``Kb``, ``add_elt_b``, ``FOLD``, ``final_b``,
``bmw64_close``). No code was copied; the tables below are written in this module's own form. The
oracle is the KAT file ``vectors/ShortMsgKAT_BMW512.txt`` (tests/test_bmw512.py: all 256 records).
Standard library only.

Conventions:
    * a *word* is an int 0 .. 2**64 - 1; all arithmetic is modulo 2**64;
    * ``H`` (the double pipe / chaining value) and ``M`` (a message block) are sequences of 16 words;
    * ``Q`` is the 32-word quadruple pipe: Q[0..15] from f0, Q[16..31] from f1;
    * bytes <-> words are little-endian: word k of a block = int.from_bytes(block[8k:8k+8], "little");
    * a block is 128 bytes (1024 bits); the digest is 64 bytes (512 bits).

Structure of one compression H' = compress(H, M) (ExpandRounds1 = 2, ExpandRounds2 = 14):
    f0: W_i = sum over 5 words of +-(M_j xor H_j) (:data:`F0_TERMS`); Q_i = s_{i mod 5}(W_i) + H_{i+1 mod 16}
    f1: Q_i = expand1(i) for i = 16, 17; expand2(i) for i = 18..31; both end with AddElement(i - 16)
    f2: XL = Q16 xor .. xor Q23, XH = XL xor Q24 xor .. xor Q31, then the 16 new words (:func:`f2`).
The hash: H = IV512; compress every block of :func:`pad` (msg); then the final compression
H_final = compress(CONST_FINAL, H) (the chaining value plays the message); digest = words 8..15 of
H_final, little-endian.
"""

from __future__ import annotations

from collections.abc import Sequence

MASK64 = (1 << 64) - 1
#: Words in H, M and the output of f2; words in Q.
WORDS = 16
Q_WORDS = 32
#: Block size in bytes (1024 bits) and digest size in bytes (512 bits).
BLOCK_BYTES = 128
DIGEST_BYTES = 64
#: Number of f1 rounds using expand1 and expand2 (SHA-3 round 2 values for BMW-512).
EXPAND_ROUNDS1 = 2
EXPAND_ROUNDS2 = 14

#: Initial double pipe of BMW-512, H_0..H_15: byte values 0x80..0xFF, word j = bytes 0x80+8j .. 0x87+8j
#: read big-endian as written in the specification (reference C ``i512p2``; sphlib ``IV512``).
IV512 = tuple(int.from_bytes(bytes(range(0x80 + 8 * j, 0x88 + 8 * j)), "big") for j in range(WORDS))

#: CONST_final of the tweaked version: 0xaaaaaaaaaaaaaaa0 + j for j = 0..15 (reference C
#: ``CONST64final``; sphlib ``final_b``). It is the chaining value of the final compression.
CONST_FINAL = tuple(0xAAAAAAAAAAAAAAA0 + j for j in range(WORDS))

#: K_j = j * 0x0555555555555555 mod 2**64 for j = 16..31 (reference C ``i*(0x0555555555555555ull)``;
#: sphlib ``Kb(j)``); K[j - 16] is K_j, added in AddElement(j - 16) of Q_j.
K = tuple((j * 0x0555555555555555) & MASK64 for j in range(16, 32))

#: f0's W_i as five (index j, sign) terms of (M_j xor H_j): W_i = sum(sign * (M_j ^ H_j)) mod 2**64
#: (reference C ``Compression512``, "function f0"; sphlib ``Wb0..Wb15``). The first term is always +.
F0_TERMS = (
    ((5, +1), (7, -1), (10, +1), (13, +1), (14, +1)),
    ((6, +1), (8, -1), (11, +1), (14, +1), (15, -1)),
    ((0, +1), (7, +1), (9, +1), (12, -1), (15, +1)),
    ((0, +1), (1, -1), (8, +1), (10, -1), (13, +1)),
    ((1, +1), (2, +1), (9, +1), (11, -1), (14, -1)),
    ((3, +1), (2, -1), (10, +1), (12, -1), (15, +1)),
    ((4, +1), (0, -1), (3, -1), (11, -1), (13, +1)),
    ((1, +1), (4, -1), (5, -1), (12, -1), (14, -1)),
    ((2, +1), (5, -1), (6, -1), (13, +1), (15, -1)),
    ((0, +1), (3, -1), (6, +1), (7, -1), (14, +1)),
    ((8, +1), (1, -1), (4, -1), (7, -1), (15, +1)),
    ((8, +1), (0, -1), (2, -1), (5, -1), (9, +1)),
    ((1, +1), (3, +1), (6, -1), (9, -1), (10, +1)),
    ((2, +1), (4, +1), (7, +1), (10, +1), (11, +1)),
    ((3, +1), (5, -1), (8, +1), (11, -1), (12, -1)),
    ((12, +1), (4, -1), (6, -1), (9, -1), (13, +1)),
)

#: s_0..s_3 as (right shift, left shift, rotation 1, rotation 2): s(x) = x>>a ^ x<<b ^ rotl(x,c) ^ rotl(x,d)
#: (reference C ``s64_0..s64_3``; sphlib ``sb0..sb3``). s_4(x) = x>>1 ^ x, s_5(x) = x>>2 ^ x.
S_PARAMS = ((1, 3, 4, 37), (1, 2, 13, 43), (2, 1, 19, 53), (2, 2, 28, 59))
#: Rotation amounts of r_1..r_7: r_k(x) = rotl(x, R_AMOUNTS[k - 1]) (reference C ``r64_01..r64_07``;
#: sphlib ``rb1..rb7``).
R_AMOUNTS = (5, 11, 27, 32, 37, 43, 53)

#: f2, words 0..7: (shift of XH, shift of Q[16+i]); positive = left, negative = right, 0 = none
#: (reference C ``Compression512``, "function f_2"; sphlib ``FOLD``).
F2_LOW_SHIFTS = ((5, -5), (-7, 8), (-5, 5), (-1, 5), (-3, 0), (6, -6), (-4, 6), (-11, 2))
#: f2, words 8..15: shift of XL (positive = left, negative = right).
F2_HIGH_XL_SHIFTS = (8, -6, 6, 4, -3, -4, -7, -2)


class _Plain:
    """The word operations of the model (mod 2**64)."""

    @staticmethod
    def add(a, b):
        return (a + b) & MASK64

    @staticmethod
    def sub(a, b):
        return (a - b) & MASK64

    @staticmethod
    def xor(a, b):
        return a ^ b

    @staticmethod
    def rotl(x, n):
        return ((x << n) | (x >> (64 - n))) & MASK64

    @staticmethod
    def shl(x, n):
        return (x << n) & MASK64

    @staticmethod
    def shr(x, n):
        return x >> n


_PLAIN = _Plain()


class OpCounter:
    """Word operations that count themselves: ``counts`` maps "add", "sub", "xor", "rot", "shl",
    "shr" to the number of 64-bit operations performed (used by :func:`operation_counts`)."""

    KINDS = ("add", "sub", "xor", "rot", "shl", "shr")

    def __init__(self):
        self.counts = dict.fromkeys(self.KINDS, 0)

    def add(self, a, b):
        self.counts["add"] += 1
        return _Plain.add(a, b)

    def sub(self, a, b):
        self.counts["sub"] += 1
        return _Plain.sub(a, b)

    def xor(self, a, b):
        self.counts["xor"] += 1
        return a ^ b

    def rotl(self, x, n):
        self.counts["rot"] += 1
        return _Plain.rotl(x, n)

    def shl(self, x, n):
        self.counts["shl"] += 1
        return _Plain.shl(x, n)

    def shr(self, x, n):
        self.counts["shr"] += 1
        return x >> n


# ----------------------------------------------------------------------------------------------------
# s_0..s_5, r_1..r_7


def _s(i, x, o):
    if i < 4:
        a, b, c, d = S_PARAMS[i]
        return o.xor(o.xor(o.xor(o.shr(x, a), o.shl(x, b)), o.rotl(x, c)), o.rotl(x, d))
    return o.xor(o.shr(x, i - 3), x)  # s_4: x>>1 ^ x, s_5: x>>2 ^ x


def _check_word(x, what="word") -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{what} must be an int 0..2**64-1, got {type(x).__name__}")
    if not 0 <= x <= MASK64:
        raise ValueError(f"{what} must be in 0..2**64-1, got {x:#x}")
    return x


def s(i: int, x: int) -> int:
    """The bijective function s_i of BMW-512, i = 0..5, on one 64-bit word (see :data:`S_PARAMS`).

    Raises:
        ValueError: i not in 0..5 or x out of range; TypeError: x not an int.
    """
    if i not in range(6):
        raise ValueError(f"s_i exists for i = 0..5, got {i!r}")
    return _s(i, _check_word(x), _PLAIN)


def r(k: int, x: int) -> int:
    """The rotation r_k of BMW-512, k = 1..7: rotl(x, R_AMOUNTS[k - 1]) on one 64-bit word.

    Raises:
        ValueError: k not in 1..7 or x out of range; TypeError: x not an int.
    """
    if k not in range(1, 8):
        raise ValueError(f"r_k exists for k = 1..7, got {k!r}")
    return _PLAIN.rotl(_check_word(x), R_AMOUNTS[k - 1])


def rotl64(x: int, n: int) -> int:
    """Rotate the 64-bit word x left by n bits (0 < n < 64)."""
    if not 0 < n < 64:
        raise ValueError(f"rotation amount must be 1..63, got {n!r}")
    return _PLAIN.rotl(_check_word(x), n)


# ----------------------------------------------------------------------------------------------------
# f0, f1, f2


def _words(v, what: str, n: int = WORDS) -> tuple[int, ...]:
    if isinstance(v, (str, bytes, bytearray)) or not isinstance(v, Sequence):
        raise TypeError(f"{what} must be a sequence of {n} 64-bit words (ints), got {type(v).__name__}")
    if len(v) != n:
        raise ValueError(f"{what} must have {n} 64-bit words, got {len(v)}")
    return tuple(_check_word(x, f"{what}[{k}]") for k, x in enumerate(v))


def _f0(H, M, o, trace=None):
    t = [o.xor(M[j], H[j]) for j in range(WORDS)]
    Q = []
    for i, terms in enumerate(F0_TERMS):
        w = t[terms[0][0]]
        for j, sign in terms[1:]:
            w = o.add(w, t[j]) if sign > 0 else o.sub(w, t[j])
        if trace is not None:
            trace.append((f"W{i}", w))
        Q.append(o.add(_s(i % 5, w, o), H[(i + 1) % WORDS]))
    return Q


def _f1(H, M, Qa, o):
    Q = list(Qa)
    mrot = [o.rotl(M[j], j + 1) for j in range(WORDS)]  # rotl(M_j, j + 1), each used 3 times
    for i in range(16, 32):
        j = i - 16
        a = o.add(o.sub(o.add(mrot[j], mrot[(j + 3) % WORDS]), mrot[(j + 10) % WORDS]), K[j])
        add_element = o.xor(a, H[(j + 7) % WORDS])
        if j < EXPAND_ROUNDS1:      # expand1: s_1, s_2, s_3, s_0, s_1, ... of Q[i-16] .. Q[i-1]
            acc = _s(1, Q[i - 16], o)
            for k in range(1, 16):
                acc = o.add(acc, _s((k + 1) % 4, Q[i - 16 + k], o))
        else:                       # expand2: Q, r_1(Q), Q, r_2(Q), ..., r_7(Q), s_4(Q[i-2]), s_5(Q[i-1])
            acc = Q[i - 16]
            for k in range(1, 14):
                x = Q[i - 16 + k]
                acc = o.add(acc, o.rotl(x, R_AMOUNTS[k // 2]) if k % 2 else x)
            acc = o.add(acc, _s(4, Q[i - 2], o))
            acc = o.add(acc, _s(5, Q[i - 1], o))
        Q.append(o.add(acc, add_element))
    return Q[16:]


def _shift(x, n, o):
    return o.shl(x, n) if n > 0 else o.shr(x, -n) if n < 0 else x


def _f2(M, Q, o, trace=None):
    xl = Q[16]
    for k in range(17, 24):
        xl = o.xor(xl, Q[k])
    xh = xl
    for k in range(24, 32):
        xh = o.xor(xh, Q[k])
    if trace is not None:
        trace += [("XL", xl), ("XH", xh)]
    out = []
    for i, (a, b) in enumerate(F2_LOW_SHIFTS):
        left = o.xor(o.xor(_shift(xh, a, o), _shift(Q[16 + i], b, o)), M[i])
        out.append(o.add(left, o.xor(o.xor(xl, Q[24 + i]), Q[i])))
    for i in range(8, 16):
        y = o.rotl(out[(i - 4) % 8], i + 1)
        mid = o.xor(o.xor(xh, Q[i + 16]), M[i])
        right = o.xor(o.xor(_shift(xl, F2_HIGH_XL_SHIFTS[i - 8], o), Q[16 + (i + 7) % 8]), Q[i])
        out.append(o.add(o.add(y, mid), right))
    if trace is not None:
        trace += [(f"H'{i}", w) for i, w in enumerate(out)]
    return tuple(out)


def f0(H: Sequence[int], M: Sequence[int]) -> tuple[int, ...]:
    """f0 (tweaked): the first 16 words of the quadruple pipe, Q[0..15].

    W_i = sum of +-(M_j xor H_j) over :data:`F0_TERMS` [i]; Q_i = s_{i mod 5}(W_i) + H_{(i+1) mod 16}.

    Args:
        H: double pipe, 16 words of 64 bits. M: message block, 16 words of 64 bits.
    Returns:
        Q[0..15], 16 words.
    Raises:
        TypeError, ValueError: H or M not 16 ints in 0..2**64-1.
    """
    return tuple(_f0(_words(H, "H"), _words(M, "M"), _PLAIN))


def f1(H: Sequence[int], M: Sequence[int], Qa: Sequence[int]) -> tuple[int, ...]:
    """f1 (tweaked message expansion): Q[16..31] from Qa = Q[0..15] (the output of :func:`f0`).

    Q_i = expand1(i) for i = 16, 17 (EXPAND_ROUNDS1 = 2), expand2(i) for i = 18..31 (EXPAND_ROUNDS2 = 14):
    expand1(i) = sum of s_1, s_2, s_3, s_0 (repeating) of Q_{i-16} .. Q_{i-1} + AddElement(i - 16);
    expand2(i) = Q_{i-16} + r_1(Q_{i-15}) + Q_{i-14} + r_2(Q_{i-13}) + ... + Q_{i-4} + r_7(Q_{i-3})
    + s_4(Q_{i-2}) + s_5(Q_{i-1}) + AddElement(i - 16);
    AddElement(j) = (rotl(M_j, j+1) + rotl(M_{j+3}, j+4) - rotl(M_{j+10}, j+11) + K_{j+16}) xor H_{j+7},
    indices mod 16 and rotation amounts ((index mod 16) + 1).

    Args:
        H, M: 16 words each (64-bit). Qa: Q[0..15], 16 words.
    Returns:
        Q[16..31], 16 words.
    Raises:
        TypeError, ValueError: an argument is not 16 ints in 0..2**64-1.
    """
    return tuple(_f1(_words(H, "H"), _words(M, "M"), _words(Qa, "Qa"), _PLAIN))


def f2(M: Sequence[int], Q: Sequence[int]) -> tuple[int, ...]:
    """f2 (folding): the new double pipe H' (16 words) from the message block and Q[0..31].

    XL = Q16 xor ... xor Q23, XH = XL xor Q24 xor ... xor Q31;
    H'_i = (shift(XH) xor shift(Q_{16+i}) xor M_i) + (XL xor Q_{24+i} xor Q_i) for i = 0..7
    (shifts in :data:`F2_LOW_SHIFTS`);
    H'_i = rotl(H'_{(i-4) mod 8}, i+1) + (XH xor Q_{i+16} xor M_i) + (shift(XL) xor Q_{16+(i+7) mod 8} xor Q_i)
    for i = 8..15 (shifts in :data:`F2_HIGH_XL_SHIFTS`).

    Args:
        M: message block, 16 words. Q: the quadruple pipe, 32 words (f0 then f1).
    Returns:
        H', 16 words.
    Raises:
        TypeError, ValueError: M not 16 or Q not 32 ints in 0..2**64-1.
    """
    return _f2(_words(M, "M"), _words(Q, "Q", Q_WORDS), _PLAIN)


def compress(H: Sequence[int], M: Sequence[int]) -> tuple[int, ...]:
    """The BMW-512 compression function: H' = f2(M, f0(H, M) ‖ f1(H, M, f0(H, M))).

    Args:
        H: double pipe (chaining value), 16 words of 64 bits.
        M: message block, 16 words of 64 bits (block bytes 8k..8k+7, little-endian, are word k;
           see :func:`block_words`).
    Returns:
        H', 16 words of 64 bits.
    Raises:
        TypeError, ValueError: H or M not 16 ints in 0..2**64-1.
    """
    return _compress(_words(H, "H"), _words(M, "M"), _PLAIN)


def _compress(H, M, o):
    Qa = _f0(H, M, o)
    return _f2(M, Qa + _f1(H, M, Qa, o), o)


def compress_trace(H: Sequence[int], M: Sequence[int]) -> list[tuple[str, int]]:
    """Every intermediate word of one compression, in computation order, for debugging a program.

    Returns:
        A list of (name, 64-bit word): "W0".."W15" (f0's sums, before s_i), "Q0".."Q31" (Q[0..15] from
        f0, Q[16..31] from f1), "XL", "XH", then "H'0".."H'15" (the output of f2). The last 16 values are
        ``compress(H, M)``, the last one is H'_15.
    Raises:
        TypeError, ValueError: H or M not 16 ints in 0..2**64-1.
    """
    H, M = _words(H, "H"), _words(M, "M")
    trace: list[tuple[str, int]] = []
    Qa = _f0(H, M, _PLAIN, trace)
    Q = Qa + _f1(H, M, Qa, _PLAIN)
    trace += [(f"Q{i}", q) for i, q in enumerate(Q)]
    _f2(M, Q, _PLAIN, trace)
    return trace


# ----------------------------------------------------------------------------------------------------
# bytes, padding, the hash


def _check_bytes(msg, what="message") -> bytes:
    if not isinstance(msg, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes (or bytearray/memoryview), got {type(msg).__name__}")
    return bytes(msg)


def block_words(block: bytes) -> tuple[int, ...]:
    """A 128-byte block as 16 little-endian 64-bit words (word k = bytes 8k..8k+7).

    Raises:
        TypeError: not bytes-like; ValueError: not 128 bytes.
    """
    block = _check_bytes(block, "block")
    if len(block) != BLOCK_BYTES:
        raise ValueError(f"a block is {BLOCK_BYTES} bytes (1024 bits), got {len(block)} bytes")
    return tuple(int.from_bytes(block[8 * k:8 * k + 8], "little") for k in range(WORDS))


def words_bytes(words: Sequence[int]) -> bytes:
    """Words (64-bit) to little-endian bytes, 8 per word (inverse of :func:`block_words`)."""
    return b"".join(_check_word(w).to_bytes(8, "little") for w in words)


def pad(msg: bytes) -> bytes:
    """BMW-512 padding of a byte-aligned message: msg ‖ 0x80 ‖ zeros ‖ bit length (64-bit LE).

    The 0x80 byte is the bit '1' right after the last message bit; zeros fill up to 8 bytes before a
    block boundary; the last 8 bytes are the message length in bits mod 2**64, little-endian
    (reference C ``Final``; sphlib ``bmw64_close``). A tail of 120..127 bytes needs a second block.

    Args:
        msg: the message, any number of bytes.
    Returns:
        the padded message, a multiple of 128 bytes (1024 bits), at least one block.
    Raises:
        TypeError: msg not bytes-like.
    """
    msg = _check_bytes(msg)
    zeros = (BLOCK_BYTES - 8 - (len(msg) + 1)) % BLOCK_BYTES
    return msg + b"\x80" + bytes(zeros) + ((8 * len(msg)) & MASK64).to_bytes(8, "little")


def final(H: Sequence[int]) -> tuple[int, ...]:
    """The final compression of the tweaked version: compress(CONST_FINAL, H), H as the message.

    Args:
        H: double pipe after the last padded block, 16 words.
    Returns:
        16 words; the digest is words 8..15 (:func:`bmw512`).
    """
    return compress(CONST_FINAL, H)


def bmw512(msg: bytes) -> bytes:
    """BMW-512 of a byte string (SHA-3 round 2 tweaked version).

    Args:
        msg: the message (bytes, bytearray or memoryview), any length in whole bytes.
    Returns:
        the 64-byte (512-bit) digest: words 8..15 of the final compression, little-endian.
    Raises:
        TypeError: msg not bytes-like (e.g. a str).
    """
    data = pad(msg)
    H = IV512
    for off in range(0, len(data), BLOCK_BYTES):
        H = _compress(H, block_words(data[off:off + BLOCK_BYTES]), _PLAIN)
    return words_bytes(_compress(CONST_FINAL, H, _PLAIN)[8:])


def operation_counts(H: Sequence[int] = IV512, M: Sequence[int] = tuple(range(WORDS))) -> dict:
    """64-bit operations of one compression, counted by running the model with :class:`OpCounter`.

    The counts do not depend on the values (the model has no data-dependent control flow); the
    arguments exist only to run it. Shared subterms are computed once, as the model does: the 16
    M_j xor H_j of f0, the 16 rotl(M_j, j + 1) of AddElement; shifts by 0 are not operations.

    Returns:
        {"f0": counts, "f1": counts, "f2": counts, "total": counts}; counts maps "add", "sub", "xor",
        "rot", "shl", "shr" to numbers of operations, plus "all" (their sum).
    """
    H, M = _words(H, "H"), _words(M, "M")
    c0, c1, c2 = OpCounter(), OpCounter(), OpCounter()
    Qa = _f0(H, M, c0)
    Qb = _f1(H, M, Qa, c1)
    out = _f2(M, Qa + Qb, c2)
    if out != compress(H, M):  # the counting run must compute the same function
        raise RuntimeError("counting run differs from the model")
    res = {}
    for name, c in (("f0", c0), ("f1", c1), ("f2", c2)):
        res[name] = dict(c.counts, all=sum(c.counts.values()))
    res["total"] = {k: sum(res[f][k] for f in ("f0", "f1", "f2")) for k in (*OpCounter.KINDS, "all")}
    return res
