"""The parameter-transform language (scg.transform): every instruction against its definition, the
reader against malformed and hostile files, the C emitter (scg.transform_c) against the interpreter
on random programs, and a build folder with a program through every SCG: the runtime's and the
flow's rekey, the generated firmware natively and in QEMU (frames equal to an independent model's;
refused values: one line, nothing written; on the board rc SCG_ERR_TRANSFORM, frames untouched)."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from _cli import one_line_error
from _transform_build import ABOVE, TOO_LONG, USER, golden, make_transform_build
from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl, transform as tf
from dcsflow.scg.params import ppc_values
from dcsflow.scg.transform_c import transform_source, user_bits

M = 0xFFFFFFFF
W32 = st.integers(0, M)
ERR_TRANSFORM = -17                     # SCG_ERR_TRANSFORM (firmware/scg_runtime.h, scg.rekey.ERROR_CODES)


def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & M if k else x


# ------------------------------------------------------------------------------------ the language
@given(a=W32, b=W32, m=W32, k=st.integers(0, 31))
@settings(max_examples=200, deadline=None)
def test_every_instruction_matches_its_definition(a, b, m, k):
    """Each instruction on random words gives what the module docstring defines (Python's own
    arithmetic as the reference)."""
    want = {"const": k * 0x01010101, "mov": a, "not": ~a & M, "xor": a ^ b, "and": a & b, "or": a | b,
            "andn": a & ~b & M, "add": (a + b) & M, "sub": (a - b) & M, "shl": (a << k) & M, "shr": a >> k,
            "rotl": _rotl(a, k), "ltu": M if a < b else 0, "eq": M if a == b else 0,
            "eq_self": M, "sel": (a & m) | (b & ~m & M)}
    bb = tf.Builder({"in": 96}, {"out": 32 * len(want)})
    ia, ib, im = bb.input("in")
    out = bb.output("out")
    ops = [bb.const(k * 0x01010101), bb.mov(ia), bb.not_(ia), bb.xor(ia, ib), bb.and_(ia, ib), bb.or_(ia, ib),
           bb.andn(ia, ib), bb.add(ia, ib), bb.sub(ia, ib), bb.shl(ia, k), bb.shr(ia, k), bb.rotl(ia, k),
           bb.ltu(ia, ib), bb.eq(ia, ib), bb.eq(ia, ia), bb.sel(im, ia, ib)]
    for o, w in zip(out, ops):
        bb.mov(w, out=o)
    got = tf.run(bb.program(), {"in": a | b << 32 | m << 64})["out"]
    assert [(got >> (32 * i)) & M for i in range(len(want))] == list(want.values())


def test_loops_indexed_operands_tables_and_subroutines():
    """Nested loops with counters, forward and backward indexed addresses, a table read at a loop
    index and a subroutine, against the same computation written in Python."""
    tab = [random.Random(1).getrandbits(32) for _ in range(12)]
    b = tf.Builder({"x": 8 * 32}, {"y": 8 * 32})
    x, y = b.input("x"), b.output("y")
    t = b.table(tab)
    acc = b.word()
    with b.subroutine() as double:
        b.add(acc, acc, out=acc)
    with b.loop(8) as i:
        b.xor(b.at(x[7], i, -1), b.load(t, b.at(4, i)), out=b.at(y[0], i))      # y[i] = x[7-i] ^ tab[4+i]
        with b.loop(3) as j:
            b.add(acc, b.index(j, scale=3, offset=1), out=acc)                   # acc += 3j + 1
        b.add(acc, b.index(i, scale=M, offset=0), out=acc)                        # acc -= i
        b.call(double)
    b.xor(y[0], acc, out=y[0])
    xs = [random.Random(2).getrandbits(32) for _ in range(8)]
    got = tf.run(b.program(), {"x": sum(v << (32 * i) for i, v in enumerate(xs))})["y"]
    ref, a = [xs[7 - i] ^ tab[4 + i] for i in range(8)], 0
    for i in range(8):
        a = ((a + 1 + 4 + 7 - i) * 2) & M
    ref[0] ^= a
    assert got == sum(v << (32 * i) for i, v in enumerate(ref))


def test_subroutines_call_earlier_ones_and_steps_count_them(tmp_path):
    """A subroutine calling an earlier one, inside loops: the result, and the instructions a run
    executes (known before it runs) as counted by hand."""
    b = tf.Builder({"x": 32}, {"y": 32})
    x, y = b.input("x")[0], b.output("y")[0]
    with b.subroutine() as inc:                  # 2 instructions
        b.add(y, b.const(1), out=y)
    with b.subroutine() as inc3:                 # 1 + 3 (1 + 2) = 10
        with b.loop(3):
            b.call(inc)
    b.mov(x, out=y)                              # 1
    with b.loop(5):                              # 1 + 5 (1 + 10)
        b.call(inc3)
    p = b.program()
    assert tf.run(p, {"x": 7}) == {"y": 22}
    assert p.steps() == 1 + 1 + 5 * 11
    if shutil.which("cc"):
        lay = [("y", 0, 32)]
        _check_c(_compile(tmp_path, [p], [lay]), [p], [lay], [(0, {"x": 7}), (0, {"x": M})])


def test_checks_refuse_with_their_message_and_ports_keep_their_width():
    """A failed check refuses with its message (the first failed one), never a value; an output's
    bits above its width are dropped; an input value wider than its port is refused."""
    b = tf.Builder({"n": 5}, {"z": 40})
    n = b.input("n")[0]
    b.check(b.ltu(b.const(20), n), "n above 20")
    b.check(b.eq(n, b.const(31)), "n is 31")
    z = b.output("z")
    b.const(M, out=z[0])
    b.const(M, out=z[1])
    p = b.program()
    assert tf.run(p, {"n": 3}) == {"z": (1 << 40) - 1}
    with pytest.raises(tf.TransformRefused, match=r"refused the values: n above 20$"):
        tf.run(p, {"n": 31})
    with pytest.raises(tf.TransformError, match="n as a value of 5 bits"):
        tf.run(p, {"n": 32})


def _valid_doc() -> dict:
    from _transform_build import program

    return program().to_json()


BAD = [
    (lambda d: d.update(format="x"), "not a dcsflow-transform"),
    (lambda d: d.update(version=2), "version 2"),
    (lambda d: d.update(words=0), "words"),
    (lambda d: d.update(words=tf.MAX_WORDS + 1), "words"),
    (lambda d: d.update(extra=1), "unknown key"),
    (lambda d: d["code"].append(["frobnicate", 1]), "unknown operation"),
    (lambda d: d["code"].append(["xor", 1, 2]), "takes 3 operands"),
    (lambda d: d["code"].append(["xor", 1, 2, 10 ** 6]), "memory operand"),
    (lambda d: d["code"].append(["xor", 1, 2, True]), "memory operand"),
    (lambda d: d["code"].append(["shl", 1, 2, 32]), "shift"),
    (lambda d: d["code"].append(["const", 1, -1]), "constant"),
    (lambda d: d["code"].append(["load", 1, 7, 0]), "table"),
    (lambda d: d["code"].append(["load", 1, 0, 4]), "table index"),
    (lambda d: d["code"].append(["check", 9, 1]), "check"),
    (lambda d: d["code"].append(["index", 1, 0, 1, 1]), "loop level"),
    (lambda d: d["code"].append(["loop", 2, [["xor", [1, 1, 1], 1, 1]]]), "loop level"),
    (lambda d: d["code"].append(["loop", 5, [["xor", [d["words"] - 2, 0, 1], 1, 1]]]), "leaves its range"),
    (lambda d: d["code"].append(["loop", 0, []]), "trip count"),
    (lambda d: d["code"].append(["loop", 1, [["loop", 1, [["loop", 1, [["loop", 1, [["loop", 1, []]]]]]]]]]),
     "nested deeper"),
    (lambda d: d["code"].append(["loop", 65536, [["loop", 65536, [["mov", 1, 2]]]]]), "more than"),
    (lambda d: d["code"].append(["call", 5]), "subroutine"),
    (lambda d: d["subs"][0].append(["call", 0]), "subroutine"),
    (lambda d: d["inputs"].append({"name": "seed", "bits": 8, "at": 0}), "given twice"),
    (lambda d: d["inputs"].append({"name": "x", "bits": 8, "at": 0}), "share words"),
    (lambda d: d["outputs"][0].update(at=d["words"] - 1), "end past"),
    (lambda d: d["outputs"][0].update(name="no good"), "port name"),
    (lambda d: d.update(checks=["x\nerror: forged"]), "checks"),
    (lambda d: d.update(tables=[[1 << 32]]), "table word"),
    (lambda d: d.update(design_hash="ABC"), "design_hash"),
    (lambda d: d.update(code={}), "not a list"),
]


@pytest.mark.parametrize("mutate,needle", BAD)
def test_reader_refuses_malformed_programs(mutate, needle):
    """Every kind of malformed transform.json is refused with one line naming the fault."""
    d = _valid_doc()
    mutate(d)
    with pytest.raises(tf.TransformError) as e:
        tf.from_json(d, "T.json")
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and msg.startswith("T.json: ")


def _mutations(doc):
    """Every (path, container) of the JSON tree (for the fuzz test)."""
    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                out.append(path + [k])
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                out.append(path + [i])
                walk(v, path + [i])
    walk(doc, [])
    return out


_JUNK = st.one_of(st.integers(-2 ** 40, 2 ** 40), st.booleans(), st.none(), st.text(max_size=5),
                  st.lists(st.integers(-3, 70000), max_size=4), st.floats(allow_nan=True))


@given(data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_reader_fuzz_refuses_or_runs_bounded(data):
    """Any single node of a valid transform.json replaced by junk: the reader refuses it with one
    line (TransformError) or gives a program that runs (its work bounded by the reader)."""
    doc = _valid_doc()
    paths = _mutations(doc)
    path = paths[data.draw(st.integers(0, len(paths) - 1))]
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = data.draw(_JUNK)
    try:
        p = tf.from_json(doc, "T.json")
    except tf.TransformError as e:
        assert "\n" not in str(e)
        return
    assert p.steps() <= tf.MAX_STEPS
    try:
        tf.run(p, {i.name: 0 for i in p.inputs})
    except (tf.TransformRefused, tf.TransformError):
        pass


# ------------------------------------------------------------------------------------ C against the interpreter
def _random_program(rng: random.Random) -> tf.Program:
    """A random program over every instruction, loops with indexed operands, tables, a subroutine."""
    b = tf.Builder({"u": rng.randrange(33, 200), "v": rng.randrange(1, 40)}, {"o": 8 * 32 + 5, "p": 17})
    pool = b.input("u") + b.input("v")
    mem = b.words(16)
    for i, w in enumerate(mem):
        b.mov(pool[i % len(pool)], out=w)
    tab = b.table([rng.getrandbits(32) for _ in range(24)])

    def some(k):
        ops = []
        for _ in range(k):
            a, c, m = rng.choice(pool + mem), rng.choice(pool + mem), rng.choice(pool + mem)
            op = rng.randrange(14)
            v = [lambda: b.xor(a, c), lambda: b.add(a, c), lambda: b.sub(a, c), lambda: b.andn(a, c),
                 lambda: b.or_(a, c), lambda: b.and_(a, c), lambda: b.not_(a), lambda: b.rotl(a, rng.randrange(32)),
                 lambda: b.shl(a, rng.randrange(32)), lambda: b.shr(a, rng.randrange(32)), lambda: b.ltu(a, c),
                 lambda: b.eq(a, c), lambda: b.sel(m, a, c), lambda: b.const(rng.getrandbits(32))][op]()
            ops.append(v)
            if rng.random() < 0.3:
                b.mov(v, out=rng.choice(mem))
        return ops

    with b.subroutine() as sub:
        some(10)
    with b.loop(rng.randrange(1, 6)) as i:
        t = b.load(tab, b.at(rng.randrange(0, 4), i, 4))
        b.xor(b.at(mem[0], i, 2), t, out=b.at(mem[0], i, 2))
        pool.append(b.index(i, rng.getrandbits(32), rng.getrandbits(32)))
        some(20)
        b.call(sub)
        with b.loop(3) as j:
            b.add(b.at(mem[15], j, -1), b.at(mem[1], i, 1), out=b.at(mem[15], j, -1))
    some(30)
    b.check(b.and_(rng.choice(mem), b.const(0x00010001)), "a random check")
    for o in b.output("o") + b.output("p"):
        b.mov(rng.choice(pool + mem), out=o)
    return b.program()


def _compile(tmp_path, progs, layouts, opt="-O1"):
    """One native binary running program k on a hex user vector: ``k HEX`` -> ``failed HEX``."""
    parts = ["#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"]
    calls = []
    for k, (p, lay) in enumerate(zip(progs, layouts)):
        parts.append(transform_source(p, lay, name=f"tf{k}", prefix=f"tfx{k}"))
        calls.append(f"if (k == {k}) {{ e = tf{k}(u, q); nb = {-(-max(o + w for _, o, w in lay) // 8)}; }}")
    parts.append(f"""
