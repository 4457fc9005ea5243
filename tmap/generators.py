"""Generated benchmark circuits as AIGs (used by the tests and ``benchmarks/tmap_bench.py``).

Each function returns ``(aig, params)``: the AIG with named inputs/outputs (``a[3]``-style names,
LSB = index 0) and the list of input names meant as parameter inputs.
"""

from __future__ import annotations

import random

from dcsflow.aig import Aig


def _inputs(g: Aig, name: str, n: int) -> list[int]:
    return [g.add_input(f"{name}[{i}]") for i in range(n)]


def _full_add(g: Aig, a: int, b: int, c: int) -> tuple[int, int]:
    s1 = g.add_xor(a, b)
    return g.add_xor(s1, c), g.add_or(g.add_and(a, b), g.add_and(c, s1))


def _ripple(g: Aig, x: list[int], y: list[int], cin: int = 0) -> list[int]:
    """Ripple-carry sum of equal-length words; result has len+1 bits."""
    out, c = [], cin
    for a, b in zip(x, y):
        s, c = _full_add(g, a, b, c)
        out.append(s)
    return out + [c]


def multiplier(n: int, param_operand: bool = True) -> tuple[Aig, list[str]]:
    """n×n unsigned array multiplier ``p = a * b`` (2n output bits); ``b`` is the parameter operand."""
    g = Aig()
    a = _inputs(g, "a", n)
    b = _inputs(g, "b", n)
    acc = [0] * (2 * n)
    for j in range(n):
        pp = [g.add_and(a[i], b[j]) for i in range(n)]
        seg = acc[j:j + n]
        s = _ripple(g, seg, pp)
        acc[j:j + n + 1] = s
        acc = acc[:2 * n]
    for i, lit in enumerate(acc):
        g.add_output(lit, f"p[{i}]")
    return g, ([f"b[{i}]" for i in range(n)] if param_operand else [])


def _mult_words(g: Aig, a: list[int], b: list[int]) -> list[int]:
    n, m = len(a), len(b)
    acc = [0] * (n + m)
    for j in range(m):
        pp = [g.add_and(a[i], b[j]) for i in range(n)]
        s = _ripple(g, acc[j:j + n], pp)
        acc[j:j + n + 1] = s
        acc = acc[:n + m]
    return acc


def fir(taps: int = 16, width: int = 4, coef_width: int = 4) -> tuple[Aig, list[str]]:
    """Sum of products ``y = Σ c[i] * x[i]`` over ``taps`` taps (unsigned); coefficients ``c<i>`` are
    parameters, samples ``x<i>`` regular inputs."""
    g = Aig()
    xs = [_inputs(g, f"x{i}", width) for i in range(taps)]
    cs = [_inputs(g, f"c{i}", coef_width) for i in range(taps)]
    prods = [_mult_words(g, x, c) for x, c in zip(xs, cs)]
    while len(prods) > 1:
        nxt = []
        for i in range(0, len(prods) - 1, 2):
            p, q = prods[i], prods[i + 1]
            w = max(len(p), len(q))
            p = p + [0] * (w - len(p))
            q = q + [0] * (w - len(q))
            nxt.append(_ripple(g, p, q))
        if len(prods) % 2:
            nxt.append(prods[-1])
        prods = nxt
    for i, lit in enumerate(prods[0]):
        g.add_output(lit, f"y[{i}]")
    return g, [f"c{i}[{j}]" for i in range(taps) for j in range(coef_width)]


def tcam(entries: int = 32, width: int = 64) -> tuple[Aig, list[str]]:
    """Ternary CAM: ``match[e] = AND_j (care[e][j] -> key[j] == pat[e][j])``; stored patterns and care
    masks (``pat<e>``, ``care<e>``) are parameters, the search ``key`` is regular."""
    g = Aig()
    key = _inputs(g, "key", width)
    params = []
    pats, cares = [], []
    for e in range(entries):
        pats.append(_inputs(g, f"pat{e}", width))
        params += [f"pat{e}[{j}]" for j in range(width)]
    for e in range(entries):
        cares.append(_inputs(g, f"care{e}", width))
        params += [f"care{e}[{j}]" for j in range(width)]
    for e in range(entries):
        terms = [g.add_or(cares[e][j] ^ 1, g.add_xor(key[j], pats[e][j]) ^ 1) for j in range(width)]
        while len(terms) > 1:
            terms = [g.add_and(terms[i], terms[i + 1]) if i + 1 < len(terms) else terms[i]
                     for i in range(0, len(terms), 2)]
        g.add_output(terms[0], f"match[{e}]")
    return g, params


