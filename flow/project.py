"""User designs without writing a package: a ``dcsflow.toml`` project file.

Format (version 1, docs/formats.md "dcsflow.toml")::

    version = 1                        # optional; the only version so far
    [design]
    name = "keyxor"                    # required: the design's name (reports, default build folder)
    top = "keyxor"                     # top module / entity (optional for a single Verilog top)
    sources = ["rtl/keyxor.v"]         # required: Verilog and/or VHDL, relative to this file
    params = ["key"]                   # parameter ports besides (* PARAM *) / --PARAM marks
    chparams = { WIDTH = 8 }           # Verilog parameters of the top (optional)
    conventional_chparams = {}         # where the conventional build differs (optional)
    description = "..."                # one line for `dcsflow designs` (optional)
    [check]
    cocotb = "tb/test_keyxor.py"       # a cocotb test module, relative to this file (optional)
    keys = 3                           # default number of random parameter values, 1..10000 (optional)
    [build]
    lut_size = 4                       # LUT size K: 4, 5 or 6 (optional; --lut-size overrides it)
    tlut = "cfglut5"                   # TLUT realization: frames or cfglut5 (optional; --tlut overrides it)
    transport = "icap-dma"             # configuration port of a --backend vivado block design: hwicap or
                                       # icap-dma (optional; --transport overrides it)
    timeout = 7200                     # seconds per external tool run, builds and checks (optional;
                                       # default: each tool's own, dcsflow.limits; --timeout overrides it)
    max_memory = "8G"                  # memory per external tool run (optional; bytes or a size with a
                                       # unit K, M, G, T; default: 3/4 of the machine's; --max-memory
                                       # overrides it)
    [cache]
    max_gb = 5                         # size cap of the job cache in GB (optional; dcsflow.flow.cache)

``dcsflow build -p dcsflow.toml`` builds it; ``dcsflow check BUILD`` runs the cocotb test against the
specialized netlist for random parameter values (:mod:`dcsflow.flow.cocotb_check`). Any other key,
a missing file or a value of the wrong type is a one-line :class:`ProjectError`.
"""

from __future__ import annotations

import re
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, read_input_text
from dcsflow.limits import MemoryLimitError, TimeLimitError, check_memory_limit, check_time_limit

from .design import LUT_SIZES, TLUT_KINDS, TRANSPORTS, CheckError, Design, DesignError, check_keys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport (installed with the flow extra)
    import tomli as tomllib  # type: ignore[no-redef]

#: version of the dcsflow.toml format this flow reads
PROJECT_VERSION = 1

_DESIGN_KEYS = {"name": str, "top": str, "sources": list, "params": list, "chparams": dict,
                "conventional_chparams": dict, "description": str}
_CHECK_KEYS = {"cocotb": str, "keys": int}
_BUILD_KEYS = {"lut_size": int, "timeout": (int, float), "tlut": str, "transport": str, "max_memory": (int, str)}
_CACHE_KEYS = {"max_gb": (int, float)}
_SECTIONS = {"version": int, "design": dict, "check": dict, "build": dict, "cache": dict}
#: a design name: it names the default build folder and appears in reports and messages
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


class ProjectError(DesignError):
    """A ``dcsflow.toml`` that cannot be used (syntax, unknown key, wrong type, missing file)."""


def _keys(where: str, table: dict, allowed: dict, path: Path) -> None:
    for k, v in table.items():
        if k not in allowed:
            raise ProjectError(f"{path}: unknown key {where}{k} (allowed: {', '.join(allowed)})")
        t = allowed[k]
        if not isinstance(v, t) or (isinstance(v, bool) and t is not bool):
            kind = {(int, float): "number", (int, str): "size (a number of bytes, or a string such as "
                                                        "'8G')"}.get(t) or t.__name__
            raise ProjectError(f"{path}: {where}{k} must be a {kind}, got {type(v).__name__}")


def _strings(value: list, what: str, path: Path) -> tuple[str, ...]:
    if not all(isinstance(x, str) and x for x in value):
        raise ProjectError(f"{path}: {what} must be a list of non-empty strings")
    return tuple(value)


def _file(base: Path, rel: str, what: str, path: Path) -> Path:
    shown = rel if rel.isprintable() and len(rel) <= 200 else repr(rel[:200])   # one line, whatever the name
    try:
        f = (base / rel).resolve()
        found = f.is_file()
    except (OSError, ValueError) as e:       # a name too long, a NUL in it
        raise ProjectError(f"{path}: {what} {shown}: {getattr(e, 'strerror', None) or e}") from None
    if not found:
        raise ProjectError(f"{path}: {what} {shown} not found" + (f" ({f})" if str(f).isprintable() else ""))
    return f


