"""The bundled designs' parameter transform programs (keccak's KMAC128 key state and Lake Keyak key
pack, aes_modes' H = E_K(0^128), the π-Cipher ``_cis`` designs' cipher state) against their golden
models — the designs' Python transform functions — on random values and edge cases (lengths 0, the
largest, out of range, bits above a length: the same refusal), AES also against pycryptodome; and
their generated C, compiled natively, against the interpreter."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from dcsflow.designs.aes_modes.design import AES_MODES, hash_key_transform
from dcsflow.designs.aes_modes.transform import hash_key_program
from dcsflow.designs.keccak.design import KECCAK, key_state_transform
from dcsflow.designs.keccak.errors import InputError as KeccakInputError
from dcsflow.designs.keccak.sim import MAX_CUSTOM, MAX_KEY
from dcsflow.designs.keccak.transform import key_state_program
from dcsflow.designs.picipher.design import PICIPHER32_CIS, PICIPHER64_CIS, PICIPHER_CIS, cis_transform, \
    wide_cis_transform
from dcsflow.designs.picipher.transform import cis_program
from dcsflow.scg import transform as tf
from dcsflow.scg.transform_c import transform_source


def _keccak_user(klen, clen, key, custom):
    return {"key": key, "key_len": klen, "custom": custom, "custom_len": clen}


def _same(program, golden, user, refusal=Exception):
    """The program gives the golden model's values, or both refuse."""
    try:
        want = golden(user)
    except refusal:
        with pytest.raises(tf.TransformRefused):
            tf.run(program, user)
        return None
    assert tf.run(program, user) == want
    return want


@given(klen=st.integers(0, MAX_KEY), clen=st.integers(0, MAX_CUSTOM), data=st.data())
@settings(max_examples=30, deadline=None)
def test_keccak_program_matches_the_golden_model(klen, clen, data):
    """KMAC128 key state and key pack for random keys and customization strings of every length
    (the encodings change at 32 bytes), as the golden model (SP 800-185 over Keccak-f in Python)."""
    key = data.draw(st.integers(0, (1 << (8 * klen)) - 1))
    custom = data.draw(st.integers(0, (1 << (8 * clen)) - 1))
    assert _same(key_state_program(), key_state_transform, _keccak_user(klen, clen, key, custom)) is not None


@pytest.mark.parametrize("klen,clen", [(0, 0), (MAX_KEY, MAX_CUSTOM), (31, 31), (32, 32), (28, 0), (29, 1), (16, 157)])
def test_keccak_program_edge_lengths(klen, clen):
    """The lengths where an encoding or the key pack changes, with all-ones strings."""
    u = _keccak_user(klen, clen, (1 << (8 * klen)) - 1, (1 << (8 * clen)) - 1)
    assert _same(key_state_program(), key_state_transform, u) is not None


@given(klen=st.integers(0, 63), clen=st.integers(0, 255), above=st.integers(0, 3), data=st.data())
@settings(max_examples=40, deadline=None)
def test_keccak_program_refuses_what_the_golden_model_refuses(klen, clen, above, data):
    """Lengths beyond the ports' limits and bits set above a length: the program refuses exactly
    when the golden model does."""
    key = data.draw(st.integers(0, (1 << 256) - 1)) if above & 1 else (1 << (8 * min(klen, 32))) - 1
    custom = data.draw(st.integers(0, (1 << 1256) - 1)) if above & 2 else (1 << (8 * min(clen, 157))) - 1
    _same(key_state_program(), key_state_transform, _keccak_user(klen, clen, key, custom), KeccakInputError)


@pytest.mark.parametrize("u,needle", [
    (_keccak_user(33, 0, 0, 0), "key_len must be 0..32 bytes"),
    (_keccak_user(0, 158, 0, 0), "custom_len must be 0..157 bytes"),
    (_keccak_user(2, 0, 1 << 16, 0), "the key has bits set above its key_len"),
    (_keccak_user(0, 40, 0, 1 << 320), "the customization string has bits set above its custom_len"),
])
def test_keccak_program_refusal_messages(u, needle):
    """Each refusal names its reason as the golden model does, never a value."""
    with pytest.raises(tf.TransformRefused, match=needle):
        tf.run(key_state_program(), u)
    with pytest.raises(KeccakInputError, match=needle):
        key_state_transform(u)


