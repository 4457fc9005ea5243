"""BMW-512 on the PPE (designs/ppe/programs/bmw512.s): the ISS on all 256 KAT records, the RTL
(Icarus) on a few, the cycle budget, mutations that must fail, ``dcsflow sim ppe``.

Expected digests come only from the KAT file (``vectors/ShortMsgKAT_BMW512.txt``, SHA-256 checked)
and the golden model ``bmw512.py``; never from the program under test.
Cycle counts are printed (``-s``): ``pytest -s -q tests/test_ppe_bmw512.py -k cycles``.
"""

from __future__ import annotations

import pytest

from dcsflow.designs.ppe import asm, bmw512, bmw512_kat, bmw512_prog, iss

KAT = bmw512_kat.load_kat()
SOURCE = bmw512_prog.PROGRAM.read_text()


def _kat_passed(prog, records) -> int:
    ok = 0
    for rec in records:
        try:
            ok += bmw512_prog.hash_iss(rec.msg, prog).digest == rec.md
        except (iss.IssError, RuntimeError):
            pass
    return ok


def _by_bits(*bits):
    recs = {r.bits: r for r in KAT}
    return [recs[b] for b in bits]


def test_the_program_file_is_the_generators_output():
    assert bmw512_prog.source() == SOURCE, "regenerate: python -m dcsflow.designs.ppe.bmw512_prog"


def test_iss_reproduces_all_256_kat_records_and_cycles():
    prog = bmw512_prog.load()
    assert len(KAT) == 256
    m = iss.Machine(prog.words, prog.coef, bmw512_prog.IMEM_DEPTH)     # one PE for all messages
    block_cycles = set()
    for rec in KAT:
        r = bmw512_prog.hash_iss(rec.msg, prog, m)
        assert r.digest == rec.md, rec.bits
        assert len(r.cycles) == 2 + len(bmw512.pad(rec.msg)) // bmw512.BLOCK_BYTES
        block_cycles.update(r.cycles[1:-1])
    print(f"\nbmw512_cycles_per_block = {sorted(block_cycles)} (ISS), init {r.cycles[0]}, final {r.cycles[-1]}")
    assert len(block_cycles) == 1 and max(block_cycles) <= 1000       # the target: the seed paper's ~1000 cycles per block


def test_iss_matches_the_golden_model_on_longer_messages():
    prog = bmw512_prog.load()
    for n in (0, 111, 112, 119, 120, 127, 128, 255, 256, 1000):
        msg = bytes((7 * k + n) & 0xFF for k in range(n))
        assert bmw512_prog.hash_iss(msg, prog).digest == bmw512.bmw512(msg), n


@pytest.mark.parametrize("old,new", [
    ("rotl 37", "rotl 36"),                       # s0's second rotation
    ("shr 2             ; Q", "shr 3             ; Q"),   # first s-function right shift using 2
    (f".coef 3, {bmw512.K[3]:#018x}", f".coef 3, {bmw512.K[3] ^ 1:#018x}"),        # K19
    (f".coef 20, {bmw512.CONST_FINAL[4]:#018x}", f".coef 20, {bmw512.CONST_FINAL[4] ^ (1 << 63):#018x}"),
    ("|| djnz final_tail", ""),                   # the final compression would not output
])
def test_a_mutated_program_or_constant_fails_the_kat(old, new):
    assert old in SOURCE
    prog = asm.assemble(SOURCE.replace(old, new, 1), "bmw512-mutant.s", imem_depth=bmw512_prog.IMEM_DEPTH)
    recs = KAT[:4]
    assert _kat_passed(bmw512_prog.load(), recs) == 4
    assert _kat_passed(prog, recs) == 0


def test_a_flipped_bit_in_a_body_word_fails_the_kat():
    prog = bmw512_prog.load()
    body = range(prog.symbols["body"], prog.symbols["final"])
    for addr, bit in ((body[10], 11), (body[300], 9), (body[len(body) - 30], 1)):
        words = list(prog.words)
        words[addr] ^= 1 << bit
        mutant = asm.Program(words, list(prog.coef), prog.imem_depth, dict(prog.symbols))
        assert _kat_passed(mutant, KAT[:3]) == 0, (addr, bit)