def load_project(path: str | Path) -> Design:
    """Read a ``dcsflow.toml`` (module docstring) into a :class:`~dcsflow.flow.design.Design`.

    The design's ``check`` runs the cocotb test named in ``[check]`` (if any); its ``origin`` is
    ``project <path>`` and ``project`` the resolved path of the file; ``lut_size`` is ``[build]
    lut_size``, ``tlut`` ``[build] tlut``, ``transport`` ``[build] transport``, ``timeout`` is
    ``[build] timeout`` in seconds (None when not given; a number from
    :data:`dcsflow.limits.MIN_TIME_LIMIT` to :data:`dcsflow.limits.MAX_TIME_LIMIT`) and
    ``max_memory`` is ``[build] max_memory`` in bytes (None when not given;
    :func:`dcsflow.limits.check_memory_limit`).

    Raises:
        ProjectError: unreadable or malformed file (also: not a regular file, larger than
            :data:`dcsflow.fileio.TEXT_LIMIT`, nested too deeply), unknown key, wrong type, missing
            source or test.
    """
    path = Path(path)
    doc = _read_toml(path)
    _keys("", doc, _SECTIONS, path)
    if doc.get("version", PROJECT_VERSION) != PROJECT_VERSION:
        raise ProjectError(f"{path}: version {doc['version']}; this dcsflow reads version {PROJECT_VERSION}")
    design = doc.get("design")
    if design is None:
        raise ProjectError(f"{path}: no [design] table")
    _keys("design.", design, _DESIGN_KEYS, path)
    check = doc.get("check", {})
    _keys("check.", check, _CHECK_KEYS, path)
    build = doc.get("build", {})
    _keys("build.", build, _BUILD_KEYS, path)
    settings = _build_settings(build, doc.get("cache", {}), path)
    for k in ("name", "sources"):
        if k not in design:
            raise ProjectError(f"{path}: design.{k} is required")
    name = design["name"]
    if not _NAME.fullmatch(name):
        raise ProjectError(f"{path}: design.name must be 1 to 64 ASCII letters, digits, '_', '-', '.' or '+', "
                           "starting with a letter or digit (it names the build folder)")
    base = path.resolve().parent
    sources = tuple(_file(base, s, "source", path) for s in _strings(design["sources"], "design.sources", path))
    if not sources:
        raise ProjectError(f"{path}: design.sources is empty")
    params = _strings(design.get("params", []), "design.params", path)
    chk = _cocotb_check(check, base, path)
    for k in ("chparams", "conventional_chparams"):
        for pn, v in design.get(k, {}).items():
            if not isinstance(v, (int, str)) or isinstance(v, bool):
                raise ProjectError(f"{path}: design.{k}.{pn} must be an integer or a string")
    return Design(name=name, top=design.get("top"), sources=sources, params=params,
                  chparams=dict(design.get("chparams", {})),
                  conventional_chparams=dict(design.get("conventional_chparams", {})),
                  check=chk, description=design.get("description", ""),
                  origin=f"project {path.resolve()}", project=path.resolve(), **settings)


def _read_toml(path: Path) -> dict:
    """The parsed TOML of the project file ``path``.

    Raises:
        ProjectError: missing, unreadable, not UTF-8, larger than :data:`dcsflow.fileio.TEXT_LIMIT`,
            not valid TOML or nested too deeply.
    """
    try:
        return tomllib.loads(read_input_text(path, TEXT_LIMIT, "project file"))
    except FileNotFoundError:
        raise ProjectError(f"{path}: no such project file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ProjectError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProjectError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:                   # tomllib's parser recurses per level of nesting
        raise ProjectError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None


def _build_settings(build: dict, cache: dict, path: Path) -> dict:
    """The :class:`~dcsflow.flow.design.Design` fields from the ``[build]`` and ``[cache]`` tables:
    ``lut_size``, ``tlut``, ``transport``, ``timeout`` (seconds), ``max_memory`` (bytes) and
    ``cache_max_gb`` (None when not given).

    Raises:
        ProjectError: an unknown ``[cache]`` key or a value out of range.
    """
    lut_size = build.get("lut_size")
    if lut_size is not None and lut_size not in LUT_SIZES:
        raise ProjectError(f"{path}: build.lut_size must be one of {', '.join(map(str, LUT_SIZES))}, got {lut_size}")
    tlut = build.get("tlut")
    if tlut is not None and tlut not in TLUT_KINDS:
        raise ProjectError(f"{path}: build.tlut must be one of {', '.join(TLUT_KINDS)}, got {tlut!r}")
    transport = build.get("transport")
    if transport is not None and transport not in TRANSPORTS:
        raise ProjectError(f"{path}: build.transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    _keys("cache.", cache, _CACHE_KEYS, path)
    max_gb = cache.get("max_gb")
    if max_gb is not None and not 0 < max_gb <= 1e6:
        raise ProjectError(f"{path}: cache.max_gb must be a number of GB above 0 (at most 1000000), got {max_gb}")
    timeout = build.get("timeout")
    if timeout is not None:
        try:
            timeout = check_time_limit(timeout, f"{path}: build.timeout")
        except TimeLimitError as e:
            raise ProjectError(str(e)) from None
    max_memory = build.get("max_memory")
    if max_memory is not None:
        try:
            max_memory = check_memory_limit(max_memory, f"{path}: build.max_memory")
        except MemoryLimitError as e:
            raise ProjectError(str(e)) from None
    return {"lut_size": lut_size, "tlut": tlut, "transport": transport, "timeout": timeout,
            "max_memory": max_memory, "cache_max_gb": None if max_gb is None else float(max_gb)}


def _cocotb_check(check: dict, base: Path, path: Path):
    """The design's check from the ``[check]`` table: the cocotb test (relative to ``base``) with its
    default number of keys, or None when the table names no test.

    Raises:
        ProjectError: ``check.keys`` out of range or without ``check.cocotb``; the test file missing.
    """
    if "keys" in check:
        try:
            check_keys(check["keys"], "check.keys")
        except CheckError as e:
            raise ProjectError(f"{path}: {e}") from None
    if "cocotb" in check:
        from .cocotb_check import cocotb_check

        return cocotb_check(_file(base, check["cocotb"], "cocotb test", path), default_keys=check.get("keys"))
    if "keys" in check:
        raise ProjectError(f"{path}: check.keys needs check.cocotb")
    return None
