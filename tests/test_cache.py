"""The job cache (dcsflow.flow.cache): a job computed once, its files and result restored; every
damaged or foreign entry a miss; a cache that cannot be written turned off in one line; two writers
of one entry; least-recently-used eviction; the `dcsflow cache` command; and a build made twice
(the second from the cache, the same figures), then with another seed (only the placement again).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow import cache

@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A cache of its own, on for this test and off after it."""
    root = tmp_path / "cache"
    assert cache.configure(True, root=root) is None
    yield root
    cache.configure(False)


def _job_body(out: Path, n: int) -> dict:
    """The work of :func:`job`: counts its runs in ``runs.txt`` beside the build folder."""
    runs = out.parent / "runs.txt"
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    src = (out / "in.txt").read_text()
    (out / "res").mkdir(exist_ok=True)
    (out / "res" / "a.txt").write_text(src * n)
    return {"n": n, "len": len(src) * n}


@cache.cached(inputs=lambda out, n: ["in.txt"], outputs=lambda out, n: ["res"])
def job(out: Path, n: int) -> dict:
    return _job_body(out, n)


def _runs(out: Path) -> int:
    p = out.parent / "runs.txt"
    return len(p.read_text()) if p.exists() else 0


def _setup(tmp_path: Path, name: str = "b") -> Path:
    out = tmp_path / name
    out.mkdir()
    (out / "in.txt").write_text("abc")
    return out


def test_a_job_runs_once_and_its_files_are_restored(fresh, tmp_path):
    out = _setup(tmp_path)
    assert job(out, 2) == {"n": 2, "len": 6} and _runs(out) == 1
    (out / "res" / "a.txt").write_text("changed by hand")
    (out / "res" / "stray.txt").write_text("not the job's")
    assert job(out, 2) == {"n": 2, "len": 6} and _runs(out) == 1          # from the cache
    assert (out / "res" / "a.txt").read_text() == "abcabc"
    assert not (out / "res" / "stray.txt").exists()                        # the output folder emptied first
    # another build folder with the same input: the same entry
    other = _setup(tmp_path, "c")
    assert job(other, 2)["len"] == 6 and _runs(out) == 1 and (other / "res" / "a.txt").read_text() == "abcabc"
    # another argument or another input: computed
    job(out, 3)
    assert _runs(out) == 2
    (out / "in.txt").write_text("abcd")
    assert job(out, 2)["len"] == 8 and _runs(out) == 3


def _entry(root: Path) -> Path:
    (e,) = [d for sub in (root / "v1").iterdir() for d in sub.iterdir()]
    return e


def _stored(root: Path) -> Path:
    return next(p for p in (_entry(root) / "files").rglob("*") if p.is_file())


@pytest.mark.parametrize("damage", ["truncate", "flip", "symlink", "fifo", "manifest_version", "result", "foreign_mode"])
def test_a_damaged_entry_is_a_miss_and_is_replaced(fresh, tmp_path, damage):
    out = _setup(tmp_path)
    job(out, 2)
    e = _entry(fresh)
    f = _stored(fresh)
    if damage == "truncate":
        f.write_bytes(f.read_bytes()[:3])
    elif damage == "flip":
        b = bytearray(f.read_bytes())
        b[len(b) // 2] ^= 0x40
        f.write_bytes(bytes(b))
    elif damage == "symlink":
        data = f.read_bytes()
        (tmp_path / "elsewhere").write_bytes(data)
        f.unlink()
        f.symlink_to(tmp_path / "elsewhere")
    elif damage == "fifo":
        f.unlink()
        os.mkfifo(f)
    elif damage == "manifest_version":
        m = json.loads((e / "manifest.json").read_text())
        m["fingerprint"] = {**m["fingerprint"], "dcsflow": "0.0.0"}
        (e / "manifest.json").write_text(json.dumps(m))
    elif damage == "result":
        (e / "result.pickle").write_bytes(b"\x80\x04K\x01.")
    elif damage == "foreign_mode":
        os.chmod(e, 0o777)                           # writable by others: not trusted
    assert job(out, 2) == {"n": 2, "len": 6}
    assert _runs(out) == 2                           # computed again, never the damaged copy
    assert (out / "res" / "a.txt").read_text() == "abcabc"
    assert job(out, 2)["len"] == 6 and _runs(out) == 2     # the entry was replaced by a good one


@pytest.mark.parametrize("where", ["file_in_the_way", "read_only_filesystem"])
def test_a_cache_that_cannot_be_written_is_off_in_one_line(tmp_path, where):
    if where == "file_in_the_way":
        (tmp_path / "plain").write_text("a file where the cache folder would be")
        root = tmp_path / "plain" / "cache"
    else:
        root = Path("/proc/self/dcsflow-cache")      # procfs: no folder can be made there, not even by root
    try:
        note = cache.configure(True, root=root)
        assert note is not None and "\n" not in note and "building without the cache" in note
        assert not cache.enabled()
        out = _setup(tmp_path)
        assert job(out, 1)["len"] == 3 and job(out, 1)["len"] == 3 and _runs(out) == 2
    finally:
        cache.configure(False)


def test_a_full_cache_turns_itself_off_and_the_job_goes_on(fresh, tmp_path, monkeypatch, capfd):
    import errno

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache, "_deflate", full)
    out = _setup(tmp_path)
    assert job(out, 1)["len"] == 3 and not cache.enabled()
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0] and "without the cache" in err[0]


