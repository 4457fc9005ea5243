"""``dcsflow check``: specialize a build for each vector's parameter values and simulate it.

Designs plug in through a small interface (:class:`DesignCheck`): the vectors, their parameter
values, and a test-bench driver that simulates one specialized netlist on the vectors that share
those values. :data:`flow.designs.CHECKS` names the interface of a top module
(``designs.aes128.flowdesign`` for the AES-128 cores); the built-in one below is the π16-Cipher
message processor's:

For every vector the PPC is evaluated (all vectors at once, bit-parallel), the netlist is specialized
(TLUT INITs filled in) and simulated with Icarus Verilog against Yosys's ``xilinx/cells_sim.v``,
driven by the message-processor test bench ``designs/picipher/tb/tb_picipher.v`` (stimulus/result
formats in its header). Output = ciphertext ‖ tag must equal the vector's CIPHER.

Key hygiene: the specialized netlists (which hold the key in LUT contents) are written only to a
private temporary folder (mode 0700) that is deleted afterwards; the stimulus carries a zero
parameter value, so the test bench's key port is unused (the TLUT netlist does not read it).
Default vectors: the official no-AD/no-SMN vectors of the design's key size (25 per key size).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import netlist as nl
from .errors import FlowError
from .specialize import BuildFolder, circuit_values, load_build, tlut_values
from .yosys import ToolMissing, cells_sim


class CheckError(FlowError):
    """The build cannot be checked (no check for its design, bad vector file, simulator failure)."""


@dataclass
class DesignCheck:
    """What ``check`` needs from a design.

    vectors: the vectors to run; groups: [(user parameter values {port: int}, [vector index])] —
    one specialized netlist per group; label: vector -> text naming it in failures;
    run_group: ``run_group(work, verilog, top, vectors) -> ([(ok, reason)] per vector, cycles)``
    simulates the netlist text (written by the runner below ``work``, a private folder) on the
    group's vectors; cycles: a list of (size, cycles) figures for the report.
    """

    vectors: list
    groups: list
    label: object
    run_group: object


@dataclass
class CheckResult:
    """Outcome of :func:`check_build`: passed/total vectors, failures as (vector label, reason), seconds,
    cycles as the design's (size, cycles) figures."""

    passed: int
    total: int
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    cycles: list = field(default_factory=list)


def _tb_file() -> Path:
    from dcsflow.designs.picipher import sim

    return sim.TB_FILE


def select_vectors(vectors: list, key_bits: int) -> list:
    """Vectors the message processor can run: no AD, no SMN, and the design's key size."""
    return [v for v in vectors if not v.ad and v.smn is None and len(v.key) * 8 == key_bits]


def write_private(path: Path, text: str) -> None:
    """Create ``path`` (must not exist) with owner-only permissions and write ``text`` (netlists that
    hold key material)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def _simulate_one(d: Path, verilog: str, top: str, key_bits: int, cis: bool, msg: bytes,
                  iverilog: str, vvp: str) -> tuple[bytes, bytes, int]:
    net = d / "netlist.v"
    write_private(net, verilog)
    cmd = [iverilog, "-g2005", "-o", str(d / "tb.vvp"), "-s", "tb", f"-Ptb.KEY_BITS={key_bits}",
           "-Ptb.BUFFER_KEY=0"]
    if cis:
        cmd.append("-DCIS")
    cmd += [str(net), str(_tb_file()), str(cells_sim())]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckError("iverilog failed: " + (r.stderr or r.stdout).strip().replace("\n", " | ")[-400:])
    from dcsflow.designs.picipher.sim import message_words

    words, last = message_words(msg)
    stim = ["picipher-stim 1 1", f"0 {len(words)} {last} 0 0"] + [f"{w:04x}" for w in words]
    (d / "stim.txt").write_text("\n".join(stim) + "\n")
    r = subprocess.run([vvp, "-n", str(d / "tb.vvp"), f"+in={d / 'stim.txt'}", f"+out={d / 'res.txt'}"],
                       capture_output=True, text=True)
    if r.returncode != 0 or not (d / "res.txt").exists():
        raise CheckError("vvp failed: " + (r.stderr or r.stdout).strip()[-400:])
    out = bytearray()
    tag, cycles = b"", -1
    for line in (d / "res.txt").read_text().splitlines():
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "W":
                w = int(f[1], 16)
                out += bytes((w & 0xFF, w >> 8))
            elif f[0] == "D":
                cycles = int(f[1])
                tag = bytes.fromhex(f"{int(f[2], 16):032x}")
            elif f[0] == "TIMEOUT":
                return b"", b"", -1
        except ValueError:              # x/z bits in the output: a wrong netlist, not a tool failure
            return b"", b"x", 0
    shutil.rmtree(d, ignore_errors=True)
    return bytes(out[:len(msg)]), tag, cycles


@dataclass
class CheckSetup:
    """What every check needs: the loaded build, the design's :class:`DesignCheck`, Icarus."""

    build: BuildFolder
    design: DesignCheck
    iverilog: str
    vvp: str

    @property
    def vectors(self) -> list:
        """The vectors, in order."""
        return self.design.vectors

    @property
    def user_values(self) -> list[dict[str, int]]:
        """The user parameter values of every group (one specialized netlist each), in group order."""
        return [u for u, _ in self.design.groups]


