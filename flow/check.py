"""``dcsflow check``: specialize a π16-Cipher build for each vector's Key‖PMN and simulate encryption.

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
    """The build cannot be checked (not a π16 design, bad vector file, simulator failure)."""


@dataclass
class CheckResult:
    """Outcome of :func:`check_build`: passed/total vectors, failures as (vector number, reason), seconds."""

    passed: int
    total: int
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    cycles: list = field(default_factory=list)


def _tb_file() -> Path:
    from designs.picipher import sim

    return sim.TB_FILE


def select_vectors(vectors: list, key_bits: int) -> list:
    """Vectors the message processor can run: no AD, no SMN, and the design's key size."""
    return [v for v in vectors if not v.ad and v.smn is None and len(v.key) * 8 == key_bits]


def _simulate_one(work: Path, idx: int, verilog: str, top: str, key_bits: int, cis: bool, msg: bytes,
                  iverilog: str, vvp: str) -> tuple[bytes, bytes, int]:
    d = work / f"v{idx}"
    d.mkdir(mode=0o700)
    net = d / "netlist.v"
    fd = os.open(net, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(verilog)
    cmd = [iverilog, "-g2005", "-o", str(d / "tb.vvp"), "-s", "tb", f"-Ptb.KEY_BITS={key_bits}",
           "-Ptb.BUFFER_KEY=0"]
    if cis:
        cmd.append("-DCIS")
    cmd += [str(net), str(_tb_file()), str(cells_sim())]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckError("iverilog failed: " + (r.stderr or r.stdout).strip().replace("\n", " | ")[-400:])
    from designs.picipher.sim import message_words

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
    """What every π16 check needs: the loaded build, its key size, the vectors it can run, Icarus."""

    build: BuildFolder
    key_bits: int
    vectors: list
    iverilog: str
    vvp: str

    @property
    def user_values(self) -> list[dict[str, int]]:
        """The user parameter values (``key_mn`` = Key‖PMN) of every vector, in vector order."""
        return [{"key_mn": int.from_bytes(v.key + v.pmn, "big")} for v in self.vectors]


def prepare_check(build_dir: str | Path, vectors_file: str | Path | None = None) -> CheckSetup:
    """Load a π16-Cipher build and the vectors it can run (default: the official file of its key size).

    Raises:
        BuildFolderError: the build folder is refused. CheckError: not a π16 design or no usable
        vectors. ToolMissing: iverilog/vvp absent.
    """
    from designs.picipher.vectors import load_official, read_vectors

    b = load_build(build_dir)
    key_bits = b.manifest.get("key_bits")
    ports = b.user_params
    if not key_bits or list(ports) != ["key_mn"] or ports["key_mn"] != key_bits + 32:
        raise CheckError(f"{build_dir}: check needs a π16-Cipher message processor build "
                         "(one parameter key_mn of key+32 bits)")
    vecs = read_vectors(vectors_file, check=False) if vectors_file else load_official(key_bits)
    vecs = select_vectors(vecs, key_bits)
    if not vecs:
        raise CheckError(f"no vectors without AD and SMN with a {key_bits}-bit key")
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    if not iverilog or not vvp:
        raise ToolMissing("iverilog/vvp not found on PATH (install the Debian package 'iverilog')")
    return CheckSetup(b, key_bits, vecs, iverilog, vvp)


def simulate_vectors(setup: CheckSetup, netlist_for, label: str, progress: bool = True,
                     jobs: int | None = None) -> CheckResult:
    """Simulate one specialized netlist per vector and compare ciphertext ‖ tag with CIPHER.

    Args:
        setup: from :func:`prepare_check`.
        netlist_for: ``netlist_for(i) -> str``, the Verilog text of the netlist specialized for
            vector ``i`` (written only to a private temporary folder, deleted afterwards).
        label: progress-bar label. jobs: parallel simulations (default min(4, CPUs)).

    Raises:
        CheckError: the simulator failed.
    """
    b, vecs = setup.build, setup.vectors
    cis = b.top == "picipher_cis_mp"
    result = CheckResult(0, len(vecs))
    with tempfile.TemporaryDirectory(prefix="dcsflow-check-") as tmp:
        work = Path(tmp)
        os.chmod(work, 0o700)

        def one(i):
            return _simulate_one(work, i, netlist_for(i), b.top, setup.key_bits, cis, vecs[i].msg,
                                 setup.iverilog, setup.vvp)

        n_jobs = jobs or max(1, min(4, os.cpu_count() or 1))
        with ThreadPoolExecutor(n_jobs) as ex:
            futs = [ex.submit(one, i) for i in range(len(vecs))]
            if progress:
                from rich.console import Console
                from rich.progress import Progress

                from .termout import stage_done

                err, t0 = Console(stderr=True), time.perf_counter()
                with Progress(transient=True, console=err) as p:
                    task = p.add_task(label, total=len(vecs))
                    for f in futs:
                        f.result()
                        p.advance(task)
                stage_done(err, label, "simulation", time.perf_counter() - t0, f"{len(vecs)} vectors")
            for i, f in enumerate(futs):
                out, tag, cycles = f.result()
                v = vecs[i]
                result.cycles.append((len(v.msg), cycles))
                if out + tag == v.cipher:
                    result.passed += 1
                else:
                    result.failures.append((v.number, "timeout" if cycles < 0 else "output differs"))
    return result


def check_build(build_dir: str | Path, vectors_file: str | Path | None = None, progress: bool = True,
                jobs: int | None = None) -> CheckResult:
    """Check a build against π16-Cipher vectors (see module docstring).

    Raises:
        BuildFolderError: the build folder is refused. CheckError: not a π16 design, no usable
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
