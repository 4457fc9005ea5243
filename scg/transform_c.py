"""C99 for a parameter transform (:mod:`dcsflow.scg.transform`) in the firmware SCG.

:func:`transform_source` turns a checked :class:`~dcsflow.scg.transform.Program` into one C function
``uint32_t scg_transform(const uint8_t *user, uint8_t *param)``: unpack the user parameter vector
(the program's inputs concatenated, :func:`dcsflow.scg.transform.vector_layout`; bit i = byte
i / 8 bit i % 8), run the program, and pack its outputs into the firmware's parameter vector of the
PPC (:func:`dcsflow.scg.plan.param_layout`: each port the PPC reads, at its offset, its first
``width`` bits). It returns 0, or the set of failed checks (bit c for check c): then ``param`` holds
nothing (zeroed) and the caller returns an error.

The code is constant time as the program is: loops with constant trip counts (a C ``for`` per
``loop``), addresses from constants and loop counters only, checks accumulated without a branch,
``ltu``/``eq`` as bit formulas. A word that one block writes before it reads it and that nothing
else touches is a C local (the compiler keeps it in a register); the others live in a static array,
zeroed at the start and wiped at the end, as is every local copy of the key. Subroutines are static
functions, so code grows with the program's text, not with its trip counts.
"""

from __future__ import annotations

from .transform import Program, vector_layout

_MASK = 0xFFFFFFFF


_KINDS = {
    "const": ("w", "imm"), "mov": ("w", "r"), "not": ("w", "r"),
    "xor": ("w", "r", "r"), "and": ("w", "r", "r"), "or": ("w", "r", "r"), "andn": ("w", "r", "r"),
    "add": ("w", "r", "r"), "sub": ("w", "r", "r"), "ltu": ("w", "r", "r"), "eq": ("w", "r", "r"),
    "shl": ("w", "r", "sh"), "shr": ("w", "r", "sh"), "rotl": ("w", "r", "sh"),
    "sel": ("w", "r", "r", "r"), "load": ("w", "tab", "tix"), "index": ("w", "level", "imm", "imm"),
    "check": ("chk", "r"),
}


#: C of the instructions whose operands are all memory words ({0}, {1}, {2}; {p}: the helpers' prefix)
_C_EXPR = {"mov": "{0}", "not": "~{0}", "xor": "{0} ^ {1}", "and": "{0} & {1}", "or": "{0} | {1}",
           "add": "{0} + {1}", "sub": "{0} - {1}", "andn": "{0} & ~{1}", "ltu": "{p}_ltu({0}, {1})",
           "eq": "{p}_eq({0}, {1})", "sel": "{p}_sel({0}, {1}, {2})"}


def _memory_operands(ins):
    """``(kind, operand)`` of the memory operands of a simple instruction, the reads first (an
    instruction reads before it writes)."""
    ops = [(k, a) for k, a in zip(_KINDS[ins[0]], ins[1:]) if k in ("w", "r")]
    return [x for x in ops if x[0] == "r"] + [x for x in ops if x[0] == "w"]


def _locals(program: Program) -> tuple[set[int], set[int]]:
    """``(locals, read)``: the addresses that can be C locals — every access a constant-address access
    directly in one block, the first of them (in program order) a write, not a port's word and not
    between the ends of an indexed operand's range — and the addresses some instruction reads."""
    blocks_of: dict[int, set] = {}
    first: dict = {}
    read: set[int] = set()
    banned: set[int] = set()
    for p in (*program.inputs, *program.outputs):
        banned.update(range(p.at, p.at + p.nwords))

    def walk(block, loops):
        bid = id(block)
        for ins in block:
            if ins[0] == "loop":
                walk(ins[2], loops + [ins[1]])
                continue
            if ins[0] == "call":
                continue
            for k, a in _memory_operands(ins):
                if isinstance(a, tuple):
                    base, level, stride = a
                    last = base + stride * (loops[level] - 1)
                    banned.update(range(min(base, last), max(base, last) + 1))
                    continue
                blocks_of.setdefault(a, set()).add(bid)
                first.setdefault((bid, a), k)
                if k == "r":
                    read.add(a)

    for b in (program.code, *program.subs):
        walk(b, [])
    out = set()
    for a, blks in blocks_of.items():
        if a not in banned and len(blks) == 1 and first[(next(iter(blks)), a)] == "w":
            out.add(a)
    return out, _needed(program, out)


