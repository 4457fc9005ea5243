"""CFGLUT5 chain words (``scg/cfglut.py``) in pure Python: word order against a hand-worked example
and against a shift model of the CFGLUT5 written here from Yosys's ``cells_sim.v``
(``r <= {r[30:0], CDI}``, ``CDO = r[31]``), the inverse, the error cases, the words file.

The loader itself, with Yosys's own CFGLUT5 model, is tested in tests/test_cfglut_loader.py."""

from __future__ import annotations

import os
import random
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.scg import cfglut as cf
from dcsflow.scg.errors import CfglutError, ScgError


def chains_of(lengths: list[int]) -> list[list[str]]:
    return [[f"c{c}_l{j}" for j in range(n)] for c, n in enumerate(lengths)]


def shift_model(chains: list[list[str]], words: list[int]) -> dict[str, int]:
    """Registers of every CFGLUT5 after shifting ``words`` in from all-zero INITs: per cycle t every
    chain c takes bit c%32 of word (c//32)*S + t, each CFGLUT5 shifts left, its old bit 31 feeds the next."""
    s = 32 * max(len(ch) for ch in chains)
    r = {n: 0 for ch in chains for n in ch}
    for t in range(s):
        for c, ch in enumerate(chains):
            bit = (words[(c // 32) * s + t] >> (c % 32)) & 1
            for n in ch:
                out = r[n] >> 31
                r[n] = ((r[n] << 1) | bit) & 0xFFFFFFFF
                bit = out
    return r


def test_hand_worked_example():
    # one chain of one CFGLUT5: INIT bit 31 goes first (cycle 0), bit 0 last (cycle 31)
    assert cf.chain_words([["a"]], {"a": 0x80000001}) == [1] + [0] * 30 + [1]
    # chain 0 of two CFGLUT5s, chain 1 of one: S = 64; chain 1 takes zeros for its first 32 cycles
    words = cf.chain_words([["a", "b"], ["c"]], {"a": 0x1, "b": 0x80000000, "c": 0x80000000})
    assert len(words) == 64
    assert words[0] == 0b01            # b's bit 31 (lut_1 bit 31 = position 63) at t = 0, chain 0
    assert words[32] == 0b10           # c's bit 31 at t = 32, chain 1
    assert words[63] == 0b01           # a's bit 0 at t = 63
    assert sum(1 for w in words if w) == 3


def test_layout_figures():
    assert cf.chain_luts([["a"], ["b", "c", "d"], ["e"]]) == 3
    assert cf.groups(37) == 2 and cf.groups(32) == 1 and cf.groups(1) == 1
    assert cf.shift_cycles(3) == 96 and cf.stride_log2(3) == 7 and cf.stride_log2(1) == 5 and cf.stride_log2(4) == 7
    assert cf.word_count(37, 3) == 192
    assert cf.word_address(0, 0, 7) == 0x8000
    assert cf.word_address(1, 5, 7) == 0x8000 + 4 * (128 + 5)
    assert cf.word_address(1, 5, 7, addr_width=11) == 0x400 + 4 * 133
    assert cf.min_addr_width(37, 3) == 11 and cf.min_addr_width(1, 1) == 8 and cf.min_addr_width(64, 4) == 11
    with pytest.raises(CfglutError, match="beyond the word window"):
        cf.word_address(2, 0, 7, addr_width=11)
    with pytest.raises(CfglutError, match="STRIDE"):
        cf.word_address(0, 128, 7)


@pytest.mark.parametrize("lengths", [[1], [3], [1, 2, 3] * 13, [4] * 64, [2] * 32 + [1], [5, 1]])
def test_words_shift_into_the_inits(lengths):
    rng = random.Random(len(lengths) * 31 + sum(lengths))
    chains = chains_of(lengths)
    inits = {n: rng.getrandbits(32) for ch in chains for n in ch}
    words = cf.chain_words(chains, inits)
    assert len(words) == ((len(lengths) + 31) // 32) * 32 * max(lengths)
    assert all(0 <= w < 1 << 32 for w in words)
    assert shift_model(chains, words) == inits
    assert cf.inits_from_words(chains, words) == inits
    # bits of chains that do not exist (beyond C in the last group) are zero
    k = len(lengths) % 32
    if k:
        assert all(w >> k == 0 for w in words[-32 * max(lengths):])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=70), st.randoms(use_true_random=False))
def test_round_trip(lengths, rnd):
    chains = chains_of(lengths)
    inits = {n: rnd.getrandbits(32) for ch in chains for n in ch}
    words = cf.chain_words(chains, inits)
    assert cf.inits_from_words(chains, words) == inits
    assert cf.chain_words(chains, cf.inits_from_words(chains, words)) == words


@pytest.mark.parametrize("chains, inits, match", [
    ([["a"]], {"a": 1 << 32}, "not a 32-bit value"),
    ([["a"]], {"a": -1}, "not a 32-bit value"),
    ([["a"]], {"a": True}, "not a 32-bit value"),
    ([["a"], ["b"]], {"a": 0}, "'b' is in a chain but has no INIT"),
    ([["a", "b"], ["b"]], {"a": 0, "b": 0}, "'b' is in chains 0 and 1"),
    ([["a", "a"]], {"a": 0}, "'a' is twice in chain 0"),
    ([], {}, "non-empty list"),
    ([["a"], []], {"a": 0}, "chain 1 is empty"),
    (["ab"], {"a": 0, "b": 0}, "chain 0: a list of CFGLUT5 names"),
])
def test_chain_errors(chains, inits, match):
    with pytest.raises(CfglutError, match=match) as e:
        cf.chain_words(chains, inits)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ScgError) and e.value.user_error


def test_words_of_wrong_length_or_value():
    chains = chains_of([1, 2])
    with pytest.raises(CfglutError, match="63 chain words, 64 expected"):
        cf.inits_from_words(chains, [0] * 63)
    with pytest.raises(CfglutError, match="word 3"):
        cf.inits_from_words(chains, [0, 0, 0, 1 << 32] + [0] * 60)


# ---- words file ------------------------------------------------------------------------------------
def test_words_file_round_trip(tmp_path):
    chains = chains_of([1, 2, 3] * 13)
    rng = random.Random(5)
    inits = {n: rng.getrandbits(32) for ch in chains for n in ch}
    words = cf.chain_words(chains, inits)
    p = tmp_path / "w.txt"
    cf.write_words_file(p, words, 39, 3, 0xC0DE)
    lines = p.read_text().splitlines()
    assert lines[0] == "# dcsflow-cfglut-words 1 chains=39 chain_luts=3 build=0000c0de"
    assert len(lines) == 1 + 192 and all(len(x) == 8 for x in lines[1:])
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600          # the words are the specialized configuration
    wf = cf.read_words_file(p, build_id=0xC0DE, n_chains=39, n_chain_luts=3)
    assert (wf.chains, wf.chain_luts, wf.build_id, wf.words) == (39, 3, 0xC0DE, words)
    assert cf.inits_from_words(chains, wf.words) == inits
    assert cf.read_words_file(p).words == words                # nothing expected: header taken as is
    assert not [f for f in os.listdir(tmp_path) if f != "w.txt"]   # no temporary left


def test_words_file_writer_refuses_bad_input(tmp_path):
    p = tmp_path / "w.txt"
    with pytest.raises(CfglutError, match="31 chain words, 32 expected"):
        cf.write_words_file(p, [0] * 31, 1, 1, 0)
    with pytest.raises(CfglutError, match="build id"):
        cf.write_words_file(p, [0] * 32, 1, 1, 1 << 32)
    with pytest.raises(CfglutError, match="chains=0"):
        cf.write_words_file(p, [], 0, 1, 0)
    assert not p.exists()


GOOD = "# dcsflow-cfglut-words 1 chains=1 chain_luts=1 build=0000abcd\n" + "00000000\n" * 32


@pytest.mark.parametrize("text, kwargs, match", [
    ("00000000\n" * 32, {}, r"w\.txt:1: not a dcsflow-cfglut-words file"),
    ("", {}, r"w\.txt:1: not a dcsflow-cfglut-words file"),
    (GOOD.replace("words 1", "words 2"), {}, r"w\.txt:1: dcsflow-cfglut-words version 2 not supported"),
    (GOOD.replace("build=0000abcd", "build=xyz"), {}, r"w\.txt:1: not a dcsflow-cfglut-words file"),
    (GOOD.replace("chains=1", "chains=0"), {}, r"w\.txt:1: chains=0 chain_luts=1 out of range"),
    (GOOD + "00000000\n", {}, r"w\.txt: 33 words, the header's chains=1 chain_luts=1 need 32"),
    (GOOD[:-9], {}, r"w\.txt: 31 words"),
    (GOOD.replace("00000000\n", "0000000\n", 1), {}, r"w\.txt:2: bad line '0000000'"),
    (GOOD + "\n", {}, r"w\.txt:34: bad line ''"),
    (GOOD + "# comment\n", {}, r"w\.txt:34: bad line '# comment'"),
    (GOOD, {"build_id": 0xABCE}, r"w\.txt:1: words of build 0000abcd, this loader is build 0000abce"),
    (GOOD, {"n_chains": 2}, r"w\.txt:1: words for chains=1 chain_luts=1, this loader has chains=2 chain_luts=1"),
    (GOOD, {"n_chain_luts": 2}, r"w\.txt:1: words for chains=1 chain_luts=1, this loader has chains=1 chain_luts=2"),
])
def test_words_file_reader_refuses(tmp_path, text, kwargs, match):
    p = tmp_path / "w.txt"
    p.write_text(text)
    with pytest.raises(CfglutError, match=match) as e:
        cf.read_words_file(p, **kwargs)
    assert "\n" not in str(e.value)


def test_words_file_reader_accepts_good_and_refuses_binary(tmp_path):
    p = tmp_path / "w.txt"
    p.write_text(GOOD)
    assert cf.read_words_file(p, build_id=0xABCD, n_chains=1, n_chain_luts=1).words == [0] * 32
    p.write_bytes(b"\xff\xfe" + GOOD.encode())
    with pytest.raises(CfglutError, match="not UTF-8"):
        cf.read_words_file(p)


# ---- parameter-bit registers ----------------------------------------------------------------------
def ff_model(chains, registers: dict, words: list[int]) -> dict[str, int]:
    """Every CFGLUT5's register and every parameter-bit flip-flop after shifting ``words`` in from
    zero, flip-flop by flip-flop: FF_0.D = CDI, FF_b.D = FF_{b-1}.Q, CDO = the last member's Q (a
    register of m < 32 bits has no bits beyond FF_{m-1})."""
    s = 32 * max(len(ch) for ch in chains)
    lut = {n: 0 for ch in chains for n in ch if n not in registers}
    ff = {m: 0 for ms in registers.values() for m in ms}
    for t in range(s):
        for c, ch in enumerate(chains):
            bit = (words[(c // 32) * s + t] >> (c % 32)) & 1
            for n in ch:
                if n in registers:
                    ms = registers[n]
                    out = ff[ms[-1]]
                    for b in range(len(ms) - 1, 0, -1):
                        ff[ms[b]] = ff[ms[b - 1]]
                    ff[ms[0]] = bit
                else:
                    out = lut[n] >> 31
                    lut[n] = ((lut[n] << 1) | bit) & 0xFFFFFFFF
                bit = out
    return {**lut, **ff}


@pytest.mark.parametrize("chains, sizes", [
    ([["a", "R0"], ["b"], ["R1"]], {"R0": 32, "R1": 7}),
    ([["R0"], ["R1"], ["R2"], ["R3"]], {"R0": 32, "R1": 32, "R2": 32, "R3": 32}),
    ([["a", "b", "R0"]] * 1 + [["R1", "c"]], {"R0": 1, "R1": 32}),
])
def test_registers_hold_their_bits_after_the_shift(chains, sizes):
    rng = random.Random(sum(sizes.values()))
    regs = {r: [f"{r}_q{b}" for b in range(n)] for r, n in sizes.items()}
    lay = cf.make_layout(chains, "ab" * 32, regs)
    cells = [n for ch in chains for n in ch if n not in regs]
    # TLUTs of 8 and 32 entries, parameter bits of one entry; inits as the PPC gives them
    entries = {n: (8 if i % 2 else 32) for i, n in enumerate(cells)}
    entries.update({m: 1 for ms in regs.values() for m in ms})
    inits = {n: rng.getrandbits(e) for n, e in entries.items()}
    words = lay.words_for(inits, entries)
    got = ff_model(lay.chains, lay.register_map, words)
    for n in cells:
        assert got[n] == cf.cfglut_init(inits[n], entries[n])
    for ms in regs.values():
        assert all(got[m] == inits[m] for m in ms)
    assert lay.param_bits == sum(sizes.values()) and lay.cfglut5s == cells
    assert lay.cells() == [m for ch in chains for n in ch for m in regs.get(n, [n])]
    # bit sources: a register's bit b is member b's one entry, beyond its members constant 0
    src = lay.bit_sources({n: list(range(e)) if n in cells else [7] for n, e in entries.items()})
    for r, ms in regs.items():
        assert src[r] == [7] * len(ms) + [None] * (32 - len(ms))
    doc = lay.to_json_obj()
    assert doc["version"] == 2 and cf.layout_from_json(doc) == lay


@pytest.mark.parametrize("chains, regs, match", [
    ([["R0", "a"]], {"R0": ["q0"]}, "not the last element of chain 0"),
    ([["a"]], {"R0": ["q0"]}, "in no chain"),
    ([["R0"]], {"R0": [f"q{b}" for b in range(33)]}, "33 bits"),
    ([["R0"]], {"R0": []}, "0 bits"),
    ([["R0"], ["R1"]], {"R0": ["q0"], "R1": ["q0"]}, "named twice"),
    ([["R0", "a"]], {"R0": ["a"] + [f"q{b}" for b in range(31)]}, "named twice"),
])
def test_register_errors(chains, regs, match):
    with pytest.raises(CfglutError, match=match):
        cf.make_layout(chains, "ab" * 32, regs)


def test_layout_version_1_is_read_and_a_register_needs_one_entry():
    lay = cf.make_layout([["a"], ["R0"]], "cd" * 32, {"R0": ["p", "q"]})
    doc = {k: v for k, v in lay.to_json_obj().items() if k != "registers"}
    v1 = cf.layout_from_json({**doc, "version": 1})
    assert v1.registers == () and v1.chains == lay.chains
    with pytest.raises(CfglutError, match="version 1 or 2"):
        cf.layout_from_json({**doc, "version": 3})
    with pytest.raises(CfglutError, match="one-entry"):
        lay.bit_sources({"a": [0, 1], "p": [0, 1], "q": [2]})
    with pytest.raises(CfglutError, match="has 2 entries"):
        lay.words_for({"a": 0, "p": 1, "q": 0}, {"a": 2, "p": 2, "q": 1})
