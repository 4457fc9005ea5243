"""The keccak design's parameter transform as a program of the SCG's transform language
(:mod:`dcsflow.scg.transform`): what :func:`dcsflow.designs.keccak.design.key_state_transform` (the
golden model) computes, in the form every SCG runs — the runtime's interpreter and the firmware's
generated C — so that ``rekey`` on the board needs only the key.

- ``key_state``: the KMAC128 state after the two prefix blocks (SP 800-185 §3.3, §4.3):
  bytepad(encode_string("KMAC") || encode_string(S), 168), then bytepad(encode_string(K), 168),
  each XORed into the rate and followed by Keccak-f[1600] (FIPS 202 §3.3, §3.4). The encodings
  depend on the public lengths only: left_encode(8·len) is one byte for lengths below 32 and two
  from 32 on, so the string starts one byte later; both placements are computed and one chosen by a
  mask of the length. Keccak-f[1600] works on the lanes as pairs of 32-bit words (lane i = words
  2i, 2i+1 of the 200-byte state, FIPS 202 B.1 byte order), its 24 rounds a loop over the round
  constants.
- ``keyak_pack``: the Lake Keyak key pack (Keyak v1): 30, the key's first min(len, 28) bytes, 0x01,
  zeros; the 0x01 goes to the byte whose position equals 1 + min(len, 28), chosen by masks.
- Checks (the golden model's refusals): key_len above 32, custom_len above 157, bits set above a
  length.

No key bit steers a branch or an address: only the lengths steer masks.
"""

from __future__ import annotations

from functools import lru_cache

from dcsflow.scg.transform import Builder, Program

from .model import PI_SOURCE, RHO_OFFSETS, ROUND_CONSTANTS, SHAKE128_RATE
from .sim import KEYAK_PACK_BYTES, KEYAK_PACK_KEY, MAX_CUSTOM, MAX_KEY

#: the user parameters (``--param NAME=HEX``): port values, byte k of the key / customization
#: string in bits [8k +: 8], lengths in bytes (the design's ``ParamTransform.user_params``)
USER_PARAMS = {"key": 256, "key_len": 6, "custom": 1256, "custom_len": 8}
#: the circuit parameters the program computes (port -> width; the TLUT build's parameter inputs)
CIRCUIT_PARAMS = {"key": 256, "key_len": 6, "custom": 1256, "custom_len": 8, "key_state": 1600, "keyak_pack": 240}
#: 32-bit words of the rate (168 bytes)
RATE_WORDS = SHAKE128_RATE // 4
_M32 = 0xFFFFFFFF


def keccak_f(b: Builder, st: list[int]) -> None:
    """Keccak-f[1600] (FIPS 202 §3.3, Algorithm 7: θ ρ π χ ι, 24 rounds) on the 50 words ``st``
    (lane x + 5y = ``st[2(x+5y)]`` low half, ``st[2(x+5y)+1]`` high half), in place."""
    rc = b.table([w for c in ROUND_CONSTANTS for w in (c & _M32, c >> 32)])

    def lane(i):
        return st[2 * i], st[2 * i + 1]

    with b.loop(24) as rnd:
        # θ: C[x] = parity of column x; D[x] = C[x-1] ^ rot(C[x+1], 1); A ^= D
        c = []
        for x in range(5):
            lo, hi = lane(x)
            for y in range(1, 5):
                lo, hi = b.xor(lo, st[2 * (x + 5 * y)]), b.xor(hi, st[2 * (x + 5 * y) + 1])
            c.append((lo, hi))
        for x in range(5):
            rlo, rhi = b.rotl64(*c[(x + 1) % 5], 1)
            dlo, dhi = b.xor(c[(x - 1) % 5][0], rlo), b.xor(c[(x - 1) % 5][1], rhi)
            for y in range(5):
                i = x + 5 * y
                b.xor(st[2 * i], dlo, out=st[2 * i])
                b.xor(st[2 * i + 1], dhi, out=st[2 * i + 1])
        # ρ and π: B[i] = rot(A[PI_SOURCE[i]], its ρ offset) (a lane not rotated is copied: χ
        # overwrites A while it still reads B)
        bb = []
        for i in range(25):
            s = PI_SOURCE[i]
            lo, hi = b.rotl64(*lane(s), RHO_OFFSETS[s])
            if (lo, hi) == lane(s):
                lo, hi = b.mov(lo), b.mov(hi)
            bb.append((lo, hi))
        # χ: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y])
        for y in range(5):
            for x in range(5):
                i, i1, i2 = x + 5 * y, (x + 1) % 5 + 5 * y, (x + 2) % 5 + 5 * y
                for h in (0, 1):
                    b.xor(bb[i][h], b.andn(bb[i2][h], bb[i1][h]), out=st[2 * i + h])
        # ι
        b.xor(st[0], b.load(rc, b.at(0, rnd, 2)), out=st[0])
        b.xor(st[1], b.load(rc, b.at(1, rnd, 2)), out=st[1])


def check_above_length(b: Builder, words: list[int], length: int, message: str) -> None:
    """Fail with ``message`` when a byte at or above ``length`` (a word holding a byte count) of the
    string in ``words`` (byte k in bits [8k +: 8]) is not zero; a loop over the words."""
    with b.loop(len(words)) as j:
        valid = None
        for k in range(4):
            m = b.andi(b.ltu(b.index(j, 4, k), length), 0xFF << (8 * k))
            valid = m if valid is None else b.or_(valid, m)
        b.check(b.andn(b.at(words[0], j), valid), message)