def _needed(program: Program, local: set[int]) -> set[int]:
    """The locals whose value is used: read by a check, by an instruction writing a memory word, or
    by one writing a local that is used itself (to a fixed point); a write to any other local is
    dead code."""
    simple = []

    def walk(block):
        for ins in block:
            if ins[0] == "loop":
                walk(ins[2])
            elif ins[0] != "call":
                simple.append(ins)
    for b in (program.code, *program.subs):
        walk(b)
    need: set[int] = set()
    while True:
        more = set(need)
        for ins in simple:
            ops = _memory_operands(ins)
            dst = [a for k, a in ops if k == "w"]
            if dst and not isinstance(dst[0], tuple) and dst[0] in local and dst[0] not in need:
                continue
            more.update(a for k, a in ops if k == "r" and not isinstance(a, tuple) and a in local)
        if more == need:
            return need
        need = more


class _Emitter:
    def __init__(self, program: Program, prefix: str):
        self.p = program
        self.prefix = prefix
        self.local, self.reads = _locals(program)       # reads: the locals whose value is used
        kept = sorted(a for a in range(program.words) if a not in self.local)
        self.slot = {a: k for k, a in enumerate(kept)}
        self.nmem = max(1, len(kept))
        self.declared: set = set()
        self.depth = 0

    def mem(self, a) -> str:
        t = f"{self.prefix}_m"
        if isinstance(a, tuple):
            base, level, stride = a
            s = self.slot[base]
            return f"{t}[{s}u + {stride}u * i{level}]" if stride >= 0 else f"{t}[{s}u - {-stride}u * i{level}]"
        if a in self.local:
            return f"t{a}"
        return f"{t}[{self.slot[a]}u]"

    def tix(self, t: int, a) -> str:
        if isinstance(a, tuple):
            base, level, stride = a
            return (f"{self.prefix}_t{t}[{base}u + {stride}u * i{level}]" if stride >= 0
                    else f"{self.prefix}_t{t}[{base}u - {-stride}u * i{level}]")
        return f"{self.prefix}_t{t}[{a}u]"

    def expr(self, ins) -> str:
        """The C expression of a simple instruction that writes a word (its operands formatted)."""
        op, a = ins[0], ins[2:]
        if op == "const":
            return f"0x{a[0]:08X}u"
        if op in ("shl", "shr", "rotl"):
            x, k = self.mem(a[0]), a[1]
            if op == "rotl":
                return x if k == 0 else f"({x} << {k}) | ({x} >> {32 - k})"
            return f"{x} {'<<' if op == 'shl' else '>>'} {k}"
        if op == "load":
            return self.tix(a[0], a[1])
        if op == "index":
            level, scale, offset = a
            return f"0x{offset:08X}u + 0x{scale:08X}u * i{level}"
        return _C_EXPR[op].format(*map(self.mem, a), p=self.prefix)

    def block(self, block, ind: str) -> list[str]:
        lines = []
        for ins in block:
            op = ins[0]
            if op == "loop":
                d = self.depth
                lines.append(f"{ind}for (i{d} = 0; i{d} < {ins[1]}u; i{d}++) {{")
                self.depth += 1
                lines += self.block(ins[2], ind + "    ")
                self.depth -= 1
                lines.append(f"{ind}}}")
            elif op == "call":
                lines.append(f"{ind}{self.prefix}_s{ins[1]}();")
            elif op == "check":
                lines.append(f"{ind}{self.prefix}_e |= {self.prefix}_nz({self.mem(ins[2])}) << {ins[1]};")
            else:
                d = ins[1]
                if not isinstance(d, tuple) and d in self.local:
                    if d not in self.reads:
                        continue                       # its value is never used: dead code
                    if d not in self.declared:
                        self.declared.add(d)
                        lines.append(f"{ind}uint32_t t{d} = {self.expr(ins)};")
                        continue
                lines.append(f"{ind}{self.mem(d)} = {self.expr(ins)};")
        return lines

    def function(self, name: str, block, static: bool = True) -> str:
        self.depth = 0
        body = self.block(block, "    ")
        depth = _max_depth(block)
        head = [f"{'static ' if static else ''}void {name}(void)", "{"]
        if depth:
            head.append("    uint32_t " + ", ".join(f"i{k}" for k in range(depth)) + ";")
        return "\n".join(head + body + ["}"]) + "\n"


def _max_depth(block) -> int:
    return max([1 + _max_depth(i[2]) for i in block if i[0] == "loop"], default=0)


def user_bits(program: Program) -> int:
    """Bits of the user parameter vector (the inputs' widths summed)."""
    return sum(p.bits for p in program.inputs)


