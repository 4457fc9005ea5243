"""RTL of the AES-128 modes design (designs/aes_modes/rtl) under Icarus: both GF(2^128) multipliers
(``gf128_mul``, schoolbook; ``gf128_mulh``, rows of X -> X·H) in GCM's bit order against the golden model (random and corner operands), its columns
for a fixed H against ``ghash_matrix(H)``, and GHASH chained through it against the tags of every
fifth kept NIST GCM record (S = GHASH_H(A, C) from the RTL, T = CIPH_K(J0) ^ S with ``cryptography``'s AES,
compared with the file's tag)."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from dcsflow.designs.aes_modes import model, sim, vectors
from dcsflow.designs.aes_modes.errors import InputError
from dcsflow.tools import has_tool

pytestmark = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")),
                                reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

RNG_SEED = 20261127
ONE = 1 << 127          # the block 80 00 .. 00: the field's 1


def ecb(key: bytes, block: bytes) -> bytes:
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


@pytest.mark.parametrize("module", sim.MULTIPLIERS)
def test_products_against_model(module):
    rng = random.Random(RNG_SEED)
    corners = [0, ONE, 1, (1 << 128) - 1, model.R_GCM, 1 << 126, 0xE1 << 120 | 1, 3]
    pairs = [(x, y) for x in corners for y in corners]
    pairs += [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(200)]
    pairs += [(rng.getrandbits(128), 1 << rng.randrange(128)) for _ in range(30)]
    got = sim.run_mul(pairs, module=module)
    bad = [(hex(x), hex(y)) for (x, y), z in zip(pairs, got) if z != model.gf128_mul(x, y)]
    assert not bad, f"{len(bad)} wrong products, first {bad[0]}"


@pytest.mark.parametrize("module", sim.MULTIPLIERS)
def test_columns_for_fixed_h_are_the_ghash_matrix(module):
    # with y = H fixed, x = e_j (the standard's bit j) gives column j of the matrix of X -> X·H
    h = ecb(random.Random(RNG_SEED + 1).randbytes(16), bytes(16))
    m = model.ghash_matrix(h)
    cols = sim.run_mul([(1 << (127 - j), h) for j in range(128)], module=module)
    for j, col in enumerate(cols):
        assert col == sum(((m[i] >> (127 - j)) & 1) << (127 - i) for i in range(128)), j


def _ghash_input(v: vectors.GcmVector) -> bytes:
    lens = (8 * len(v.aad)).to_bytes(8, "big") + (8 * len(v.ct)).to_bytes(8, "big")
    return v.aad + bytes(-len(v.aad) % 16) + v.ct + bytes(-len(v.ct) % 16) + lens


@pytest.mark.parametrize("module", sim.MULTIPLIERS)
def test_ghash_through_rtl_gives_the_nist_tags(module):
    # every 5th kept record of each file, both multipliers (dcsflow sim aes_modes runs every record on the core)
    recs = vectors.load_gcm_encrypt().records[::5] + vectors.load_gcm_decrypt().records[::5]
    got = sim.run_ghash([(ecb(v.key, bytes(16)), _ghash_input(v)) for v in recs], module=module)
    wrong = []
    for v, s in zip(recs, got):
        tag = bytes(a ^ b for a, b in zip(s, ecb(v.key, v.iv + b"\0\0\0\x01")))
        if (tag == v.tag) == v.fail:       # FAIL records: the recomputed tag must differ
            wrong.append(v.source)
    assert not wrong, f"{len(wrong)} of {len(recs)} records, first {wrong[0]}"
    assert any(v.fail for v in recs) and len(recs) == 150


def test_empty_ghash_is_zero():
    assert sim.run_ghash([(bytes(16), b""), (bytes(range(16)), b"")]) == [bytes(16), bytes(16)]


@pytest.mark.parametrize("call, expect", [
    (lambda: sim.run_mul([(1 << 128, 0)]), "x must be a 128-bit value"),
    (lambda: sim.run_mul([(0, bytes(15))]), "y must be 16 bytes (128 bits), got 15"),
    (lambda: sim.run_ghash([(bytes(16), bytes(17))]), "GHASH input must be bytes, a multiple of 16"),
    (lambda: sim.run_mul([(0, 0)], module="gf128_mulx"), "unknown multiplier"),
])
def test_bad_input(call, expect):
    with pytest.raises(InputError) as e:
        call()
    assert str(e.value).startswith(expect) and e.value.user_error
