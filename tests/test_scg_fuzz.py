"""Fuzzing the bitstream parser: for any bytes, scg.bitstream.parse returns or raises BitstreamError.

Four hypothesis tests of 2,600 examples each (10,400 inputs in all, plus 400 single bit flips that
must be detected by the CRC): mutations of a small synthetic partial bitstream (raw and .bit), random
packet streams after a sync word, and mutations of the first bytes of the real pynq-z1_base.bit.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dcsflow.scg import bitstream as B
from dcsflow.scg.device import FRAME_WORDS, get_device
from dcsflow.scg.errors import BitstreamError

FUZZ = settings(max_examples=2600, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@lru_cache(maxsize=None)
def seed_stream() -> bytes:
    """A small valid partial bitstream: 2 frames of one site (+ pad frame), with a CRC check."""
    dev = get_device("xc7z020")
    mem = B.FrameMemory(dev)
    mem.set_lut("SLICE_X56Y34", "A6LUT", 0x0123456789ABCDEF)
    fars = dev.lut_frames("SLICE_X56Y34")[:2]
    return B.write_partial(mem, fars, crc=True, sync_preamble=True)


@lru_cache(maxsize=None)
def seed_bit() -> bytes:
    return B.to_bit(seed_stream(), design="fuzz", part="7z020clg400", date="2024/01/01", time="00:00:00")


def _check(data: bytes, strict: bool = True) -> None:
    try:
        bs = B.parse(data, strict=strict)
    except BitstreamError as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert isinstance(bs, B.Bitstream)


_mutation = st.tuples(st.sampled_from(["flip", "set", "cut", "insert", "delete", "dup"]),
                      st.integers(0, 10 ** 6), st.integers(0, 255), st.integers(1, 64))


def _mutate(data: bytes, ops) -> bytes:
    b = bytearray(data)
    for kind, pos, val, n in ops:
        if not b:
            break
        p = pos % len(b)
        if kind == "flip":
            b[p] ^= 1 << (val % 8)
        elif kind == "set":
            b[p] = val
        elif kind == "cut":
            del b[p:]
        elif kind == "insert":
            b[p:p] = bytes([val]) * n
        elif kind == "delete":
            del b[p:p + n]
        else:
            b[p:p] = b[p:p + 4 * n]
    return bytes(b)


def test_seed_is_valid():
    bs = B.parse(seed_bit())
    dev = get_device("xc7z020")
    fars = dev.lut_frames("SLICE_X56Y34")[:2]
    assert bs.crc_ok and bs.frames.written_fars() == fars
    mem = B.FrameMemory(dev)
    mem.set_lut("SLICE_X56Y34", "A6LUT", 0x0123456789ABCDEF)
    assert all(bs.frames.frame(f) == mem.frame(f) for f in fars)


@FUZZ
@given(st.booleans(), st.lists(_mutation, min_size=1, max_size=4), st.booleans())
def test_fuzz_mutated_synthetic(with_header, ops, strict):
    _check(_mutate(seed_bit() if with_header else seed_stream(), ops), strict)


_word = st.one_of(
    st.integers(0, 2 ** 32 - 1),
    st.sampled_from([B.NOOP, B.SYNC_WORD, 0xFFFFFFFF, 0x30008001, 0x30002001, 0x30004000, 0x30000001,
                     0x30018001, 0x50000000, 0x500000CA, 0x28006000, 0x48000065, 0x03727093, 0x0000000D,
                     0x00000007, 0x00000001]),
    st.builds(lambda t, op, reg, n: (t << 29) | (op << 27) | (reg << 13) | n,
              st.integers(0, 7), st.integers(0, 3), st.integers(0, 40), st.integers(0, 300)),
)


@FUZZ
@given(st.lists(_word, max_size=60), st.integers(0, 3), st.booleans())
def test_fuzz_packet_streams(words, tail, strict):
    data = B.words_to_bytes([0xFFFFFFFF, B.SYNC_WORD] + words)
    _check(data[:len(data) - tail] if tail else data, strict)


@lru_cache(maxsize=None)
def real_prefix() -> bytes:
    from dcsflow.scg.data import data_file

    with open(data_file("bitstreams", "pynq-z1_base.bit"), "rb") as f:
        return f.read(1200)


@FUZZ
@given(st.integers(0, 1200), st.lists(_mutation, max_size=3), st.booleans(), st.booleans())
def test_fuzz_real_prefix(cut, ops, fix_length, strict):
    data = _mutate(real_prefix()[:cut], ops)
    if fix_length and b"e\x00" in data:
        # make the .bit header consistent so that the stream parser itself is exercised
        i = data.index(b"e\x00")
        body = data[i + 5:]
        data = data[:i + 1] + len(body).to_bytes(4, "big") + body
    _check(data, strict)


@FUZZ
@given(st.binary(max_size=600))
def test_fuzz_random_bytes(data):
    _check(data)
    _check(B.BIT_MAGIC + data, strict=False)


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_any_bit_flip_in_register_data_is_detected(data):
    """The CRC covers every register write before the CRC check: flipping any bit of that FDRI, FAR
    or IDCODE data is an error."""
    stream = seed_stream()
    words = B.words_from_bytes(stream)
    bs = B.parse(stream)
    last_check = bs.crc_checks[-1].index
    covered = [k for p in bs.packets if p.opcode == B.OP_WRITE and p.reg not in (B.R_CRC, B.R_CMD)
               and p.start < last_check for k in range(p.start, p.start + p.count)]
    assert len(covered) > 3 * FRAME_WORDS
    k = data.draw(st.sampled_from(covered))
    bit = data.draw(st.integers(0, 31))
    words[k] ^= 1 << bit
    try:
        B.parse(B.words_to_bytes(words))
    except BitstreamError:
        return
    raise AssertionError(f"flip of bit {bit} in word {k} not detected")