@given(key=st.integers(0, (1 << 128) - 1))
@settings(max_examples=20, deadline=None)
def test_aes_modes_program_matches_the_golden_model_and_pycryptodome(key):
    """H = E_K(0^128) for random keys: the golden model's and pycryptodome's AES."""
    from Crypto.Cipher import AES

    want = _same(hash_key_program(), hash_key_transform, {"key": key})
    kb = key.to_bytes(16, "big")
    assert want["hkey"] == int.from_bytes(AES.new(kb, AES.MODE_ECB).encrypt(bytes(16)), "big")


def test_aes_modes_program_edge_keys():
    """The all-zero key (H = 66e94bd4..., the well-known AES-128 value) and the all-ones key."""
    assert tf.run(hash_key_program(), {"key": 0})["hkey"] == 0x66E94BD4EF8A2C3B884CFA59CA342B2E
    _same(hash_key_program(), hash_key_transform, {"key": (1 << 128) - 1})


@pytest.mark.parametrize("w", [16, 32, 64])
def test_picipher_cis_programs_match_the_golden_model(w):
    """cis_param of π16/π32/π64 for random Key‖PMN values and the all-zero / all-ones ones."""
    rng = random.Random(w)
    bits = 128 if w == 16 else 256
    golden = cis_transform if w == 16 else (lambda u: wide_cis_transform(u, word_bits=w))
    for v in [0, (1 << bits) - 1] + [rng.getrandbits(bits) for _ in range(12)]:
        _same(cis_program(w), golden, {"key_mn": v})


@pytest.mark.parametrize("design", [KECCAK, AES_MODES, PICIPHER_CIS, PICIPHER32_CIS, PICIPHER64_CIS],
                         ids=lambda d: d.name)
def test_each_design_with_a_transform_has_its_program(design):
    """The program takes the design's user parameters in their order and computes circuit parameters
    of the widths the golden model's values have; it is constant time by construction (no
    instruction's count depends on values: the steps are a property of the program)."""
    t = design.transform
    p = t.program()
    assert list(p.input_widths.items()) == list(t.user_params.items())
    zero = {n: 0 for n in t.user_params}
    if design is KECCAK:
        zero = _keccak_user(16, 0, 1, 0)
    want = t.function(zero)
    assert set(want) <= set(p.output_widths) and all(v >> p.output_widths[k] == 0 for k, v in want.items())
    assert 0 < p.steps() < tf.MAX_STEPS


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler")
def test_design_programs_in_c_match_the_interpreter(tmp_path):
    """The generated C of every design program (native, warnings as errors) gives the interpreter's
    outputs and refusals."""
    from test_scg_transform import _check_c, _compile

    progs = [key_state_program(), hash_key_program(), cis_program(16), cis_program(32), cis_program(64)]
    layouts = [tf.vector_layout(p.outputs) for p in progs]
    exe = _compile(tmp_path, progs, layouts, opt="-O0")
    rng = random.Random(3)
    cases = []
    for klen, clen in [(0, 0), (32, 157), (31, 31), (5, 100), (33, 0), (3, 0)]:
        key = rng.getrandbits(8 * min(klen, 32)) | ((1 << 40) if klen == 3 else 0)
        cases.append((0, _keccak_user(klen, clen, key, rng.getrandbits(8 * min(clen, 157)))))
    cases += [(1, {"key": rng.getrandbits(128)}) for _ in range(4)]
    cases += [(k, {"key_mn": rng.getrandbits(p.inputs[0].bits)}) for k, p in enumerate(progs) if k >= 2
              for _ in range(3)]
    _check_c(exe, progs, layouts, cases)