def _pi16_check(b: BuildFolder, vectors_file, iverilog: str, vvp: str) -> DesignCheck:
    """π16-Cipher message processor: one group per vector (Key‖PMN differs per vector)."""
    from dcsflow.designs.picipher.vectors import load_official, read_vectors

    key_bits = b.manifest.get("key_bits")
    ports = b.user_params
    if not key_bits or list(ports) != ["key_mn"] or ports["key_mn"] != key_bits + 32:
        raise CheckError(f"{b.path}: check needs a design with vectors: a π16-Cipher message processor "
                         "build (one parameter key_mn of key+32 bits) or an AES-128 core")
    vecs = read_vectors(vectors_file, check=False) if vectors_file else load_official(key_bits)
    vecs = select_vectors(vecs, key_bits)
    if not vecs:
        raise CheckError(f"no vectors without AD and SMN with a {key_bits}-bit key")
    cis = b.top == "picipher_cis_mp"

    def run_group(work: Path, verilog: str, top: str, group: list):
        v = group[0]
        out, tag, cycles = _simulate_one(work, verilog, top, key_bits, cis, v.msg, iverilog, vvp)
        ok = out + tag == v.cipher
        return [(ok, "" if ok else "timeout" if cycles < 0 else "output differs")], [(len(v.msg), cycles)]

    groups = [({"key_mn": int.from_bytes(v.key + v.pmn, "big")}, [i]) for i, v in enumerate(vecs)]
    return DesignCheck(vecs, groups, lambda v: f"#{v.number}", run_group)


def prepare_check(build_dir: str | Path, vectors_file: str | Path | None = None) -> CheckSetup:
    """Load a build and its design's check (:data:`flow.designs.CHECKS` by top module, else the
    π16-Cipher one) with the vectors it can run (default: the design's own vector set).

    Raises:
        BuildFolderError: the build folder is refused. CheckError: no check for the design, no
        usable vectors. ToolMissing: iverilog/vvp absent.
    """
    import importlib

    from .designs import CHECKS

    b = load_build(build_dir)
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    if not iverilog or not vvp:
        raise ToolMissing("iverilog/vvp not found on PATH (install the Debian package 'iverilog')")
    if b.top in CHECKS:
        mod, _, fn = CHECKS[b.top].partition(":")
        design = getattr(importlib.import_module(mod), fn)(b, vectors_file)
    else:
        design = _pi16_check(b, vectors_file, iverilog, vvp)
    return CheckSetup(b, design, iverilog, vvp)


def simulate_vectors(setup: CheckSetup, netlist_for, label: str, progress: bool = True,
                     jobs: int | None = None) -> CheckResult:
    """Simulate one specialized netlist per group of vectors and compare with the expected outputs.

    Args:
        setup: from :func:`prepare_check`.
        netlist_for: ``netlist_for(g) -> str``, the Verilog text of the netlist specialized for
            group ``g`` (written only to a private temporary folder, deleted afterwards).
        label: progress-bar label. jobs: parallel simulations (default min(4, CPUs)).

    Raises:
        CheckError: the simulator failed.
    """
    b, dc = setup.build, setup.design
    result = CheckResult(0, len(dc.vectors))
    with tempfile.TemporaryDirectory(prefix="dcsflow-check-") as tmp:
        work = Path(tmp)
        os.chmod(work, 0o700)

        def one(g):
            d = work / f"g{g}"
            d.mkdir(mode=0o700)
            try:
                return dc.run_group(d, netlist_for(g), b.top, [dc.vectors[i] for i in dc.groups[g][1]])
            finally:
                shutil.rmtree(d, ignore_errors=True)

        n_jobs = jobs or max(1, min(4, os.cpu_count() or 1))
        with ThreadPoolExecutor(n_jobs) as ex:
            futs = [ex.submit(one, g) for g in range(len(dc.groups))]
            if progress:
                from rich.console import Console
                from rich.progress import Progress

                from .termout import stage_done

                err, t0 = Console(stderr=True), time.perf_counter()
                with Progress(transient=True, console=err) as p:
                    task = p.add_task(label, total=len(futs))
                    for f in futs:
                        f.result()
                        p.advance(task)
                stage_done(err, label, "simulation", time.perf_counter() - t0, f"{len(dc.vectors)} vectors")
            for g, f in enumerate(futs):
                oks, cycles = f.result()
                result.cycles += cycles
                for i, (ok, why) in zip(dc.groups[g][1], oks):
                    if ok:
                        result.passed += 1
                    else:
                        result.failures.append((dc.label(dc.vectors[i]), why))
    return result


def check_build(build_dir: str | Path, vectors_file: str | Path | None = None, progress: bool = True,
                jobs: int | None = None) -> CheckResult:
    """Check a build against its design's vectors (see module docstring).

    Raises:
        BuildFolderError: the build folder is refused. CheckError: no check for the design, no usable
        vectors, simulator failure. ToolMissing: iverilog/vvp absent.
    """
    t0 = time.perf_counter()
    setup = prepare_check(build_dir, vectors_file)
    b = setup.build
    inits = tlut_values(b, [circuit_values(b, u) for u in setup.user_values])
    result = simulate_vectors(setup, lambda i: nl.write_verilog(b.module, b.top, inits[i]),
                              f"check {b.manifest.get('design')}", progress, jobs)
    result.seconds = time.perf_counter() - t0
    return result
