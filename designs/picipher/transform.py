"""The π-Cipher ``_cis`` designs' parameter transform as a program of the SCG's transform language
(:mod:`dcsflow.scg.transform`): ``key_mn`` (Key‖PMN) -> ``cis_param`` (CIS, counter and tag
accumulator after initialization and the empty-AD step), what
:func:`dcsflow.designs.picipher.design.cis_transform` and ``wide_cis_transform`` (the golden model,
:meth:`dcsflow.designs.picipher.model.PiCipher.cis_parameters`) compute, in the form every SCG runs —
the runtime's interpreter and the firmware's generated C.

Words of ω bits on the 32-bit machine: π16 words in the low half of a word (sums and rotations
masked to 16 bits), π32 words as they are, π64 words as (low, high) pairs (the carry of a sum from a
branch-free unsigned comparison). The permutation π is a subroutine (its three rounds a loop over
the round-constant table) called four times: initialization, the empty-AD block's two, the CIS
update. Only constants and loop counters choose addresses; there is no branch.
"""

from __future__ import annotations

from functools import lru_cache

from dcsflow.scg.transform import Builder, Program

from .model import cipher

_M32 = 0xFFFFFFFF


class _Words:
    """Arithmetic on ω-bit words (module docstring): a word is an address (ω 16, 32) or a pair of
    addresses (ω 64)."""

    def __init__(self, b: Builder, bits: int):
        self.b, self.bits = b, bits

    def sum(self, *xs):
        """The sum of the words ``xs`` mod 2^ω."""
        b = self.b
        if self.bits == 64:
            acc = xs[0]
            for x in xs[1:]:
                acc = b.add64(acc, x)
            return acc
        acc = xs[0]
        for x in xs[1:]:
            acc = b.add(acc, x)
        return b.andi(acc, 0xFFFF) if self.bits == 16 else acc

    def xor(self, *xs):
        """The XOR of the words ``xs``."""
        b = self.b
        if self.bits == 64:
            lo, hi = xs[0]
            for x in xs[1:]:
                lo, hi = b.xor(lo, x[0]), b.xor(hi, x[1])
            return lo, hi
        acc = xs[0]
        for x in xs[1:]:
            acc = b.xor(acc, x)
        return acc

    def rotl(self, x, r: int):
        """``x`` rotated left by the constant ``r``."""
        b = self.b
        if self.bits == 64:
            return b.rotl64(x[0], x[1], r)
        if self.bits == 32:
            return b.rotl(x, r)
        return b.andi(b.or_(b.shl(x, r), b.shr(x, 16 - r)), 0xFFFF)

    def load(self, table: int, k: int, rnd, stride: int):
        """Word ``k`` of the round-constant row of round ``rnd`` (``stride`` words per row)."""
        b = self.b
        if self.bits == 64:
            return b.load(table, b.at(2 * k, rnd, stride)), b.load(table, b.at(2 * k + 1, rnd, stride))
        return b.load(table, b.at(k, rnd, stride))

    def const(self, v: int):
        """The constant ``v``."""
        return (self.b.const(v & _M32), self.b.const(v >> 32)) if self.bits == 64 else self.b.const(v)

    def mov(self, x, out):
        """Copy the word ``x`` into the word ``out``."""
        if self.bits == 64:
            self.b.mov(x[0], out=out[0])
            self.b.mov(x[1], out=out[1])
        else:
            self.b.mov(x, out=out)

    def xor_into(self, out, x):
        """``out ^= x``."""
        if self.bits == 64:
            self.b.xor(out[0], x[0], out=out[0])
            self.b.xor(out[1], x[1], out=out[1])
        else:
            self.b.xor(out, x, out=out)


def _star(w: _Words, pc, x, y):
    """X * Y = σ(μ(X), ν(Y)) of π-Cipher v2 on two chunks of 4 ω-bit words (the model's ``star``)."""
    mc, nc = [w.const(c) for c in pc.mu_const], [w.const(c) for c in pc.nu_const]
    mr, nr = pc.mu_rot, pc.nu_rot
    x0, x1, x2, x3 = x
    y0, y1, y2, y3 = y
    a = [w.rotl(w.sum(mc[0], x0, x1, x2), mr[0]), w.rotl(w.sum(mc[1], x0, x1, x3), mr[1]),
         w.rotl(w.sum(mc[2], x0, x2, x3), mr[2]), w.rotl(w.sum(mc[3], x1, x2, x3), mr[3])]
    e = [w.rotl(w.sum(nc[0], y0, y2, y3), nr[0]), w.rotl(w.sum(nc[1], y1, y2, y3), nr[1]),
         w.rotl(w.sum(nc[2], y0, y1, y2), nr[2]), w.rotl(w.sum(nc[3], y0, y1, y3), nr[3])]
    return (w.sum(w.xor(a[0], a[1], a[2]), w.xor(e[0], e[2], e[3])),
            w.sum(w.xor(a[1], a[2], a[3]), w.xor(e[0], e[1], e[3])),
            w.sum(w.xor(a[0], a[2], a[3]), w.xor(e[0], e[1], e[2])),
            w.sum(w.xor(a[0], a[1], a[3]), w.xor(e[1], e[2], e[3])))


