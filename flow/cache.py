"""The job cache: every job of a build keyed by the SHA-256 of its inputs, computed once.

A job (a Yosys or ABC run, a conventional candidate, TMAP, a static re-mapping candidate, a proof,
a packing, a placement, the front-end check, a stage's whole front end) is a deterministic function
of its arguments, the files it reads and the tools that run it. :func:`cached` wraps such a
function: the key is the SHA-256 of the function's name, the arguments that matter (JSON, the build
folder's own path left out), the SHA-256 of every input file (and of the files in every input
folder), the tool versions (``yosys -V``, ``yosys-abc``, ``iverilog -V``, ``ghdl --version``) and
the dcsflow version with the hash of the package's own source (:func:`fingerprint`). On a hit the
stored output files are copied into the build folder (each checked against its recorded SHA-256
first) and the stored result is returned; the job's step records ``cached``. Parameter values are
never part of a job (the SCG's outputs are not jobs), so the cache holds no key material.

Location: ``$DCSFLOW_CACHE``, else ``$XDG_CACHE_HOME/dcsflow``, else ``~/.cache/dcsflow``
(:func:`default_root`); a size cap (default :data:`DEFAULT_MAX_GB` GB, a project's ``[cache]
max_gb``) with least-recently-used eviction. Entries are written into a temporary folder and renamed
into place, so two builds filling the same entry at once both finish with the same result and a
reader never sees a partial entry; no lock is held while a job runs. An entry that is truncated,
altered, a link or a FIFO, not the user's own, or written by another dcsflow or tool version is a
miss: it is removed and the job runs again. A cache folder that cannot be written (read-only, full)
turns the cache off for the rest of the build, with one line saying so.

Entry layout (format :data:`ENTRY_FORMAT`, version :data:`ENTRY_VERSION`, docs/formats.md):
``<root>/v1/<key[:2]>/<key>/`` holding ``manifest.json`` (``format``, ``version``, ``key``, ``job``,
``fingerprint``, ``files`` {relative path: {``sha256`` of the content, ``stored`` bytes and
``stored_sha256`` of the zlib-compressed copy}}, ``result_sha256``, ``bytes``, ``created``),
``result.pickle`` and ``files/<relative path>`` (zlib-compressed). The cache folder and its entries are private to
the user (mode 0700); a result is unpickled only after its SHA-256 matched.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import json
import os
import pickle
import shutil
import stat
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable

from dcsflow import steps

__all__ = ["CACHE_ENV", "ENTRY_FORMAT", "ENTRY_VERSION", "DEFAULT_MAX_GB", "MISS", "Settings", "default_root",
           "configure", "settings", "apply", "enabled", "cached", "key_of", "lookup", "store", "fingerprint", "info",
           "clear", "CacheError", "hits", "hdl_inputs"]

#: environment variable naming the cache folder
CACHE_ENV = "DCSFLOW_CACHE"
#: format name and version of an entry's ``manifest.json``
ENTRY_FORMAT = "dcsflow-cache-entry"
ENTRY_VERSION = 1
#: the default size cap in GB (a project's ``[cache] max_gb``)
DEFAULT_MAX_GB = 5.0
#: the largest ``manifest.json`` read (an entry's file list)
_MANIFEST_LIMIT = 16 << 20
#: suffixes of the files beside an HDL source that the front end may read (includes, memories)
HDL_SIDE_SUFFIXES = (".v", ".sv", ".vh", ".svh", ".vhd", ".vhdl", ".inc", ".mem", ".hex", ".txt", ".dat")


class CacheError(Exception):
    """A cache command cannot run (``dcsflow cache``): the folder is not a cache, or cannot be read."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Where the cache is (``root``; None: off), its size cap in bytes, and the :func:`fingerprint`
    of the process that made them (workers take it instead of computing it again)."""

    root: str | None
    max_bytes: int
    fingerprint: dict | None = None


_SETTINGS = Settings(None, int(DEFAULT_MAX_GB * 1e9))
#: set when storing failed (read-only, full): no more stores in this process
_BROKEN: list[str] = []
#: jobs served from the cache in this process (names), for the build's summary
_HITS: list[str] = []


def default_root() -> Path:
    """``$DCSFLOW_CACHE``, else ``$XDG_CACHE_HOME/dcsflow``, else ``~/.cache/dcsflow``."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dcsflow"


