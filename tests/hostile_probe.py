"""Hostile-input probe of dcsflow: thousands of cases a hostile user would try, with the figures that
matter counted.

Run (not part of the default test run; about 15 minutes on 2 cores)::

    python tests/hostile_probe.py [--cases 5000] [--seed 1] [--work DIR] [--only CAT,CAT]

Categories (``--only`` names them; the shares of ``--cases`` are in :data:`SHARES`):

- ``records``: one field of one JSON record of a finished build changed (deleted, another type, a
  name that exists nowhere, a huge value) and the folder resealed; every reader runs
  (tests/_record_fuzz.py); a reader that accepts the change must give the untampered rekey bytes.
- ``vectors``: vector files of every design's reader with one change (a byte that is not UTF-8, a
  5,000-digit number, a malformed line holding the key, a flipped byte, a cut, a doubled line).
- ``bitstreams``: ``bit info/lut/diff/frames`` on ``.bit`` files whose header lengths or bytes are
  changed; a header length that disagrees with the file must be refused.
- ``aiger``: AIGER text and binary files with one change, read by the one AIGER reader.
- ``params``: ``rekey --param`` values a user could mistype (never echoed back).
- ``projects``: ``dcsflow.toml`` files with one changed key (types, names, numbers, limits).
- ``programs``: PPE programs as a parameter value, broken (never quoted back).
- ``options``: numeric options and ``DCSFLOW_JOBS`` in other scripts' digits, huge, negative.
- ``outputs``: outputs to a FIFO, ``/dev/full``, a folder, a link to a user's file, the input itself,
  a path under a file (the user's file must survive).
- ``signals``: SIGINT / SIGTERM at 20 points from 0 to 2 s after the start of both command lines
  (20 runs at once: a loaded machine); SIGKILL of dcsflow (alone, or its process group) during a
  Yosys run; no process may be left.
- ``concurrency``: a second build into a folder whose files were all deleted while the first holds it.
- ``hdl``: hostile HDL (a runaway ``generate``, under ``--max-memory 2G``: its peak memory and time
  are reported; deep expressions; bytes that are not UTF-8; a FIFO or ``/dev/zero`` as a source).
- ``checks``: ``check --frames`` of a cfglut5 build, ``check --vectors`` of a cocotb project.

Counted per category: cases, tracebacks (an exception a user would see as one), hangs (past the
case's limit), wrong results accepted, secrets in messages (a key, key-like value or program of the
case in an output line), orphaned processes (after any signal to dcsflow), user files destroyed.
Signals that arrive before the first instruction of ``main`` (the interpreter's start-up: SIGTERM
then ends the process by itself, SIGINT may give Python's own ``KeyboardInterrupt``) are counted
apart (``before_main``; ``before_main_tracebacks`` of them printed Python's own start-up traceback), as
:mod:`dcsflow.interrupts` documents; they still count for orphans. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

import _signals as sg  # noqa: E402  (tests/ on the path first)

DATA = TESTS / "data"
KEYXOR = DATA / "flow" / "keyxor.v"
SECRET = "00112233445566778899AABBCCDDEEFF"
MARKER = "zq7secretmarker"

#: share of --cases per category (the subprocess categories run a fixed number of cases)
SHARES = {"records": 0.40, "vectors": 0.25, "bitstreams": 0.10, "aiger": 0.05, "params": 0.05, "projects": 0.05,
          "programs": 0.04, "options": 0.02, "outputs": 0.02}
FIXED = ("signals", "concurrency", "hdl", "checks")
FIELDS = ("cases", "tracebacks", "hangs", "wrong_results", "secrets", "orphans", "destroyed", "before_main",
          "before_main_tracebacks")
#: counted, but no failure of the probe: signals before the first instruction of main (module docstring)
APART = ("cases", "before_main", "before_main_tracebacks")


class Tally:
    """Counts per category, and a few examples of every problem."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)
        self.examples = collections.defaultdict(list)

    def add(self, cat: str, field: str, example: str = "") -> None:
        self.counts[cat][field] += 1
        if field not in APART and len(self.examples[cat]) < 8:
            self.examples[cat].append(f"{field}: {example[:300]}")

    def total(self, field: str) -> int:
        return sum(c[field] for c in self.counts.values())


class Hang(BaseException):
    pass


@contextlib.contextmanager
def alarm(seconds: int):
    def fire(*_):
        raise Hang()
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def user_error(e: BaseException) -> bool:
    from _record_fuzz import user_error as ue

    return ue(e)


