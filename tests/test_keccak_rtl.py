"""RTL of the Keccak design (designs/keccak/rtl) under Icarus: keccak_round against the golden model
(random states, 24 and 12 rounds), keccak_core's SHA3-256 and SHAKE128 against Python's hashlib
(independent reference) on the boundary message lengths of both rates, SHAKE outputs longer than a
block, random handshake gaps, the 12-round sponge against the model, KMAC128 against the model,
pycryptodome and the SP 800-185 samples, and the cycle counts."""

from __future__ import annotations

import hashlib
import random

import pytest

from dcsflow.designs.keccak import model, sim
from dcsflow.designs.keccak.errors import InputError
from dcsflow.tools import has_tool

pytestmark = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")),
                                reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

RNG_SEED = 20261126
SHA3, SHAKE = sim.MODE_SHA3_256, sim.MODE_SHAKE128


def _lengths(rate: int) -> list[int]:
    return [0, 1, 7, 8, 9, rate - 1, rate, rate + 1, 2 * rate + 3]


def _msg(rng: random.Random, n: int) -> bytes:
    return bytes(rng.randrange(256) for _ in range(n))


def _expected(r: sim.HashRequest) -> bytes:
    if r.mode == SHA3:
        return hashlib.sha3_256(r.message).digest()
    return hashlib.shake_128(r.message).digest(r.out_len)