static uint8_t u[4096], q[4096];
int main(void) {{
    char h[8192]; int k;
    while (scanf("%d %8191s", &k, h) == 2) {{
        size_t n = strlen(h), i; uint32_t e = 0; int nb = 0;
        memset(u, 0, sizeof u);
        for (i = 0; i < n; i++) {{
            int c = h[n - 1 - i];
            u[i / 2] |= (uint8_t)((c <= '9' ? c - '0' : c - 'a' + 10) << (4 * (i % 2)));
        }}
        {' '.join(calls)}
        printf("%u ", e);
        for (i = (size_t)nb; i-- > 0;) printf("%02x", q[i]);
        printf("\\n");
    }}
    return 0;
}}
""")
    src = tmp_path / "t.c"
    src.write_text("\n".join(parts))
    exe = tmp_path / "t"
    r = subprocess.run(["cc", "-std=c99", opt, "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return exe


def _check_c(exe, progs, layouts, cases):
    """Run the binary on ``cases`` [(program index, user values)] and compare with the interpreter."""
    lines = [f"{k} {tf.pack_vector(progs[k].inputs, u):x}" for k, u in cases]
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=120).stdout.splitlines()
    assert len(out) == len(cases)
    for (k, u), line in zip(cases, out):
        e, h = line.split()
        try:
            want = tf.run(progs[k], u)
        except tf.TransformRefused:
            assert int(e) != 0 and int(h or "0", 16) == 0, (k, u)
            continue
        assert int(e) == 0, (k, u)
        assert int(h, 16) == sum(want[p] % (1 << w) << off for p, off, w in layouts[k]), (k, u)


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler")
def test_c_matches_the_interpreter_on_random_programs(tmp_path):
    """The generated C (compiled natively, warnings as errors) of random programs gives the
    interpreter's outputs and refusals on random values, a parameter layout that keeps a part of
    each output at an unaligned offset (as the PPC's ports may be)."""
    rng = random.Random(7)
    progs = [_random_program(rng) for _ in range(6)]
    layouts = [[("p", 3, 11), ("o", 14, 8 * 32 + 5)] for _ in progs]
    exe = _compile(tmp_path, progs, layouts)
    cases = [(k, {i.name: rng.getrandbits(i.bits) for i in progs[k].inputs}) for k in range(6) for _ in range(40)]
    _check_c(exe, progs, layouts, cases)


# ------------------------------------------------------------------------------------ a build with a program
@pytest.fixture(scope="module")
def tbuild(tmp_path_factory):
    """The synthetic build with the test program as its parameter transform (tests/_transform_build.py)."""
    return make_transform_build(tmp_path_factory.mktemp("tfb"))


def _expected_hash(b, user) -> str:
    """Frames hash of the rekey for ``user``, from the independent model (tests/_transform_build.golden)."""
    return pl.frames_hash(pl.plan(b, ppc_values(golden(user), b.ports)).frames, b.device)


VALUES = [{"seed": 0, "n": 0}, {"seed": 0x1234, "n": 2}, {"seed": 0xFEDCBA9876543210, "n": 8},
          {"seed": 0xABC, "n": 3}, {"seed": 0x77777777, "n": 4}]
REFUSED = [({"seed": 0, "n": 9}, TOO_LONG), ({"seed": 1 << 16, "n": 2}, ABOVE), ({"seed": 1 << 63, "n": 7}, ABOVE)]


def _vec(user) -> str:
    return f"{tf.pack_vector(USER, user):0{-(-sum(USER.values()) // 4)}x}"


def _params(user):
    return [w for p, wd in USER.items() for w in ("--param", f"{p}={user[p]:0{-(-wd // 4)}x}")]


def test_golden_model_of_the_test_program(tbuild):
    """The interpreter of the build's program equals the independent model on random values."""
    rng = random.Random(11)
    b = bf.load_build(tbuild)
    for _ in range(300):
        n = rng.randrange(0, 11)
        u = {"seed": rng.getrandbits(8 * min(n, 8)) | (rng.random() < 0.2) << rng.randrange(64), "n": n}
        try:
            want = golden(u)
        except ValueError as e:
            with pytest.raises(tf.TransformRefused, match=str(e)):
                tf.run(b.transform, u)
        else:
            assert tf.run(b.transform, u) == want


@pytest.mark.parametrize("cli", ["runtime", "flow"])
def test_rekey_from_the_user_parameters(tbuild, tmp_path, cli, dcsflow):
    """``python -m dcsflow.scg rekey`` and ``dcsflow rekey`` take the user parameters and give the
    model's frames; the circuit parameters are still taken; a refused value is one line, exit 1, no
    file written."""
    def run(*args):
        if cli == "flow":
            return dcsflow("rekey", *args)
        return subprocess.run([sys.executable, "-m", "dcsflow.scg", "rekey", *map(str, args)], capture_output=True,
                              text=True, cwd=REPO_ROOT)

    b = bf.load_build(tbuild)
    for u in VALUES[1:3]:
        r = run(tbuild, *_params(u), "--json", "--frames-hash")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["frames_hash"] == _expected_hash(b, u)
    key = golden(VALUES[1])["key"]
    r = run(tbuild, "--param", f"key={key:024x}", "--json", "--frames-hash")
    assert r.returncode == 0 and json.loads(r.stdout)["frames_hash"] == _expected_hash(b, VALUES[1]), r.stderr
    for u, why in REFUSED[:2]:
        out = tmp_path / "k.bit"
        line = one_line_error(run(tbuild, *_params(u), "--to", f"bitfile:{out}"), why)
        assert f"{u['seed']:x}" not in line.split(":", 2)[-1] or u["seed"] < 16
        assert not out.exists() and not list(tmp_path.iterdir())


def test_reader_ties_the_program_to_its_build(tbuild, tmp_path):
    """A program of another build, one whose inputs are not the build's user parameters, or a
    manifest that names it without listing it: the folder is refused with one line."""
    def variant(name, edit_prog=None, edit_bj=None):
        d = tmp_path / name
        shutil.copytree(tbuild, d)
        bj = json.loads((d / "build.json").read_text())
        if edit_prog:
            doc = json.loads((d / tf.FILE).read_text())
            edit_prog(doc)
            (d / tf.FILE).write_text(json.dumps(doc))
            bj["files"][tf.FILE] = bf.sha256_file(d / tf.FILE)
        if edit_bj:
            edit_bj(bj)
        (d / "build.json").write_text(json.dumps(bj))
        return d

    cases = [
        (variant("other", lambda d: d.update(design_hash="0" * 64)), "of another build"),
        (variant("inputs", lambda d: d["inputs"].reverse()), "user parameters"),
        (variant("unlisted", edit_bj=lambda j: j["files"].pop(tf.FILE)), "transform is not"),
        (variant("outputs", lambda d: d["outputs"][0].update(bits=95)), "every circuit parameter"),
    ]
    for d, needle in cases:
        with pytest.raises(bf.BuildFolderError, match=needle):
            b = bf.load_build(d)
            b.transform
        r = subprocess.run([sys.executable, "-m", "dcsflow.scg", "rekey", str(d), *_params(VALUES[1])],
                           capture_output=True, text=True, cwd=REPO_ROOT)
        one_line_error(r, needle)


def _fw(tbuild, root, targets=("host",)):
    gen, fw = root / "gen", root / "fw"
    r = subprocess.run([sys.executable, "-m", "dcsflow.scg", "codegen", str(tbuild), "--out", str(gen)],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert "#define SCG_GEN_TRANSFORM 1" in (gen / "scg_gen.h").read_text()
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "firmware"), f"GEN={gen}", f"BUILD={fw}", *targets],
                   check=True, capture_output=True)
    return fw


