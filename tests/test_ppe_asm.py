"""PPE assembler: encodings against the README's field table, error messages, object files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dcsflow.designs.ppe import asm

PROGRAMS = Path(asm.__file__).resolve().parent / "programs"


def word(**f):
    """An instruction word built from the README's table (bit positions typed here, not imported)."""
    pos = {"op1": 0, "op2": 3, "lanes": 5, "sh": 7, "n": 9, "a_in": 15, "ra": 16, "b_c": 22,
           "b_base": 23, "bi": 24, "c_c": 30, "c_base": 31, "ci": 32, "dk": 38, "d_base": 40,
           "di": 41, "ctl": 47, "imm": 50}
    f.setdefault("lanes", 2)
    return sum(v << pos[k] for k, v in f.items())


@pytest.mark.parametrize("src, expected", [
    ("nop", 0),
    ("add r3, r1, r2", word(op1=0, ra=1, bi=2, dk=1, di=3)),
    ("sub.add.32 r5, r1, c[b+3], r7, rotl 9 || djnz 2",
     word(op1=1, op2=1, lanes=1, sh=0, n=9, ra=1, b_c=1, b_base=1, bi=3, ci=7, dk=1, di=5, ctl=2, imm=2)),
    ("xor.xor.16 out, r63, r62, c[40], shr 15",
     word(op1=2, op2=3, lanes=0, sh=2, n=15, ra=63, bi=62, c_c=1, ci=40, dk=3)),
    ("mov r0, in || setlc 1023", word(op1=5, a_in=1, dk=1, di=0, ctl=3, imm=1023)),
    ("mov c[b+5], c[9]", word(op1=6, b_c=1, bi=9, dk=2, d_base=1, di=5)),
    ("mov.add r1, c[1], c[b+2], shl 63",
     word(op1=6, op2=1, b_c=1, bi=1, c_c=1, c_base=1, ci=2, sh=1, n=63, dk=1, di=1)),
    ("and - , r4, r5 || halt", word(op1=3, ra=4, bi=5, dk=0, ctl=6)),
    ("or r2, c[7], r9", word(op1=4, ra=9, b_c=1, bi=7, dk=1, di=2)),   # commutative: register to A
    ("addb -8", word(lanes=0, ctl=5, imm=56)),
    ("setb 63", word(lanes=0, ctl=4, imm=63)),
    ("jmp 511", word(lanes=0, ctl=1, imm=511)),
])
def test_encoding_matches_the_readme_table(src, expected):
    assert asm.assemble(src, "t.s").words == [expected]


def test_labels_equ_lanes_org_expressions_and_coef():
    p = asm.assemble(
        ".equ K, 3\n.lanes 32\nstart: add r(K*2), r1, r2\n.org 4\nloop: nop || djnz loop\n"
        "jmp start\n.coef K+1, 0x1234 * 0x100000001\n", "t.s")
    assert len(p.words) == 6
    assert p.words[0] == word(op1=0, lanes=1, ra=1, bi=2, dk=1, di=6)
    assert p.words[1:4] == [0, 0, 0]
    assert p.words[4] == word(lanes=0, ctl=2, imm=4)
    assert p.words[5] == word(lanes=0, ctl=1, imm=0)
    assert p.coef[4] == 0x0000123400001234 and sum(p.coef) == p.coef[4]
    assert p.symbols["loop"] == 4


def test_macros_include_and_local_labels(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "m.inc").write_text(
        ".macro twice d, s\n.Lx: add \\d, \\s, \\s\n  jmp .Lx\n.endm\n")
    (tmp_path / "main.s").write_text('.include "inc/m.inc"\ntwice r1, r2\ntwice r3, r4\n')
    p = asm.assemble_file(tmp_path / "main.s")
    assert p.words == [word(op1=0, ra=2, bi=2, dk=1, di=1), word(lanes=0, ctl=1, imm=0),
                       word(op1=0, ra=4, bi=4, dk=1, di=3), word(lanes=0, ctl=1, imm=2)]
    # add with c[] as both A and B cannot be swapped into shape: refused, at the macro's use
    with pytest.raises(asm.AsmError, match=r"main2\.s:2: operand A must be a register"):
        (tmp_path / "main2.s").write_text('.include "inc/m.inc"\ntwice r3, c[b+1]\n')
        asm.assemble_file(tmp_path / "main2.s")