def _out_words(n: int, rate: int) -> int:
    """128-bit output words of n bytes: per full block of ``rate`` bytes (an odd number of lanes)
    rate // 16 words and a half word, then the rest in 16-byte words; at least one word."""
    q, r = divmod(n, rate)
    return max(1, q * (rate // 16 + 1) + -(-r // 16))


def _check(reqs, results):
    assert len(results) == len(reqs)
    for r, o in zip(reqs, results):
        exp = _expected(r)
        assert o.output == exp, (r.mode, len(r.message), r.out_len)
        assert o.words == _out_words(len(exp), sim.RATE[r.mode]) and o.last_ok, (r.mode, len(r.message))


def test_round_against_model():
    rng = random.Random(RNG_SEED)
    records = [(_msg(rng, 200), 0, 24), (_msg(rng, 200), 12, 12), (bytes(200), 0, 24),
               (_msg(rng, 200), 0, 1), (_msg(rng, 200), 23, 1)]
    got = sim.run_rounds(records)
    for (state, ir0, nr), out in zip(records, got):
        lanes = model.state_to_lanes(state)
        for ir in range(ir0, ir0 + nr):
            lanes = model.keccak_round(lanes, ir)
        assert out == model.lanes_to_state(lanes), (ir0, nr)
    assert got[0] == model.keccak_f(records[0][0])
    assert got[1] == model.keccak_p(records[1][0], 12)


def test_sha3_256_and_shake128_against_hashlib():
    rng = random.Random(RNG_SEED + 1)
    reqs = []
    for n in _lengths(136) + [rng.randrange(10, 600) for _ in range(3)]:
        reqs.append(sim.HashRequest(SHA3, _msg(rng, n)))
    out_lens = [32, 1, 13, 168, 169, 400]            # SHAKE: one byte, partial words, > one block
    for i, n in enumerate(_lengths(168) + [rng.randrange(10, 600) for _ in range(3)]):
        reqs.append(sim.HashRequest(SHAKE, _msg(rng, n), out_lens[i % len(out_lens)]))
    _check(reqs, sim.run_hash(reqs))


def test_handshake_stalls_and_interleaved_modes():
    rng = random.Random(RNG_SEED + 2)
    reqs = []
    for n in [0, 9, 135, 136, 167, 168, 339]:
        reqs.append(sim.HashRequest(SHA3, _msg(rng, n)))
        reqs.append(sim.HashRequest(SHAKE, _msg(rng, n), rng.choice([5, 64, 337])))
    reqs.append(sim.HashRequest(SHAKE, _msg(rng, 3), 0))    # out_len 0: one word, m_bytes 0, m_last
    _check(reqs, sim.run_hash(reqs, stall_seed=7))


def test_twelve_round_sponge_against_model():
    # rounds12 = 1: Keccak-p[1600, 12] (the permutation of the later Keyak mode) in the same sponge
    rng = random.Random(RNG_SEED + 3)
    reqs = [sim.HashRequest(SHA3, _msg(rng, 150), rounds12=True),
            sim.HashRequest(SHAKE, _msg(rng, 168), 200, rounds12=True),
            sim.HashRequest(SHA3, _msg(rng, 20))]     # back to 24 rounds afterwards
    res = sim.run_hash(reqs)
    assert res[0].output == model.sponge(136, 0x06, reqs[0].message, 32, nr=12)
    assert res[1].output == model.sponge(168, 0x1F, reqs[1].message, 200, nr=12)
    assert res[2].output == hashlib.sha3_256(reqs[2].message).digest()


def test_cycles_per_block():
    # No gaps: the block buffer takes the next block's words while the permutation runs, so a
    # message of k blocks takes (words of one block) + 24 k cycles from its first input handshake
    # to its first output handshake: 24 cycles per 1088-bit block once the first block is loaded
    # (9 word transfers of 128 bits, overlapped). A message that fills its last block exactly
    # needs a padding-only block (24 more cycles); squeezing takes 11 words per block, then 24 rounds.
    rng = random.Random(RNG_SEED + 4)
    reqs = [sim.HashRequest(SHA3, _msg(rng, k * 136 - 1)) for k in (1, 2, 3, 4)]
    reqs += [sim.HashRequest(SHA3, _msg(rng, 136)),
             sim.HashRequest(SHAKE, _msg(rng, 3 * 168 - 1), 3 * 168),
             sim.HashRequest(SHA3, _msg(rng, 2 * 136 - 1), rounds12=True)]
    res = sim.run_hash(reqs)
    _check(reqs[:6], res[:6])
    for k, r in zip((1, 2, 3, 4), res):
        assert r.t_out_first - r.t_in_first == 9 + 24 * k, k
        assert r.t_out_last - r.t_out_first == 1                # 2 digest words, back to back
    assert res[0].t_out_first - res[0].t_in_last == 25          # final word, 24 rounds, output
    # input of 4 blocks: block 1 at cycles 0..8, block 2 at 10..18 (during permutation 1), then
    # block k at 24 (k - 2) + 10 .. + 18: the buffer frees when permutation k-1 starts
    assert res[3].t_in_last - res[3].t_in_first == 18 + 24 * 2
    assert res[4].t_out_first - res[4].t_in_first == 9 + 24 * 2           # padding-only block
    rk = res[5]
    assert rk.t_out_first - rk.t_in_first == 11 + 24 * 3
    assert rk.t_out_last - rk.t_out_first == 3 * 11 - 1 + 2 * 24
    # Keccak-p[1600, 12]: the 12 rounds are the bound (block 2 loaded at cycles 10..18 during
    # permutation 1 at 9..20, permutation 2 at 21..32), 12 cycles per 1088-bit block
    assert res[6].output == model.sponge(136, 0x06, reqs[6].message, 32, nr=12)
    assert res[6].t_out_first - res[6].t_in_first == 9 + 12 * 2


def test_message_words_and_errors():
    le = lambda b: int.from_bytes(b, "little")  # noqa: E731
    m = bytes(range(150))
    assert sim.message_words(b"", 136) == [(0, 0)]
    assert sim.message_words(m[:17], 136) == [(le(m[:16]), 16), (16, 1)]
    # a block's final word holds its last 8 bytes (lane 16 of a 1088-bit block), the next word
    # starts the next block
    w = sim.message_words(m[:137], 136)
    assert len(w) == 10 and w[7] == (le(m[112:128]), 16) and w[8] == (le(m[128:136]), 8) and w[9] == (136, 1)
    # Lake Keyak's first block from byte 32: 136 bytes, the same split
    assert sim.message_words(m, 168, 32)[8:] == [(le(m[128:136]), 8), (le(m[136:150]), 14)]
    with pytest.raises(InputError):
        sim.message_words(b"x", 160)
    with pytest.raises(InputError):
        sim.stimulus_text([sim.HashRequest(3, b"")])
    with pytest.raises(InputError):
        sim.stimulus_text([sim.HashRequest(SHAKE, b"", 1 << 16)])
    with pytest.raises(InputError):
        sim.run_rounds([(bytes(199), 0, 24)])


KMAC = sim.MODE_KMAC128


def _kmac_ref(r: sim.HashRequest) -> bytes:
    # two references: the golden model and pycryptodome (skipped when the test extra is missing)
    exp = model.kmac128(r.key, r.message, r.out_len, r.custom)
    try:
        from Crypto.Hash import KMAC128
    except ImportError:
        return exp
    if r.out_len >= 8 and len(r.key) >= 16:    # pycryptodome: mac_len >= 8 bytes, key >= 16 bytes
        h = KMAC128.new(key=r.key, mac_len=r.out_len, custom=r.custom)
        assert h.update(r.message).digest() == exp
    return exp


def _check_kmac(reqs, results):
    assert len(results) == len(reqs)
    for r, o in zip(reqs, results):
        exp = _kmac_ref(r)
        assert o.output == exp, (len(r.key), len(r.custom), len(r.message), r.out_len)
        assert o.words == _out_words(r.out_len, 168) and o.last_ok


def test_kmac128_against_model_and_pycryptodome():
    # key lengths 0..32 bytes (32: left_encode(256) has two bytes; pycryptodome checks keys of 16,
    # 20 and 32 bytes, the model also the short ones), customization strings of 0..157
    # bytes (32 and more: three-byte left_encode), messages around the 168-byte rate (the trailer
    # right_encode(L) || 0x04 of 3..5 bytes straddles the block end at 164..168 bytes), outputs of
    # 32, 64, 200 bytes and 8192 (right_encode of three bytes)
    rng = random.Random(RNG_SEED + 5)
    keys = [_msg(rng, n) for n in (16, 32, 0, 20, 1)]
    customs = [b"", b"My Tagged Application", _msg(rng, 32), _msg(rng, 157), b"x"]
    reqs = []
    for i, n in enumerate([0, 1, 167, 168, 169, 400, 163, 164, 165, 166]):
        for j, out_len in enumerate((32, 64, 200)):
            reqs.append(sim.HashRequest(KMAC, _msg(rng, n), out_len, key=keys[(i + j) % 5],
                                        custom=customs[(i + 2 * j) % 5]))
    reqs.append(sim.HashRequest(KMAC, _msg(rng, 162), 8192, key=keys[0], custom=b""))
    reqs.append(sim.HashRequest(KMAC, _msg(rng, 7), 0, key=keys[1]))     # L = 0: one empty word
    _check_kmac(reqs, sim.run_hash(reqs))


def test_kmac128_sp800_185_samples():
    # NIST SP 800-185 KMAC128 samples 1..3 as pycryptodome ships them (hashvec.sp800_185_kmac128)
    from dcsflow.designs.keccak import hashvec

    vs = hashvec.sp800_185_kmac128()
    assert len(vs) == 3
    for ks in (0, 1):
        reqs = [sim.HashRequest(KMAC, v.message, len(v.expected), key=v.key, custom=v.custom,
                                key_state=model.kmac128_key_state(v.key, v.custom)) for v in vs]
        assert [r.output for r in sim.run_hash(reqs, key_state=ks)] == [v.expected for v in vs]


def test_kmac128_stalls_and_interleaved_modes():
    rng = random.Random(RNG_SEED + 6)
    reqs = []
    for n in [0, 9, 167, 168, 339]:
        reqs.append(sim.HashRequest(KMAC, _msg(rng, n), rng.choice([32, 64, 200]), key=_msg(rng, 16),
                                    custom=_msg(rng, rng.choice([0, 3, 40]))))
        reqs.append(sim.HashRequest(SHAKE, _msg(rng, n), 64))
        reqs.append(sim.HashRequest(SHA3, _msg(rng, n)))
    res = sim.run_hash(reqs, stall_seed=11)
    _check_kmac(reqs[0::3], res[0::3])
    _check(reqs[1::3] + reqs[2::3], res[1::3] + res[2::3])


def test_kmac128_cycles():
    # KMAC128, no gaps: the first input transfer starts the S block (24 rounds), then the key block
    # (24 rounds, the phase a precomputed key state will skip), then the message blocks; the
    # message's words fill the block buffer during the prefix permutations. One-block message
    # (<= 164 bytes: data, right_encode(L) and 0x04 fit one block): first input -> first output
    # = 1 + 24 (S block) + 24 (key block) + 24 (message block) = 73 cycles.
    rng = random.Random(RNG_SEED + 7)
    key = _msg(rng, 16)
    reqs = [sim.HashRequest(KMAC, _msg(rng, 100), 32, key=key),
            sim.HashRequest(KMAC, _msg(rng, 164), 32, key=key, custom=b"app"),
            sim.HashRequest(KMAC, _msg(rng, 0), 32, key=key),
            sim.HashRequest(KMAC, _msg(rng, 165), 32, key=key),      # trailer spills: one more block
            sim.HashRequest(KMAC, _msg(rng, 2 * 168 - 10), 64, key=key)]
    res = sim.run_hash(reqs)
    _check_kmac(reqs, res)
    for r in res[:3]:
        assert r.t_out_first - r.t_in_first == 1 + 3 * 24
        assert r.t_out_last - r.t_out_first == 1                # 2 MAC words, back to back
    assert res[3].t_out_first - res[3].t_in_first == 1 + 4 * 24
    assert res[4].t_out_first - res[4].t_in_first == 1 + 4 * 24


def _with_state(r: sim.HashRequest) -> sim.HashRequest:
    # the key state is an input of the KEY_STATE=1 core (the PPC's parameter transform computes it)
    return sim.HashRequest(r.mode, r.message, r.out_len, r.rounds12, r.key, r.custom,
                           model.kmac128_key_state(r.key, r.custom))


def test_kmac128_key_state_against_pycryptodome():
    # KEY_STATE=1 (the TLUT build's core): the message starts from key_state; the key and
    # customization ports are not read (driven with other values here), the MACs still match
    # pycryptodome's and the conventional core's
    from Crypto.Hash import KMAC128

    rng = random.Random(RNG_SEED + 8)
    reqs = []
    for n, kl, cl, out_len in [(0, 16, 0, 32), (1, 32, 21, 64), (164, 20, 157, 32), (165, 16, 32, 200),
                               (400, 24, 5, 8192)]:
        key, custom = _msg(rng, kl), _msg(rng, cl)
        reqs.append(sim.HashRequest(KMAC, _msg(rng, n), out_len, key=key, custom=custom,
                                    key_state=model.kmac128_key_state(key, custom)))
    wrong = [sim.HashRequest(r.mode, r.message, r.out_len, key=bytes(len(r.key)), custom=b"x",
                             key_state=r.key_state) for r in reqs]
    reqs.append(sim.HashRequest(SHA3, _msg(rng, 200)))
    wrong.append(reqs[-1])
    res = sim.run_hash(wrong, key_state=1, stall_seed=4)
    for r, o in zip(reqs[:-1], res):
        assert o.output == KMAC128.new(key=r.key, data=r.message, mac_len=r.out_len, custom=r.custom).digest()
        assert o.last_ok
    _check(reqs[-1:], res[-1:])


def test_kmac128_key_state_cycles():
    # KEY_STATE=1 skips both prefix permutations: a one-word message's first MAC word comes 1 + 24
    # cycles after its first input transfer (73 with KEY_STATE=0, test_kmac128_cycles); a message
    # filling its block (160 bytes = 10 words) 10 + 24; hash modes are unchanged
    rng = random.Random(RNG_SEED + 9)
    key = _msg(rng, 16)
    reqs = [_with_state(sim.HashRequest(KMAC, _msg(rng, n), 32, key=key)) for n in (8, 0, 160)]
    reqs.append(sim.HashRequest(SHA3, _msg(rng, 100)))
    res = sim.run_hash(reqs, key_state=1)
    _check_kmac(reqs[:3], res[:3])
    assert [r.t_out_first - r.t_in_first for r in res] == [1 + 24, 1 + 24, 10 + 24, 7 + 24]
    conv = sim.run_hash(reqs[:1], key_state=0)
    assert conv[0].t_out_first - conv[0].t_in_first == 1 + 3 * 24