def xor_key(width: int = 8) -> tuple[Aig, list[str]]:
    """``y = x XOR k`` bitwise; the key word ``k`` is the parameter."""
    g = Aig()
    x = _inputs(g, "x", width)
    k = _inputs(g, "k", width)
    for i in range(width):
        g.add_output(g.add_xor(x[i], k[i]), f"y[{i}]")
    return g, [f"k[{i}]" for i in range(width)]


def ripple_adder(n: int) -> tuple[Aig, list[str]]:
    """n-bit ripple-carry adder ``s = a + b`` (n+1 outputs), no parameters."""
    g = Aig()
    a = _inputs(g, "a", n)
    b = _inputs(g, "b", n)
    for i, lit in enumerate(_ripple(g, a, b)):
        g.add_output(lit, f"s[{i}]")
    return g, []


def cla_adder(n: int) -> tuple[Aig, list[str]]:
    """n-bit carry-lookahead (Kogge–Stone parallel-prefix) adder, no parameters."""
    g = Aig()
    a = _inputs(g, "a", n)
    b = _inputs(g, "b", n)
    gen = [g.add_and(x, y) for x, y in zip(a, b)]
    prop = [g.add_xor(x, y) for x, y in zip(a, b)]
    G, P = list(gen), list(prop)
    d = 1
    while d < n:
        G2, P2 = list(G), list(P)
        for i in range(d, n):
            G2[i] = g.add_or(G[i], g.add_and(P[i], G[i - d]))
            P2[i] = g.add_and(P[i], P[i - d])
        G, P = G2, P2
        d *= 2
    carry = [0] + G
    for i in range(n):
        g.add_output(g.add_xor(prop[i], carry[i]), f"s[{i}]")
    g.add_output(carry[n], f"s[{n}]")
    return g, []


def random_aig(rng: random.Random, n_in: int, n_and: int, n_out: int, n_latch: int = 0) -> Aig:
    """A random AIG (for property tests): ``n_in`` inputs ``x[i]``, ``n_latch`` latches, about
    ``n_and`` AND nodes over random earlier literals, ``n_out`` outputs ``y[i]`` on random literals."""
    g = Aig()
    for i in range(n_in):
        g.add_input(f"x[{i}]")
    g.num_latches = n_latch
    g.latch_names = [f"q[{i}]" for i in range(n_latch)]
    g.latch_next = [0] * n_latch
    g.latch_init = [0] * n_latch
    lits = [2 * (1 + i) for i in range(n_in + n_latch)]
    for _ in range(n_and):
        a = rng.choice(lits) ^ rng.randint(0, 1)
        b = rng.choice(lits) ^ rng.randint(0, 1)
        r = g.add_and(a, b)
        if r > 1 and r not in lits:
            lits.append(r)
    top = lits[-max(1, n_out * 2):]
    for i in range(n_out):
        g.add_output(rng.choice(top) ^ rng.randint(0, 1), f"y[{i}]")
    for i in range(n_latch):
        g.latch_next[i] = rng.choice(lits) ^ rng.randint(0, 1)
    return g


def _mux_tree(g: Aig, sel: list[int], values: list[int]) -> int:
    """Literal of ``values[index]`` where ``index`` is the binary number on ``sel`` (sel[0] = LSB):
    :meth:`dcsflow.aig.Aig.add_mux_tree`."""
    return g.add_mux_tree(sel, values)


def _lut6(g: Aig, ins: list[int], table: int, memo: dict) -> int:
    """Literal of the 6-input function ``table`` (bit i = value at entry i, ins[0] = entry bit 0),
    built as a Shannon multiplexer tree; ``memo`` shares equal sub-functions."""
    def rec(t, k):
        if k == 0:
            return t & 1
        key = (t, k)
        if key not in memo:
            half = 1 << (k - 1)
            lo, hi = t & ((1 << half) - 1), t >> half
            memo[key] = g.add_mux(ins[k - 1], rec(hi, k - 1), rec(lo, k - 1))
        return memo[key]
    return rec(table, len(ins))