def _firmware_rekeys(b, text, users):
    """Each rekey line of the firmware's output against the model: rc 0 and the model's frames, or
    (a refused value) rc SCG_ERR_TRANSFORM and the frames the previous rekey left."""
    lines = [dict(kv.split("=") for kv in ln.split()[1:]) for ln in text.splitlines() if ln.startswith("rekey ")]
    assert len(lines) == len(users), text[-2000:]
    prev = pl.frames_hash({f: b.template.frame(f) for f in b.fars}, b.device)
    for u, got in zip(users, lines):
        try:
            want = _expected_hash(b, u)
        except ValueError:
            assert int(got["rc"]) == ERR_TRANSFORM and got["frames"] == "0" and got["hash"] == prev, got
            assert int(got["transform_failed"], 16) != 0
            continue
        assert got["rc"] == "0" and got["hash"] == want, got
        prev = want


def test_firmware_rekeys_from_the_user_parameters(tbuild, tmp_path):
    """The generated firmware (native, with the C model of the HWICAP and configuration memory)
    rekeys from the user parameter vector: the model's frames; a refused value: rc SCG_ERR_TRANSFORM
    and the frames untouched; the bench with fixed lengths runs the transform for every key."""
    b = bf.load_build(tbuild)
    fw = _fw(tbuild, tmp_path)
    users = VALUES[:2] + [REFUSED[0][0]] + VALUES[2:] + [REFUSED[1][0]]
    r = subprocess.run([str(fw / "host" / "scg_host"), "verify on", *[f"rekey {_vec(u)}" for u in users],
                        f"bench 20 {_vec({'seed': 0, 'n': 8})} {_vec({'seed': (1 << 64) - 1, 'n': 0})}",
                        f"bench 3 {_vec({'seed': 0, 'n': 9})} {_vec({'seed': 0, 'n': 0})}"],
                       capture_output=True, text=True, timeout=120)
    _firmware_rekeys(b, r.stdout, users)
    bench = [ln for ln in r.stdout.splitlines() if ln.startswith("bench ")]
    assert "transform_failed" not in bench[0] and "transform_failed=00000001" in bench[1], bench


@pytest.mark.skipif(not (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc")),
                    reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_firmware_rekeys_from_the_user_parameters_in_qemu(tbuild, tmp_path):
    """The same on the Cortex-A9 in ``qemu-system-arm -M xilinx-zynq-a9``."""
    b = bf.load_build(tbuild)
    fw = _fw(tbuild, tmp_path, ("qemu",))
    users = [VALUES[1], REFUSED[1][0], VALUES[2]]
    cmds = ";".join(["verify on", *[f"rekey {_vec(u)}" for u in users]])
    q = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}",
                        "-kernel", str(fw / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=300)
    _firmware_rekeys(b, q.stdout + q.stderr, users)


def test_program_json_roundtrip_and_determinism():
    """A program's JSON reads back as the same program, and writing it twice gives the same text."""
    from _transform_build import program

    p = program()
    d = p.to_json()
    assert tf.from_json(copy.deepcopy(d)) == p
    assert json.dumps(program().to_json()) == json.dumps(d)
    assert user_bits(p) == sum(USER.values())