def test_rtl_matches_the_kat_and_the_iss_cycles():
    prog = bmw512_prog.load()
    recs = _by_bits(0, 1024)                      # one and two blocks
    rtl = bmw512_prog.hash_rtl([r.msg for r in recs], prog)
    for rec, b in zip(recs, rtl):
        assert b.digest == rec.md, rec.bits
        assert b.cycles == bmw512_prog.hash_iss(rec.msg, prog).cycles
    print(f"\nbmw512 on the RTL: cycles per run {[b.cycles for b in rtl]} (init, blocks, final)")
    assert rtl[1].cycles[1] == rtl[1].cycles[2] <= 1000


def test_rtl_with_random_handshake_stalls():
    prog = bmw512_prog.load()
    rec = _by_bits(8)[0]
    b = bmw512_prog.hash_rtl([rec.msg], prog, seed=777)[0]
    a = bmw512_prog.hash_iss(rec.msg, prog)
    assert b.digest == rec.md
    assert b.cycles[0] > a.cycles[0] and b.cycles[1] > a.cycles[1]   # input stalls cost cycles


# ------------------------------------------------------------------ dcsflow sim ppe
def _one_line_error(r, msg):
    assert r.returncode != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and msg in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_sim_ppe_bad_input_is_one_line(dcsflow, tmp_path):
    (tmp_path / "bad.s").write_text("nop\nadd r1, r2\n")
    (tmp_path / "nolabels.s").write_text("nop || halt\n")
    (tmp_path / "bad_kat.txt").write_text("Len = 8\nMsg = CC\nMD = 12\n")
    cases = [
        (("--program", "bmw256"), "unknown program 'bmw256'"),
        (("--program", "bmw512", "--source", tmp_path / "bad.s"), "bad.s:2: '…' takes 3 operands"),
        (("--program", "pi16", "--source", tmp_path / "missing.s"), "missing.s"),
        (("--program", "bmw512", "--source", tmp_path / "nolabels.s"), "no entry label"),
        (("--program", "bmw512", "--vectors", tmp_path / "none.txt"), "--vectors"),
        (("--program", "bmw512", "--vectors", tmp_path / "bad_kat.txt"), "bad_kat.txt:3"),
        (("--program", "pi64", "--vectors", tmp_path / "bad_kat.txt"), "bmw512 only"),
    ]
    for args, msg in cases:
        _one_line_error(dcsflow("sim", "ppe", *args), msg)


def test_sim_ppe_passes_and_fails(dcsflow, tmp_path):
    r = dcsflow("sim", "ppe", "--program", "bmw512", "--limit", "1")
    assert r.returncode == 0, r.stderr
    assert "passed 1/1" in r.stdout and "703" in r.stdout
    r = dcsflow("sim", "ppe", "--program", "pi16", "--calls", "1")
    assert r.returncode == 0 and "passed 1/1" in r.stdout, r.stdout + r.stderr
    (tmp_path / "mut.s").write_text(SOURCE.replace("rotl 37", "rotl 36", 1))
    r = dcsflow("sim", "ppe", "--program", "bmw512", "--limit", "1", "--source", tmp_path / "mut.s")
    assert r.returncode == 1 and "passed 0/1" in r.stdout and "FAIL Len = 0" in r.stdout, r.stdout + r.stderr


def test_simulate_refuses_bad_start_lists():
    from dcsflow.designs.ppe import sim
    for kw in ({"starts": []}, {"starts": [512]}, {"starts": [0], "second": ([0], 8)},
               {"starts": [0], "top": "ppe_prog"}):
        with pytest.raises(ValueError):
            sim.simulate([0], [], **kw)


def test_sim_ppe_program_without_output_fails_with_a_count(dcsflow, tmp_path):
    (tmp_path / "nodjnz.s").write_text(SOURCE.replace("|| djnz final_tail", "", 1))
    r = dcsflow("sim", "ppe", "--program", "bmw512", "--limit", "1", "--source", tmp_path / "nodjnz.s")
    assert r.returncode == 1 and "passed 0/1" in r.stdout and "0 output words" in r.stdout, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