def _fill(root: str, out: str, q) -> None:
    cache.configure(True, root=Path(root))
    q.put(job(Path(out), 5))


def test_two_writers_of_one_entry_both_finish_with_the_same_result(fresh, tmp_path):
    outs = [_setup(tmp_path, n) for n in ("b", "c")]
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    ps = [ctx.Process(target=_fill, args=(str(fresh), str(o), q)) for o in outs]
    for p in ps:
        p.start()
    for p in ps:
        p.join(60)
        assert p.exitcode == 0
    assert [q.get(timeout=5) for _ in ps] == [{"n": 5, "len": 15}] * 2
    assert len([d for sub in (fresh / "v1").iterdir() for d in sub.iterdir()]) == 1
    assert not any((fresh / "tmp").iterdir())
    assert job(outs[0], 5)["len"] == 15                 # the one entry left is whole


def test_least_recently_used_entries_go_first(tmp_path):
    root = tmp_path / "cache"
    cache.configure(True, root=root)
    try:
        out = _setup(tmp_path)
        (out / "in.txt").write_text("x" * 200_000)    # compresses to a few hundred bytes
        for n in (1, 2, 3):
            job(out, n)
        sizes = {n: json.loads(m.read_text())["bytes"] for n, m in
                 zip((1, 2, 3), sorted((root / "v1").rglob("manifest.json"), key=lambda p: p.stat().st_mtime))}
        job(out, 1)                                     # used again: the newest
        cache.configure(True, root=root, max_gb=(sizes[1] + sizes[3] + sizes[2] // 2) / 1e9)
        job(out, 4)                                     # a store evicts down to the cap
        runs = _runs(out)
        job(out, 1)
        assert _runs(out) == runs                       # recently used: kept
        job(out, 2)
        assert _runs(out) == runs + 1                   # the least recently used: evicted
    finally:
        cache.configure(False)


def test_the_cache_command_says_where_and_clears(tmp_path):
    env = {**os.environ, "DCSFLOW_CACHE": str(tmp_path / "c")}
    cache.configure(True, root=tmp_path / "c")
    try:
        job(_setup(tmp_path), 1)
    finally:
        cache.configure(False)
    run = lambda *a: subprocess.run([sys.executable, "-m", "dcsflow.flow", "cache", *a], capture_output=True,  # noqa: E731
                                    text=True, env=env)
    r = run("info", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["entries"] == 1
    r = run("clear")
    assert r.returncode == 0 and "1 entries removed" in r.stdout
    assert json.loads(run("info", "--json").stdout)["entries"] == 0
    (tmp_path / "c" / "mine.txt").write_text("a user's file")
    r = run("clear")
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "not the cache's" in r.stderr


def _build(out: Path, **kw):
    from dcsflow.flow.build import BuildOptions, build

    data = Path(__file__).parent / "data" / "flow" / "keyxor.v"
    return build(BuildOptions(design=str(data), out=out, progress=False, jobs=1,
                              baselines=("yosys-abc", "abc-synch2", "abc-synch2@register"), **kw))


def _cached_jobs(out: Path) -> dict:
    """stage -> the jobs its record says came from the cache."""
    return {s: json.loads((out / "stages" / f"{s}.json").read_text())["data"]["timing"]["cached"]
            for s in ("frontend", "tmap", "verify", "backend")}


def test_a_build_made_again_comes_from_the_cache_with_the_same_figures(tmp_path, monkeypatch):
    from tests._build_figures import figures

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))   # a build configures the cache itself
    try:
        _build(tmp_path / "a")
        first = _cached_jobs(tmp_path / "a")
        assert not any(first.values())
        _build(tmp_path / "b")                       # the same build into another folder
        again = _cached_jobs(tmp_path / "b")
        assert again["frontend"] == ["frontend"]          # the whole front end
        assert any("tmap" in j for j in again["tmap"]) and any("baseline abc-synch2@register" in j for j in again["tmap"])
        assert any("front-end check" in j for j in again["verify"])
        assert any("place tlut" in j for j in again["backend"])
        fa, fb = figures(tmp_path / "a", with_c=False), figures(tmp_path / "b", with_c=False)
        assert fa == fb
        for f in ("tlut/netlist.json", "tlut/template.frm", "tlut/framemap.json", "tmap/ppc.aig"):
            assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
        _build(tmp_path / "c", seed=2)               # another placement seed: the placements run again
        seeded = _cached_jobs(tmp_path / "c")
        assert seeded["frontend"] and seeded["tmap"]
        assert not any("place" in j for j in seeded["backend"]) and any("pack" in j for j in seeded["backend"])
        rep = json.loads((tmp_path / "c" / "report.json").read_text())
        assert rep["backend"]["seed"] == 2
    finally:
        cache.configure(False)


def test_no_cache_runs_every_job(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    try:
        _build(tmp_path / "a", cache=False)
        assert not (tmp_path / "cache" / "v1").exists() or not any((tmp_path / "cache" / "v1").iterdir())
    finally:
        cache.configure(False)