@pytest.mark.parametrize("src, message", [
    ("add r1, r2", "t.s:1: 'add' takes 3 operands"),
    ("nop\nadd r64, r1, r2", "t.s:2: register r64 out of range r0..r63"),
    ("sub r1, c[3], r2", "t.s:1: operand A must be a register or 'in'"),
    ("add.32 r1, r2, r3, rotl 32", "t.s:1: rotl amount 32 out of range 0..31 for 32-bit lanes"),
    ("add.16 r1, r2, r3, shr 16", "t.s:1: shr amount 16 out of range 0..15"),
    ("mov r1, in || jmp 600", "t.s:1: jmp target 600 outside the instruction memory (0..511)"),
    ("frob r1", "t.s:1: unknown instruction 'frob'"),
    ("add r1, r2, in", "t.s:1: 'in' can only be operand A"),
    ("mov c[b+70], r1", "t.s:1: coefficient address 70 out of range 0..63"),
    ("jmp nowhere", "t.s:1: undefined symbol 'nowhere'"),
    ("x: nop\nx: nop", "t.s:2: symbol 'x' redefined (first at t.s:1)"),
    ("add.add r1, r2, r3", "t.s:1: 'add.add' takes 4 operands"),
    ("add.48 r1, r2, r3", "t.s:1: bad suffix '.48'"),
    ("mov in, r1", "t.s:1: 'in' cannot be a destination"),
    ("nop || frob", "t.s:1: unknown control action 'frob'"),
    ("setlc 1024", "t.s:1: setlc 1024 out of range 0..1023"),
    ("halt 3", "t.s:1: 'halt' takes no argument"),
    ("jmp 1 || halt", "t.s:1: two control actions in one word"),
    ("add r1, r2, r3 ||", "t.s:1: empty control slot"),
    (".coef 64, 1", "t.s:1: coefficient address 64 out of range 0..63"),
    (".coef 1, 1 << 64", "t.s:1: coefficient value 0x10000000000000000 does not fit 64 bits"),
    (".coef 1, 2\n.coef 1, 3", "t.s:2: coefficient 1 set twice (first at t.s:1)"),
    (".lanes 8", "t.s:1: .lanes 8: lane width must be 16, 32 or 64"),
    (".org 2\nnop\n.org 1", "t.s:3: .org 1 goes backwards (next address is 3)"),
    (".frob", "t.s:1: unknown directive '.frob'"),
    (".macro m a\nnop", "t.s:1: macro 'm' has no .endm"),
    (".macro m a\nadd \\a, \\a, \\a\n.endm\nm r1, r2", "t.s:4: macro 'm' takes 1 arguments, got 2"),
    (".macro m a\nadd \\b, r1, r1\n.endm\nm r1", "t.s:4: macro 'm' (line 2): unknown parameter"),
    (".endm", "t.s:1: .endm without .macro"),
    ('.include "x.s"', "t.s:1: .include needs a source file"),
    ("add r1, r(1/0), r2", "t.s:1: division by zero"),
    ("add r1, r(__import__), r2", "t.s:1: undefined symbol '__import__'"),
    ("add r1, r('a'), r2", "t.s:1: bad expression"),
    (".equ r5, 3", "t.s:1: 'r5' is reserved"),
])
def test_errors_name_file_line_and_reason(src, message):
    with pytest.raises(asm.AsmError) as e:
        asm.assemble(src, "t.s")
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_program_larger_than_the_instruction_memory():
    with pytest.raises(asm.AsmError, match=r"^big\.s:513: program needs 513 words, instruction memory holds 512$"):
        asm.assemble("nop\n" * 513, "big.s")
    with pytest.raises(asm.AsmError, match=r"^big\.s:65: program needs 65 words, instruction memory holds 64$"):
        asm.assemble("nop\n" * 65, "big.s", imem_depth=64)
    assert len(asm.assemble("nop\n" * 64, "ok.s", imem_depth=64).words) == 64
    # the π programs fit a 256-word memory, not a 128-word one
    assert len(asm.assemble_file(PROGRAMS / "pi64.s", imem_depth=256).words) <= 256
    with pytest.raises(asm.AsmError, match=r"pi_body\.inc:\d+: program needs \d+ words, instruction memory holds 128"):
        asm.assemble_file(PROGRAMS / "pi64.s", imem_depth=128)


