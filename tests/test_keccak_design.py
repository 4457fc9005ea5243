"""The keccak design's description: the parameter transform (the KMAC128 key state) against
pycryptodome, its input errors, the known-answer file reader against the NIST CAVP files' own
record counts, and ``dcsflow sim keccak`` on the command line (RTL under Icarus)."""

from __future__ import annotations

import re

import pytest

from _cli import one_line_error
from dcsflow.designs.keccak import hashvec, model
from dcsflow.designs.keccak.design import KECCAK, key_state_transform
from dcsflow.designs.keccak.errors import InputError, VectorFileError
from dcsflow.tools import has_tool

ICARUS = has_tool("iverilog") and has_tool("vvp")


def _continue_kmac(state: bytes, message: bytes, out_len: int) -> bytes:
    """KMAC128's tail from a key state: absorb X || right_encode(L) with cSHAKE's padding (domain bits
    00, pad10*1) over rate 168, squeeze ``out_len`` bytes (FIPS 202 §4, SP 800-185 §3.3)."""
    data = bytearray(message + model.right_encode(8 * out_len) + b"\x04")
    data += bytes(-len(data) % 168)
    data[-1] |= 0x80
    for off in range(0, len(data), 168):
        state = model.keccak_f(bytes(a ^ b for a, b in zip(state, bytes(data[off:off + 168]) + bytes(32))))
    out = b""
    while True:
        out += state[:168]
        if len(out) >= out_len:
            return out[:out_len]
        state = model.keccak_f(state)


@pytest.mark.parametrize("kl,cl,ml,ol", [(16, 0, 0, 32), (32, 21, 5, 64), (20, 157, 170, 200), (24, 32, 400, 8)])
def test_key_state_transform_against_pycryptodome(kl, cl, ml, ol):
    from Crypto.Hash import KMAC128

    key, custom, msg = bytes(range(7, 7 + kl)), bytes(i % 251 for i in range(cl)), bytes(i % 253 for i in range(ml))
    user = {"key": int.from_bytes(key, "little"), "key_len": kl, "custom": int.from_bytes(custom, "little"),
            "custom_len": cl}
    circ = key_state_transform(user)
    assert {k: circ[k] for k in user} == user
    state = circ["key_state"].to_bytes(200, "little")
    assert _continue_kmac(state, msg, ol) == KMAC128.new(key=key, data=msg, mac_len=ol, custom=custom).digest()
    assert KECCAK.circuit_values(user) == circ


@pytest.mark.parametrize("user,what", [
    ({"key": 0, "key_len": 33, "custom": 0, "custom_len": 0}, "key_len must be 0..32"),
    ({"key": 0, "key_len": 16, "custom": 0, "custom_len": 158}, "custom_len must be 0..157"),
    ({"key": 1 << 128, "key_len": 16, "custom": 0, "custom_len": 0}, "bits set above its key_len"),
    ({"key": 0, "key_len": 16, "custom": 1 << 8, "custom_len": 1}, "above its custom_len"),
])
def test_key_state_transform_errors(user, what):
    with pytest.raises(InputError, match=what) as e:
        key_state_transform(user)
    assert "\n" not in str(e.value)


def test_cavp_files_read_completely():
    # record counts from the files themselves (lines 'MD =' / 'Output ='), byte-oriented messages
    base = hashvec.cavp_dir()
    for mode, files in hashvec.CAVP_FILES.items():
        for f in files:
            text = (base / f).read_text()
            vs = hashvec.read_rsp(base / f)
            assert len(vs) == len(re.findall(r"^(MD|Output) = ", text, re.M)) > 90
            assert {v.mode for v in vs} == {mode}
    short = hashvec.read_rsp(base / "SHA3/SHA3_256ShortMsg.rsp")
    assert short[0].message == b"" and short[1].message == bytes.fromhex("e9")


