"""RTL of the π-Cipher message processor (π16; π32 and π64 with W = 32 / 64), simulated with Icarus
(and Verilator) against the official vectors and the golden model."""

from __future__ import annotations

import json
import subprocess

import pytest

from dcsflow.designs.picipher import model, sim
from dcsflow.tools import find_tool, has_tool
from dcsflow.designs.picipher.vectors import load_official

RANDOM_PER_KEY = 200
CHUNKS = 2


@pytest.mark.parametrize("bits", [96, 128])
def test_official_vectors_icarus(bits):
    rep = sim.check_vectors(load_official(bits), bits)
    assert rep.skipped == 5600
    assert rep.total == 75                      # 25 records x (encrypt, decrypt, tampered tag)
    assert rep.ok, [r for r in rep.rows if not r.passed][:3]


@pytest.mark.parametrize("bits", [96, 128])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_messages_icarus(bits, chunk):
    cases = sim.random_cases(RANDOM_PER_KEY, bits, max_len=256, seed=bits)[chunk::CHUNKS]
    rep = sim.check_cases(cases, bits, tamper_every=4)
    assert rep.total == 2 * len(cases) + len(cases[::4])
    assert rep.ok, [r for r in rep.rows if not r.passed][:3]
    assert {r.direction for r in rep.rows} == {"enc", "dec", "dec-tampered"}


@pytest.mark.parametrize("bits,buffer_key,cis", [(96, 1, False), (128, 0, True), (96, 0, True)])
def test_handshake_stalls_key_buffer_and_cis_variant(bits, buffer_key, cis):
    # Random gaps on s_valid and m_ready; BUFFER_KEY=1 (key_load pulsed before each message);
    # picipher_cis_mp with its parameter computed by the golden model's init + empty-AD step.
    cases = sim.random_cases(30, bits, max_len=80, seed=3 + bits + buffer_key)
    rep = sim.check_cases(cases, bits, buffer_key=buffer_key, cis=cis, stall_seed=11 + bits)
    assert rep.ok, [r for r in rep.rows if not r.passed][:3]


def test_key_buffer_holds_key_mn_after_key_load():
    # BUFFER_KEY=1: key_mn is inverted after the key_load pulse, the buffer must keep the loaded value.
    cases = sim.random_cases(6, 128, max_len=40, seed=21)
    msgs = [sim.SimMessage(c.key, c.pmn, c.msg) for c in cases]
    want = [c.cipher for c in cases]
    res = sim.simulate(msgs, 128, buffer_key=1, scramble_key=True)
    assert [r.output + r.tag for r in res] == want
    # Without the buffer the scrambled key_mn is used: every result differs.
    res = sim.simulate(msgs, 128, buffer_key=0, scramble_key=True)
    assert all(r.output + r.tag != w for r, w in zip(res, want))


def test_wrong_plaintext_is_detected_by_the_check():
    # The check must be able to fail: a case whose expected ciphertext is wrong fails both ways.
    c = sim.random_cases(1, 96, seed=9)[0]
    wrong = sim.Case("wrong", c.key, c.pmn, c.msg, bytes([c.cipher[0] ^ 1]) + c.cipher[1:])
    rep = sim.check_cases([c, wrong], 96, tamper_every=0)
    assert [r.passed for r in rep.rows] == [True, True, False, False]


def test_tag_and_cycles_of_a_long_message():
    key, pmn, msg = bytes(range(16)), b"\x01\x02\x03\x04", bytes(range(256)) * 4
    (r,) = sim.simulate([sim.SimMessage(key, pmn, msg)], 128)
    assert r.output + r.tag == model.encrypt(key, pmn, msg)
    assert r.framing_ok


@pytest.mark.skipif(not has_tool("verilator"), reason="verilator not installed ($DCSFLOW_VERILATOR)")
def test_official_vectors_verilator():
    rep = sim.check_vectors(load_official(128), 128, simulator="verilator")
    assert rep.total == 75 and rep.ok