def test_errors_in_included_files_and_unreadable_files(tmp_path):
    (tmp_path / "a.s").write_text('nop\n.include "b.inc"\n')
    (tmp_path / "b.inc").write_text("nop\n\n; comment\nadd r1, r2\n")
    with pytest.raises(asm.AsmError, match=r"b\.inc:4: 'add' takes 3 operands"):
        asm.assemble_file(tmp_path / "a.s")
    (tmp_path / "c.s").write_text('.include "missing.inc"\n')
    with pytest.raises(asm.AsmError, match=r"c\.s:1: .*missing\.inc': no such file"):
        asm.assemble_file(tmp_path / "c.s")
    with pytest.raises(asm.AsmError, match=r"nothere\.s: no such file"):
        asm.assemble_file(tmp_path / "nothere.s")
    (tmp_path / "bin.s").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(asm.AsmError, match=r"bin\.s: not UTF-8"):
        asm.assemble_file(tmp_path / "bin.s")
    (tmp_path / "self.s").write_text('.include "self.s"\n')
    with pytest.raises(asm.AsmError, match=r"^[^\n]*self\.s:1: \.include 'self\.s': include cycle"):
        asm.assemble_file(tmp_path / "self.s")
    for k in range(18):         # a chain without a cycle, one file deeper than allowed
        (tmp_path / f"d{k}.s").write_text(f'.include "d{k + 1}.s"\n' if k < 17 else "nop\n")
    with pytest.raises(asm.AsmError, match=r"d16\.s:1: \.include nested more than 16 deep"):
        asm.assemble_file(tmp_path / "d0.s")
    assert len(asm.assemble_file(tmp_path / "d1.s").words) == 1


def test_object_file_round_trip_and_errors(tmp_path):
    p = asm.assemble_file(PROGRAMS / "pi32.s")
    asm.write_object(p, tmp_path / "pi32.obj")
    text = (tmp_path / "pi32.obj").read_text()
    assert text.startswith(f"# ppe-object 1 words={len(p.words)} imem_depth=512\n")
    q = asm.read_object(tmp_path / "pi32.obj")
    assert q.words == p.words and q.coef == p.coef and q.imem_depth == 512
    bad = {
        "# ppe-object 2 words=1 imem_depth=512\ni 000 0000000000000000\n": r"x\.obj:1: ppe-object version 2",
        "hello\n": r"x\.obj:1: not a ppe-object file",
        "# ppe-object 1 words=1 imem_depth=512\ni 001 0000000000000000\n": r"x\.obj:2: instruction address 1",
        "# ppe-object 1 words=1 imem_depth=512\ni 000 f000000000000000\n": r"x\.obj:2: .* not a valid instruction",
        "# ppe-object 1 words=1 imem_depth=512\nc 40 0000000000000000\n": r"x\.obj:2: coefficient address 64",
        "# ppe-object 1 words=1 imem_depth=512\nq 0 0\n": r"x\.obj:2: bad line",
    }
    for content, msg in bad.items():
        (tmp_path / "x.obj").write_text(content)
        with pytest.raises(asm.AsmError, match=msg):
            asm.read_object(tmp_path / "x.obj")


def _weight4_bytes() -> list[int]:
    """π-Cipher v2 constants: the bytes of Hamming weight 4, in descending order (70 of them)."""
    return [b for b in range(255, -1, -1) if bin(b).count("1") == 4]


@pytest.mark.parametrize("bits", [16, 32, 64])
def test_pi_constants_are_the_weight4_byte_sequence(bits):
    """μ constants, then ν, then C1, C2 of rounds 0..2 are consecutive words cut from the cyclic
    sequence of weight-4 bytes (most significant byte first), each replicated into every lane."""
    seq = _weight4_bytes()
    assert len(seq) == 70 and seq[:3] == [0xF0, 0xE8, 0xE4]
    nb = bits // 8
    coef = asm.assemble_file(PROGRAMS / f"pi{bits}.s").coef
    order = list(range(24, 32)) + list(range(24))          # μ, ν, round constants
    rep = sum(1 << (bits * k) for k in range(64 // bits))
    for j, addr in enumerate(order):
        val = 0
        for q in range(nb):
            val = (val << 8) | seq[(j * nb + q) % 70]
        assert coef[addr] == val * rep, (bits, addr, hex(coef[addr]), hex(val))
    assert all(v == 0 for v in coef[32:])