@pytest.mark.parametrize("text,what", [
    ("Len = 8\nMsg = e9\nMD = 00\n", ":1: a SHA3-256 digest has 32 bytes"),
    ("Len = 16\nMsg = e9\nMD = " + "00" * 32 + "\n", ":1: Msg has 1 bytes, Len says 16 bits"),
    ("Len = 4\nMsg = e0\nMD = " + "00" * 32 + "\n", ":1: message of 4 bits"),
    ("Msg = zz\nOutput = 00\n", ":1: Msg is not a hex byte string"),
    ("[Outputlen = 16]\n\nMsg = 00\nOutput = 00\n", "Outputlen 16 bits does not match"),
    ("Key = " + "00" * 33 + "\nMsg = \nOutput = 00\n", "KMAC128 key of 33 bytes"),
    ("Key = 00\nS = " + "00" * 158 + "\nMsg = \nOutput = 00\n", "customization string of 158 bytes"),
    ("Msg 00\n", ":1: expected 'Name = value'"),
    ("# nothing\n", "no SHA3-256, SHAKE128 or KMAC128 records"),
    ("Len = 8\nMD = " + "00" * 32 + "\n\nLen = 8\nMsg = e9\n", ":1: incomplete record"),
    ("COUNT = 0\nMsg = e9\nOutput = 00\n\nMsg = e9\n", ":5: incomplete record"),
])
def test_rsp_reader_errors(text, what):
    with pytest.raises(VectorFileError, match=what) as e:
        hashvec.parse_rsp(text, "f.rsp")
    assert "\n" not in str(e.value) and str(e.value).startswith("f.rsp")


def test_kmac_vectors_independent_and_seeded():
    from Crypto.Hash import KMAC128

    a, b = hashvec.kmac_vectors(keys=2, per_key=6), hashvec.kmac_vectors(keys=2, per_key=6)
    assert a == b and len(a) == 12 and len({(v.key, v.custom) for v in a}) == 2
    assert {len(v.message) for v in a} >= {0, 1, 8, 160, 169}
    v = a[7]
    assert model.kmac128(v.key, v.message, len(v.expected), v.custom) == v.expected
    assert KMAC128.new(key=v.key, data=v.message, mac_len=len(v.expected), custom=v.custom).digest() == v.expected


@pytest.mark.skipif(not ICARUS, reason="Icarus Verilog not installed")
def test_sim_cli(dcsflow, tmp_path):
    r = dcsflow("sim", "keccak", "--mode", "kmac128")
    # the three SP 800-185 samples and the 24 seeded pycryptodome answers
    assert r.returncode == 0 and "passed 27/27" in r.stdout, r.stdout + r.stderr
    assert re.search(r"3/3\s*│\s*25\s*│", r.stdout), r.stdout        # one word: 1 + 24 cycles
    assert re.search(r"24/24\s*│\s*25\s*│", r.stdout), r.stdout
    # a file of its own format: five SHA3-256 records, one of them wrong
    base = hashvec.cavp_dir()
    lines = (base / "SHA3/SHA3_256ShortMsg.rsp").read_text().split("\n\n")[:7]
    bad = lines[3].replace(lines[3].split("MD = ")[1][:2], "ff" if lines[3].split("MD = ")[1][:2] != "ff" else "00", 1)
    (tmp_path / "some.rsp").write_text("\n\n".join(lines[:3] + [bad] + lines[4:]) + "\n")
    r = dcsflow("sim", "keccak", "--vectors", tmp_path / "some.rsp", "--conventional")
    assert r.returncode == 1 and "passed 4/5" in r.stdout and "FAIL some.rsp:" in r.stdout, r.stdout + r.stderr
    r = dcsflow("sim", "keccak", "--vectors", tmp_path / "some.rsp", "--mode", "shake128")
    one_line_error(r, "a sha3-256 record, but --mode is shake128")
    (tmp_path / "broken.rsp").write_text("Len = 8\nMsg = e9\nMD = 12\n")
    one_line_error(dcsflow("sim", "keccak", "--vectors", tmp_path / "broken.rsp"), "broken.rsp:1:")
    r = dcsflow("sim", "keccak", "--mode", "keyak")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_format_rsp_reads_back():
    # every mode's record through the writer and the reader; the values come from the CAVP file and
    # pycryptodome, not from the writer
    base = hashvec.cavp_dir()
    vs = (hashvec.kmac_vectors(keys=1, per_key=3) + hashvec.read_rsp(base / "SHA3/SHA3_256ShortMsg.rsp")[:3]
          + hashvec.read_rsp(base / "SHAKE/SHAKE128ShortMsg.rsp")[:3])
    back = hashvec.parse_rsp(hashvec.format_rsp(vs), "x.rsp")
    assert [(v.mode, v.message, v.expected, v.key, v.custom) for v in back] == \
        [(v.mode, v.message, v.expected, v.key, v.custom) for v in vs]


