"""RTL of the Keccak design (designs/keccak/rtl) under Icarus: keccak_round against the golden model
(random states, 24 and 12 rounds), keccak_core's SHA3-256 and SHAKE128 against Python's hashlib
(independent reference) on the boundary message lengths of both rates, SHAKE outputs longer than a
block, random handshake gaps, the 12-round sponge against the model, and the cycle counts."""

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


def _check(reqs, results):
    assert len(results) == len(reqs)
    for r, o in zip(reqs, results):
        exp = _expected(r)
        assert o.output == exp, (r.mode, len(r.message), r.out_len)
        assert o.words == max(1, -(-len(exp) // 8)) and o.last_ok, (r.mode, len(r.message))


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
    # (17 word transfers, overlapped). A message that fills its last block exactly needs a
    # padding-only block (24 more cycles); squeezing takes 21 words per block, then 24 rounds.
    rng = random.Random(RNG_SEED + 4)
    reqs = [sim.HashRequest(SHA3, _msg(rng, k * 136 - 1)) for k in (1, 2, 3, 4)]
    reqs += [sim.HashRequest(SHA3, _msg(rng, 136)),
             sim.HashRequest(SHAKE, _msg(rng, 3 * 168 - 1), 3 * 168),
             sim.HashRequest(SHA3, _msg(rng, 2 * 136 - 1), rounds12=True)]
    res = sim.run_hash(reqs)
    _check(reqs[:6], res[:6])
    for k, r in zip((1, 2, 3, 4), res):
        assert r.t_out_first - r.t_in_first == 17 + 24 * k, k
        assert r.t_out_last - r.t_out_first == 3                # 4 digest words, back to back
    assert res[0].t_out_first - res[0].t_in_last == 25          # final word, 24 rounds, output
    # input of 4 blocks: block 1 at cycles 0..16, block 2 at 18..34 (during permutation 1), then
    # block k at 24 (k - 2) + 18 .. + 34: the buffer frees when permutation k-1 starts
    assert res[3].t_in_last - res[3].t_in_first == 34 + 24 * 2
    assert res[4].t_out_first - res[4].t_in_first == 17 + 24 * 2          # padding-only block
    rk = res[5]
    assert rk.t_out_first - rk.t_in_first == 21 + 24 * 3
    assert rk.t_out_last - rk.t_out_first == 3 * 21 - 1 + 2 * 24
    # Keccak-p[1600, 12]: the 64-bit input is the bottleneck (block 2 loaded at cycles 18..34,
    # permutation 2 at 35..46), 18 cycles per 1088-bit block
    assert res[6].output == model.sponge(136, 0x06, reqs[6].message, 32, nr=12)
    assert res[6].t_out_first - res[6].t_in_first == 35 + 12


def test_message_words_and_errors():
    assert sim.message_words(b"") == [(0, 0)]
    assert sim.message_words(bytes(range(9))) == [(0x0706050403020100, 8), (8, 1)]
    with pytest.raises(InputError):
        sim.stimulus_text([sim.HashRequest(3, b"")])
    with pytest.raises(InputError):
        sim.stimulus_text([sim.HashRequest(SHAKE, b"", 1 << 16)])
    with pytest.raises(InputError):
        sim.run_rounds([(bytes(199), 0, 24)])
