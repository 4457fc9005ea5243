"""Golden models of the Keccak design (designs/keccak): Keccak-p[1600] and the sponge against
hashlib (SHA3-256, SHAKE128), KMAC128 against pycryptodome, Lake Keyak v1 against every record of
the bundled LakeKeyak.txt, input errors."""

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.designs.keccak import model, vectors
from dcsflow.designs.keccak.errors import AuthenticationError, InputError, KeccakError, VectorFileError

RNG_SEED = 20261126


# --- Keccak-p[1600] and the sponge -----------------------------------------------------------

def test_constants_match_fips202():
    # FIPS 202 §3.2.5: RC[0] = 1, RC[23] = 0x8000000080008008; ρ offset of lane (1, 0) is 1, of (4, 4) 14
    assert model.ROUND_CONSTANTS[0] == 1
    assert model.ROUND_CONSTANTS[23] == 0x8000000080008008
    assert model.RHO_OFFSETS[1] == 1 and model.RHO_OFFSETS[24] == 14
    assert sorted(model.PI_SOURCE) == list(range(25))


def test_keccak_p_rounds_compose():
    # Keccak-p[1600, 24] = Keccak-f[1600]; the last 12 of its rounds are Keccak-p[1600, 12]
    s = bytes(random.Random(1).randrange(256) for _ in range(200))
    lanes = model.state_to_lanes(s)
    first12 = lanes
    for ir in range(12):
        first12 = model.keccak_round(first12, ir)
    assert model.keccak_p(model.lanes_to_state(first12), 12) == model.keccak_f(s)
    assert model.lanes_to_state(model.state_to_lanes(s)) == s


LENGTHS = sorted({0, 1, 2, 7, 8, 63, 64, 135, 136, 137, 167, 168, 169, 271, 272, 273, 335, 336, 337, 500})


@pytest.mark.parametrize("n", LENGTHS)
def test_sha3_256_and_shake128_vs_hashlib(n):
    msg = random.Random(n).randbytes(n)
    assert model.sha3_256(msg) == hashlib.sha3_256(msg).digest()
    for out in (0, 1, 32, 167, 168, 169, 400):
        assert model.shake128(msg, out) == hashlib.shake_128(msg).digest(out)


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=350))
def test_sponge_random_vs_hashlib(msg, out):
    assert model.sha3_256(msg) == hashlib.sha3_256(msg).digest()
    assert model.shake128(msg, out) == hashlib.shake_128(msg).digest(out)


# --- SP 800-185 --------------------------------------------------------------------------------

def test_sp800_185_encodings():
    assert model.left_encode(0) == b"\x01\x00"
    assert model.right_encode(0) == b"\x00\x01"
    assert model.left_encode(256) == b"\x02\x01\x00"
    assert model.right_encode(168 * 8) == b"\x05\x40\x02"
    assert model.encode_string(b"") == b"\x01\x00"
    assert model.bytepad(b"ab", 8) == b"\x01\x08ab" + bytes(4)


def test_kmac128_vs_pycryptodome():
    KMAC128 = pytest.importorskip("Crypto.Hash.KMAC128")
    rng = random.Random(RNG_SEED)
    cases = [(16, 0, b"", 16), (32, 200, b"", 32), (32, 167, b"My Tagged Application", 64),
             (21, 168, b"x" * 170, 8), (200, 1000, b"", 200)]
    for _ in range(15):
        cases.append((rng.randrange(16, 80), rng.randrange(0, 400),
                      rng.randbytes(rng.randrange(0, 40)), rng.randrange(8, 300)))
    for key_len, msg_len, custom, out in cases:
        key, msg = rng.randbytes(key_len), rng.randbytes(msg_len)
        want = KMAC128.new(key=key, data=msg, mac_len=out, custom=custom).digest()
        assert model.kmac128(key, msg, out, custom) == want, (key_len, msg_len, custom, out)


def test_cshake128_empty_names_is_shake128():
    assert model.cshake128(b"abc", 40) == hashlib.shake_128(b"abc").digest(40)


# --- Lake Keyak v1 -----------------------------------------------------------------------------

def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1:]


def test_vector_file_shape():
    f = vectors.load_lake_keyak()
    assert len(f.sessions) == 5
    assert len(f.messages) == 160
    assert sum(s == vectors.FORGET for se in f.sessions for s in se.steps) > 0
    assert f.checksum is not None


