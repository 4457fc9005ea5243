"""Resolving a DESIGN argument: a bundled design name under ``designs/``, a Verilog file or a folder.

Bundled designs (issue 4): ``picipher`` (π16-Cipher message processor ``picipher_mp``, KEY_BITS 96),
``picipher128`` (KEY_BITS 128) — both with ``BUFFER_KEY=1``, the seed-style key buffer, for the
published comparison — and ``picipher_cis`` (``picipher_cis_mp``: no initialization path; its
circuit parameter ``cis_param`` is computed from the user parameter ``key_mn`` by the golden model,
a *parameter transform*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import dcsflow.designs as _designs_pkg

from .errors import FlowError


class DesignError(FlowError):
    """DESIGN names no bundled design, file or folder, or the folder holds no Verilog."""


@dataclass
class DesignInfo:
    """A design to build.

    name: short name (report title); sources: Verilog files; top: top module or None; chparams:
    Verilog parameters of the top; key_bits: π16 key size for ``check`` (None: not a π16 design);
    user_params: user-facing parameter ports -> width when a transform is registered;
    transform: ``"module:function"`` mapping {user port: int} -> {circuit port: int};
    language: ``"verilog"`` or ``"vhdl"`` (sources read through GHDL, :mod:`flow.vhdl`).
    conventional_chparams: Verilog parameters that differ in the conventional baseline
    (:data:`CONVENTIONAL_CHPARAMS`).
    """

    name: str
    sources: list[Path]
    top: str | None = None
    chparams: dict = field(default_factory=dict)
    key_bits: int | None = None
    user_params: dict = field(default_factory=dict)
    transform: str | None = None
    language: str = "verilog"
    conventional_chparams: dict = field(default_factory=dict)


#: the installed ``designs`` package (its RTL folders are package data, also in a wheel install)
DESIGNS_DIR = Path(_designs_pkg.__file__).resolve().parent

#: bundled designs: name -> (RTL folders under designs/, top, chparams, key bits, user params, transform)
BUNDLED = {
    "picipher": (["picipher/rtl"], "picipher_mp", {"KEY_BITS": 96, "BUFFER_KEY": 1}, 96, {}, None),
    "picipher128": (["picipher/rtl"], "picipher_mp", {"KEY_BITS": 128, "BUFFER_KEY": 1}, 128, {}, None),
    "picipher_cis": (["picipher/rtl", "picipher_cis/rtl"], "picipher_cis_mp", {}, 96, {"key_mn": 128},
                     "dcsflow.flow.transforms:picipher_cis"),
}

# AES-128 (issue 13): the key is the parameter input; see designs/aes128/README.md
BUNDLED.update({
    "aes128_pipe": (["aes128/rtl"], "aes128_pipe", {}, None, {}, None),
    "aes128_iter": (["aes128/rtl"], "aes128_iter", {"KEY_TABLE": 1}, None, {}, None),
})

#: Verilog parameters of the conventional baseline where it differs from the TLUT build: the
#: iterative AES core's baseline steps one round-key register on the fly (KEY_TABLE=0); its TLUT
#: build takes the round keys as a parameter-only cone (KEY_TABLE=1) that disappears into the PPC
CONVENTIONAL_CHPARAMS = {"aes128_iter": {"KEY_TABLE": 0}}

#: ``dcsflow check`` interfaces by top module: "module:function" with function(build, vectors_file)
#: -> :class:`flow.check.DesignCheck` (designs without an entry get the π16-Cipher check)
CHECKS = {
    "aes128_pipe": "dcsflow.designs.aes128.flowdesign:design_check",
    "aes128_iter": "dcsflow.designs.aes128.flowdesign:design_check",
}


def _verilog_in(folder: Path) -> list[Path]:
    files = sorted(folder.glob("*.v")) + sorted(folder.glob("*.sv"))
    if not files and (folder / "rtl").is_dir():
        files = sorted((folder / "rtl").glob("*.v")) + sorted((folder / "rtl").glob("*.sv"))
    return files


def resolve(design: str, top: str | None = None, more: list[str] | tuple = ()) -> DesignInfo:
    """Resolve DESIGN (bundled name, .v/.sv file or folder, or .vhd files) into a :class:`DesignInfo`.

    more: further files after DESIGN (VHDL only; see :func:`_resolve_vhdl`).

    Raises:
        DesignError: nothing of that name, or no Verilog found; the message lists bundled names.
    """
    from .vhdl import is_vhdl

    if is_vhdl(design) or more:
        return _resolve_vhdl([design, *more], top)
    if design in BUNDLED and not Path(design).exists():
        folders, dtop, chp, kb, up, tr = BUNDLED[design]
        files = []
        for f in folders:
            rtl = DESIGNS_DIR / f
            got = _verilog_in(rtl) if rtl.is_dir() else []
            if not got:
                raise DesignError(f"design {design}: no RTL found in {rtl}")
            files += got
        return DesignInfo(design, files, top or dtop, dict(chp), kb, dict(up), tr,
                          conventional_chparams=dict(CONVENTIONAL_CHPARAMS.get(design, {})))
    p = Path(design)
    if p.is_file():
        return DesignInfo(p.stem, [p], top)
    if p.is_dir():
        files = _verilog_in(p)
        if not files:
            raise DesignError(f"{design}: folder holds no .v/.sv files")
        return DesignInfo(p.name, files, top)
    raise DesignError(f"{design}: no such file or folder, and not a bundled design ("
                      + ", ".join(BUNDLED) + ")")


def _resolve_vhdl(files: list[str], top: str | None) -> DesignInfo:
    """VHDL files (analysed by GHDL in this order); the design is named after the first file.

    Raises:
        DesignError: a file missing or not VHDL (several design files are VHDL files only).
    """
    from .vhdl import VHDL_SUFFIXES, is_vhdl

    for f in files:
        if not is_vhdl(f):
            raise DesignError(f"{f}: several design files must all be VHDL ({', '.join(VHDL_SUFFIXES)})")
        if not Path(f).is_file():
            raise DesignError(f"{f}: no such file")
    return DesignInfo(Path(files[0]).stem, [Path(f) for f in files], top, language="vhdl")