@pytest.mark.parametrize("kl", [16, 23, 28, 32])
def test_keyak_pack_transform_against_the_model(kl):
    # the model's session state before its nonce: key pack (bytes 0..29) and diversifier (30, 31);
    # a key above 28 bytes is packed by its first 28 (as both RTL variants do)
    key = bytes(range(3, 3 + kl))
    circ = key_state_transform({"key": int.from_bytes(key, "little"), "key_len": kl, "custom": 0, "custom_len": 0})
    s = model.LakeKeyak(key[:28], b"")
    assert circ["keyak_pack"].to_bytes(30, "little") == bytes(s.engine.piston.state[:30])
    assert bytes(s.engine.piston.state[30:32]) == b"\x01\x00"


def test_vector_file_kind_and_mode_errors(dcsflow, tmp_path):
    from dcsflow.designs.keccak import check, vectors as kv

    assert kv.is_lake_keyak(kv.LAKE_KEYAK_FILE)
    cases = check.read_vectors(kv.LAKE_KEYAK_FILE)
    assert [len(c.pairs) for c in cases] == [len(s.steps) for s in kv.load_lake_keyak().sessions]
    rsp = tmp_path / "k.rsp"
    rsp.write_text(hashvec.format_rsp(hashvec.kmac_vectors(keys=1, per_key=1)))
    assert not kv.is_lake_keyak(rsp) and check.read_vectors(rsp)[0].mode == "kmac128"
    one_line_error(dcsflow("sim", "keccak", "--mode", "lake-keyak", "--vectors", rsp), "kmac128 record")
    bad = tmp_path / "bad.txt"
    bad.write_text("initialize with:\nkey: 00 01\nnonce: zz\n")
    one_line_error(dcsflow("sim", "keccak", "--vectors", bad), "bad.txt:3")


def test_keyak_requests_errors():
    from dcsflow.designs.keccak import sim

    for req, what in [(sim.KeyakRequest("seal"), "wrap, unwrap or forget"),
                      (sim.KeyakRequest("wrap", tag_len=0), "tag length"),
                      (sim.KeyakRequest("unwrap", tag=b""), "tag length"),
                      (sim.KeyakRequest("wrap", key=bytes(33)), "key of at most"),
                      (sim.KeyakRequest("wrap", pack=bytes(29)), "key pack must be 30")]:
        with pytest.raises(InputError, match=what):
            sim.stimulus_text([req])


def test_named_keyak_value():
    from dcsflow.designs.keccak import check, design
    from dcsflow.flow.design import NamedParamError

    key = bytes(range(16, 34))
    vals = design.keyak_values(key.hex(), check.PARAMS)
    assert vals == design.kmac_values(key.hex(), check.PARAMS)
    assert vals["keyak_pack"].to_bytes(30, "little") == bytes(model.LakeKeyak(key, b"").engine.piston.state[:30])
    for text, what in [("00" * 15, "16..28 bytes; got 15"), ("00" * 29, "got 29"), ("0g" * 16, "hex bytes"),
                       ("00" * 16 + ",00", "hex bytes")]:
        with pytest.raises(NamedParamError, match=what) as e:
            design.keyak_values(text, check.PARAMS)
        assert "0g" not in str(e.value) and "\n" not in str(e.value)
