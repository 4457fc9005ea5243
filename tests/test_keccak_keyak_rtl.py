"""Lake Keyak in keccak_core's RTL (mode 3) under Icarus: every record of the bundled known-answer
file (an independent source: aelstad/keccakj) wrapped by the TLUT variant (KEY_STATE=1) and
unwrapped by the conventional one (KEY_STATE=0); tampered tags and ciphertexts set the flag;
block-boundary lengths against the golden model (itself checked on every record by
test_keccak_model.py); both variants agree; the cycle counts the README gives."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest

from dcsflow.designs.keccak import check, model, sim
from dcsflow.designs.keccak import vectors as kv
from dcsflow.tools import has_tool

pytestmark = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")),
                                reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

RNG_SEED = 20261126


def _with_pack(pairs, key):
    return [(dataclasses.replace(r, pack=sim.keyak_pack(key)), e) for r, e in pairs]


def _run_sessions(decrypt: bool, key_state: int, stall: int | None):
    reqs, exps = [], []
    for s in kv.load_lake_keyak().sessions:
        for r, e in sim.session_requests(s, pack=True, decrypt=decrypt):
            reqs.append(r)
            exps.append(e)
    res = sim.run_hash(reqs, key_state=key_state, stall_seed=stall)
    bad = [(e.source, why) for e, r in zip(exps, res) for ok, why in [sim.keyak_ok(e, r)] if not ok]
    return len(exps), bad


def test_every_record_wrapped_key_state():
    n, bad = _run_sessions(False, 1, None)
    assert n == 160 + 54 and not bad, bad[:3]


def test_every_record_unwrapped_conventional_with_stalls():
    n, bad = _run_sessions(True, 0, 5)
    assert n == 160 + 54 and not bad, bad[:3]


@pytest.mark.parametrize("key_state", [1, 0])
def test_tampered_records_set_the_flag(key_state):
    cases = check.keyak_cases()
    reqs = [dataclasses.replace(r, pack=sim.keyak_pack(c.key)) for c in cases for r, _ in c.pairs]
    # a hash message after the sessions: the core starts it from the empty state
    reqs.append(sim.HashRequest(sim.MODE_SHA3_256, b"abc"))
    res = sim.run_hash(reqs, key_state=key_state)
    assert [ok for ok, _ in check.compare(cases, res[:-1])] == [True] * 4
    flags = [r.tag_fail for r in res[:-1]]
    exps = [e for c in cases for _, e in c.pairs]
    # the tampered records are the last operation of the third and fourth case
    assert [e.tag_fail for e in exps].count(True) == 2
    assert [f for f, e in zip(flags, exps) if e.tag_fail is not None] == \
        [e.tag_fail for e in exps if e.tag_fail is not None]
    assert res[-1].output == hashlib.sha3_256(b"abc").digest()


def _model_session(key, ops):
    """Expected (output, flag) of each op with the golden model."""
    s = None
    out = []
    for op in ops:
        if op[0] == "start":
            s = model.LakeKeyak(key, op[1])
            continue
        if op[0] == "forget":
            s.forget()
            out.append((b"", False))
            continue
        _, ad, pt, tag_len = op
        ct, tag = s.wrap(ad, pt, tag_len)
        out.append((ct + tag, None))
    return out


def test_boundary_lengths_against_model_both_variants():
    rng = random.Random(RNG_SEED)
    rb = lambda n: bytes(rng.randrange(256) for _ in range(n))  # noqa: E731
    for key_len in (16, 23, 28):
        key = rb(key_len)
        # nonce of 16 and of 13 bytes (the associated data then starts mid-word), metadata filling
        # the first block exactly (136 bytes after the key pack) and continuing blocks (168, 169),
        # bodies of 0, 1, 167, 168, 169, 336 bytes, tags of 1, 7, 168, 169, 400 bytes
        nonce = rb(16 if key_len != 23 else 13)
        ops = [("start", nonce), ("msg", rb(136 - len(nonce)), rb(168), 16), ("msg", rb(168), b"", 1),
               ("forget",), ("msg", rb(169), rb(1), 7), ("msg", b"", rb(336), 168), ("msg", rb(5), rb(167), 169),
               ("msg", rb(40), rb(169), 400)]
        exp = _model_session(key, ops)
        reqs, first = [], True
        for op in ops[1:]:
            if op[0] == "forget":
                reqs.append(sim.KeyakRequest("forget", key=key, pack=sim.keyak_pack(key)))
                continue
            _, ad, pt, tag_len = op
            reqs.append(sim.KeyakRequest("wrap", first, (nonce if first else b"") + ad, pt, tag_len=tag_len,
                                         key=key, pack=sim.keyak_pack(key)))
            first = False
        for ks in (1, 0):
            res = sim.run_hash(reqs, key_state=ks, stall_seed=rng.randrange(1000) if ks == 0 else None)
            for (o, flag), r in zip(exp, res):
                assert r.output == o and r.last_ok, (key_len, ks, len(o))
                if flag is not None:
                    assert r.tag_fail == flag


def test_long_key_is_packed_the_same_by_both_variants():
    # keys above 28 bytes: both variants use the first 28 bytes (the transform's keyak_pack)
    key, nonce = bytes(range(1, 33)), bytes(16)
    req = sim.KeyakRequest("wrap", True, nonce, b"plaintext", key=key, pack=sim.keyak_pack(key))
    a = sim.run_hash([req], key_state=1)[0]
    b = sim.run_hash([req], key_state=0)[0]
    ct, tag = model.lake_keyak_encrypt(key[:28], nonce, b"", b"plaintext")
    assert a.output == b.output == ct + tag


def test_keyak_cycles():
    key, nonce = bytes(range(16)), bytes(range(100, 116))
    res = {}
    for ks in (1, 0):
        reqs = [sim.KeyakRequest("wrap", True, nonce, bytes(16), key=key, pack=sim.keyak_pack(key)),
                sim.KeyakRequest("wrap", True, nonce, bytes(168), key=key, pack=sim.keyak_pack(key)),
                sim.KeyakRequest("wrap", True, nonce, bytes(336), key=key, pack=sim.keyak_pack(key))]
        res[ks] = [r.t_out_last - r.t_in_first for r in sim.run_hash(reqs, key_state=ks)]
    # one-block message (16-byte nonce, 16-byte body, 16-byte tag): 1 nonce word, the first
    # block's 12 rounds (the body word arrives meanwhile), the body block's 12 rounds (its output
    # word leaves meanwhile), 1 tag word
    assert res[1][0] == 25
    # the key pack is XORed in the first block's absorbing cycle in both builds: no cycle saved
    assert res[0] == res[1]
    # duplex body: the next block's 11 word transfers and the previous block's 11 output words
    # overlap the 12 rounds: 12 cycles per 1344-bit block, as the source design
    assert res[1][2] - res[1][1] == 12
    # metadata: the next block's 11 transfers overlap the 12 rounds: 12 cycles per block
    meta = [sim.KeyakRequest("wrap", True, nonce, b"", key=key, pack=sim.keyak_pack(key))]
    meta += [sim.KeyakRequest("wrap", False, bytes(168 * n), b"", key=key) for n in (1, 3)]
    lat = [r.t_out_last - r.t_in_first for r in sim.run_hash(meta, key_state=1)]
    assert (lat[2] - lat[1]) == 2 * 12
