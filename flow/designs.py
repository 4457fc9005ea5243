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

from .errors import FlowError
from .paths import REPO_ROOT


class DesignError(FlowError):
    """DESIGN names no bundled design, file or folder, or the folder holds no Verilog."""


@dataclass
class DesignInfo:
    """A design to build.

    name: short name (report title); sources: Verilog files; top: top module or None; chparams:
    Verilog parameters of the top; key_bits: π16 key size for ``check`` (None: not a π16 design);
    user_params: user-facing parameter ports -> width when a transform is registered;
    transform: ``"module:function"`` mapping {user port: int} -> {circuit port: int};
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
    conventional_chparams: dict = field(default_factory=dict)


DESIGNS_DIR = REPO_ROOT / "designs"

#: bundled designs: name -> (RTL folders under designs/, top, chparams, key bits, user params, transform)
BUNDLED = {
    "picipher": (["picipher/rtl"], "picipher_mp", {"KEY_BITS": 96, "BUFFER_KEY": 1}, 96, {}, None),
    "picipher128": (["picipher/rtl"], "picipher_mp", {"KEY_BITS": 128, "BUFFER_KEY": 1}, 128, {}, None),
    "picipher_cis": (["picipher/rtl", "picipher_cis/rtl"], "picipher_cis_mp", {}, 96, {"key_mn": 128},
                     "flow.transforms:picipher_cis"),
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
    "aes128_pipe": "designs.aes128.flowdesign:design_check",
    "aes128_iter": "designs.aes128.flowdesign:design_check",
}


def _verilog_in(folder: Path) -> list[Path]:
    files = sorted(folder.glob("*.v")) + sorted(folder.glob("*.sv"))
    if not files and (folder / "rtl").is_dir():
        files = sorted((folder / "rtl").glob("*.v")) + sorted((folder / "rtl").glob("*.sv"))
    return files


def resolve(design: str, top: str | None = None) -> DesignInfo:
    """Resolve DESIGN (bundled name, .v/.sv file or folder) into a :class:`DesignInfo`.

    Raises:
        DesignError: nothing of that name, or no Verilog found; the message lists bundled names.
    """
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
                          dict(CONVENTIONAL_CHPARAMS.get(design, {})))
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
