"""The aes_modes design's parameter transform as a program of the SCG's transform language
(:mod:`dcsflow.scg.transform`): H = E_K(0^128) (NIST SP 800-38D §6.4), what
:func:`dcsflow.designs.aes_modes.design.hash_key_transform` (the golden model) computes, in the form
every SCG runs — the runtime's interpreter and the firmware's generated C — so that ``rekey`` on the
board needs only the key.

AES-128 (FIPS-197) bitsliced and constant time: bit plane j (one 32-bit word) holds bit j of 20
bytes at once, byte L in bit lane L — the 16 state bytes in lanes 0..15 (byte r + 4c of the state at
row r, column c) and the 4 bytes of the key schedule's SubWord(RotWord(w3)) in lanes 16..19, so one
S-box evaluation per round serves both. The S-box is arithmetic, never a table: the inverse in
GF(2^8) (modulus x^8 + x^4 + x^3 + x + 1) as x^254 — four bitsliced multiplications and seven
squarings (x^2, x^3, x^12, x^15, x^240, x^252, x^254) — then the affine map (FIPS-197 §5.1.1).
ShiftRows and MixColumns are lane rotations by constants, the round key is updated in its own
planes, and the ten rounds are one loop (the last one's MixColumns dropped by a mask from a table
read at the round index). Nothing the key sets chooses a branch or an address.
"""

from __future__ import annotations

from functools import lru_cache

from dcsflow.scg.transform import Builder, Program

from ..aes128.model import RCON

#: the circuit parameters the program computes (port -> width; the TLUT build's parameter inputs)
CIRCUIT_PARAMS = {"key": 128, "hkey": 128}
#: AES-128 rounds
ROUNDS = 10
#: lanes of the 16 state bytes
STATE_LANES = 0xFFFF


def gf_mul(b: Builder, x: list[int], y: list[int]) -> list[int]:
    """Product of two bitsliced GF(2^8) elements (8 planes each, plane j = coefficient of x^j):
    the schoolbook product of degree 14, then reduced by x^8 = x^4 + x^3 + x + 1."""
    p: list = [None] * 15
    for i in range(8):
        for j in range(8):
            t = b.and_(x[i], y[j])
            p[i + j] = t if p[i + j] is None else b.xor(p[i + j], t)
    return _reduce(b, p)


def gf_square(b: Builder, x: list[int]) -> list[int]:
    """Square of a bitsliced GF(2^8) element: linear, coefficient i moves to 2i, then reduced."""
    p: list = [None] * 15
    for i in range(8):
        p[2 * i] = x[i]
    return _reduce(b, p)


def _reduce(b: Builder, p: list) -> list[int]:
    """Planes 0..7 of the polynomial ``p`` (15 planes, None = 0) modulo x^8 + x^4 + x^3 + x + 1."""
    p = list(p)
    for k in range(14, 7, -1):
        if p[k] is None:
            continue
        for d in (8, 7, 5, 4):                       # x^k = x^(k-4) + x^(k-5) + x^(k-7) + x^(k-8)
            p[k - d] = p[k] if p[k - d] is None else b.xor(p[k - d], p[k])
    return [q if q is not None else b.const(0) for q in p[:8]]


def sbox(b: Builder, x: list[int]) -> list[int]:
    """The AES S-box on 8 bit planes: x^254 (the inverse, 0 for 0), then the affine map
    s_i = b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i with c = 0x63 (FIPS-197 §5.1.1)."""
    x2 = gf_square(b, x)
    x3 = gf_mul(b, x2, x)
    x12 = gf_square(b, gf_square(b, x3))
    x15 = gf_mul(b, x12, x3)
    x240 = x15
    for _ in range(4):
        x240 = gf_square(b, x240)
    inv = gf_mul(b, gf_mul(b, x240, x12), x2)
    out = []
    for i in range(8):
        t = inv[i]
        for d in (4, 5, 6, 7):
            t = b.xor(t, inv[(i + d) % 8])
        out.append(b.not_(t) if (0x63 >> i) & 1 else t)
    return out


def _rot_lanes(b: Builder, x: int, right: int, keep: int, width: int) -> int:
    """Lanes of ``x`` rotated right by ``right`` within groups of ``width`` lanes, masked by ``keep``:
    ``((x >> right) | (x << (width - right))) & keep`` (``x`` has no lanes above the groups)."""
    return b.andi(b.or_(b.shr(x, right), b.shl(x, width - right)), keep)


def shift_rows(b: Builder, x: int) -> int:
    """ShiftRows on one plane (FIPS-197 §5.1.2): row r (lanes r, r+4, r+8, r+12) rotated left by r
    columns, i.e. new lane r + 4c = old lane r + 4(c + r mod 4)."""
    x = b.andi(x, STATE_LANES)
    out = b.andi(x, 0x1111)
    for r in (1, 2, 3):
        out = b.or_(out, _rot_lanes(b, x, 4 * r, 0x1111 << r, 16))
    return out


