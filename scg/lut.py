"""LUT truth tables: logical functions as the physical INITs of 7-series LUTs, and the template INIT
of a TLUT exported to Vivado.

Physical LUT contents (UG474; FACTS.md "INIT index = the LUT6 truth-table index of the physical pins
A6..A1, A1 = LSB"): a k-input function on logical inputs I0..I(k-1) placed on physical pins gives a
64-bit INIT that repeats its 2^k entries over the unused pins (:func:`expand`). Truth tables are ints:
bit x = f(input pattern x), I0 = LSB.
"""

from __future__ import annotations

import hashlib
from itertools import combinations


def expand(table: int, k: int, pin_of_input: list[int], width: int = 6) -> int:
    """Truth table over ``width`` physical pins of a k-input function.

    Args:
        table: bit i = f(input pattern i), I0 = LSB (2^k bits).
        pin_of_input: physical pin index (0 = A1) of each logical input I0..I(k-1).
    Returns:
        int of 2^width bits: bit j = f(inputs read from pattern j of the physical pins).
    """
    out = 0
    for j in range(1 << width):
        idx = 0
        for q, p in enumerate(pin_of_input):
            idx |= ((j >> p) & 1) << q
        out |= ((table >> idx) & 1) << j
    return out


def depends_on(table: int, k: int, i: int) -> bool:
    """True if the k-input truth table ``table`` (bit x = f(x), I0 = LSB) depends on input ``i``."""
    return any(((table >> x) & 1) != ((table >> (x ^ (1 << i))) & 1) for x in range(1 << k))


def swap_inputs(table: int, k: int, i: int, j: int) -> int:
    """Truth table of f with inputs ``i`` and ``j`` exchanged."""
    out = 0
    for x in range(1 << k):
        bi, bj = (x >> i) & 1, (x >> j) & 1
        y = (x & ~((1 << i) | (1 << j))) | (bj << i) | (bi << j)
        out |= ((table >> y) & 1) << x
    return out


def template_table(k: int) -> int:
    """The template truth table of a k-input TLUT (1 <= k <= 6): depends on every input and is not
    symmetric in any pair of inputs, so a pin swap changes the INIT Vivado writes into the frames.

    Deterministic: the first candidate ``SHA-256("dcsflow-tlut-template/k/n")`` (n = 0, 1, ...) with
    both properties. Raises ValueError for k outside 1..6.
    """
    if not 1 <= k <= 6:
        raise ValueError(f"TLUT with {k} inputs: 1..6 expected")
    mask = (1 << (1 << k)) - 1
    for n in range(10000):
        t = int.from_bytes(hashlib.sha256(f"dcsflow-tlut-template/{k}/{n}".encode()).digest()[:8], "little") & mask
        if all(depends_on(t, k, i) for i in range(k)) and \
                all(swap_inputs(t, k, i, j) != t for i, j in combinations(range(k), 2)):
            return t
    raise AssertionError("no template truth table found")  # pragma: no cover - k <= 6 always finds one


def template_init(k: int) -> int:
    """64-bit INIT of the exported LUT6 cell of a k-input TLUT: :func:`template_table` repeated over
    the unused inputs I<k>..I5. With LOCK_PINS I<q>:A<q+1> this is also the physical INIT."""
    return expand(template_table(k), k, list(range(k)))
