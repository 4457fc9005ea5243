"""A small build folder with a parameter transform program, for the fast tests of the runtime's,
the flow's and the firmware's transform paths: the synthetic build (:mod:`dcsflow.scg._synthetic`,
a 96-bit parameter ``key``) whose ``key`` is derived from two user parameters by :func:`program`,
with :func:`golden` an independent Python model of the same derivation."""

from __future__ import annotations

import json
from pathlib import Path

from dcsflow.scg import transform as tf
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.buildfolder import sha256_file

#: the user parameters: a seed of up to 8 bytes, its length in bytes (0..8)
USER = {"seed": 64, "n": 4}
_M = 0xFFFFFFFF
_TAB = (0x9E3779B9, 0x7F4A7C15, 0xF39CC060, 0x5CEDC834)
#: check messages (the program refuses these values)
TOO_LONG = "n must be 0..8 bytes"
ABOVE = "the seed has bits set above its length"


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M if k else x


def golden(user: dict) -> dict:
    """The derivation, written directly (not through the language): refuses n > 8 or seed bits above
    n bytes (ValueError with the program's message); else ``key`` (96 bits): 4 mixing rounds of two
    words with a table and a subroutine, then a third word selected by n < 4."""
    seed, n = user["seed"], user["n"]
    if n > 8:
        raise ValueError(TOO_LONG)
    if seed >> (8 * n):
        raise ValueError(ABOVE)
    a, b = seed & _M, seed >> 32
    for i in range(4):
        a = (a + (_TAB[i] ^ b)) & _M
        b = _rotl(b ^ a, 7) ^ ((a >> 3) & ~b & _M)
        b = (b - i * 5 - 1) & _M                 # the subroutine: b -= index-derived constant
    c = (a ^ b) if n < 4 else ((a << 5) & _M) | (b >> 27)
    c ^= _M if a == b else 0
    return {"key": a | b << 32 | c << 64}


def program() -> tf.Program:
    """:func:`golden` in the transform language (every kind of instruction)."""
    b = tf.Builder(USER, {"key": 96})
    s = b.input("seed")
    n = b.input("n")[0]
    b.check(b.ltu(b.const(8), n), TOO_LONG)
    with b.loop(2) as j:                         # bytes 4j..4j+3 at or above n must be zero
        valid = None
        for k in range(4):
            m = b.and_(b.ltu(b.index(j, 4, k), n), b.const(0xFF << (8 * k)))
            valid = m if valid is None else b.or_(valid, m)
        b.check(b.andn(b.at(s[0], j), valid), ABOVE)
    a, bb = b.words(2)
    b.mov(s[0], out=a)
    b.mov(s[1], out=bb)
    tab = b.table(_TAB)
    i_word = b.word()
    with b.subroutine() as sub:                  # b -= 5 i + 1 (i from i_word)
        t = b.add(b.add(b.shl(b.mov(i_word), 2), i_word), b.const(1))
        b.sub(bb, t, out=bb)
    with b.loop(4) as r:
        b.add(a, b.xor(b.load(tab, b.at(0, r)), bb), out=a)
        t = b.rotl(b.xor(bb, a), 7)
        b.xor(t, b.and_(b.shr(a, 3), b.not_(bb)), out=bb)
        b.index(r, out=i_word)
        b.call(sub)
    key = b.output("key")
    b.mov(a, out=key[0])
    b.mov(bb, out=key[1])
    small = b.ltu(n, b.const(4))
    c = b.sel(small, b.xor(a, bb), b.or_(b.shl(a, 5), b.shr(bb, 27)))
    b.xor(c, b.eq(a, bb), out=key[2])
    return b.program()


def make_transform_build(root: Path) -> Path:
    """The synthetic build (96-bit ``key``) in ``root``/build with :func:`program` as its parameter
    transform (``transform.json``, listed; ``user_params`` :data:`USER`); returns the folder."""
    d = make_build(Path(root) / "build", key_bits=96)
    bj = json.loads((d / "build.json").read_text())
    prog = program().with_design_hash(bj["design_hash"])
    (d / tf.FILE).write_text(json.dumps(prog.to_json()))
    bj["user_params"] = dict(USER)
    bj["transform"] = tf.FILE
    bj["files"][tf.FILE] = sha256_file(d / tf.FILE)
    (d / "build.json").write_text(json.dumps(bj, indent=1))
    return d