def configure(enabled: bool = True, max_gb: float | None = None, root: Path | None = None) -> str | None:
    """Turn the cache on (at ``root``, default :func:`default_root`) or off for this process and the
    job workers it starts (:func:`settings`, :func:`apply`). Returns None, or one line when the
    folder cannot be used (created, written: the cache is then off)."""
    global _SETTINGS
    cap = int((DEFAULT_MAX_GB if max_gb is None else max_gb) * 1e9)
    _BROKEN.clear()
    if not enabled:
        _SETTINGS = Settings(None, cap)
        return None
    r = Path(root) if root is not None else default_root()
    try:
        r.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.lstat(r)
        if not stat.S_ISDIR(st.st_mode):
            raise OSError(errno.ENOTDIR, "not a folder")
        (r / "tmp").mkdir(exist_ok=True, mode=0o700)
        fd, probe = tempfile.mkstemp(dir=r / "tmp", prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        _SETTINGS = Settings(None, cap)
        return f"job cache {r}: {e.strerror or e}; building without the cache"
    _SETTINGS = Settings(str(r), cap, fingerprint())
    return None


def settings() -> Settings:
    """The settings of this process (handed to job workers: :func:`apply`)."""
    return _SETTINGS


def apply(s: Settings) -> None:
    """Use settings ``s`` (in a job worker: those of the process that started it)."""
    global _SETTINGS
    _SETTINGS = s


def hits() -> list[str]:
    """Names of the jobs this process served from the cache (in order)."""
    return list(_HITS)


# ---------------------------------------------------------------------------------------------
# the key

def _sha_file(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _tool_version(cmd: list[str], tool: str) -> str:
    """The first line of a tool's version output that names a version (ABC echoes its command line
    first); the query runs under the tool runs' guards (:func:`dcsflow.tools.query_tool`)."""
    from dcsflow.tools import query_tool

    out = query_tool(cmd, tool=tool)
    if out is None:
        return "no version"
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    return next((ln for ln in lines if "command line" not in ln), "no version")


#: environment variables that change what a job makes: the tools' overrides (another executable)
#: and a mapper named by the environment (flow.mapping)
def _env() -> tuple:
    from dcsflow.tools import TOOLS

    names = sorted({t.env for t in TOOLS.values()} | {"DCSFLOW_MAPPER"})
    return tuple((n, os.environ.get(n)) for n in names)


def fingerprint() -> dict:
    """What every key includes (:func:`_fingerprint`); in a job worker, the one its parent computed
    (when its environment is the parent's)."""
    env = _env()
    fp = _SETTINGS.fingerprint
    if fp is not None and fp.get("env") == dict(env):
        return fp
    return _fingerprint(env)


@functools.lru_cache(maxsize=4)
def _fingerprint(env: tuple) -> dict:
    """What every key includes: the dcsflow version, the SHA-256 of the package's own source (every
    file of its folders but caches and compiled objects, in path order), each tool's path and
    version, and the environment variables that change results (``env``: the tools' overrides,
    ``DCSFLOW_MAPPER``)."""
    from dcsflow import __version__
    from dcsflow.tools import which_tool

    import dcsflow

    roots = {"dcsflow": Path(dcsflow.__file__).parent}
    for sub in ("tmap", "scg", "flow", "designs"):
        mod = sys.modules.get(f"dcsflow.{sub}")
        if mod is None:
            mod = __import__(f"dcsflow.{sub}", fromlist=["_"])
        roots[sub] = Path(mod.__path__[0])
    h = hashlib.sha256()
    for name, root in sorted(roots.items()):
        for p in sorted(root.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so", ".o"):
                rel = p.relative_to(root).as_posix()
                if name == "dcsflow" and "/" in rel:       # the core's own files only
                    continue
                h.update(f"{name}/{rel}\0".encode())
                h.update(_sha_file(p).encode())
    tools = {}
    for tool, args in (("yosys", ["-V"]), ("abc", ["-c", "version"]), ("iverilog", ["-V"]), ("ghdl", ["--version"])):
        try:
            path = which_tool(tool)
        except Exception:  # noqa: BLE001 - a broken override: the tool's runs fail on their own
            path = None
        tools[tool] = f"{path}: {_tool_version([path, *args], tool)}" if path else "missing"
    return {"dcsflow": __version__, "source": h.hexdigest(), "tools": tools, "env": dict(env)}


class _Uncacheable(Exception):
    """An argument the key cannot represent: the job runs without the cache."""


def _canon(x, base: Path | None):
    """A JSON form of an argument (module docstring): paths under ``base`` relative to it."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, Path):
        if base is not None:
            try:
                return "@out/" + x.resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                pass
        return str(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {"@": type(x).__qualname__, **{f.name: _canon(getattr(x, f.name), base) for f in dataclasses.fields(x)}}
    if isinstance(x, dict):
        return {str(k): _canon(v, base) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (list, tuple)):
        return [_canon(v, base) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted((_canon(v, base) for v in x), key=lambda v: json.dumps(v, sort_keys=True))
    if hasattr(x, "to_json_obj"):
        return {"@": type(x).__qualname__, "json": x.to_json_obj()}
    if hasattr(x, "to_bytes"):
        return {"@": type(x).__qualname__, "sha256": hashlib.sha256(x.to_bytes()).hexdigest()}
    raise _Uncacheable(type(x).__qualname__)


def _files_of(p: Path) -> list[Path]:
    """The regular files of ``p`` (itself, or every file under a folder, sorted)."""
    if p.is_dir():
        return sorted(q for q in p.rglob("*") if q.is_file())
    return [p] if p.is_file() else []


def _input_digest(paths: Iterable, base: Path) -> dict:
    out = {}
    for p in paths:
        p = Path(p)
        p = p if p.is_absolute() else base / p
        files = _files_of(p)
        if not files:
            out[_name(p, base)] = None              # absent: part of the key too
        for f in files:
            out[_name(f, base)] = _sha_file(f)
    return out


def _name(p: Path, base: Path) -> str:
    try:
        return "@out/" + p.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(p.resolve())


def hdl_inputs(sources: Iterable) -> list[Path]:
    """The files a front end over ``sources`` may read: each source and every file of
    :data:`HDL_SIDE_SUFFIXES` beside it (includes, ``$readmem`` files)."""
    out: dict = {}
    for s in sources:
        s = Path(s)
        out[s.resolve()] = None
        try:
            for q in s.resolve().parent.iterdir():
                if q.suffix.lower() in HDL_SIDE_SUFFIXES and q.is_file():
                    out[q.resolve()] = None
        except OSError:
            pass
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# entries

def _entry_dir(root: Path, key: str) -> Path:
    return root / "v1" / key[:2] / key


def _private_dir(p: Path) -> bool:
    try:
        st = os.lstat(p)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def _remove(p: Path) -> None:
    try:
        if p.is_symlink() or p.is_file():
            p.unlink()
        else:
            shutil.rmtree(p)
    except OSError:
        pass


def _load(root: Path, key: str, job: str):
    """(manifest, entry folder) of a valid entry, else None (an invalid one is removed)."""
    d = _entry_dir(root, key)
    if not os.path.lexists(d):
        return None
    if not _private_dir(d):
        _remove(d)
        return None
    try:
        mp = d / "manifest.json"
        st = os.lstat(mp)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MANIFEST_LIMIT:
            raise ValueError("manifest")
        man = json.loads(mp.read_bytes())
        if (not isinstance(man, dict) or man.get("format") != ENTRY_FORMAT or man.get("version") != ENTRY_VERSION
                or man.get("key") != key or man.get("job") != job or man.get("fingerprint") != fingerprint()
                or not isinstance(man.get("files"), dict)):
            raise ValueError("manifest")
        for rel, meta in man["files"].items():
            f = d / "files" / rel
            fst = os.lstat(f)
            if (not stat.S_ISREG(fst.st_mode) or fst.st_size != meta["stored"] or ".." in Path(rel).parts
                    or Path(rel).is_absolute() or _sha_file(f) != meta["stored_sha256"]):
                raise ValueError(rel)
        rp = d / "result.pickle"
        if not stat.S_ISREG(os.lstat(rp).st_mode) or _sha_file(rp) != man.get("result_sha256"):
            raise ValueError("result")
    except (OSError, ValueError, KeyError, TypeError):
        _remove(d)
        return None
    return man, d


def _restore(man: dict, d: Path, base: Path, outputs: list[str]):
    """Copy an entry's files into ``base`` (each output folder emptied first, each file written
    beside its place and renamed) and return its result."""
    for o in outputs:
        p = base / o
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
    for rel, meta in man["files"].items():
        dest = base / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.cache-tmp")
        try:
            if _inflate(d / "files" / rel, tmp) != meta["sha256"]:
                raise OSError(errno.EIO, f"{rel}: not the file stored")
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
    result = pickle.loads((d / "result.pickle").read_bytes())
    try:
        os.utime(d / "manifest.json")           # least recently used: the oldest access time goes first
    except OSError:
        pass
    return result


def _deflate(src: Path, dest: Path) -> str:
    """Write ``src`` zlib-compressed (level 1: the netlists are JSON) to ``dest``; returns the
    SHA-256 of ``src``'s content."""
    h, z = hashlib.sha256(), zlib.compressobj(1)
    with open(src, "rb") as fi, open(dest, "wb") as fo:
        for chunk in iter(lambda: fi.read(1 << 20), b""):
            h.update(chunk)
            fo.write(z.compress(chunk))
        fo.write(z.flush())
    return h.hexdigest()


def _inflate(src: Path, dest: Path) -> str:
    """Write the content of the compressed ``src`` to ``dest``; returns its SHA-256. Raises
    zlib.error (an OSError subclass here) for data that is not what :func:`_deflate` wrote."""
    h, z = hashlib.sha256(), zlib.decompressobj()
    try:
        with open(src, "rb") as fi, open(dest, "wb") as fo:
            for chunk in iter(lambda: fi.read(1 << 20), b""):
                out = z.decompress(chunk)
                h.update(out)
                fo.write(out)
            out = z.flush()
            h.update(out)
            fo.write(out)
    except zlib.error as e:
        raise OSError(errno.EIO, f"corrupt: {e}") from None
    if not z.eof:
        raise OSError(errno.EIO, "truncated")
    return h.hexdigest()


def _store(root: Path, key: str, job: str, base: Path, outputs: list[str], result, cap: int) -> None:
    """Write an entry (module docstring): into a temporary folder, renamed into place; a lost race
    leaves the other writer's entry. Then evict down to the cap."""
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    files: dict = {}
    for o in outputs:
        for f in _files_of(base / o):
            files[f.relative_to(base).as_posix()] = f
    tmp = Path(tempfile.mkdtemp(dir=root / "tmp", prefix=f"{key[:12]}-"))
    try:
        os.chmod(tmp, 0o700)
        man_files, total = {}, len(data)
        for rel, f in files.items():
            dest = tmp / "files" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            sha = _deflate(f, dest)
            man_files[rel] = {"sha256": sha, "stored": dest.stat().st_size, "stored_sha256": _sha_file(dest)}
            total += man_files[rel]["stored"]
        (tmp / "result.pickle").write_bytes(data)
        man = {"format": ENTRY_FORMAT, "version": ENTRY_VERSION, "key": key, "job": job, "fingerprint": fingerprint(),
               "files": man_files, "result_sha256": hashlib.sha256(data).hexdigest(), "bytes": total,
               "created": time.time()}
        (tmp / "manifest.json").write_text(json.dumps(man))
        final = _entry_dir(root, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(tmp, final)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            shutil.rmtree(tmp, ignore_errors=True)      # another build filled it first
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _evict(root, cap)


def _entries(root: Path) -> list[tuple[float, int, Path]]:
    """(last use, bytes, folder) of every entry."""
    out = []
    v1 = root / "v1"
    if not v1.is_dir():
        return out
    for sub in v1.iterdir():
        if not sub.is_dir():
            continue
        for d in sub.iterdir():
            mp = d / "manifest.json"
            try:
                st = os.lstat(mp)
                size = int(json.loads(mp.read_bytes()).get("bytes", 0)) if st.st_size <= _MANIFEST_LIMIT else 0
                out.append((st.st_mtime, size, d))
            except (OSError, ValueError, TypeError, AttributeError):
                out.append((0.0, 0, d))                 # unreadable: evicted first
    return out


def _evict(root: Path, cap: int) -> None:
    """Remove the least recently used entries until the cache holds at most ``cap`` bytes."""
    ents = sorted(_entries(root), key=lambda e: e[0])
    total = sum(e[1] for e in ents)
    for used, size, d in ents:
        if total <= cap:
            break
        _remove(d)
        total -= size


def info(root: Path | None = None) -> dict:
    """The cache's location, entries, bytes and cap (``dcsflow cache info``)."""
    r = Path(root) if root is not None else (Path(_SETTINGS.root) if _SETTINGS.root else default_root())
    ents = _entries(r) if r.is_dir() else []
    return {"root": str(r), "entries": len(ents), "bytes": sum(e[1] for e in ents), "max_bytes": _SETTINGS.max_bytes}


def clear(root: Path | None = None) -> int:
    """Remove every entry (``dcsflow cache clear``); returns how many. Raises CacheError when the
    folder exists but is no cache (it holds other files)."""
    r = Path(root) if root is not None else default_root()
    if not r.exists():
        return 0
    other = [p.name for p in r.iterdir() if p.name not in ("v1", "tmp")]
    if other:
        raise CacheError(f"{r} holds files that are not the cache's ({', '.join(sorted(other)[:3])}); not cleared")
    n = len(_entries(r))
    for sub in ("v1", "tmp"):
        shutil.rmtree(r / sub, ignore_errors=True)
    return n


# ---------------------------------------------------------------------------------------------
# lookups and stores, and the decorator

_MISS = object()


def enabled() -> bool:
    """True when this process caches jobs."""
    return _SETTINGS.root is not None and not _BROKEN


def key_of(job: str, what, inputs: Iterable, base: Path) -> str | None:
    """The key of job ``job`` (a name) with arguments ``what`` (JSON-able after :func:`_canon`) and
    input files/folders ``inputs`` (absolute or relative to ``base``), or None when the cache is off
    or an argument cannot be represented."""
    if not enabled():
        return None
    try:
        parts = {"job": job, "args": _canon(what, base), "inputs": _input_digest(inputs, base),
                 "fingerprint": fingerprint()}
    except (_Uncacheable, OSError):
        return None
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def lookup(key: str | None, job: str, base: Path, outputs: Iterable = ()):
    """The stored result of ``key`` with its files restored into ``base`` (the folders in
    ``outputs`` emptied first), recorded as step ``cached``; :data:`MISS` when there is none (an
    invalid entry is removed)."""
    if key is None or not enabled():
        return MISS
    root = Path(_SETTINGS.root)
    got = _load(root, key, job)
    if got is None:
        return MISS
    try:
        with steps.step("cached", what=key[:16]):
            result = _restore(*got, Path(base), [str(o) for o in outputs])
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        _remove(_entry_dir(root, key))              # vanished or unreadable meanwhile: a miss
        return MISS
    _HITS.append(job)
    return result


def store(key: str | None, job: str, base: Path, outputs: Iterable, result) -> None:
    """Store ``result`` and the files of ``outputs`` (relative to ``base``) under ``key``; a cache
    that cannot be written (read-only, full) is turned off with one line on stderr."""
    if key is None or not enabled():
        return
    root = Path(_SETTINGS.root)
    try:
        _store(root, key, job, Path(base), [str(o) for o in outputs], result, _SETTINGS.max_bytes)
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as e:
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT, errno.EPERM):
            _BROKEN.append(f"job cache {root}: {e.strerror}; the build goes on without the cache")
            print(f"dcsflow: {_BROKEN[0]}", file=sys.stderr, flush=True)


#: what :func:`lookup` returns when there is no entry
MISS = _MISS


def cached(*, inputs: Callable[..., Iterable] = lambda *a, **k: (), outputs: Callable[..., Iterable] = lambda *a, **k: (),
           key: Callable[..., Any] | None = None, base: Callable[..., Path] = lambda *a, **k: Path(a[0])):
    """Decorator of a job function (module docstring). ``base(*args)``: the build folder (default the
    first argument); ``inputs(*args)``: the files and folders it reads (absolute, or relative to
    ``base``); ``outputs(*args)``: the files and folders it writes (relative to ``base``; a folder
    is emptied before a hit's files are restored into it); ``key(*args)``: what of the arguments
    matters (JSON-able; default every argument but the first). The result must be picklable and
    hold no absolute path of the build folder. With the cache off (:func:`configure`) the function
    runs as it is."""
    def deco(fn: Callable) -> Callable:
        job = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not enabled():
                return fn(*args, **kwargs)
            b = Path(base(*args, **kwargs))
            k = key_of(job, key(*args, **kwargs) if key is not None else [args[1:], kwargs],
                       inputs(*args, **kwargs), b)
            outs = list(outputs(*args, **kwargs))
            got = lookup(k, job, b, outs)
            if got is not MISS:
                return got
            result = fn(*args, **kwargs)
            store(k, job, b, outs, result)
            return result
        return wrapper
    return deco
