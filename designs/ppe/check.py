"""The PPE's side of ``dcsflow check`` (a :class:`dcsflow.flow.check.DesignCheck`).

Parameter inputs of ``ppe_prog``: ``prog_image`` (IMEM_DEPTH × 64 bits, word a at [64a+63:64a]) and
``coef_image`` (64 × 64 bits). One parameter value = one assembled π program (``programs/pi16.s``, and
``pi32.s``/``pi64.s`` when the generalized π-Cipher model exists; values as ``--param program=``
gives them, :func:`.params.image_values`): each is one specialized netlist,
simulated with ``tb/tb_ppe_prog.v`` (``NETLIST`` mode) on random states (``--keys`` cases per
program, ``--seed``), the outputs compared with the golden model's π.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim

from . import isa
from .asm import assemble_file
from .params import image_values
from .sim import HERE, PROG_TB_FILE, PpeSimError, _hex, _parse

PROGRAMS = HERE / "programs"


@dataclass(frozen=True)
class PiCase:
    """One run: ``bits``-bit π on 64/bits independent states packed into the lanes."""

    bits: int
    states: tuple[tuple[int, ...], ...]
    index: int

    @property
    def inputs(self) -> list[int]:
        return [sum(s[i] << (self.bits * k) for k, s in enumerate(self.states)) for i in range(16)]


def _golden(bits: int):
    from dcsflow.designs.picipher import model
    if bits == 16:
        return model.pi
    f = getattr(model, "cipher", None)
    return f(bits).pi if f is not None else None


def program_values(bits: int, depth: int) -> dict[str, int]:
    """Parameter values (``prog_image``, ``coef_image``) of ``pi<bits>.s`` for an instruction memory of ``depth``."""
    return image_values(assemble_file(PROGRAMS / f"pi{bits}.s", imem_depth=depth))


def ppe_check(build, options: CheckOptions) -> DesignCheck:
    """:class:`DesignCheck` of a ``ppe`` build (module docstring).

    Raises:
        CheckError: the build's parameters are not ``prog_image`` (a multiple of 64 bits) and ``coef_image``
        (4096 bits).
    """
    params = dict(build.manifest["params"])
    if set(params) != {"prog_image", "coef_image"} or params["coef_image"] != 64 * isa.NCOEF or params["prog_image"] % 64:
        raise CheckError(f"{build.path}: a PPE check needs parameters 'prog_image' (64·depth bits) and "
                         f"'coef_image' (4096 bits), the build has {params}")
    depth = params["prog_image"] // 64
    rng = random.Random(options.seed)
    n = options.keys or 2
    cases: list[PiCase] = []
    groups = []
    for bits in (16, 32, 64):
        if _golden(bits) is None:
            continue
        idx = []
        for _ in range(n):
            states = tuple(tuple(rng.getrandbits(bits) for _ in range(16)) for _ in range(64 // bits))
            idx.append(len(cases))
            cases.append(PiCase(bits, states, len(cases)))
        groups.append((program_values(bits, depth), idx))
    return DesignCheck(cases, groups, lambda c: f"pi{c.bits} case {c.index}", _run_group)


def _run_group(work: Path, verilog: str, top: str, cases: list[PiCase]):
    """Simulate one specialized netlist on its cases; ([(ok, reason)], [(cases, cycles)])."""
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    oks, cycles = [], 0
    for i, case in enumerate(cases):
        w = work / f"case{i}"
        w.mkdir()
        _hex(w / "prog.hex", [0])
        _hex(w / "coef.hex", [0] * isa.NCOEF)
        _hex(w / "in.hex", case.inputs)
        icarus([net, cells_sim(), PROG_TB_FILE], w, top="tb_ppe_prog", defines={"NETLIST": None},
               plusargs=[f"+prog={w / 'prog.hex'}", "+nprog=1", f"+coef={w / 'coef.hex'}",
                         f"+in={w / 'in.hex'}", "+nin=16", f"+out={w / 'out.txt'}", "+max=100000"],
               name="tb", error=PpeSimError, missing=PpeSimError)
        res = _parse(w / "out.txt")
        pi = _golden(case.bits)
        mask = (1 << case.bits) - 1
        got = [tuple((x >> (case.bits * k)) & mask for x in res.outputs) for k in range(len(case.states))]
        want = [pi(s) for s in case.states]
        ok = res.halted == [True] and got == want
        oks.append((ok, "" if ok else "did not halt" if res.halted != [True] else "π output differs"))
        cycles = res.cycles[0] if res.cycles else 0
    return oks, [(16, cycles)]
