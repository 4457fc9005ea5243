"""The AES-128 modes core (designs/aes_modes/rtl/aes_modes.v) under Icarus, both builds' RTL
(KEY_TABLE=1: H, K1/K2 and the round keys as functions of the key; KEY_TABLE=0: H computed after
reset, generic multiplier). Expected values come from the NIST files (cryptography_vectors) and from
the ``cryptography`` library (AESGCM, CMAC), never from the core."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.cmac import CMAC

from dcsflow.designs.aes_modes import check, sim, vectors
from dcsflow.designs.aes_modes.errors import InputError
from dcsflow.tools import has_tool

pytestmark = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")),
                                reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

RNG_SEED = 20261127


def lib_cmac(key: bytes, msg: bytes) -> bytes:
    c = CMAC(algorithms.AES(key))
    c.update(msg)
    return c.finalize()


def random_cases(rng: random.Random, key: bytes):
    """[(Request, expected)] over the length corners: CMAC of 0..48 bytes, GCM with and without
    additional data and payload, full and partial blocks, decryption with the right and a wrong tag."""
    cases = []
    for n in (0, 1, 15, 16, 17, 32, 48):
        m = rng.randbytes(n)
        cases.append((sim.Request(sim.MODE_CMAC, m), ("tag", lib_cmac(key, m))))
    for na, npl in ((0, 0), (0, 1), (16, 0), (20, 16), (13, 33), (32, 48)):
        iv, a, p = rng.randbytes(12), rng.randbytes(na), rng.randbytes(npl)
        ct = AESGCM(key).encrypt(iv, p, a)
        cases.append((sim.Request(sim.MODE_ENC, p, iv, a), ("enc", ct[:-16], ct[-16:])))
        cases.append((sim.Request(sim.MODE_DEC, ct[:-16], iv, a, ct[-16:]), ("dec", p, True)))
        bad = bytearray(ct[-16:])
        bad[rng.randrange(16)] ^= 1 << rng.randrange(8)
        cases.append((sim.Request(sim.MODE_DEC, ct[:-16], iv, a, bytes(bad)), ("dec", p, False)))
    return cases


def agrees(resp: sim.Response, exp) -> bool:
    if exp[0] == "tag":
        return resp.tag == exp[1]
    if exp[0] == "enc":
        return resp.out == exp[1] and resp.tag == exp[2]
    return resp.out == exp[1] and resp.tag_ok is exp[2]


@pytest.mark.parametrize("key_table", [1, 0])
@pytest.mark.parametrize("stall", [None, 5])
def test_random_messages_against_cryptography(key_table, stall, tmp_path):
    rng = random.Random(RNG_SEED + key_table)
    groups = []
    for _ in range(2):                       # a key change (reset; the conventional core recomputes H)
        key = rng.randbytes(16)
        groups.append((key, random_cases(rng, key)))
    res = sim.simulate([(k, [r for r, _ in cs]) for k, cs in groups], key_table=key_table, stall_seed=stall,
                       workdir=tmp_path)
    bad = [(r, e) for (_, cs), rs in zip(groups, res) for (r, e), got in zip(cs, rs) if not agrees(got, e)]
    assert not bad, f"{len(bad)} messages wrong, first {bad[0][0]}"


def test_cycles_per_block(tmp_path):
    """CMAC and GCM: 11 cycles per further 16-byte block (the iterative AES core's rate); GCM's
    additional data one word per cycle while the first counter block is encrypted (10 words free,
    then one cycle each); the same timing in both builds once H is known."""
    rng = random.Random(RNG_SEED)
    key, iv = rng.randbytes(16), rng.randbytes(12)
    reqs = [sim.Request(sim.MODE_CMAC, rng.randbytes(16 * n)) for n in (1, 4)]
    reqs += [sim.Request(sim.MODE_ENC, rng.randbytes(16 * n), iv) for n in (1, 4)]
    reqs += [sim.Request(sim.MODE_ENC, rng.randbytes(16), iv, rng.randbytes(16 * n)) for n in (0, 3, 16)]
    lat = {kt: [r.latency for r in sim.simulate([(key, reqs)], key_table=kt, workdir=tmp_path / str(kt))[0]]
           for kt in (1, 0)}
    assert lat[1] == lat[0]
    c = lat[1]
    assert (c[1] - c[0]) == 3 * 11
    assert (c[3] - c[2]) == 3 * 11
    assert (c[5] - c[4]) == 0
    assert (c[6] - c[4]) == 16 - 10
    # one block: E_K(J0) and the first counter block (11 each), the word, length block, tag
    assert c[2] == 26 and c[0] == 12


def test_every_cmac_example_and_a_gcm_sample_on_the_conventional_rtl(tmp_path):
    vs = check.default_vectors()
    rep = sim.check_rtl(vs, key_table=0, workdir=tmp_path)
    assert rep.total == len(vs) == 4 + 5 + 5 + 1
    assert rep.passed == rep.total, rep.failures[:3]
    assert any(v.fail for v in vs[9:]), "the sample must hold decryptions whose tag does not verify"


#: the fast tests take every STRIDE-th kept GCM record (75 of each file, spread over its sections);
#: ``dcsflow sim aes_modes`` and ``benchmarks/aes_modes_bench.py`` run every record
STRIDE = 5


def test_a_fifth_of_the_records_on_the_tlut_rtl(tmp_path):
    """The 4 CMAC examples and every 5th kept GCM record of each file (FAIL records included),
    plus those encryption records with a tampered tag, on the TLUT build's RTL (the quicker one to
    simulate: Icarus evaluates the generic schoolbook multiplier bit by bit; the conventional RTL
    runs the random messages and the check's sample)."""
    enc = vectors.load_gcm_encrypt().records[::STRIDE]
    dec = vectors.load_gcm_decrypt().records[::STRIDE]
    vs = [*vectors.load_cmac().records, *enc, *dec, *map(sim.tampered, enc)]
    rep = sim.check_rtl(vs, key_table=1, workdir=tmp_path)
    assert rep.total == 4 + 75 + 75 + 75 and any(v.fail for v in dec)
    assert rep.passed == rep.total, rep.failures[:3]


def test_judge_refuses_wrong_answers():
    """The comparison itself can fail: a response with a flipped ciphertext byte, a wrong flag."""
    v = vectors.load_gcm_encrypt().records[10]
    good = sim.Response(out=v.ct, tag=v.tag)
    assert sim.judge(v, good) == (True, "")
    assert not sim.judge(v, sim.Response(out=bytes([v.ct[0] ^ 1]) + v.ct[1:], tag=v.tag))[0] if v.ct else True
    assert not sim.judge(v, sim.Response(out=v.ct, tag=bytes(16)))[0]
    t = sim.tampered(v)
    assert not sim.judge(t, sim.Response(tag_ok=True))[0]
    assert sim.judge(t, sim.Response(tag_ok=False))[0]


@pytest.mark.parametrize("req, expect", [
    (sim.Request(sim.MODE_ENC, b"", b"\0" * 11), "12 bytes"),
    (sim.Request(sim.MODE_DEC, b"", b"\0" * 12, b"", b""), "1..16 bytes"),
    (sim.Request(7, b""), "unknown mode"),
])
def test_bad_requests(req, expect):
    with pytest.raises(InputError, match=expect):
        sim.words(req)


def test_bad_key_length():
    with pytest.raises(InputError, match="16 bytes"):
        sim.stimulus_text([(b"\0" * 15, [])])


def test_sim_cli_on_a_cut_file_and_bad_files(tmp_path, dcsflow):
    """``dcsflow sim aes_modes --vectors FILE``: a GCM decryption file cut to 3 records (FAIL ones
    included) passes, and its table says so; a missing file, a malformed one and one without a
    record the core takes are one error line each."""
    from _cli import one_line_error

    lines = (vectors.cavp_dir() / vectors.GCM_DECRYPT_FILE).read_text().splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Count")]
    head = [ln for ln in lines[:40] if ln.startswith("[")]
    cut = tmp_path / "dec.rsp"
    cut.write_text("\n".join(head + [""] + lines[starts[0]:starts[3]]) + "\n")
    r = dcsflow("sim", "aes_modes", "--vectors", cut, "--conventional")
    assert r.returncode == 0 and "passed 3/3" in r.stdout, r.stdout + r.stderr
    one_line_error(dcsflow("sim", "aes_modes", "--vectors", tmp_path / "none.rsp"), "none.rsp")
    bad = tmp_path / "bad.rsp"
    bad.write_text("[Keylen = 128]\n\nCount = 0\nKey = zz\n")
    one_line_error(dcsflow("sim", "aes_modes", "--vectors", bad), "bad.rsp")
    short_iv = tmp_path / "iv8.rsp"
    short_iv.write_text("[Keylen = 128]\n[IVlen = 8]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\nCount = 0\n"
                        f"Key = {'00' * 16}\nIV = 00\nPT = \nAAD = \nCT = \nTag = {'00' * 16}\n")
    one_line_error(dcsflow("sim", "aes_modes", "--vectors", short_iv), "no record the core takes")