def test_lake_keyak_all_records():
    """Every record: a sender session encrypts (ciphertext and tag as listed), a receiver session
    decrypts the listed ciphertext and accepts the tag; a copy of the receiver before the record
    rejects a flipped tag bit and a flipped ciphertext bit. Both follow the file's ``forget``s."""
    passed = 0
    for sess in vectors.load_lake_keyak().sessions:
        sender = model.LakeKeyak(sess.key, sess.nonce)
        receiver = model.LakeKeyak(sess.key, sess.nonce)
        for step in sess.steps:
            if step == vectors.FORGET:
                sender.forget()
                receiver.forget()
                continue
            ct, tag = sender.wrap(step.ad, step.plaintext, len(step.tag))
            assert (ct, tag) == (step.ciphertext, step.tag), step.source
            bad_tag = receiver.copy()
            with pytest.raises(AuthenticationError):
                bad_tag.unwrap(step.ad, step.ciphertext, _flip(step.tag, len(step.tag) - 1))
            if step.ciphertext:
                bad_ct = receiver.copy()
                with pytest.raises(AuthenticationError):
                    bad_ct.unwrap(step.ad, _flip(step.ciphertext, len(step.ciphertext) // 2), step.tag)
            assert receiver.unwrap(step.ad, step.ciphertext, step.tag) == step.plaintext, step.source
            passed += 1
    assert passed == 160


def test_lake_keyak_one_message_round_trip():
    rng = random.Random(RNG_SEED)
    key, nonce = rng.randbytes(16), rng.randbytes(16)
    for n in (0, 1, 167, 168, 169, 400):
        ad, pt = rng.randbytes(n // 2), rng.randbytes(n)
        ct, tag = model.lake_keyak_encrypt(key, nonce, ad, pt)
        assert len(ct) == n and len(tag) == model.KEYAK_TAG_BYTES
        assert model.lake_keyak_decrypt(key, nonce, ad, ct, tag) == pt
        with pytest.raises(AuthenticationError):
            model.lake_keyak_decrypt(key, nonce, _flip(ad) if ad else b"\x00", ct, tag)


# --- errors --------------------------------------------------------------------------------------

SECRET = bytes.fromhex("a5c3e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0aa")


@pytest.mark.parametrize("key_len", [0, 15, 29, 32])
def test_lake_keyak_bad_key_length(key_len):
    key = (SECRET * 2)[:key_len]
    with pytest.raises(InputError) as e:
        model.LakeKeyak(key, bytes(16))
    msg = str(e.value)
    assert "\n" not in msg and "16..28" in msg
    if key:
        assert key.hex() not in msg and key[:4].hex() not in msg
    assert e.value.user_error and isinstance(e.value, KeccakError)


def test_bad_types_and_lengths():
    with pytest.raises(InputError):
        model.LakeKeyak(SECRET[:16].hex(), bytes(16))
    with pytest.raises(InputError):
        model.LakeKeyak(SECRET[:16], "nonce")
    s = model.LakeKeyak(SECRET[:16], bytes(16))
    with pytest.raises(InputError):
        s.wrap(b"", b"x", 0)
    with pytest.raises(InputError):
        s.unwrap(b"", b"", b"")
    with pytest.raises(InputError) as e:
        model.kmac128(SECRET.hex(), b"", 32)
    assert SECRET.hex() not in str(e.value)
    with pytest.raises(InputError):
        model.kmac128(SECRET, b"", -1)
    with pytest.raises(InputError):
        model.keccak_p(bytes(199))
    with pytest.raises(InputError):
        model.keccak_p(bytes(200), 0)


@pytest.mark.parametrize("text, where, what", [
    ("associated data:\n", ":1:", "before a session"),
    ("initialize with:\nkey: 00\nnonce: 01\nassociated data:\ntag: 00\n", ":5:", "expected"),
    ("initialize with:\nkey: 00\nnonce: 01\nassociated data: 0g\n", ":4:", "hex bytes"),
    ("initialize with:\nkey: 00\nnonce: 01\nassociated data:\nplaintext: 01\nciphertext:\n", ":6:",
     "ciphertext of 0 bytes"),
    ("initialize with:\nkey: 00\nnonce: 01\nassociated data:\nplaintext:\n", ":5:", "ends inside"),
    ("initialize with:\nnonce: 01\n", ":2:", "out of place"),
    ("hello\n", ":1:", "not a line of the format"),
])
def test_vector_reader_errors(text, where, what):
    with pytest.raises(VectorFileError) as e:
        vectors.parse_lake_keyak(text, "x.txt")
    msg = str(e.value)
    assert msg.startswith("x.txt" + where) and what in msg and "\n" not in msg


def test_vector_reader_file_errors(tmp_path):
    p = tmp_path / "LakeKeyak.txt"
    p.write_text("initialize with:\nkey: 00\nnonce: 01\n\nassociated data:\nplaintext:\nciphertext:\ntag: 01\n")
    f = vectors.read_lake_keyak(p)
    assert len(f.messages) == 1 and f.messages[0].source == "LakeKeyak.txt:8"
    with pytest.raises(VectorFileError, match="SHA-256"):
        vectors.read_lake_keyak(p, vectors.LAKE_KEYAK_SHA256)
    with pytest.raises(VectorFileError):
        vectors.read_lake_keyak(tmp_path)                   # a folder
    with pytest.raises(VectorFileError):
        vectors.read_lake_keyak(tmp_path / "missing.txt")