def call(fn, seconds: int = 60):
    """Run ``fn`` in-process with its output captured: (kind, value, stdout+stderr) with kind ``ok``
    (value: its result), ``user`` (a one-line refusal: the exception), ``traceback`` or ``hang``."""
    out = io.StringIO()
    try:
        with alarm(seconds), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            v = fn()
        return "ok", v, out.getvalue()
    except Hang:
        return "hang", None, out.getvalue()
    except SystemExit as e:
        return "ok", e.code, out.getvalue()
    except Exception as e:  # noqa: BLE001 - classified here
        if user_error(e) and "\n" not in str(e):
            return "user", e, out.getvalue() + str(e)
        return "traceback", e, out.getvalue() + "".join(traceback.format_exception_only(type(e), e))


def cli_status(kind: str, value, text: str) -> tuple[str, str]:
    """A command line's in-process result as (tracebacks/hangs/ok/usage/error, its output)."""
    if kind in ("hang", "traceback"):
        return kind, text
    if kind == "user":
        return "error", text
    if value == 0:
        return "ok", text
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if value in (1, 2) and lines and lines[-1].startswith(("error: ", "usage:", "Usage:")) or value == 2:
        return "error", text
    return "traceback", f"exit status {value}: {text[-300:]}"


def secret_in(text: str, secrets) -> bool:
    t = text.lower()
    return any(s and s.lower() in t for s in secrets)


# ------------------------------------------------------------------------------------------ builds

def ensure_builds(work: Path) -> dict:
    """The finished builds the probe reads (made once in ``work``): keyxor (frames), keyxor cfglut5,
    the keyxor project (cocotb check)."""
    from dcsflow.flow.build import BuildOptions, build

    out = {}
    for name, opts in (("keyxor", dict(design=str(KEYXOR))),
                       ("keyxor-cfglut5", dict(design=str(KEYXOR), tlut="cfglut5", chain_luts=2)),
                       ("project", dict(design=None, project=str(DATA / "project" / "dcsflow.toml"),
                                        baselines=("yosys-abc",), frontend_check=False))):
        d = work / "builds" / name
        if not (d / "build.json").is_file():
            shutil.rmtree(d, ignore_errors=True)
            build(BuildOptions(out=d, progress=False, **opts))
        out[name] = d
    return out


# ------------------------------------------------------------------------------------------ records

