"""Simulation driver of the AES-128 cores under Icarus Verilog.

:func:`simulate_groups` runs groups of blocks, each group under one key, in ONE simulator process:
it writes a stimulus file for the test bench ``designs/aes128/tb/tb_aes128.v`` and parses the
result file (both formats: the test bench's header and docs/formats.md). The key changes only
between groups, after the core has emptied — as a parameter does at a rekey. The same driver
simulates the RTL (``dcsflow sim``) and the specialized netlists of a build (``dcsflow check``,
through :mod:`dcsflow.designs.aes128.check`).

Designs: ``aes128_pipe`` (10 unrolled rounds, one block per clock) and ``aes128_iter`` (one round
per clock, 11 cycles per block; ``KEY_TABLE`` 1 = round keys as a parameter-only cone, 0 = on the
fly).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path


from dcsflow.flow.simulate import run_test_bench

from .errors import InputError, SimulationError, SimulatorMissing
from .model import encrypt

HERE = Path(__file__).resolve().parent
RTL_DIR = HERE / "rtl"
TB_FILE = HERE / "tb" / "tb_aes128.v"

#: design name -> (top module, KEY_TABLE define or None)
DESIGNS = {"aes128_pipe": ("aes128_pipe", None), "aes128_iter": ("aes128_iter", 1),
           "aes128_iter_onthefly": ("aes128_iter", 0)}

#: stimulus header and its format version (docs/formats.md)
STIM_MAGIC, RESULTS_MAGIC, FORMAT_VERSION = "aes-stim", "aes-results", 1


def rtl_files() -> list[Path]:
    """Verilog sources of both cores (S-box, building blocks, aes128_pipe, aes128_iter)."""
    return sorted(RTL_DIR.glob("*.v"))


@dataclass
class GroupResult:
    """Output of one key group: ciphertexts in order, cycle of each output handshake, and the cycles
    from the first input handshake to the last output handshake (-1: timeout)."""

    ciphertexts: list = field(default_factory=list)
    out_cycles: list = field(default_factory=list)
    cycles: int = -1


def stimulus_text(groups: list[tuple[bytes, list[bytes]]]) -> str:
    """Stimulus file for ``groups`` = [(key (16 bytes), [plaintext blocks (16 bytes)])].

    Raises:
        InputError: a key or block that is not 16 bytes.
    """
    lines = [f"{STIM_MAGIC} {FORMAT_VERSION}"]
    for key, blocks in groups:
        if len(key) != 16:
            raise InputError(f"key must be 16 bytes (128 bits), got {len(key)}")
        lines.append(f"K {bytes(key).hex()}")
        for b in blocks:
            if len(b) != 16:
                raise InputError(f"plaintext must be 16 bytes (128 bits), got {len(b)}")
            lines.append(f"P {bytes(b).hex()}")
    return "\n".join(lines) + "\n"


def parse_results(text: str, groups: list) -> list[GroupResult]:
    """Parse the test bench's result file into one :class:`GroupResult` per group.

    Raises:
        SimulationError: unreadable result, missing END, or a timeout (message names the group).
    """
    out: list[GroupResult] = []
    cur = GroupResult()
    ended = False
    lines = text.splitlines()
    if not lines or lines[0].split() != [RESULTS_MAGIC, str(FORMAT_VERSION)]:
        raise SimulationError(f"simulation result does not start with '{RESULTS_MAGIC} {FORMAT_VERSION}'")
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        if f[0] == "C" and len(f) == 3:
            cur.ciphertexts.append(bytes.fromhex(f[1]))
            cur.out_cycles.append(int(f[2]))
        elif f[0] == "L" and len(f) == 2:
            cur.cycles = int(f[1])
            out.append(cur)
            cur = GroupResult()
        elif f[0] == "TIMEOUT":
            raise SimulationError(f"simulation timed out in key group {len(out) + 1} of {len(groups)}")
        elif f[0] == "END":
            ended = True
        else:
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}")
    if not ended or len(out) != len(groups):
        raise SimulationError(f"simulation ended early ({len(out)} of {len(groups)} key groups)")
    return out


def simulate_groups(groups: list[tuple[bytes, list[bytes]]], sources: list[Path], top: str,
                    key_table: int | None = None, stall_seed: int | None = None,
                    workdir: str | Path | None = None) -> list[GroupResult]:
    """Run ``groups`` through ``top`` (compiled from ``sources`` + the test bench) in one Icarus run.

    Args:
        groups: [(key, [plaintext blocks])]; key changes only between groups.
        sources: Verilog files of the design (RTL, or a netlist plus Yosys's cells_sim.v).
        top: module the test bench instantiates. key_table: ``KEY_TABLE`` of aes128_iter (RTL
            only; None for netlists and aes128_pipe).
        stall_seed: random gaps on s_valid and m_ready (seeded). workdir: folder for the files
            (default: a private temporary folder, removed afterwards).
    Raises:
        InputError: malformed groups. SimulationError: Icarus missing or failing, timeout.
    """
    defines = {"TOP": top, **({"KEY_TABLE": int(key_table)} if key_table is not None else {})}
    text = run_test_bench([*sources, TB_FILE], stimulus_text(groups), workdir, prefix="aes128-sim-",
                          defines=defines,
                          plusargs=[f"+stall={int(stall_seed)}"] if stall_seed is not None else [],
                          error=SimulationError, missing=SimulatorMissing)
    return parse_results(text, groups)


def group_vectors(vectors) -> list[tuple[bytes, list]]:
    """Vectors grouped by key, in first-appearance order: [(key, [vector, ...])]."""
    groups: dict[bytes, list] = {}
    for v in vectors:
        groups.setdefault(v.key, []).append(v)
    return list(groups.items())


@dataclass
class SimReport:
    """Outcome of :func:`check_rtl`: vectors passed/total, failures (source, reason), cycles per
    group [(blocks, cycles)]."""

    passed: int = 0
    total: int = 0
    failures: list = field(default_factory=list)
    cycles: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every vector passed."""
        return self.total > 0 and self.passed == self.total


def check_rtl(design: str, vectors, stall_seed: int | None = None) -> SimReport:
    """Simulate the RTL of ``design`` (a :data:`DESIGNS` name) on ``vectors`` (one key group per
    distinct key) and compare every ciphertext with the vector's.

    Raises:
        InputError: unknown design. SimulationError: simulator failure.
    """
    if design not in DESIGNS:
        raise InputError(f"unknown AES design {design!r}; designs: {', '.join(DESIGNS)}")
    top, kt = DESIGNS[design]
    grouped = group_vectors(vectors)
    res = simulate_groups([(k, [v.plaintext for v in vs]) for k, vs in grouped], rtl_files(), top, kt,
                          stall_seed)
    rep = SimReport(total=len(vectors))
    for (k, vs), g in zip(grouped, res):
        rep.cycles.append((len(vs), g.cycles))
        for v, c in zip(vs, g.ciphertexts):
            if c == v.ciphertext:
                rep.passed += 1
            else:
                rep.failures.append((v.source, f"got {c.hex()}"))
        for v in vs[len(g.ciphertexts):]:
            rep.failures.append((v.source, "no output"))
    return rep


def random_groups(n_keys: int, blocks: int, seed: int = 1) -> list:
    """``n_keys`` random keys with ``blocks`` random plaintexts each, as vectors whose expected
    ciphertext comes from the golden model (source "random:<seed>:<i>")."""
    from .vectors import Vector

    rng = random.Random(seed)
    out = []
    for i in range(n_keys):
        key = rng.randbytes(16)
        for j in range(blocks):
            p = rng.randbytes(16)
            out.append(Vector(f"random:{seed}:{i}.{j}", key, p, encrypt(key, p)))
    return out