@pytest.mark.skipif(not has_tool("verilator"), reason="verilator not installed ($DCSFLOW_VERILATOR)")
@pytest.mark.parametrize("top,params", [("picipher_mp", ["-GKEY_BITS=96", "-GBUFFER_KEY=0"]),
                                        ("picipher_mp", ["-GKEY_BITS=128", "-GBUFFER_KEY=1"]),
                                        ("picipher_cis_mp", [])])
def test_verilator_lint_clean(top, params):
    r = subprocess.run([find_tool("verilator"), "--lint-only", "-Wall", "--top-module", top, *params,
                        *map(str, sim.rtl_files(cis=True))], capture_output=True, text=True)
    assert r.returncode == 0 and "%Warning" not in r.stderr, r.stderr


def test_rtl_is_clean_in_yosys_and_key_mn_is_a_parameter_input(tmp_path):
    files = [str(f) for f in sim.rtl_files(cis=True)]
    for top, kb in (("picipher_mp", 96), ("picipher_mp", 128), ("picipher_cis_mp", None)):
        chp = f" -chparam KEY_BITS {kb}" if kb else ""
        out = tmp_path / f"{top}{kb}.json"
        r = subprocess.run([find_tool("yosys"), "-q", "-p", f"read_verilog {' '.join(files)}; hierarchy -check -top "
                            f"{top}{chp}; proc; check -assert; write_json {out}"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        mods = json.loads(out.read_text())["modules"]
        (topmod,) = [m for m in mods.values() if m["attributes"].get("top")]
        port = "key_mn" if kb else "cis_param"
        assert len(topmod["ports"][port]["bits"]) == (kb + 32 if kb else 448)
        assert int(topmod["netnames"][port]["attributes"]["PARAM"], 2) == 1
        others = [n for n, v in topmod["netnames"].items() if "PARAM" in v["attributes"]]
        assert others == [port]


@pytest.mark.parametrize("buffer_key", [0, 1])
def test_key_mn_feeds_logic_directly_unless_buffered(tmp_path, buffer_key):
    # BUFFER_KEY=0: no flip-flop samples key_mn (it flows into the init logic, KPIG -> ALU -> pi state);
    # BUFFER_KEY=1: exactly the 160 bits of Key||PMN are registered.
    out = tmp_path / "n.json"
    files = " ".join(str(f) for f in sim.rtl_files())
    r = subprocess.run([find_tool("yosys"), "-q", "-p", f"read_verilog {files}; hierarchy -top picipher_mp -chparam "
                        f"KEY_BITS 128 -chparam BUFFER_KEY {buffer_key}; proc; flatten; opt; "
                        f"write_json {out}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = json.loads(out.read_text())["modules"]["picipher_mp"]
    kbits = set(m["ports"]["key_mn"]["bits"])
    sampled = set()
    for c in m["cells"].values():
        if "dff" in c["type"]:
            sampled |= set(c["connections"]["D"]) & kbits
    assert len(sampled) == (160 if buffer_key else 0)


def test_icarus_compile_error_is_a_simulation_error(tmp_path, monkeypatch):
    bad = tmp_path / "rtl"
    bad.mkdir()
    (bad / "broken.v").write_text("module picipher_mp(; endmodule\n")
    monkeypatch.setattr(sim, "RTL_DIR", bad)
    with pytest.raises(sim.SimulationError, match="iverilog failed"):
        sim.simulate([sim.SimMessage(bytes(12), bytes(4), b"")], 96)


# ------------------------------------------------------------------------------ π32 and π64 (W = 32 / 64)
@pytest.mark.parametrize("w,bits,cis", [(32, 128, False), (64, 256, False), (32, 256, True), (64, 128, True)])
def test_wide_official_vectors_icarus(w, bits, cis):
    """The RTL with W = 32 / 64 on every official record without AD and SMN (π32: 49, π64: 97 per
    key size), encrypting, decrypting and with a tampered tag; the CIS variant with its parameter
    from the golden model."""
    vs = load_official(bits, w)
    rep = sim.check_vectors(vs, bits, cis=cis, word_bits=w)
    n = 49 if w == 32 else 97
    assert rep.skipped == len(vs) - n and rep.total == 3 * n
    assert rep.ok, [r for r in rep.rows if not r.passed][:3]
    assert {r.msg_len for r in rep.rows} >= {0, w - 1, w, w + 1}        # around the block boundary


@pytest.mark.parametrize("w,bits", [(32, 256), (64, 128)])
def test_wide_random_messages_stalls_and_key_buffer(w, bits):
    cases = sim.random_cases(14, bits, max_len=5 * w + 3, seed=w + bits, word_bits=w)
    rep = sim.check_cases(cases, bits, buffer_key=1, stall_seed=w, tamper_every=3, word_bits=w)
    assert rep.ok, [r for r in rep.rows if not r.passed][:3]
    msgs = [sim.SimMessage(c.key, c.pmn, c.msg) for c in cases[:4]]
    res = sim.simulate(msgs, bits, buffer_key=1, scramble_key=True, word_bits=w)
    assert [r.output + r.tag for r in res] == [c.cipher for c in cases[:4]]


def test_wide_check_can_fail_and_sizes_are_checked():
    c = sim.random_cases(1, 128, seed=4, word_bits=32)[0]
    wrong = sim.Case("wrong", c.key, c.pmn, c.msg, c.cipher[:-1] + bytes([c.cipher[-1] ^ 0x80]))
    rep = sim.check_cases([c, wrong], 128, tamper_every=0, word_bits=32)
    assert [r.passed for r in rep.rows] == [True, True, False, False]
    with pytest.raises(sim.InputError, match="key_bits must be 128 or 256 for π64-Cipher"):
        sim.simulate([sim.SimMessage(bytes(12), bytes(16), b"")], 96, word_bits=64)
    with pytest.raises(sim.InputError, match="π32-Cipher record; design expects π16"):
        sim.check_vectors(load_official(128, 32), 128)


@pytest.mark.skipif(not has_tool("verilator"), reason="verilator not installed ($DCSFLOW_VERILATOR)")
@pytest.mark.parametrize("top,params", [("picipher_mp", ["-GW=32", "-GKEY_BITS=128", "-GBUFFER_KEY=1"]),
                                        ("picipher_mp", ["-GW=64", "-GKEY_BITS=256", "-GBUFFER_KEY=0"]),
                                        ("picipher_cis_mp", ["-GW=32"]), ("picipher_cis_mp", ["-GW=64"])])
def test_wide_verilator_lint_clean(top, params):
    r = subprocess.run([find_tool("verilator"), "--lint-only", "-Wall", "--top-module", top, *params,
                        *map(str, sim.rtl_files(cis=True))], capture_output=True, text=True)
    assert r.returncode == 0 and "%Warning" not in r.stderr, r.stderr


def test_wide_rtl_is_clean_in_yosys_with_parameter_port_widths(tmp_path):
    files = [str(f) for f in sim.rtl_files(cis=True)]
    for top, w, kb, port, width in (("picipher_mp", 32, 128, "key_mn", 256), ("picipher_mp", 64, 256, "key_mn", 384),
                                    ("picipher_cis_mp", 32, None, "cis_param", 832),
                                    ("picipher_cis_mp", 64, None, "cis_param", 1600)):
        chp = f" -chparam W {w}" + (f" -chparam KEY_BITS {kb}" if kb else "")
        out = tmp_path / f"{top}{w}.json"
        r = subprocess.run([find_tool("yosys"), "-q", "-p", f"read_verilog {' '.join(files)}; hierarchy -check -top "
                            f"{top}{chp}; proc; check -assert; write_json {out}"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        (topmod,) = [m for m in json.loads(out.read_text())["modules"].values() if m["attributes"].get("top")]
        assert len(topmod["ports"][port]["bits"]) == width
        assert len(topmod["ports"]["tag"]["bits"]) == 8 * w and len(topmod["ports"]["s_bytes"]["bits"]) == (6 if w == 32 else 7)
        assert [n for n, v in topmod["netnames"].items() if "PARAM" in v["attributes"]] == [port]