def probe_records(n: int, rng: random.Random, builds: dict, tmp: Path, t: Tally) -> None:
    import _record_fuzz as rf
    from dcsflow.scg import cli

    for bname, frames in (("keyxor", True), ("keyxor-cfglut5", False)):
        pristine = builds[bname]
        work = tmp / f"rec-{bname}"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work, symlinks=True)
        ref = tmp / "ref.bit"
        target = ["--to", f"bitfile:{ref}"] if frames else ["--to", "emulator"]
        cli_quiet(lambda: cli.main(["rekey", str(work), "--param", "key=a5", *target]))
        want = ref.read_bytes() if frames else None
        cases = rf.sample(rf.all_cases(pristine), n // 2, rng.randrange(1 << 30))
        for case in cases:
            t.add("records", "cases")
            rf.apply(case, pristine, work)
            try:
                kind, res, text = call(lambda: rf.readers(work, ["key=a5"], frames, tmp), 300)
                if kind == "hang":
                    t.add("records", "hangs", str(case))
                    continue
                if kind == "traceback":
                    t.add("records", "tracebacks", f"{case}: {text}")
                    continue
                for b in rf.classify(res):
                    t.add("records", "tracebacks", f"{case}: {b}")
                if frames:
                    got = tmp / "got.bit"
                    got.unlink(missing_ok=True)
                    k, v, _ = call(lambda: cli.main(["rekey", str(work), "--param", "key=a5", "--to",
                                                     f"bitfile:{got}"]), 120)
                    if k == "ok" and v == 0 and got.read_bytes() != want:
                        t.add("records", "wrong_results", f"{case}: rekey accepted it and wrote other frames")
            finally:
                rf.restore(case, pristine, work)


def cli_quiet(fn):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn()


# ------------------------------------------------------------------------------------------ vectors

def probe_vectors(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    import test_vector_files as tv

    readers = list(tv.READERS.items())
    for i in range(n):
        name, (read, error, text) = readers[i % len(readers)]
        data, what = _vector_change(rng, text)
        p = tmp / f"v{i % 7}.txt"
        p.write_bytes(data)
        t.add("vectors", "cases")
        kind, v, out = call(lambda: read(p), 60)
        if kind == "hang":
            t.add("vectors", "hangs", f"{name} {what}")
        elif kind == "traceback" or (kind == "user" and not isinstance(v, error)):
            t.add("vectors", "tracebacks", f"{name} {what}: {out[-300:]}")
        elif kind == "user" and secret_in(str(v), [SECRET, SECRET[:10], SECRET[-10:]]):
            t.add("vectors", "secrets", f"{name} {what}: {v}")


def _vector_change(rng: random.Random, text: str) -> tuple[bytes, str]:
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    r = rng.random()
    if r < 0.15:
        data = bytearray(text.encode())
        data[rng.randrange(len(data))] = rng.choice([0xFF, 0xC3, 0x80, 0xE2])
        return bytes(data), "byte that is not UTF-8"
    if r < 0.35:
        digits = [i for i, ln in enumerate(lines) if any(c.isdigit() for c in ln)]
        k = rng.choice(digits)
        ln = lines[k]
        j = next(i for i, c in enumerate(ln) if c.isdigit())
        lines[k] = ln[:j] + "9" * rng.choice([5000, 40, 4301, 10 ** 5]) + ln[j + 1:]
        return "\n".join(lines).encode(), "huge number"
    if r < 0.55:
        lines[k] = rng.choice([f"KEY := {SECRET}", f"Key {SECRET}", f"key: {SECRET}zz", f"{SECRET} = 00",
                               f"KEY ({SECRET}) = 00", f"Msg : {SECRET}", f"[{SECRET}]", f"Kye = {SECRET}"])
        return "\n".join(lines).encode(), "malformed key line"
    if r < 0.7:
        data = bytearray(text.encode())
        data[rng.randrange(len(data))] = rng.randrange(32, 127)
        return bytes(data), "flipped byte"
    if r < 0.8:
        return text.encode()[:rng.randrange(len(text))], "cut"
    if r < 0.9:
        lines.insert(k, lines[k])
        return "\n".join(lines).encode(), "doubled line"
    lines[k] = lines[k] + " " + "".join(rng.choice("0123456789abcdefXYZ=()[]# \t") for _ in range(rng.randrange(1, 60)))
    return "\n".join(lines).encode(), "garbage appended"


# ------------------------------------------------------------------------------------------ bitstreams

def probe_bitstreams(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.scg import cli
    from dcsflow.scg._synthetic import make_build
    from dcsflow.scg.bitstream import parse_bit_header

    syn = make_build(tmp / "bsyn")
    good = tmp / "good.bit"
    cli_quiet(lambda: cli.main(["rekey", str(syn), "--param", "key=beef", "--to", f"bitfile:{good}"]))
    data = good.read_bytes()
    _, off, length = parse_bit_header(data)
    for i in range(n):
        r = rng.random()
        header = r < 0.5
        if r < 0.25:
            v = rng.choice([0, 0xFFFFFFFF, length - 4, length + 4, length - 1, length + 1, rng.randrange(1 << 32)])
            if v == length:
                v += 8
            bad = data[:off - 4] + struct.pack(">I", v) + data[off:]
            what = f"e length {v:#x}"
        elif r < 0.5:
            pos = rng.choice([13, 14 + 2 + 1])       # the length of field 'a', or a byte of it
            bad = bytearray(data)
            bad[pos] = rng.choice([0xFF, 0x7F, 0x00])
            bad[pos + 1] = rng.randrange(256)
            bad = bytes(bad)
            what = f"header byte {pos}"
        elif r < 0.8:
            bad = bytearray(data)
            k = rng.randrange(off, len(data))
            bad[k] ^= 1 << rng.randrange(8)
            bad = bytes(bad)
            what = f"stream bit flip at {k}"
        else:
            bad = data[:rng.randrange(len(data))]
            what = "cut"
        p = tmp / "b.bit"
        p.write_bytes(bad)
        cmd = rng.choice([["bit", "info", str(p)], ["bit", "lut", str(p), "SLICE_X56Y34/A6LUT"],
                          ["bit", "diff", str(p), str(good)], ["bit", "frames", str(p), "-o", str(tmp / "f.frm")]])
        (tmp / "f.frm").unlink(missing_ok=True)
        t.add("bitstreams", "cases")
        status, text = cli_status(*call(lambda: cli.main(cmd), 60))
        if status in ("hang", "traceback"):
            t.add("bitstreams", status + "s", f"{what} {cmd[1]}: {text[-300:]}")
        elif status == "ok" and header and bad != data:
            try:
                same = parse_bit_header(bad)[1:] == (off, length) and len(bad) == len(data)
            except Exception:  # noqa: BLE001 - a header the parser refuses
                same = False
            if not same:
                t.add("bitstreams", "wrong_results", f"{what} accepted by {cmd[1]}")


# ------------------------------------------------------------------------------------------ aiger

def probe_aiger(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.aig import AigerError, parse_aiger
    from dcsflow.scg._synthetic import make_build

    syn = tmp / "asyn"
    if not syn.exists():
        make_build(syn)
    binary = (syn / "ppc.aig").read_bytes()
    text = b"aag 5 2 1 1 2\n2\n4\n6 10\n10\n8 2 4\n10 8 7\ni0 a\ni1 key[0]\nl0 q\no0 y\nc\ncomment\n"
    for i in range(n):
        base = binary if i % 2 else text
        data = bytearray(base)
        r = rng.random()
        if r < 0.4:
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif r < 0.6:
            data = data[:rng.randrange(len(data))]
        elif r < 0.8:
            head = data.split(b"\n", 1)
            nums = head[0].split()
            j = rng.randrange(1, len(nums))
            nums[j] = rng.choice([b"99999999999999999999", b"-1", b"4294967296", b"0", b"x", "٣".encode()])
            data = bytearray(b" ".join(nums) + b"\n" + (head[1] if len(head) > 1 else b""))
        else:
            k = rng.randrange(len(data))
            data[k:k] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 50)))
        t.add("aiger", "cases")
        kind, v, out = call(lambda: parse_aiger(bytes(data), "t.aig"), 60)
        if kind == "hang":
            t.add("aiger", "hangs", f"case {i}")
        elif kind == "traceback" and not isinstance(v, AigerError):
            t.add("aiger", "tracebacks", out[-300:])


# ------------------------------------------------------------------------------------------ params

def probe_params(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.scg import cli
    from dcsflow.scg._synthetic import make_build

    syn = tmp / "psyn"
    if not syn.exists():
        make_build(syn)
    for i in range(n):
        secret = "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([4, 5, 8, 33])))
        value = rng.choice([secret, secret + "g", "0x" + secret + "_", "٣" + secret, secret + "\u200b", " " + secret,
                            secret * 50, "-" + secret, secret[:2] + "\n" + secret[2:]])
        args = rng.choice([["--param", f"key={value}"], ["--param", f"kee={value}"], ["--param", value],
                           ["--param", f"key={value}", "--param", "key=beef"], ["--param", f"key={secret[:4]}"]])
        t.add("params", "cases")
        status, text = cli_status(*call(lambda: cli.main(["rekey", str(syn), *args, "--to", "emulator"]), 60))
        if status in ("hang", "traceback"):
            t.add("params", status + "s", text[-300:])
        elif status == "error" and len(secret) >= 5 and secret_in(text, [secret]):
            t.add("params", "secrets", text[-200:])


# ------------------------------------------------------------------------------------------ projects

def probe_projects(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    import re

    from dcsflow.flow.project import load_project

    (tmp / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    values = ['"x"', "1", "-1", "1.5", "true", "[]", "{}", '"２"', "99999999999999999999999", '"a\\nb"', '"../x"',
              '"é"', '""', '"8G"', '"２G"', '"0"', "nan", "inf", '"' + "A" * 5000 + '"', "[1, 2]", '["t.v", 1]']
    keys = ["design.name", "design.top", "design.sources", "design.params", "design.chparams", "check.keys",
            "check.cocotb", "build.lut_size", "build.timeout", "build.tlut", "build.max_memory", "version",
            "design.description", "build.unknown", "design.conventional_chparams"]
    for i in range(n):
        key, val = rng.choice(keys), rng.choice(values)
        doc = {"design": {"name": '"t"', "sources": '["t.v"]'}}
        sec, _, k = key.rpartition(".")
        doc.setdefault(sec or "", {})[k] = val
        text = "".join(f"{k} = {v}\n" for k, v in doc.get("", {}).items())
        for s, d in doc.items():
            if s:
                text += f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in d.items())
        p = tmp / "dcsflow.toml"
        p.write_text(text)
        t.add("projects", "cases")
        kind, v, out = call(lambda: load_project(p), 30)
        if kind in ("hang", "traceback"):
            t.add("projects", kind + "s", f"{key}={val[:40]}: {out[-300:]}")
        elif kind == "ok" and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", v.name):
            t.add("projects", "wrong_results", f"name {v.name!r} accepted")
        elif kind == "ok" and key in ("build.timeout", "build.max_memory", "check.keys", "build.lut_size") \
                and not val.isascii():
            t.add("projects", "wrong_results", f"{key}={val} accepted")


# ------------------------------------------------------------------------------------------ programs

def probe_programs(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.designs.ppe.params import program_values

    ports = {"prog_image": 512 * 64, "coef_image": 64 * 64}
    pieces = [f"add r1, r2, {MARKER}", f"{MARKER}:", f"jmp {MARKER}", f".equ {MARKER}, 1 << 5000", f"mov r1, #{MARKER}",
              f"; {MARKER}", f"setlc {MARKER}", f".coef 64, {MARKER}", f"add.{MARKER} r1, r2, r3", "nop",
              f"{MARKER} r1", "halt", f".include \"{MARKER}\"", f"add r1, r2, r3, rotl {MARKER}", "(" * 500 + MARKER]
    for i in range(n):
        prog = "\n".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        t.add("programs", "cases")
        kind, v, out = call(lambda: program_values(prog, ports), 30)
        if kind in ("hang", "traceback"):
            t.add("programs", kind + "s", out[-300:])
        elif kind == "user" and MARKER in str(v):
            t.add("programs", "secrets", str(v)[:200])


# ------------------------------------------------------------------------------------------ options

def probe_options(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.flow.cli import main

    opts = [("build", "--seed"), ("build", "--lut-size"), ("build", "-j"), ("build", "--frontend-cycles"),
            ("build", "--chain-luts"), ("build", "--mul-chunk"), ("build", "--timeout"), ("build", "--max-memory"),
            ("check", "--keys"), ("check", "--seed"), ("map", "-K"), ("map", "-C")]
    foreign = ["２", "٣", "1２", "６０", "２G", "੧"]
    other = ["-1", "0", "99999999999999999999999", "1e9", "nan", "", " ", "0x10", "1_000"]
    for i in range(n):
        cmd, opt = rng.choice(opts)
        val = rng.choice(foreign + other)
        # an existing design and a Yosys that fails at once: an option value that is taken gets as far
        # as the front end, whose error does not name the option
        target = {"build": str(KEYXOR), "check": str(tmp / "nobuild"), "map": str(tmp / "none.aag")}[cmd]
        env_jobs = rng.random() < 0.2
        args = [cmd, target, opt, val] + (["--out", str(tmp / "jb"), "--to", "frontend"] if cmd == "build" else [])
        old = os.environ.get("DCSFLOW_JOBS")
        os.environ["DCSFLOW_YOSYS"] = "false"
        if env_jobs:
            os.environ["DCSFLOW_JOBS"] = rng.choice(foreign)
            args = ["build", str(KEYXOR), "--out", str(tmp / "jb"), "--to", "frontend"]
        t.add("options", "cases")
        try:
            status, text = cli_status(*call(lambda: main(args), 60))
        finally:
            os.environ.pop("DCSFLOW_YOSYS", None)
            if env_jobs:
                os.environ.pop("DCSFLOW_JOBS", None)
                if old is not None:
                    os.environ["DCSFLOW_JOBS"] = old
        if status in ("hang", "traceback"):
            t.add("options", status + "s", f"{args}: {text[-200:]}")
        elif (env_jobs or val in foreign) and (status == "ok" or not any(w in text for w in (opt, "DCSFLOW_JOBS"))):
            t.add("options", "wrong_results", f"{args} accepted ({text.strip()[-120:]})")
        shutil.rmtree(tmp / "jb", ignore_errors=True)


# ------------------------------------------------------------------------------------------ outputs

def probe_outputs(n: int, rng: random.Random, tmp: Path, t: Tally) -> None:
    from dcsflow.scg import cli
    from dcsflow.scg._synthetic import make_build

    syn = tmp / "osyn"
    if not syn.exists():
        make_build(syn)
    user = tmp / "users_file.txt"
    for i in range(n):
        user.write_text("the user's own file\n")
        d = tmp / f"o{i % 5}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
        kind = rng.choice(["fifo", "dev_full", "folder", "link", "under_file", "input", "not_utf8", "long"])
        if kind == "fifo":
            path = d / "f"
            os.mkfifo(path)
        elif kind == "dev_full":
            path = Path("/dev/full")
        elif kind == "folder":
            path = d
        elif kind == "link":
            path = d / "l"
            path.symlink_to(user)
        elif kind == "under_file":
            path = user / "x"
        elif kind == "input":
            path = syn / "ppc.json"
        elif kind == "not_utf8":
            path = Path(os.fsdecode(bytes(d) + b"/\xff\xfe"))
        else:
            path = d / ("x" * 300)
        cmd = rng.choice([["rekey", str(syn), "--param", "key=beef", "--to", f"bitfile:{path}"],
                          ["rekey", str(syn), "--param", "key=beef", "--to", f"partial:{path}"],
                          ["codegen", str(syn), "--out", str(path)],
                          ["bit", "frames", str(tmp / "obit.bit"), "-o", str(path)]])
        if cmd[0] == "bit" and not (tmp / "obit.bit").exists():
            cli_quiet(lambda: cli.main(["rekey", str(syn), "--param", "key=beef", "--to", f"bitfile:{tmp / 'obit.bit'}"]))
        before_syn = (syn / "ppc.json").read_bytes()
        t.add("outputs", "cases")
        status, text = cli_status(*call(lambda: cli.main(cmd), 60))
        if status in ("hang", "traceback"):
            t.add("outputs", status + "s", f"{kind} {cmd[0]}: {text[-200:]}")
        if user.read_text() != "the user's own file\n" or (syn / "ppc.json").read_bytes() != before_syn:
            t.add("outputs", "destroyed", f"{kind} {cmd[0]}")


# ------------------------------------------------------------------------------------------ signals

def probe_signals(tmp: Path, t: Tally) -> None:
    from dcsflow.scg._synthetic import make_build

    points = [round(2.0 * i / 19, 3) for i in range(20)]
    script = Path(sys.executable).parent / "dcsflow"
    dcs = [str(script)] if script.is_file() else [sys.executable, "-m", "dcsflow.flow"]
    syn = tmp / "ssyn"
    if not syn.exists():
        make_build(syn)
    for sig in (signal.SIGINT, signal.SIGTERM):
        for which in ("dcsflow", "runtime"):
            def argv(i):
                if which == "dcsflow":
                    return [*dcs, "build", str(KEYXOR), "--out", str(tmp / f"sb{sig}{i}"), "-j", "2", "--to",
                            "frontend", "--quiet"]
                return [sys.executable, "-m", "dcsflow.scg", "rekey", str(syn), "--param", "key=beef", "--to",
                        f"bitfile:{tmp / f'sk{sig}{i}.bit'}"]
            with ThreadPoolExecutor(len(points)) as ex:
                outs = list(ex.map(lambda i: sg.run_and_signal(argv(i), sig, points[i]), range(len(points))))
            for i, o in enumerate(outs):
                t.add("signals", "cases")
                if o.sent and not o.handled:
                    t.add("signals", "before_main")
                    if "Traceback" in o.stderr or "KeyboardInterrupt" in o.stderr:
                        t.add("signals", "before_main_tracebacks")
                for p in o.problems(sig, finished_ok=which == "runtime"):
                    field = "orphans" if p.startswith("processes left") else \
                        "hangs" if "hung" in p else "tracebacks"
                    t.add("signals", field, f"{which} {signal.Signals(sig).name} at {points[i]} s: {p}")
                left = sg.leftover_temporaries(tmp / f"sb{sig}{i}") if which == "dcsflow" else \
                    sg.leftover_temporaries(tmp)
                if left:
                    t.add("signals", "destroyed", f"temporaries left: {left[:3]}")
    # SIGKILL of dcsflow during a Yosys run
    started = tmp / "yosys.pids"
    fake = tmp / "yosys"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $$ $! > '{started}'\nwait\n")
    fake.chmod(0o755)
    for whom in ("process", "group"):
        for jobs in ("1", "2"):
            started.unlink(missing_ok=True)
            p = subprocess.Popen([*dcs, "build", str(KEYXOR), "--out", str(tmp / f"kill{whom}{jobs}"), "--quiet", "-j",
                                  jobs], env={**os.environ, "DCSFLOW_YOSYS": str(fake)}, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
            t.add("signals", "cases")
            deadline = time.monotonic() + 120
            while not (started.exists() and len(started.read_text().split()) == 2) and time.monotonic() < deadline:
                time.sleep(0.05)
            below = sg.descendants(p.pid)
            (os.killpg if whom == "group" else os.kill)(p.pid, signal.SIGKILL)
            p.wait()
            end = time.monotonic() + 10
            while [x for x in below if sg.alive(x)] and time.monotonic() < end:
                time.sleep(0.1)
            left = [x for x in below if sg.alive(x)]
            if left:
                t.add("signals", "orphans", f"SIGKILL of dcsflow ({whom}, -j {jobs}): {left} left")
                for x in left:
                    with contextlib.suppress(OSError):
                        os.kill(x, signal.SIGKILL)


# ------------------------------------------------------------------------------------------ concurrency

def probe_concurrency(tmp: Path, t: Tally) -> None:
    started = tmp / "cy.started"
    slow = tmp / "slowyosys"
    slow.write_text(f"#!/bin/sh\ntouch '{started}'\nsleep 60\n")
    slow.chmod(0o755)
    fast = tmp / "fastyosys"
    fast.write_text("#!/bin/sh\nexit 7\n")
    fast.chmod(0o755)
    for i in range(5):
        out = tmp / f"cc{i}"
        started.unlink(missing_ok=True)
        first = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", str(KEYXOR), "--out", str(out),
                                  "--quiet"], env={**os.environ, "DCSFLOW_YOSYS": str(slow)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        t.add("concurrency", "cases")
        try:
            deadline = time.monotonic() + 120
            while not started.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            for e in list(out.iterdir()) if i % 2 == 0 else [out / ".lock"]:
                if e.is_dir() and not e.is_symlink():
                    shutil.rmtree(e)
                else:
                    e.unlink(missing_ok=True)
            r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", str(KEYXOR), "--out", str(out), "--quiet"],
                               env={**os.environ, "DCSFLOW_YOSYS": str(fast)}, capture_output=True, text=True,
                               timeout=120)
            if "in use by another dcsflow build" not in r.stderr:
                t.add("concurrency", "wrong_results", f"second build: {r.returncode} {r.stderr[-200:]}")
            if "Traceback" in r.stderr:
                t.add("concurrency", "tracebacks", r.stderr[-300:])
        finally:
            os.killpg(first.pid, signal.SIGTERM)
            first.wait(60)


# ------------------------------------------------------------------------------------------ hdl

def probe_hdl(tmp: Path, t: Tally, figures: dict) -> None:
    from dcsflow import limits

    cases = {"runaway generate": (DATA / "hang" / "runaway.v", ["--max-memory", "2G"], 1500)}
    deep = tmp / "deep.v"
    deep.write_text("module deep(input [7:0] x, (* PARAM *) input [7:0] key, output [7:0] y);\n  assign y = x"
                    + "".join(f" ^ (key + {i})" for i in range(10_000)) + ";\nendmodule\n")
    cases["10,000-deep expression"] = (deep, [], 300)
    bad = tmp / "bad.v"
    bad.write_bytes(b"module bad(input a, output y); // \xff\xfe\n assign y = a; endmodule\n")
    cases["not UTF-8"] = (bad, [], 300)
    fifo = tmp / "fifo.v"
    if not fifo.exists():
        os.mkfifo(fifo)
    cases["FIFO source"] = (fifo, [], 120)
    cases["/dev/zero source"] = (Path("/dev/zero"), [], 120)
    empty = tmp / "empty.v"
    empty.write_text("")
    cases["empty source"] = (empty, [], 300)
    for what, (src, extra, limit) in cases.items():
        out = tmp / ("h" + str(abs(hash(what)) % 10000))
        shutil.rmtree(out, ignore_errors=True)
        t.add("hdl", "cases")
        p = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", str(src), "--out", str(out), "--to",
                              "frontend", "--quiet", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        peak, t0 = [0, 0], time.monotonic()
        done = threading.Event()

        def sample():
            while not done.wait(0.2):
                for pid in sg.descendants(p.pid):
                    try:
                        if Path(f"/proc/{pid}/comm").read_text().strip() != "yosys":
                            continue
                        st = Path(f"/proc/{pid}/status").read_text()
                    except OSError:
                        continue
                    vals = {ln.split(":")[0]: int(ln.split()[1]) * 1024 for ln in st.splitlines()
                            if ln.startswith(("VmPeak", "VmHWM"))}
                    peak[0] = max(peak[0], vals.get("VmPeak", 0))
                    peak[1] = max(peak[1], vals.get("VmHWM", 0))
        th = threading.Thread(target=sample, daemon=True)
        th.start()
        try:
            _, err = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
            t.add("hdl", "hangs", f"{what}: past {limit} s")
        done.set()
        th.join()
        seconds = time.monotonic() - t0
        lines = [ln for ln in (err or "").splitlines() if ln.strip() and not ln.startswith("note:")]
        if "Traceback" in (err or "") or (p.returncode not in (0, 1)) or (p.returncode == 1 and len(lines) != 1):
            t.add("hdl", "tracebacks", f"{what}: {p.returncode} {(err or '')[-300:]}")
        if what == "runaway generate":
            size = src.stat().st_size
            figures["runaway"] = {"limit_bytes": 2 << 30, "peak_virtual_bytes": peak[0], "peak_resident_bytes": peak[1],
                                  "seconds": round(seconds, 1), "status": p.returncode,
                                  "frontend_default_limit_s": limits.frontend_time_limit(size),
                                  "message": lines[-1][:200] if lines else ""}
            if peak[0] > 2 << 30:
                t.add("hdl", "wrong_results", f"runaway peak {peak[0]} above the 2 GiB limit")


# ------------------------------------------------------------------------------------------ checks

def probe_checks(builds: dict, tmp: Path, t: Tally) -> None:
    vec = tmp / "v.rsp"
    vec.write_text("COUNT = 0\n")
    for what, args in (("check --frames of a cfglut5 build", ["check", str(builds["keyxor-cfglut5"]), "--frames",
                                                               "--quiet"]),
                       ("check --vectors of a cocotb project", ["check", str(builds["project"]), "--vectors", str(vec),
                                                                 "--quiet", "--keys", "1"])):
        t.add("checks", "cases")
        r = subprocess.run([sys.executable, "-m", "dcsflow.flow", *args], capture_output=True, text=True, timeout=600)
        if r.returncode == 0 or "passed" in r.stdout:
            t.add("checks", "wrong_results", f"{what}: {r.returncode} {r.stdout[-200:]}")
        if "Traceback" in r.stderr:
            t.add("checks", "tracebacks", f"{what}: {r.stderr[-300:]}")


# ------------------------------------------------------------------------------------------ main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=5000, help="cases of the in-process categories (default 5000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "dcsflow-hostile-probe")
    ap.add_argument("--only", default="", help="comma-separated categories (default: all)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(","))) or set(SHARES) | set(FIXED)
    a.work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    t = Tally()
    figures: dict = {}
    t0 = time.time()
    builds = ensure_builds(a.work) if only & {"records", "checks"} else {}
    with tempfile.TemporaryDirectory(dir=a.work) as td:
        tmp = Path(td)
        for cat, share in SHARES.items():
            if cat in only:
                n = max(1, round(a.cases * share))
                c0 = time.time()
                fn = globals()[f"probe_{cat}"]
                (fn(n, rng, builds, tmp, t) if cat == "records" else fn(n, rng, tmp, t))
                print(f"{cat}: {dict(t.counts[cat])} in {time.time() - c0:.0f} s", file=sys.stderr, flush=True)
        for cat in FIXED:
            if cat in only:
                c0 = time.time()
                if cat == "hdl":
                    probe_hdl(tmp, t, figures)
                elif cat == "checks":
                    probe_checks(builds, tmp, t)
                else:
                    globals()[f"probe_{cat}"](tmp, t)
                print(f"{cat}: {dict(t.counts[cat])} in {time.time() - c0:.0f} s", file=sys.stderr, flush=True)
    for cat, ex in t.examples.items():
        for e in ex:
            print(f"  {cat}: {e}", file=sys.stderr)
    result = {"cases": t.total("cases"), **{f: t.total(f) for f in FIELDS if f != "cases"},
              "seconds": round(time.time() - t0), "per_category": {c: dict(v) for c, v in sorted(t.counts.items())},
              **figures}
    print(json.dumps(result))
    return 0 if all(result[f] == 0 for f in FIELDS if f not in APART) else 1


if __name__ == "__main__":
    sys.exit(main())
