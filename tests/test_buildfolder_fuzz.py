"""Fuzz of the one build-folder reader (it must never act on a tampered, stale or half-written build).

A real build folder (tests/data/flow/keyxor.v, every stage) and a second build of the same design
with another placement (``--seed 2``) are made once per module. Then 2,000 cases (4 shards of 500,
seeded, reproducible), each ONE change to a working copy of the first folder, restored afterwards:

- ``build.json``: a single bit flipped anywhere (35 %), or the file cut at any length that removes
  more than its final newline (10 %; dropping only the newline leaves the same JSON document);
- a file ``build.json`` lists: a byte changed to any other value (25 %) or the file cut (10 %);
- a swap (20 %): a file replaced by the seed-2 build's file of the same name where they differ
  (``build.json`` included: then every listed file is "another build's").

Every case must be refused by the reader and by the paths that use it, in-process:
- the library: ``rekey(load_build(work), ..., hwicap=emulator, verify=True)`` raises
  ``BuildFolderError`` (one line) and the emulator's frames are unchanged;
- ``python -m dcsflow.scg rekey`` (``dcsflow.scg.cli.main``) to a target taken in turn from emulator,
  bitfile:, partial:, devmem: (a register file) and fpgamgr, with --verify/--json in turn: exit 1, no
  stdout, exactly the reader's message as one ``error:`` line, no output file, the register file
  unchanged;
- ``codegen``: exit 1, the same one line, no output folder.
The case count per kind is printed (``pytest -s``) and recorded as a test property.

A second fuzz (below, "imported builds") changes a build with an imported Vivado template and
recomputes the hashes afterwards: each case is refused in one line or gives the untampered rekey
result byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
from collections import Counter
from pathlib import Path

import pytest

from dcsflow.scg import cli
from dcsflow.scg import rekey as rk
from dcsflow.scg.buildfolder import load_build
from dcsflow.scg.errors import BuildFolderError
from dcsflow.scg.transports import make_emulator

DATA = Path(__file__).parent / "data" / "flow"
SHARDS = 4
CASES_PER_SHARD = 500
assert SHARDS * CASES_PER_SHARD >= 2000
KEY = {"key": 0xA5}


@pytest.fixture(scope="module")
def fuzz_env(tmp_path_factory, builds):
    """(pristine build, seed-2 build, working copy, per-file original bytes, swap candidates)."""
    from _buildcache import KEYXOR, KEYXOR_SEED2

    root = tmp_path_factory.mktemp("bffuzz")
    a, b = builds.get("keyxor", **KEYXOR), builds.get("keyxor-seed2", **KEYXOR_SEED2)
    work = root / "work"
    shutil.copytree(a, work)
    names = ["build.json", *json.loads((a / "build.json").read_text())["files"]]
    orig = {n: (work / n).read_bytes() for n in names}
    swaps = [n for n in names if (b / n).is_file() and (b / n).read_bytes() != orig[n]]
    assert "build.json" in swaps and "tlut/framemap.json" in swaps and "tlut/template.frm" in swaps, swaps
    return a, b, work, orig, swaps


def _make_case(rng: random.Random, orig: dict, swaps: list, other: Path) -> tuple[str, str, bytes]:
    """(kind, file name, new content) of one random change."""
    r = rng.random()
    listed = [n for n in orig if n != "build.json"]
    if r < 0.35:
        data = bytearray(orig["build.json"])
        k, bit = rng.randrange(len(data)), rng.randrange(8)
        data[k] ^= 1 << bit
        return f"flip build.json byte {k} bit {bit}", "build.json", bytes(data)
    if r < 0.45:
        n = rng.randrange(len(orig["build.json"]) - 1)
        return f"cut build.json at {n}", "build.json", orig["build.json"][:n]
    if r < 0.70:
        name = rng.choice(listed)
        data = bytearray(orig[name])
        k = rng.randrange(len(data))
        data[k] = (data[k] + rng.randrange(1, 256)) & 0xFF
        return f"change {name} byte {k}", name, bytes(data)
    if r < 0.80:
        name = rng.choice(listed)
        n = rng.randrange(len(orig[name]))
        return f"cut {name} at {n}", name, orig[name][:n]
    name = rng.choice(swaps)
    return f"swap {name} with the seed-2 build's", name, (other / name).read_bytes()


def _targets(tmp: Path) -> list[str]:
    return ["emulator", f"bitfile:{tmp / 'k.bit'}", f"partial:{tmp / 'p.bin'}", f"devmem:0@{tmp / 'regs'}", "fpgamgr"]


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_tampered_build_is_refused(fuzz_env, tmp_path, capsys, record_property, shard):
    a, b, work, orig, swaps = fuzz_env
    emu = make_emulator(load_build(a))
    snapshot = emu.emulator.frames.words.tobytes()
    (tmp_path / "regs").write_bytes(bytes(4096))
    targets = _targets(tmp_path)
    extras = ([], ["--verify"], ["--json"])
    # the untouched working copy is accepted: the refusals below are the changes' doing
    assert cli.main(["rekey", str(work), "--param", "key=a5", "--to", "emulator", "--verify"]) == 0
    capsys.readouterr()
    rng = random.Random(19_000 + shard)
    kinds = Counter()
    for case in range(CASES_PER_SHARD):
        what, name, content = _make_case(rng, orig, swaps, b)
        kinds[what.split(" ")[0]] += 1
        (work / name).write_bytes(content)
        try:
            # the library path: refused with one line, nothing written to the emulator
            try:
                rk.rekey(load_build(work), KEY, "emulator", hwicap=emu, verify=True)
            except BuildFolderError as e:
                msg = str(e)
            else:
                pytest.fail(f"tampered build accepted: {what}")
            assert msg and "\n" not in msg, (what, msg)
            assert emu.emulator.frames.words.tobytes() == snapshot, what
            # the command line: rekey to one target in turn, then codegen
            target, extra = targets[case % len(targets)], extras[case % len(extras)]
            rc = cli.main(["rekey", str(work), "--param", "key=a5", "--to", target, *extra])
            out, err = capsys.readouterr()
            assert (rc, out, err) == (1, "", f"error: {msg}\n"), (what, target, out, err)
            rc = cli.main(["codegen", str(work), "--out", str(tmp_path / "gen")])
            out, err = capsys.readouterr()
            assert (rc, out, err) == (1, "", f"error: {msg}\n"), (what, "codegen", out, err)
            assert not any((tmp_path / n).exists() for n in ("k.bit", "p.bin", "gen")), what
            assert (tmp_path / "regs").read_bytes() == bytes(4096), what
        finally:
            (work / name).write_bytes(orig[name])
    total = sum(kinds.values())
    print(f"\nbuild-folder fuzz shard {shard}: {total} cases refused ({dict(kinds)})")
    record_property("cases", total)
    assert total == CASES_PER_SHARD and set(kinds) == {"flip", "cut", "change", "swap"}


# ------------------------------------------------------------------------------------ imported builds
# A build with an imported Vivado template (keyxor, Vivado back end, what Vivado would give back made
# by the project's writer) and changes whose hashes are recomputed afterwards: build.json lists the
# new hashes, and its template entry and the import record the new bitstream hash where the change
# is the bitstream's, as a script that "repairs" a folder would do. Each case must be refused with
# one line, or give exactly the untampered build's rekey result (a change of nothing the rekey uses,
# e.g. the import record's timing or the bitstream header's date).
IMPORTED_SHARDS = 2
IMPORTED_CASES = 60


def _hashes(root: Path, bit_changed: bool) -> None:
    from dcsflow.scg.buildfolder import sha256_file

    bj = json.loads((root / "build.json").read_text())
    bj["files"] = {n: sha256_file(root / n) for n in bj["files"] if (root / n).is_file()}
    t = bj.get("template")
    rec_path = root / "tlut" / "imported" / "import.json"
    if bit_changed and isinstance(t, dict):
        try:
            rec = json.loads(rec_path.read_text())
            rec["bitstream_sha256"] = bj["files"]["tlut/imported/template.bit"]
            rec_path.write_text(json.dumps(rec, indent=1) + "\n")
            bj["files"]["tlut/imported/import.json"] = sha256_file(rec_path)
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    if isinstance(t, dict):
        t["bitstream_sha256"] = bj["files"].get("tlut/imported/template.bit", t.get("bitstream_sha256"))
        t["record_sha256"] = bj["files"].get("tlut/imported/import.json", t.get("record_sha256"))
    (root / "build.json").write_text(json.dumps(bj, indent=1) + "\n")


def _imported_case(rng: random.Random, work: Path, before: bytes) -> str:
    """Apply one change to ``work`` (hashes recomputed); returns what it was."""
    r = rng.random()
    if r < 0.30:
        p = work / "tlut" / "imported" / "import.json"
        data = bytearray(p.read_bytes())
        k = rng.randrange(len(data))
        data[k] = (data[k] + rng.randrange(1, 256)) & 0xFF
        p.write_bytes(bytes(data))
        _hashes(work, False)
        return f"change import.json byte {k}"
    if r < 0.50:
        p = work / "tlut" / "imported" / "template.bit"
        data = bytearray(p.read_bytes())
        k = rng.randrange(200) if rng.random() < 0.5 else rng.randrange(len(data))     # header or anywhere
        data[k] = (data[k] + rng.randrange(1, 256)) & 0xFF
        p.write_bytes(bytes(data))
        _hashes(work, True)
        return f"change template.bit byte {k}"
    if r < 0.70:
        bj = json.loads((work / "build.json").read_text())
        key = rng.choice(sorted(bj["template"]))
        other = rng.choice([None, "tlut", "tlut/template.frm", "tlut/imported/import.json",
                            "tlut/imported/template.bit", "0" * 64, bj["design_hash"]])
        if other is None:
            del bj["template"][key]
        else:
            bj["template"][key] = other
        (work / "build.json").write_text(json.dumps(bj, indent=1) + "\n")
        _hashes(work, False)
        return f"template.{key} = {other}"
    if r < 0.85:
        p = work / "tlut" / "template.frm"
        text = p.read_text()
        head, rest = text.split("\n", 1)
        k = rng.randrange(len(head))
        head = head[:k] + rng.choice("0123456789abcdef ") + head[k + 1:]
        p.write_text(head + "\n" + rest)
        _hashes(work, False)
        return f"template.frm header char {k}"
    if r < 0.93:
        (work / "build.json").write_bytes(before)
        _hashes(work, False)
        return "build.json from before the import"
    bj = json.loads((work / "build.json").read_text())
    del bj["template"]
    (work / "build.json").write_text(json.dumps(bj, indent=1) + "\n")
    _hashes(work, False)
    return "template entry deleted"


@pytest.fixture(scope="module")
def imported_env(tmp_path_factory, builds, shared):
    """(imported build, build.json before the import, the untampered build's rekey result)."""
    from _buildcache import KEYXOR_VIVADO

    from dcsflow.scg.bitstream import read_file
    from dcsflow.scg.vivado_import import import_vivado, synthetic_vivado_result

    root = tmp_path_factory.mktemp("bffuzz-imp")
    out = root / "imp"
    shutil.copytree(builds.get("keyxor-vivado", **KEYXOR_VIVADO), out)
    before = (out / "build.json").read_bytes()
    bit, cells = synthetic_vivado_result(out, read_file(shared / "bitstreams" / "pynq-z1_base.bit").frames, root)
    import_vivado(out, bit, cells)
    ref = root / "ref.bit"
    assert cli.main(["rekey", str(out), "--param", "key=a5", "--to", f"bitfile:{ref}"]) == 0
    return out, before, ref.read_bytes()


@pytest.mark.parametrize("shard", range(IMPORTED_SHARDS))
def test_imported_build_with_rehashed_changes(imported_env, tmp_path, capsys, record_property, shard):
    src, before, ref = imported_env
    rng = random.Random(23_000 + shard)
    kinds = Counter()
    for case in range(IMPORTED_CASES):
        work = tmp_path / f"w{case}"
        shutil.copytree(src, work)
        what = _imported_case(rng, work, before)
        capsys.readouterr()
        out_bit = tmp_path / f"k{case}.bit"
        rc = cli.main(["rekey", str(work), "--param", "key=a5", "--to", f"bitfile:{out_bit}"])
        out, err = capsys.readouterr()
        if rc == 0:
            assert out_bit.read_bytes() == ref, f"changed result accepted: {what}"
            kinds["identical"] += 1
        else:
            assert rc == 1 and out == "" and err.startswith("error: ") and len(err.splitlines()) == 1, (what, err)
            assert not out_bit.exists(), what
            rc2 = cli.main(["codegen", str(work), "--out", str(tmp_path / f"gen{case}")])
            out2, err2 = capsys.readouterr()
            assert (rc2, out2, err2) == (1, "", err), (what, "codegen", err2)
            kinds["refused"] += 1
        shutil.rmtree(work)
    print(f"\nimported-build fuzz shard {shard}: {dict(kinds)}")
    record_property("cases", sum(kinds.values()))
    assert sum(kinds.values()) == IMPORTED_CASES and kinds["refused"] > 0


# ------------------------------------------------------------------------------------ special files
# Every file of the build (build.json and each file it lists) replaced in turn by a FIFO, a link to
# /dev/zero, a folder, 100,000 levels of JSON nesting (its hash recomputed in build.json) and a link to
# an identical copy outside the folder. No reader may wait on the FIFO or read /dev/zero without end
# (an alarm fails the case after 20 s); each case is refused in one line, or, for the identical copy,
# gives the untampered rekey result byte for byte (also nesting, rehashed, in a file that rekey and
# codegen do not read, e.g. the template netlist: its own reader refuses it).
SPECIAL_KINDS = ("fifo", "/dev/zero", "folder", "nested", "link to a copy")


def _special(work: Path, name: str, kind: str, outside: Path, orig: bytes) -> None:
    p = work / name
    p.unlink()
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "/dev/zero":
        p.symlink_to("/dev/zero")
    elif kind == "folder":
        p.mkdir()
    elif kind == "nested":
        p.write_bytes(b"[" * 100_000 + b"]" * 100_000)
        if name != "build.json":
            from dcsflow.scg.buildfolder import sha256_file

            bj = json.loads((work / "build.json").read_text())
            bj["files"][name] = sha256_file(p)
            (work / "build.json").write_text(json.dumps(bj, indent=1) + "\n")
    else:
        outside.write_bytes(orig)
        p.symlink_to(outside)


def test_special_files_are_refused_without_waiting(fuzz_env, tmp_path, capsys, record_property):
    a, _, _, orig, _ = fuzz_env
    work = tmp_path / "work"
    shutil.copytree(a, work)
    ref = tmp_path / "ref.bit"
    assert cli.main(["rekey", str(work), "--param", "key=a5", "--to", f"bitfile:{ref}"]) == 0
    capsys.readouterr()

    def hung(signum, frame):
        raise AssertionError("a reader waited on a special file for 20 s")

    old = signal.signal(signal.SIGALRM, hung)
    kinds = Counter()
    try:
        for name in orig:
            for kind in SPECIAL_KINDS:
                if kind == "nested" and not name.endswith(".json"):
                    continue
                _special(work, name, kind, tmp_path / "outside", orig[name])
                what = f"{name}: {kind}"
                out_bit = tmp_path / "k.bit"
                signal.alarm(20)
                try:
                    rc = cli.main(["rekey", str(work), "--param", "key=a5", "--to", f"bitfile:{out_bit}"])
                    out, err = capsys.readouterr()
                    rc2 = cli.main(["codegen", str(work), "--out", str(tmp_path / "gen")])
                    out2, err2 = capsys.readouterr()
                finally:
                    signal.alarm(0)
                if rc == 0:                    # rehashed nesting in a file rekey does not read
                    assert kind == "link to a copy" or (kind == "nested" and name != "build.json"), f"accepted: {what}"
                    assert out_bit.read_bytes() == ref.read_bytes(), what
                    assert rc2 == 0, (what, err2)
                    kinds[kind, "identical"] += 1
                else:
                    assert rc == 1 and out == "" and err.startswith("error: ") and len(err.splitlines()) == 1, (
                        what, err)
                    assert (rc2, out2, err2) == (1, "", err), (what, "codegen", err2)
                    assert not out_bit.exists() and not (tmp_path / "gen").exists(), what
                    kinds[kind, "refused"] += 1
                p = work / name
                if p.is_dir() and not p.is_symlink():
                    p.rmdir()
                else:
                    p.unlink()
                p.write_bytes(orig[name])
                if kind == "nested" and name != "build.json":
                    (work / "build.json").write_bytes(orig["build.json"])
                out_bit.unlink(missing_ok=True)
                shutil.rmtree(tmp_path / "gen", ignore_errors=True)
    finally:
        signal.signal(signal.SIGALRM, old)
    print(f"\nspecial-file cases: {dict(kinds)}")
    record_property("cases", sum(kinds.values()))
    for kind in ("fifo", "/dev/zero", "folder"):
        assert kinds[kind, "refused"] == len(orig), kind
    assert kinds["nested", "refused"] >= 2                     # build.json's own and a record rekey reads
