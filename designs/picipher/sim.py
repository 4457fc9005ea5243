"""Simulation driver: runs the message-processor RTL under Icarus Verilog and checks it.

Many messages run in ONE simulator process: :func:`simulate` writes a stimulus file that the test
bench ``designs/picipher/tb/tb_picipher.v`` reads, and parses the result file it writes (both formats
are described in the test bench's header and in ``docs/formats.md``).

Designs: ``picipher`` (top ``picipher_mp``, 96-bit key), ``picipher128`` (same, 128-bit key),
``picipher_cis`` (top ``picipher_cis_mp``; the parameter input is computed by the golden model);
``picipher32`` / ``picipher64`` (and ``_cis``): the same RTL with the Verilog parameter ``W`` = 32 / 64
(``word_bits`` here; π32/π64-Cipher, 128- or 256-bit key, 16-byte PMN, 32/64-byte blocks and tags).
The stream is 16 bits wide for every word size.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.tools import ToolMissing, find_tool, run_tool

from . import model
from dcsflow.flow.simulate import icarus, last_output

from .errors import InputError, SimulationError, SimulatorMissing

HERE = Path(__file__).resolve().parent
RTL_DIR = HERE / "rtl"
TB_FILE = HERE / "tb" / "tb_picipher.v"
CIS_RTL_DIR = HERE / "rtl_cis"

#: Design name → (key size in bits, uses the CIS variant, word size).
DESIGNS = {"picipher": (96, False, 16), "picipher128": (128, False, 16), "picipher_cis": (None, True, 16),
           "picipher32": (128, False, 32), "picipher64": (128, False, 64),
           "picipher32_cis": (None, True, 32), "picipher64_cis": (None, True, 64)}


def rtl_files(cis: bool = False) -> list[Path]:
    """Verilog sources of the message processor (plus ``picipher_cis_mp`` when ``cis``)."""
    files = sorted(RTL_DIR.glob("*.v"))
    if cis:
        files += sorted(CIS_RTL_DIR.glob("*.v"))
    return files


@dataclass(frozen=True)
class SimMessage:
    """One message for the RTL.

    Attributes:
        key: π16 12 or 16 bytes, π32/π64 16 or 32 bytes; pmn: 4 (π16) or 16 bytes.
        data: plaintext (encrypt) or ciphertext without tag (decrypt), any length.
        decrypt: direction.
        tag: decrypt: the expected tag (16/32/64 bytes) presented on ``tag_in``; empty: zeros.
    """

    key: bytes
    pmn: bytes
    data: bytes
    decrypt: bool = False
    tag: bytes = b""


@dataclass
class SimResult:
    """What the RTL produced for one message.

    Attributes:
        output: ciphertext or plaintext bytes (len(data) of them).
        tag: the tag port at done (16/32/64 bytes); tag_ok: the tag_ok flag; cycles: clock cycles from the
        first s_valid to done; framing_ok: the output words carried m_last exactly on the final word
        with the right m_bytes, and their number matched the input words.
    """

    output: bytes
    tag: bytes
    tag_ok: bool
    cycles: int
    framing_ok: bool


def message_words(data: bytes, block_bytes: int = 16) -> tuple[list[int], int]:
    """Message bytes → 16-bit stream words (little-endian) and the byte count of the final block
    (blocks of ``block_bytes``: 16/32/64 for π16/π32/π64)."""
    n = len(data)
    last = 0 if n == 0 else n - block_bytes * ((n - 1) // block_bytes)
    padded = data + bytes(len(data) % 2)
    words = [padded[2 * k] | padded[2 * k + 1] << 8 for k in range(len(padded) // 2)] or [0]
    return words, last


def _param(msg: SimMessage, cis: bool, word_bits: int = 16) -> int:
    c = model.cipher(word_bits)
    c.check_key_pmn(msg.key, msg.pmn)
    if cis:
        return c.cis_parameters(msg.key, msg.pmn).as_int()
    return int.from_bytes(msg.key + msg.pmn, "big")


def key_sizes(word_bits: int = 16) -> tuple[int, ...]:
    """Key sizes in bits of the official variants of a word size (π16: 96, 128; π32/π64: 128, 256)."""
    return tuple(8 * n for n in model.cipher(word_bits).key_bytes)


def _require(tool: str) -> str:
    """Path of ``tool`` (:func:`dcsflow.tools.find_tool`: ``$DCSFLOW_<TOOL>``, else PATH). Raises
    SimulatorMissing (a SimulationError and a ToolMissing) with the locator's message."""
    try:
        return find_tool(tool)
    except ToolMissing as e:
        raise SimulatorMissing(str(e)) from None