def _sel_const(b: Builder, mask: int, a: int, k: int, out: int) -> int:
    """``out`` = ``a`` where ``mask`` is set, else the constant ``k``."""
    return b.sel(mask, a, b.const(k), out)


def _custom_block(b: Builder, blk: list[int], cus: list[int], clen: int) -> None:
    """bytepad(encode_string("KMAC") || encode_string(S), 168) into the 42 words ``blk``: bytes
    01 A8 (left_encode(168)), 01 20 "KMAC", left_encode(8·len(S)), S, zeros. left_encode(8·len) is
    01 x below 32 bytes (S from byte 10), 02 hi lo from 32 on (S from byte 11)."""
    b.const(0x2001A801, out=blk[0])
    b.const(0x43414D4B, out=blk[1])                  # "KMAC"
    bits = b.shl(clen, 3)
    one = b.ltu(clen, b.const(32))                   # all ones: left_encode is one byte
    lo8 = b.andi(bits, 0xFF)
    w_one = b.or_(b.ori(b.shl(lo8, 8), 0x01), b.shl(cus[0], 16))
    w_two = b.or_(b.or_(b.ori(b.shl(b.andi(b.shr(bits, 8), 0xFF), 8), 0x02), b.shl(lo8, 16)), b.shl(cus[0], 24))
    b.sel(one, w_one, w_two, out=blk[2])
    with b.loop(RATE_WORDS - 3) as i:                # words 3..41: S shifted by 2 or 3 bytes
        s0, s1 = b.at(cus[0], i), b.at(cus[1], i)
        b.sel(one, b.or_(b.shr(s0, 16), b.shl(s1, 16)), b.or_(b.shr(s0, 8), b.shl(s1, 24)), out=b.at(blk[3], i))


def _key_block(b: Builder, blk: list[int], key: list[int], klen: int) -> None:
    """bytepad(encode_string(K), 168) into the 42 words ``blk``: 01 A8, left_encode(8·len(K)), K,
    zeros; left_encode is 01 x below 32 bytes (K from byte 4, word-aligned), 02 01 00 at 32 (K from
    byte 5)."""
    short = b.ltu(klen, b.const(32))
    w0 = b.ori(b.shl(klen, 27), 0x0001A801)          # byte 3 = 8·len (len < 32)
    _sel_const(b, short, w0, 0x0102A801, blk[0])
    b.sel(short, key[0], b.shl(key[0], 8), out=blk[1])
    with b.loop(7) as i:                             # words 2..8
        k0, k1 = b.at(key[0], i), b.at(key[1], i)
        b.sel(short, k1, b.or_(b.shr(k0, 24), b.shl(k1, 8)), out=b.at(blk[2], i))
    b.sel(short, b.const(0), b.shr(key[7], 24), out=blk[9])


def _keyak_pack(b: Builder, pk: list[int], key: list[int], klen: int) -> None:
    """The key pack into ``pk`` (8 words, 30 bytes): 30, key bytes 0..27 (zero above the length),
    and 0x01 at byte 1 + min(len, 28)."""
    b.ori(b.shl(key[0], 8), KEYAK_PACK_BYTES, out=pk[0])
    with b.loop(6) as i:                             # words 1..6: bytes 4..27 = key bytes 3..26
        b.or_(b.shr(b.at(key[0], i), 24), b.shl(b.at(key[1], i), 8), out=b.at(pk[1], i))
    b.shr(key[6], 24, out=pk[7])                     # byte 28 = key byte 27
    cap = b.sel(b.ltu(klen, b.const(KEYAK_PACK_KEY)), klen, b.const(KEYAK_PACK_KEY))
    pos = b.addi(cap, 1)
    with b.loop(len(pk)) as j:
        acc = None
        for k in range(4):
            m = b.andi(b.eq(b.index(j, 4, k), pos), 1 << (8 * k))
            acc = m if acc is None else b.or_(acc, m)
        b.or_(b.at(pk[0], j), acc, out=b.at(pk[0], j))


@lru_cache(maxsize=1)
def key_state_program() -> Program:
    """The program of :func:`dcsflow.designs.keccak.design.key_state_transform`: user parameters
    (``key``, ``key_len``, ``custom``, ``custom_len``) -> :data:`CIRCUIT_PARAMS` (module docstring)."""
    b = Builder(USER_PARAMS, CIRCUIT_PARAMS, alias={p: p for p in USER_PARAMS})
    key, cus = b.input("key"), b.input("custom")
    klen, clen = b.input("key_len")[0], b.input("custom_len")[0]
    b.check(b.ltu(b.const(MAX_KEY), klen), f"key_len must be 0..{MAX_KEY} bytes")
    b.check(b.ltu(b.const(MAX_CUSTOM), clen), f"custom_len must be 0..{MAX_CUSTOM} bytes")
    check_above_length(b, key, klen, "the key has bits set above its key_len")
    check_above_length(b, cus, clen, "the customization string has bits set above its custom_len")
    blk = b.words(2 * RATE_WORDS)
    _custom_block(b, blk[:RATE_WORDS], cus, clen)
    _key_block(b, blk[RATE_WORDS:], key, klen)
    st = b.output("key_state")
    with b.loop(2) as n:                             # absorb each block, then Keccak-f[1600]
        for k in range(RATE_WORDS):
            b.xor(st[k], b.at(blk[k], n, RATE_WORDS), out=st[k])
        keccak_f(b, st)
    _keyak_pack(b, b.output("keyak_pack"), key, klen)
    return b.program()
