"""The PPE's named parameter value ``program`` (``dcsflow rekey BUILD --param program=pi32``).

A program sets both parameter inputs of ``ppe_prog``: ``prog_image`` (word a of the assembled
program at bits [64a+63:64a], unused words 0) and ``coef_image`` (the 64-word coefficient image,
word a at [64a+63:64a]). The value is a bundled program's name (``pi16``, ``pi32``, ``pi64``, with or
without ``.s``; ``programs/``) or the path of an assembly file (assembled by :mod:`.asm` for the
build's instruction-memory depth = width of ``prog_image`` / 64).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from dcsflow.flow.design import NamedParam, NamedParamError

from . import isa
from .asm import AsmError, Program, assemble_file
from .sim import HERE

PROGRAMS = HERE / "programs"


def bundled_programs() -> list[str]:
    """Names of the bundled programs (``programs/*.s``, without the suffix), sorted."""
    return sorted(p.stem for p in PROGRAMS.glob("*.s"))


def program_path(text: str) -> Path:
    """The assembly file of a ``program`` value: a bundled name (with or without ``.s``) or an
    existing file. Raises NamedParamError naming the bundled programs, not the value: a value that
    is neither may be a program's text typed in place of its file name."""
    t = text.strip()
    stem = t[:-2] if t.endswith(".s") else t
    if stem in bundled_programs() and "/" not in t:
        return PROGRAMS / f"{stem}.s"
    try:
        p = Path(t).expanduser()
        found = p.is_file()
    except (OSError, ValueError, RuntimeError):     # a name too long, a NUL, an unknown ~user
        found = False
    if found:
        return p
    raise NamedParamError(f"--param program: the value ({len(text)} characters, not shown) is no bundled "
                          f"program ({', '.join(bundled_programs())}) and no existing file")


def image_values(prog: Program) -> dict[str, int]:
    """``prog_image`` / ``coef_image`` values of an assembled program (module docstring)."""
    return {"prog_image": sum(w << (64 * a) for a, w in enumerate(prog.words)),
            "coef_image": sum(v << (64 * a) for a, v in enumerate(prog.coef))}


def program_values(text: str, ports: Mapping[str, int]) -> dict[str, int]:
    """Converter of the named value ``program`` (:class:`dcsflow.flow.design.NamedParam`):
    ``text`` -> ``{prog_image, coef_image}`` for a build whose parameter widths are ``ports``.

    Raises:
        NamedParamError: unknown program, a build without ``prog_image`` (a multiple of 64 bits) and
            ``coef_image`` (4096 bits), a program that does not assemble (``file:line: reason``, with
            every piece of the program's text replaced by ``…``: :attr:`.asm.AsmError.redacted`) or
            does not fit the build's instruction memory.
    """
    if ports.get("coef_image") != 64 * isa.NCOEF or not ports.get("prog_image") or ports["prog_image"] % 64:
        raise NamedParamError(f"--param program: the build has no PPE program parameters "
                              f"(prog_image, coef_image); its parameters: {', '.join(ports)}")
    path = program_path(text)
    try:
        prog = assemble_file(path, imem_depth=ports["prog_image"] // 64)
    except AsmError as e:
        # the program is the parameter value: no piece of its text in the message; the redacted
        # message begins with the file's name (a path that exists, not program text)
        raise NamedParamError(f"--param program: {e.redacted}") from None
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or type(e).__name__
        raise NamedParamError(f"--param program: cannot read {path}: {why}") from None
    return image_values(prog)


PROGRAM = NamedParam("program", ("prog_image", "coef_image"), program_values,
                     "a π program (pi16, pi32, pi64) or an assembly file: sets prog_image and coef_image")