def triple_des() -> tuple[Aig, list[str]]:
    """A triple-DES (EDE) round datapath with three 56-bit key registers, as an AIG with latches.

    Three iterative DES units (one per key; unit 2 decrypts) each do one DES round per clock; a
    shared 4-bit round counter selects every unit's round subkey from its key register by the PC-2 /
    left-shift schedule (a 16:1 multiplexer per subkey bit, the key register itself never shifts).
    ``start`` loads unit 1 with IP(din), unit 2 with unit 1's result (R16‖L16) and unit 3 with unit 2's,
    and clears the counter; 16 clocks later every unit has done its 16 rounds, so after three starts
    ``dout`` = FP(R16‖L16) of unit 3 = 3DES-EDE(K1, K2, K3) of the first block. The round is the real
    DES round: expansion E, XOR with the subkey, S1..S8, permutation P, Feistel XOR (tables from FIPS
    46-3, :mod:`dcsflow.tmap._des`).

    Inputs: ``din[0..63]`` (bit i = block bit i+1 of FIPS 46-3, i.e. din[0] is the MSB), ``start``,
    ``key_load``, ``key1_in[i]``, ``key2_in[i]``, ``key3_in[i]`` for the 56 non-parity bits
    (i = FIPS key bit - 1; the parity bits key*_in[7], [15], ..., [63] are not inputs, as after
    synthesis). Latches: key registers ``key{u}[j]`` (PC-1 output bit j+1, ``q' = key_load ?
    key{u}_in : q``), ``L{u}[j]``, ``R{u}[j]``, ``ctr[0..3]``. Outputs ``dout[0..63]``.

    Returns (aig, params) with params = the key register names (168), the parameter inputs of the
    specialized datapath; ``MapOptions(param_latches=True)`` with the key inputs as parameters finds
    the same registers.
    """
    from . import _des as D

    g = Aig()
    din = _inputs(g, "din", 64)
    start = g.add_input("start")
    key_load = g.add_input("key_load")
    key_in = {}
    for u in (1, 2, 3):
        for i in range(64):
            if i % 8 != 7:
                key_in[u, i] = g.add_input(f"key{u}_in[{i}]")
    names = [f"key{u}[{j}]" for u in (1, 2, 3) for j in range(56)]
    names += [f"{h}{u}[{j}]" for u in (1, 2, 3) for h in "LR" for j in range(32)]
    names += [f"ctr[{j}]" for j in range(4)]
    g.num_latches = len(names)
    g.latch_names, g.latch_next, g.latch_init = names, [0] * len(names), [0] * len(names)
    lit = {n: 2 * (1 + g.num_inputs + j) for j, n in enumerate(names)}
    index = {n: j for j, n in enumerate(names)}
    ctr = [lit[f"ctr[{j}]"] for j in range(4)]
    # round counter: cleared by start, else incremented (mod 16)
    carry = 1
    for j in range(4):
        g.latch_next[index[f"ctr[{j}]"]] = g.add_and(start ^ 1, g.add_xor(ctr[j], carry))
        carry = g.add_and(carry, ctr[j])
    for u in (1, 2, 3):
        for j in range(56):
            n = f"key{u}[{j}]"
            g.latch_next[index[n]] = g.add_mux(key_load, key_in[u, D.PC1[j] - 1], lit[n])
    ip = [din[p - 1] for p in D.IP]
    load = {1: (ip[:32], ip[32:])}
    for u in (2, 3):  # IP(FP(R16‖L16)) = R16‖L16 of the previous unit
        load[u] = ([lit[f"R{u - 1}[{j}]"] for j in range(32)], [lit[f"L{u - 1}[{j}]"] for j in range(32)])
    for u in (1, 2, 3):
        L = [lit[f"L{u}[{j}]"] for j in range(32)]
        R = [lit[f"R{u}[{j}]"] for j in range(32)]
        key = [lit[f"key{u}[{j}]"] for j in range(56)]
        rounds = [15 - c for c in range(16)] if u == 2 else list(range(16))
        x = [g.add_xor(R[D.E[j] - 1], _mux_tree(g, ctr, [key[D.subkey_source(j, r)] for r in rounds]))
             for j in range(48)]
        s = []
        for b in range(8):
            ins = x[6 * b:6 * b + 6][::-1]  # ins[0] = b6 = LSB of the S-box input
            memo = {}
            for o in range(4):
                table = sum(1 << e for e in range(64) if D.sbox_out(b, e) >> (3 - o) & 1)
                s.append(_lut6(g, ins, table, memo))
        f = [s[p - 1] for p in D.P]
        for j in range(32):
            g.latch_next[index[f"L{u}[{j}]"]] = g.add_mux(start, load[u][0][j], R[j])
            g.latch_next[index[f"R{u}[{j}]"]] = g.add_mux(start, load[u][1][j], g.add_xor(L[j], f[j]))
    pre = [lit[f"R3[{j}]"] for j in range(32)] + [lit[f"L3[{j}]"] for j in range(32)]
    for i, p in enumerate(D.FP):
        g.add_output(pre[p - 1], f"dout[{i}]")
    return g, [n for n in names if n.startswith("key")]
