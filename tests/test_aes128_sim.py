"""RTL of the AES-128 cores (aes128_pipe, aes128_iter) under Icarus against the NIST CAVP KAT vectors
(independent reference: the response files' CIPHERTEXT fields) and the golden model."""

from __future__ import annotations

import pytest

from dcsflow.designs.aes128 import sim
from dcsflow.designs.aes128.errors import InputError
from dcsflow.designs.aes128.vectors import KAT_FILES, kat_dir, load_kat


@pytest.mark.parametrize("design", ["aes128_pipe", "aes128_iter", "aes128_iter_onthefly"])
def test_all_kat_vectors(design):
    rep = sim.check_rtl(design, load_kat())
    assert rep.total == 284 and rep.ok, rep.failures[:3]
    blocks, cycles = rep.cycles[0]                       # GFSbox + VarTxt share the zero key: 135 blocks
    assert blocks == 135
    if design == "aes128_pipe":
        assert cycles == blocks + 10                     # one block per clock, latency 11
    else:
        assert cycles == 11 * blocks                     # 11 cycles per block
    assert all(c == 11 for n, c in rep.cycles if n == 1)


@pytest.mark.parametrize("design", ["aes128_pipe", "aes128_iter"])
def test_handshake_stalls_random_keys(design):
    vs = sim.random_groups(6, 9, seed=13)
    rep = sim.check_rtl(design, vs, stall_seed=5)
    assert rep.ok and rep.total == 54, rep.failures[:3]


def test_wrong_ciphertext_is_reported():
    v = load_kat()[0]
    bad = type(v)(v.source, v.key, v.plaintext, bytes([v.ciphertext[0] ^ 0x80]) + v.ciphertext[1:])
    rep = sim.check_rtl("aes128_pipe", [v, bad])
    assert rep.passed == 1 and not rep.ok and rep.failures[0][0] == v.source


def test_bad_design_and_block():
    with pytest.raises(InputError, match="unknown AES design"):
        sim.check_rtl("aes256", [])
    with pytest.raises(InputError, match="16 bytes"):
        sim.stimulus_text([(bytes(15), [])])


def test_cli_sim_one_file(dcsflow):
    r = dcsflow("sim", "aes128_iter", "--vectors", kat_dir() / KAT_FILES[0])
    assert r.returncode == 0 and "passed 7/7" in r.stdout, r.stdout + r.stderr
    r = dcsflow("sim", "aes128_pipe", "--simulator", "verilator")
    assert r.returncode == 1 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