def _pi(w: _Words, pc, state: list) -> int:
    """Subroutine: π (3 rounds, each J0 = C1*IS0 .. J3 = J2*IS3, K3 = J3*C2 .. K0 = J0*K1) on the
    16 words ``state`` in place; returns the subroutine's number."""
    b = w.b
    n = 2 if w.bits == 64 else 1
    rows = b.table([v for row in pc.rc for c in row for v in ((c & _M32, c >> 32) if n == 2 else (c,))])
    with b.subroutine() as k:
        with b.loop(len(pc.rc)) as rnd:
            c1 = [w.load(rows, i, rnd, 8 * n) for i in range(4)]
            c2 = [w.load(rows, 4 + i, rnd, 8 * n) for i in range(4)]
            s = state
            j0 = _star(w, pc, c1, s[0:4])
            j1 = _star(w, pc, j0, s[4:8])
            j2 = _star(w, pc, j1, s[8:12])
            j3 = _star(w, pc, j2, s[12:16])
            k3 = _star(w, pc, j3, c2)
            k2 = _star(w, pc, j2, k3)
            k1 = _star(w, pc, j1, k2)
            k0 = _star(w, pc, j0, k1)
            for i, v in enumerate(k0 + k1 + k2 + k3):
                w.mov(v, state[i])
    return k


def _bswap(b: Builder, x: int) -> int:
    """The bytes of a word in reverse order."""
    return b.or_(b.andi(b.rotl(x, 8), 0x00FF00FF), b.andi(b.rotl(x, 24), 0xFF00FF00))


@lru_cache(maxsize=3)
def cis_program(word_bits: int = 16) -> Program:
    """The program of the ``_cis`` designs' transform for π``word_bits``-Cipher: ``key_mn`` (Key‖PMN
    as one value, key byte 0 in the most significant bits; 128 bits for π16 with its 96-bit key,
    256 for π32/π64) -> ``cis_param`` (24ω + 64 bits, layout of
    :meth:`dcsflow.designs.picipher.model.CisParameters.as_int`). No check: every value is a key."""
    pc = cipher(word_bits)
    nbytes = pc.key_bytes[0] + pc.pmn_bytes          # Key ‖ PMN of the design's (shortest) key
    b = Builder({"key_mn": 8 * nbytes}, {"cis_param": 24 * word_bits + 64})
    w = _Words(b, word_bits)
    src = b.input("key_mn")

    def region(n):
        words = b.words(n * (2 if word_bits == 64 else 1))
        return [(words[2 * i], words[2 * i + 1]) for i in range(n)] if word_bits == 64 else words

    st, cis, tag = region(16), region(16), region(8)
    # Key ‖ PMN ‖ 0x01 ‖ zeros, little-endian per word: 32-bit chunk c = bytes 4c..4c+3
    chunks = [_bswap(b, src[nbytes // 4 - 1 - c]) for c in range(nbytes // 4)]
    chunks.append(b.const(1))
    flat = st if word_bits != 64 else [a for pair in st for a in pair]
    for c in range(len(flat) if word_bits != 16 else len(flat) // 2):
        v = chunks[c] if c < len(chunks) else b.const(0)
        if word_bits == 16:
            b.andi(v, 0xFFFF, out=flat[2 * c])
            b.shr(v, 16, out=flat[2 * c + 1])
        else:
            b.mov(v, out=flat[c])
    pi = _pi(w, pc, st)
    b.call(pi)                                       # initialization: CIS = π(Key ‖ PMN ‖ 1 ‖ 0...)
    for i in range(16):
        w.mov(st[i], cis[i])
    # ctr0: the 64 bits of W4.. (64/ω words); the empty-AD block uses ctr0 + 1, which stays
    if word_bits == 16:
        ctr = (b.or_(cis[4], b.shl(cis[5], 16)), b.or_(cis[6], b.shl(cis[7], 16)))
    elif word_bits == 32:
        ctr = (cis[4], cis[5])
    else:
        ctr = cis[4]
    ctr = b.add64(ctr, (b.const(1), b.const(0)))
    for i in range(16):                              # π(CIS ⊕ ctr)
        w.mov(cis[i], st[i])
    if word_bits == 16:
        for i, v in enumerate((b.andi(ctr[0], 0xFFFF), b.shr(ctr[0], 16), b.andi(ctr[1], 0xFFFF), b.shr(ctr[1], 16))):
            w.xor_into(st[i], v)
    elif word_bits == 32:
        w.xor_into(st[0], ctr[0])
        w.xor_into(st[1], ctr[1])
    else:
        w.xor_into(st[0], ctr)
    b.call(pi)
    w.xor_into(st[0], w.const(1))                    # rate ^= the padding block 01 00 ...
    b.call(pi)
    rate = [0, 1, 2, 3, 8, 9, 10, 11]
    for j, i in enumerate(rate):                     # T = 0 + rate words
        w.mov(st[i], tag[j])
    for i in range(16):                              # CIS = π(CIS with its rate ^= T)
        w.mov(cis[i], st[i])
    for j, i in enumerate(rate):
        w.xor_into(st[i], tag[j])
    b.call(pi)
    out = b.output("cis_param")
    if word_bits == 16:
        vals = [b.or_(st[2 * k], b.shl(st[2 * k + 1], 16)) for k in range(8)] + list(ctr) \
            + [b.or_(tag[2 * k], b.shl(tag[2 * k + 1], 16)) for k in range(4)]
    elif word_bits == 32:
        vals = list(st) + list(ctr) + list(tag)
    else:
        vals = [a for pair in st for a in pair] + list(ctr) + [a for pair in tag for a in pair]
    for o, v in zip(out, vals):
        b.mov(v, out=o)
    return b.program()