#: Stimulus / result file headers and their format version (docs/formats.md).
STIM_MAGIC, RESULTS_MAGIC, FORMAT_VERSION = "picipher-stim", "picipher-results", 1

#: Simulators :func:`simulate` can drive.
SIMULATORS = ("icarus", "verilator")


def _cache_dir() -> Path:
    """``$XDG_CACHE_HOME/dcsflow/verilator`` (default ``~/.cache/...``), or the temp folder if that is
    not writable."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    d = Path(base) / "dcsflow" / "verilator"
    try:
        d.mkdir(parents=True, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"dcsflow-verilator-{os.getuid()}"


def build_verilator(key_bits: int = 96, buffer_key: int = 0, cis: bool = False, word_bits: int = 16) -> Path:
    """Build (or reuse from the cache ``~/.cache/dcsflow/verilator``) a Verilator binary of the test
    bench; the cache key is a hash of the sources and settings. Returns the executable.

    Raises:
        SimulationError: verilator missing or the build failed.
    """
    import hashlib
    import os

    exe = _require("verilator")
    files = rtl_files(cis) + [TB_FILE]
    h = hashlib.sha256(f"{key_bits}/{buffer_key}/{cis}".encode() + (f"/W{word_bits}".encode() if word_bits != 16 else b""))
    for f in files:
        h.update(f.name.encode() + f.read_bytes())
    dest = _cache_dir() / h.hexdigest()[:16]
    binary = dest / "Vtb"
    if binary.exists():
        return binary
    dest.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=dest.parent))
    cmd = [exe, "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "tb",
           f"-GW={word_bits}", f"-GKEY_BITS={key_bits}", f"-GBUFFER_KEY={buffer_key}", "-Mdir", str(build / "obj"),
           "-o", "Vtb"] + (["-DCIS"] if cis else []) + [str(f) for f in files]
    try:
        r = run_tool(cmd, tool="verilator", what="build the π-Cipher test bench")
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    if r.returncode != 0:
        shutil.rmtree(build, ignore_errors=True)
        raise SimulationError("verilator build failed: " + (r.stderr or r.stdout).strip()[-500:])
    shutil.move(str(build / "obj" / "Vtb"), str(build / "Vtb"))
    shutil.rmtree(build / "obj", ignore_errors=True)
    try:
        os.rename(build, dest)          # atomic; another process may have won the race
    except OSError:
        shutil.rmtree(build, ignore_errors=True)
    return binary


def simulate(messages: list[SimMessage], key_bits: int = 96, buffer_key: int = 0, cis: bool = False,
             stall_seed: int | None = None, workdir: str | Path | None = None,
             simulator: str = "icarus", scramble_key: bool = False, word_bits: int = 16) -> list[SimResult]:
    """Run all messages through the RTL in one simulator process (Icarus, or Verilator).

    Args:
        messages: the messages; keys must be ``key_bits`` long (any official size when ``cis``).
        key_bits: ``KEY_BITS`` of picipher_mp (π16: 96 or 128; π32/π64: 128 or 256); buffer_key:
            ``BUFFER_KEY`` (0/1).
        cis: simulate ``picipher_cis_mp`` (parameter = init + empty-AD step from the golden model).
        stall_seed: if given, random gaps on s_valid and m_ready (seeded).
        workdir: folder for the stimulus/result files (default: a temporary folder, removed).
        simulator: ``"icarus"`` (iverilog/vvp) or ``"verilator"`` (binary cached, see
            :func:`build_verilator`).
        scramble_key: after the ``key_load`` pulse (BUFFER_KEY=1), drive the inverted value on the
            parameter input while the message runs: only a working key buffer gives right results.
        word_bits: the word size ω, Verilog parameter ``W`` (16, 32, 64).
    Returns:
        one :class:`SimResult` per message, in order.
    Raises:
        InputError: a key of the wrong size. SimulationError: simulator missing/failed, timeout,
        unreadable results.
    """
    if simulator not in SIMULATORS:
        raise InputError(f"simulator must be one of {', '.join(SIMULATORS)}, got {simulator!r}")
    c = model.cipher(word_bits)
    if not cis and key_bits not in key_sizes(word_bits):
        raise InputError(f"key_bits must be {' or '.join(map(str, key_sizes(word_bits)))} for {c.name}, "
                         f"got {key_bits}")
    lines = [f"{STIM_MAGIC} {FORMAT_VERSION} {len(messages)}"]
    meta = []
    for m in messages:
        if not cis and len(m.key) * 8 != key_bits:
            raise InputError(f"key must be {key_bits // 8} bytes for KEY_BITS={key_bits}, got {len(m.key)}")
        tag = bytes(m.tag) or bytes(c.tag_bytes)
        if len(tag) != c.tag_bytes:
            raise InputError(f"tag must be {c.tag_bytes} bytes for {c.name}, got {len(tag)}")
        words, last = message_words(bytes(m.data), c.block_bytes)
        lines.append(f"{int(m.decrypt)} {len(words)} {last} {_param(m, cis, word_bits):x} {tag.hex()}")
        lines += [f"{w:04x}" for w in words]
        meta.append((len(m.data), len(words), last))
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="picipher-sim-")
        workdir = tmp.name
    try:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        kb = key_bits if not cis else 96
        params = {"KEY_BITS": kb, "BUFFER_KEY": buffer_key}
        if word_bits != 16:
            params = {"W": word_bits, **params}
        stim, res = wd / "stimulus.txt", wd / "results.txt"
        stim.write_text("\n".join(lines) + "\n")
        plusargs = [f"+in={stim}", f"+out={res}"] + ([f"+stall={int(stall_seed)}"] if stall_seed is not None else []) \
            + (["+scramble"] if scramble_key else [])
        if simulator == "icarus":
            r = icarus(rtl_files(cis) + [TB_FILE], wd, parameters=params,
                   defines={"CIS": None} if cis else None, plusargs=plusargs, error=SimulationError,
                   missing=SimulatorMissing)
        else:
            r = run_tool([str(build_verilator(kb, buffer_key, cis, word_bits)), *plusargs], tool="verilated",
                         what="simulate the π-Cipher test bench")
            if r.returncode != 0:
                raise SimulationError("verilator run failed: " + (r.stderr or r.stdout).strip()[-500:])
        if not res.exists():
            raise SimulationError(f"{simulator} run wrote no result file" + last_output(r))
        return _parse_results(res.read_text(), meta, c.tag_bytes)
    finally:
        if tmp is not None:
            tmp.cleanup()


def _parse_results(text: str, meta, tag_bytes: int = 16) -> list[SimResult]:
    out: list[SimResult] = []
    words: list[tuple[int, int, int]] = []
    lines = text.splitlines()
    if not lines or lines[0].split() != [RESULTS_MAGIC, str(FORMAT_VERSION)]:
        raise SimulationError(f"results file does not start with '{RESULTS_MAGIC} {FORMAT_VERSION}'")
    for n, line in enumerate(lines[1:], start=2):
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "W":
                words.append((int(f[1], 16), int(f[2]), int(f[3])))
            elif f[0] == "D":
                if len(out) >= len(meta):
                    raise SimulationError(f"results line {n}: more messages than sent")
                nbytes, nwords, last = meta[len(out)]
                data = b"".join(bytes((w & 0xFF, w >> 8)) for w, _, _ in words)[:nbytes]
                framing = (len(words) == nwords
                           and [x[1] for x in words] == [0] * (nwords - 1) + [1]
                           and words[-1][2] == last)
                out.append(SimResult(data, int(f[2], 16).to_bytes(tag_bytes, "big"), f[3] == "1",
                                     int(f[1]), framing))
                words = []
            elif f[0] == "TIMEOUT":
                raise SimulationError(f"simulation timed out in message {int(f[1])}")
            elif f[0] == "BADSTIM":
                what = "the stimulus header" if int(f[1]) < 0 else f"message {int(f[1])} of the stimulus"
                raise SimulationError(f"test bench could not read {what}")
            elif f[0] == "END":
                break
        except (ValueError, IndexError):
            raise SimulationError(f"results line {n}: unreadable: {line!r}") from None
    if len(out) != len(meta):
        raise SimulationError(f"simulation ended after {len(out)} of {len(meta)} messages")
    return out


@dataclass
class CheckRow:
    """One checked case: a vector or random message in one direction."""

    name: str
    msg_len: int
    direction: str          # "enc" | "dec" | "dec-tampered"
    passed: bool
    cycles: int
    detail: str = ""


@dataclass
class CheckReport:
    """Outcome of :func:`check_messages` / :func:`check_vectors`.

    Attributes:
        rows: one per simulated case; skipped: records not simulated (AD or SMN present).
    """

    rows: list[CheckRow] = field(default_factory=list)
    skipped: int = 0

    @property
    def total(self) -> int:
        """Cases simulated."""
        return len(self.rows)

    @property
    def passed(self) -> int:
        """Cases that passed."""
        return sum(r.passed for r in self.rows)

    @property
    def ok(self) -> bool:
        """All simulated cases passed (and there was at least one)."""
        return self.total > 0 and self.passed == self.total


@dataclass(frozen=True)
class Case:
    """A known-answer case: key, PMN, plaintext and the expected ciphertext ‖ tag."""

    name: str
    key: bytes
    pmn: bytes
    msg: bytes
    cipher: bytes       # C ‖ tag (no AD, no SMN)


def check_cases(cases: list[Case], key_bits: int = 96, buffer_key: int = 0, cis: bool = False,
                tamper_every: int = 1, stall_seed: int | None = None,
                simulator: str = "icarus", word_bits: int = 16) -> CheckReport:
    """Simulate each case encrypting, decrypting, and (every ``tamper_every``-th case; 0 = never)
    decrypting with one tag bit flipped (π``word_bits``-Cipher RTL).

    A case passes encryption when output ‖ tag equals ``cipher`` and the framing is right; decryption
    when the plaintext equals ``msg`` and tag_ok is 1; tampered decryption when tag_ok is 0.
    """
    msgs: list[SimMessage] = []
    kinds = []
    tb = model.cipher(word_bits).tag_bytes
    for i, c in enumerate(cases):
        ctext, tag = c.cipher[:-tb], c.cipher[-tb:]
        msgs.append(SimMessage(c.key, c.pmn, c.msg))
        kinds.append((c, "enc"))
        msgs.append(SimMessage(c.key, c.pmn, ctext, decrypt=True, tag=tag))
        kinds.append((c, "dec"))
        if tamper_every and i % tamper_every == 0:
            bad = bytearray(tag)
            bad[i % tb] ^= 1 << (i % 8)
            msgs.append(SimMessage(c.key, c.pmn, ctext, decrypt=True, tag=bytes(bad)))
            kinds.append((c, "dec-tampered"))
    results = simulate(msgs, key_bits, buffer_key, cis, stall_seed, simulator=simulator, word_bits=word_bits)
    rep = CheckReport()
    for (c, kind), r in zip(kinds, results):
        if kind == "enc":
            ok = r.output + r.tag == c.cipher and r.framing_ok
            detail = "" if ok else f"got {(r.output + r.tag).hex()}"
        elif kind == "dec":
            ok = r.output == c.msg and r.tag_ok and r.framing_ok
            detail = "" if ok else f"tag_ok={int(r.tag_ok)} plaintext {'ok' if r.output == c.msg else 'wrong'}"
        else:
            ok = not r.tag_ok
            detail = "" if ok else "tampered tag accepted"
        rep.rows.append(CheckRow(c.name, len(c.msg), kind, ok, r.cycles, detail))
    return rep


def cases_from_vectors(vectors) -> tuple[list[Case], int]:
    """Known-answer cases from official vectors without AD and SMN; returns (cases, skipped count)."""
    cases, skipped = [], 0
    for v in vectors:
        if v.ad or v.smn is not None:
            skipped += 1
            continue
        cases.append(Case(f"#{v.number}", v.key, v.pmn, v.msg, v.cipher))
    return cases, skipped


def check_vectors(vectors, key_bits: int, buffer_key: int = 0, cis: bool = False,
                  stall_seed: int | None = None, simulator: str = "icarus", word_bits: int = 16) -> CheckReport:
    """Simulate the official-format records without AD/SMN (both directions + tampered tag).

    Raises:
        InputError: a record's word size differs from ``word_bits`` or its key size from ``key_bits``.
    """
    for v in vectors:
        w = getattr(v, "word_bits", 16)
        if w != word_bits:
            raise InputError(f"vector #{v.number} is a π{w}-Cipher record; design expects π{word_bits}-Cipher")
    cases, skipped = cases_from_vectors(vectors)
    for c in cases:
        if len(c.key) * 8 != key_bits:
            raise InputError(f"vector {c.name} has a {len(c.key) * 8}-bit key; design expects {key_bits}")
    rep = (check_cases(cases, key_bits, buffer_key, cis, stall_seed=stall_seed, simulator=simulator,
                       word_bits=word_bits) if cases else CheckReport())
    rep.skipped = skipped
    return rep


def random_cases(n: int, key_bits: int, max_len: int = 256, seed: int = 1, word_bits: int = 16) -> list[Case]:
    """``n`` random messages (lengths 0..max_len, all block-boundary cases included) with answers
    from the golden model of the word size."""
    import random

    c = model.cipher(word_bits)
    bb = c.block_bytes
    rng = random.Random(seed)
    special = [0, 1, bb - 1, bb, bb + 1, 2 * bb - 1, 2 * bb, 2 * bb + 1, 3 * bb, max_len]
    out = []
    for i in range(n):
        ln = special[i] if i < len(special) else rng.randint(0, max_len)
        key = rng.randbytes(key_bits // 8)
        pmn = rng.randbytes(c.pmn_bytes)
        msg = rng.randbytes(ln)
        out.append(Case(f"rand{i}", key, pmn, msg, c.encrypt(key, pmn, msg)))
    return out
