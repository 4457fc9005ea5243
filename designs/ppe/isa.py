"""The PPE instruction encoding, shared by the assembler (:mod:`.asm`) and the ISS (:mod:`.iss`).

One instruction is a 64-bit word; the field table is in ``designs/ppe/README.md`` ("Instruction
word") and mirrored by :data:`FIELDS` (name -> (lsb, width)). :class:`Instr` is the decoded form.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

#: field name -> (least significant bit, width in bits); the README's table, bit for bit
FIELDS: dict[str, tuple[int, int]] = {
    "op1": (0, 3), "op2": (3, 2), "lanes": (5, 2), "sh": (7, 2), "n": (9, 6),
    "a_in": (15, 1), "ra": (16, 6),
    "b_c": (22, 1), "b_base": (23, 1), "bi": (24, 6),
    "c_c": (30, 1), "c_base": (31, 1), "ci": (32, 6),
    "dk": (38, 2), "d_base": (40, 1), "di": (41, 6),
    "ctl": (47, 3), "imm": (50, 10),
}
#: bits that must be zero
RESERVED_MASK = ((1 << 64) - 1) ^ ((1 << 60) - 1)

OP1 = {"add": 0, "sub": 1, "xor": 2, "and": 3, "or": 4, "mova": 5, "movb": 6}
OP2 = {"": 0, "add": 1, "sub": 2, "xor": 3}
LANES = {16: 0, 32: 1, 64: 2}
LANE_BITS = {v: k for k, v in LANES.items()}
SH = {"rotl": 0, "shl": 1, "shr": 2}
DK_NONE, DK_REG, DK_COEF, DK_OUT = 0, 1, 2, 3
CTL = {"": 0, "jmp": 1, "djnz": 2, "setlc": 3, "setb": 4, "addb": 5, "halt": 6}
#: control actions that take an immediate argument
CTL_ARG = {"jmp", "djnz", "setlc", "setb", "addb"}

#: machine sizes
NREGS = 64
NCOEF = 64
WORD_MASK = (1 << 64) - 1
LC_BITS = 10
MAX_IMEM = 1 << 10
DEFAULT_IMEM = 512


class EncodingError(ValueError):
    """A field value out of range, a reserved code, or nonzero reserved bits."""


@dataclass(frozen=True)
class Instr:
    """A decoded instruction; every field is an int in its range (see :data:`FIELDS`)."""

    op1: int = 0
    op2: int = 0
    lanes: int = 2
    sh: int = 0
    n: int = 0
    a_in: int = 0
    ra: int = 0
    b_c: int = 0
    b_base: int = 0
    bi: int = 0
    c_c: int = 0
    c_base: int = 0
    ci: int = 0
    dk: int = 0
    d_base: int = 0
    di: int = 0
    ctl: int = 0
    imm: int = 0

    def encode(self) -> int:
        """The 64-bit word.

        Raises:
            EncodingError: a field does not fit its width.
        """
        word = 0
        for f in fields(self):
            lsb, width = FIELDS[f.name]
            v = getattr(self, f.name)
            if not 0 <= v < (1 << width):
                raise EncodingError(f"field {f.name}={v} does not fit {width} bits")
            word |= v << lsb
        return word

    @property
    def width(self) -> int:
        """Lane width in bits (16, 32 or 64)."""
        return LANE_BITS[self.lanes]


def decode(word: int) -> Instr:
    """Split a 64-bit word into its fields.

    Raises:
        EncodingError: the word is not 0..2^64-1, has reserved bits set, or uses a reserved code
        (op1 7, lanes 3, sh 3, ctl 7).
    """
    if not 0 <= word <= WORD_MASK:
        raise EncodingError(f"instruction word {word:#x} is not 64 bits")
    if word & RESERVED_MASK:
        raise EncodingError(f"instruction word {word:#018x} has reserved bits 63:60 set")
    vals = {name: (word >> lsb) & ((1 << width) - 1) for name, (lsb, width) in FIELDS.items()}
    ins = Instr(**vals)
    if ins.op1 == 7 or ins.lanes == 3 or ins.sh == 3 or ins.ctl == 7:
        raise EncodingError(f"instruction word {word:#018x} uses a reserved code")
    return ins


def valid_word(word: int) -> bool:
    """True if :func:`decode` accepts ``word``."""
    try:
        decode(word)
    except EncodingError:
        return False
    return True