def _up(b: Builder, x: int, n: int) -> int:
    """Each column's lanes rotated so that lane r + 4c reads row (r + n) mod 4 of column c."""
    lo = (0x1111 * ((1 << (4 - n)) - 1)) & 0xFFFF       # rows that read a row below them
    return b.or_(b.andi(b.shr(x, n), lo), b.andi(b.shl(x, 4 - n), STATE_LANES & ~lo))


def mix_columns(b: Builder, a: list[int]) -> list[int]:
    """MixColumns on 8 planes (FIPS-197 §5.1.3): b_r = 2·a_r ^ 3·a_(r+1) ^ a_(r+2) ^ a_(r+3)
    = 2·(a_r ^ a_(r+1)) ^ a_(r+1) ^ a_(r+2) ^ a_(r+3), rows within a column."""
    r1 = [_up(b, p, 1) for p in a]
    r2 = [_up(b, p, 2) for p in a]
    r3 = [_up(b, p, 3) for p in a]
    t = [b.xor(a[j], r1[j]) for j in range(8)]
    xt = [t[7], b.xor(t[0], t[7]), t[1], b.xor(t[2], t[7]), b.xor(t[3], t[7]), t[4], t[5], t[6]]
    return [b.xor(b.xor(xt[j], r1[j]), b.xor(r2[j], r3[j])) for j in range(8)]


def _to_planes(b: Builder, words: list[int], planes: list[int]) -> None:
    """The 16 bytes of a 128-bit port (byte i in bits [127 - 8i -: 8], FIPS-197 order byte 0 first)
    into 8 planes (byte i in lane i); a loop over the planes, the bytes shifted down one bit each."""
    src = b.words(4)
    for k in range(4):
        b.mov(words[k], out=src[k])
    with b.loop(8) as j:
        acc = None
        for i in range(16):
            w, pos = divmod(15 - i, 4)
            t = b.andi(b.shr(src[w], 8 * pos), 1)
            t = b.shl(t, i) if i else t
            acc = t if acc is None else b.or_(acc, t)
        b.mov(acc, out=b.at(planes[0], j))
        for k in range(4):
            b.shr(src[k], 1, out=src[k])


def _from_planes(b: Builder, planes: list[int], words: list[int]) -> None:
    """The inverse of :func:`_to_planes`: lanes 0..15 of 8 planes into the 16 bytes of a 128-bit
    port; a loop over the planes from 7 down to 0, the words shifted up one bit each."""
    with b.loop(8) as j:
        p = b.at(planes[7], j, -1)
        for k in range(4):
            acc = b.shl(words[k], 1)
            for pos in range(4):
                i = 15 - (4 * k + pos)
                t = b.andi(b.shr(p, i), 1) if i else b.andi(p, 1)
                acc = b.or_(acc, b.shl(t, 8 * pos) if pos else t)
            b.mov(acc, out=words[k])


@lru_cache(maxsize=1)
def hash_key_program() -> Program:
    """The program of :func:`dcsflow.designs.aes_modes.design.hash_key_transform`: ``key`` (128 bits,
    byte 0 in the MSBs) -> ``key`` and ``hkey`` = E_K(0^128) in the same byte order (module
    docstring). No check: every 128-bit key is a key."""
    b = Builder({"key": 128}, CIRCUIT_PARAMS, alias={"key": "key"})
    kp, sp = b.words(8), b.words(8)                  # round key planes, state planes
    _to_planes(b, b.input("key"), kp)
    for j in range(8):
        b.mov(kp[j], out=sp[j])                      # AddRoundKey(0^128, K)
    rcon = b.table(RCON[:ROUNDS])
    last = b.table([0] * (ROUNDS - 1) + [0xFFFFFFFF])
    with b.loop(ROUNDS) as rnd:
        # one S-box for SubBytes (lanes 0..15) and SubWord(RotWord(w3)) (lanes 16..19)
        ins = []
        for j in range(8):
            w3 = _rot_lanes(b, b.shr(kp[j], 12), 1, 0xF, 4)      # RotWord: lane q reads byte 12 + (q+1)%4
            ins.append(b.or_(b.andi(sp[j], STATE_LANES), b.shl(w3, 16)))
        sub = sbox(b, ins)
        rc = b.load(rcon, b.at(0, rnd))
        for j in range(8):                           # the next round key
            t = b.xor(b.andi(b.shr(sub[j], 16), 0xF), b.andi(b.shr(rc, j), 1))
            k = b.xor(kp[j], t)
            k = b.xor(k, b.shl(b.andi(k, 0xF), 4))
            k = b.xor(k, b.shl(b.andi(k, 0xF0), 4))
            b.xor(k, b.shl(b.andi(k, 0xF00), 4), out=kp[j])
        sr = [shift_rows(b, s) for s in sub]
        mc = mix_columns(b, sr)
        drop = b.load(last, b.at(0, rnd))            # the last round has no MixColumns
        for j in range(8):
            b.xor(b.sel(drop, sr[j], mc[j]), kp[j], out=sp[j])
    _from_planes(b, sp, b.output("hkey"))
    return b.program()