def transform_source(program: Program, param_layout: list[tuple[str, int, int]], name: str = "scg_transform",
                     prefix: str = "scg_tf") -> str:
    """C99 of ``program`` (module docstring): ``uint32_t name(const uint8_t *user, uint8_t *param)``
    with its static helpers, tables and memory (names starting with ``prefix``).

    ``param_layout``: ``(port, offset, width)`` of the PPC's parameter vector
    (:func:`dcsflow.scg.plan.param_layout`); every port in it must be an output of the program
    at least ``width`` bits wide. ``user`` must hold the user vector
    (:func:`user_bits` bits) and 4 more bytes; ``param`` the parameter vector and 4 more bytes.

    Raises:
        ValueError: a port of ``param_layout`` that the program does not compute, or computes narrower.
    """
    outs = {p.name: p for p in program.outputs}
    for port, _off, width in param_layout:
        if port not in outs or outs[port].bits < width:
            raise ValueError(f"the parameter transform does not compute {port} ({width} bits)")
    e = _Emitter(program, prefix)
    pf = prefix
    parts = [f"/* parameter transform (dcsflow-transform program): {program.steps()} instructions per run, "
             f"every run the same */\n",
             f"static uint32_t {pf}_m[{e.nmem}u];\nstatic uint32_t {pf}_e;\n",
             f"""static inline uint32_t {pf}_nz(uint32_t m) {{ return (m | (0u - m)) >> 31; }}
static inline uint32_t {pf}_eq(uint32_t a, uint32_t b) {{ return {pf}_nz(a ^ b) - 1u; }}
static inline uint32_t {pf}_ltu(uint32_t a, uint32_t b) {{ return 0u - (((~a & b) | ((~a | b) & (a - b))) >> 31); }}
static inline uint32_t {pf}_sel(uint32_t m, uint32_t a, uint32_t b) {{ return (a & m) | (b & ~m); }}
/* 32 bits of the byte vector v from bit off (v holds 4 bytes more than its bits) */
static inline uint32_t {pf}_get(const uint8_t *v, uint32_t off)
{{
    const uint8_t *p = v + (off >> 3);
    uint32_t s = off & 7u;
    uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (w >> s) | (((uint32_t)p[4] << (31u - s)) << 1);
}}
/* OR the low n bits (1..32) of x into the byte vector v from bit off */
static inline void {pf}_put(uint8_t *v, uint32_t off, uint32_t x, uint32_t n)
{{
    uint8_t *p = v + (off >> 3);
    uint32_t s = off & 7u, k;
    uint64_t w = (uint64_t)(x & (0xFFFFFFFFu >> (32u - n))) << s;
    for (k = 0; k < 5u; k++) p[k] |= (uint8_t)(w >> (8u * k));
}}
"""]
    for t, tab in enumerate(program.tables):
        rows = ",\n".join("    " + ", ".join(f"0x{w:08X}u" for w in tab[i:i + 8]) for i in range(0, len(tab), 8))
        parts.append(f"static const uint32_t {pf}_t{t}[{len(tab)}] = {{\n{rows}\n}};\n")
    for k, sub in enumerate(program.subs):
        parts.append(e.function(f"{pf}_s{k}", sub))
    parts.append(e.function(f"{pf}_run", program.code))
    body = [f"uint32_t {name}(const uint8_t *restrict user, uint8_t *restrict param)", "{",
            "    volatile uint32_t *z = " + f"{pf}_m;", "    uint32_t k, r;",
            f"    for (k = 0; k < {e.nmem}u; k++) z[k] = 0u;", f"    {pf}_e = 0u;"]
    ins = {p.name: p for p in program.inputs}
    for port, off, bits in vector_layout(program.inputs):
        at = e.slot[ins[port].at]
        full, rest = divmod(bits, 32)
        if full:
            body.append(f"    for (k = 0; k < {full}u; k++) {pf}_m[{at}u + k] = {pf}_get(user, {off}u + 32u * k);")
        if rest:
            body.append(f"    {pf}_m[{at + full}u] = {pf}_get(user, {off + 32 * full}u) & 0x{(1 << rest) - 1:08X}u;")
    body.append(f"    {pf}_run();")
    nparam = max([off + w for _, off, w in param_layout], default=0)
    body.append(f"    for (k = 0; k < {(nparam + 7) // 8 + 4}u; k++) param[k] = 0u;")
    for port, off, width in param_layout:
        at = e.slot[outs[port].at]
        full, rest = divmod(width, 32)
        if full:
            body.append(f"    for (k = 0; k < {full}u; k++) {pf}_put(param, {off}u + 32u * k, {pf}_m[{at}u + k], 32u);")
        if rest:
            body.append(f"    {pf}_put(param, {off + 32 * full}u, {pf}_m[{at + full}u], {rest}u);")
    body += [f"    r = {pf}_e;",
             f"    /* a failed check: no parameter vector (the caller refuses) */",
             f"    for (k = 0; k < {(nparam + 7) // 8 + 4}u; k++) param[k] &= (uint8_t)({pf}_nz(r) - 1u);",
             f"    for (k = 0; k < {e.nmem}u; k++) z[k] = 0u;", f"    {pf}_e = 0u;", "    return r;", "}"]
    parts.append("\n".join(body) + "\n")
    return "\n".join(parts)
