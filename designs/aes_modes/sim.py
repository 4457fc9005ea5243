"""Simulation driver of the AES-128 modes RTL (``designs/aes_modes/rtl``) under Icarus Verilog.

So far the GF(2^128) multiplier ``gf128_mul`` (GCM bit order, SP 800-38D §6.3) with the test bench
``tb/tb_gf128_mul.v``: :func:`run_mul` computes single products, :func:`run_ghash` GHASH chains
(§6.4) through the one combinational multiplier, all in ONE simulator process per call. Both write
the test bench's stimulus file and parse its result file (formats in the test bench's header);
expected values come from elsewhere (:mod:`dcsflow.designs.aes_modes.model`, ``cryptography``, the
NIST files), never from these functions.

Values are 128-bit blocks as big-endian integers of their 16 bytes (the block's leftmost bit is
bit 127), as in :mod:`dcsflow.designs.aes_modes.model`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.flow.simulate import run_test_bench

from .errors import InputError, SimulationError, SimulatorMissing
from ..aes128.sim import group_vectors       # known answers by key, as for the AES-128 cores
from .model import gcm_hash_key
from .vectors import CmacVector, GcmVector

HERE = Path(__file__).resolve().parent
RTL_DIR = HERE / "rtl"
TB_MUL = HERE / "tb" / "tb_gf128_mul.v"
TB_CORE = HERE / "tb" / "tb_aes_modes.v"
AES128_RTL = HERE.parent / "aes128" / "rtl"
#: the AES-128 files the core uses (not aes128_pipe.v)
AES128_FILES = ("aes128_iter.v", "aes128_lib.v", "aes128_sbox.v")
_MASK = (1 << 128) - 1


def rtl_files() -> list[Path]:
    """Verilog sources of the core ``aes_modes``: this design's RTL (``aes_modes.v``,
    ``gf128_mul.v``) and the AES-128 building blocks and iterative core it is built on
    (``designs/aes128/rtl``: ``aes128_iter.v``, ``aes128_lib.v``, ``aes128_sbox.v``)."""
    return sorted(RTL_DIR.glob("*.v")) + [AES128_RTL / f for f in AES128_FILES]


def _value(v, what: str) -> int:
    if isinstance(v, (bytes, bytearray)):
        if len(v) != 16:
            raise InputError(f"{what} must be 16 bytes (128 bits), got {len(v)}")
        return int.from_bytes(v, "big")
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= _MASK:
        raise InputError(f"{what} must be a 128-bit value (0 .. 2^128 - 1) or 16 bytes")
    return v


#: the two forms of the multiplier in ``rtl/gf128_mul.v``: generic (schoolbook) and X -> X·H rows
MULTIPLIERS = ("gf128_mul", "gf128_mulh")


def _run(stim_text: str, n_results: int, workdir, module: str = "gf128_mul") -> list[int]:
    if module not in MULTIPLIERS:
        raise InputError(f"unknown multiplier {module!r}; multipliers: {', '.join(MULTIPLIERS)}")
    lines = run_test_bench([RTL_DIR / "gf128_mul.v", TB_MUL], stim_text, workdir, prefix="gf128-sim-",
                           defines={"MUL": module}, error=SimulationError, missing=SimulatorMissing).splitlines()
    if not lines or lines[0].split() != ["gf128-mul-results", "1"] or lines[-1:] != ["END"]:
        raise SimulationError("unreadable or incomplete gf128_mul result (no 'gf128-mul-results 1' ... 'END')")
    out = []
    for line in lines[1:-1]:
        f = line.split()
        if len(f) != 2 or f[0] != "R":
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}")
        try:
            out.append(int(f[1], 16))
        except ValueError:
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}") from None
    if len(out) != n_results:
        raise SimulationError(f"gf128_mul result has {len(out)} of {n_results} values")
    return out


def run_mul(pairs: list[tuple[int | bytes, int | bytes]], workdir: str | Path | None = None,
            module: str = "gf128_mul") -> list[int]:
    """The products x·y (SP 800-38D §6.3) of ``pairs`` = [(x, y)] computed by ``gf128_mul`` in one
    Icarus run; values are 128-bit integers or 16-byte blocks, results integers.

    Args:
        workdir: folder for the files (default: a private temporary folder, removed afterwards).
        module: which form of the multiplier (:data:`MULTIPLIERS`).
    Raises:
        InputError: a value out of range, an unknown module. SimulationError: Icarus failing, unreadable output
            (SimulatorMissing: Icarus not installed).
    """
    lines = ["gf128-mul 1"]
    for x, y in pairs:
        lines.append(f"M {_value(x, 'x'):032x} {_value(y, 'y'):032x}")
    return _run("\n".join(lines) + "\n", len(pairs), workdir, module)


def run_ghash(jobs: list[tuple[bytes, bytes]], workdir: str | Path | None = None,
              module: str = "gf128_mul") -> list[bytes]:
    """GHASH_H(X) (SP 800-38D §6.4) of ``jobs`` = [(H, X)] with every product computed by
    ``gf128_mul`` (the test bench chains Y_i = (Y_{i-1} ^ X_i)·H), in one Icarus run; H is 16 bytes,
    X a multiple of 16 bytes (empty: Y_0 = 0). Returns the 16-byte results.

    Raises:
        InputError: H not 16 bytes, X not a multiple of 16 bytes. SimulationError: as :func:`run_mul`.
    """
    lines = ["gf128-mul 1"]
    for h, x in jobs:
        hv = _value(h, "H")
        if not isinstance(x, (bytes, bytearray)) or len(x) % 16:
            raise InputError("GHASH input must be bytes, a multiple of 16 bytes long")
        lines.append(f"G {hv:032x} {len(x) // 16:x}")
        lines += [f"B {x[i:i + 16].hex()} 0" for i in range(0, len(x), 16)]
    return [v.to_bytes(16, "big") for v in _run("\n".join(lines) + "\n", len(jobs), workdir, module)]


# ------------------------------------------------------------------------------- the core

#: the core's ``mode`` port: CMAC, GCM authenticated encryption, GCM authenticated decryption
MODE_CMAC, MODE_ENC, MODE_DEC = 0, 1, 2
#: the modes' names on the command line -> the ``mode`` port's value
MODE_NAMES = {"cmac": MODE_CMAC, "gcm-encrypt": MODE_ENC, "gcm-decrypt": MODE_DEC}
#: the core's ``s_type`` / ``m_type`` values
T_IV, T_AD, T_DATA, T_TAG = 0, 1, 2, 3
STIM_MAGIC, RESULTS_MAGIC, FORMAT_VERSION = "aes-modes-stim", "aes-modes-results", 1


@dataclass(frozen=True)
class Request:
    """One message for the core. ``mode``: :data:`MODE_CMAC`, :data:`MODE_ENC` or :data:`MODE_DEC`;
    ``data``: the CMAC message or the GCM payload (plaintext / ciphertext), any length; ``iv``: the
    GCM IV (12 bytes); ``aad``: GCM additional data; ``tag``: the tag a decryption checks (1..16
    bytes, the first bytes of the full tag)."""

    mode: int
    data: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    tag: bytes = b""


@dataclass
class Response:
    """What the core returned for one :class:`Request`: ``out`` = the payload output words' bytes
    (GCM; ``m_bytes`` of each), ``tag`` = the tag word (CMAC, GCM encryption; None for a
    decryption), ``tag_ok`` = the decryption's ``m_tag_ok`` (None otherwise), ``first`` = cycle of
    the message's first input handshake, ``out_cycles`` = cycle of every output handshake."""

    out: bytes = b""
    tag: bytes | None = None
    tag_ok: bool | None = None
    first: int = -1
    out_cycles: list = field(default_factory=list)

    @property
    def latency(self) -> int:
        """Cycles from the first input handshake to the last output handshake."""
        return self.out_cycles[-1] - self.first if self.out_cycles and self.first >= 0 else -1


def _chunks(b: bytes) -> list[bytes]:
    return [b[i:i + 16] for i in range(0, len(b), 16)]


def words(req: Request) -> list[tuple[int, int, int, int]]:
    """The input words of one message: [(s_type, s_bytes, s_last, s_data)] (protocol in
    ``rtl/aes_modes.v``: a short word pads with zero bytes; CMAC's empty message is one word of 0
    bytes; a GCM message is its IV word, the additional data, the payload and, for a decryption, the
    tag word after the word marked last).

    Raises:
        InputError: an unknown mode, an IV that is not 12 bytes, a decryption tag of 0 or more
            than 16 bytes.
    """
    def w(t, b, last=0):
        return (t, len(b), last, int.from_bytes(bytes(b).ljust(16, b"\0"), "big"))

    if req.mode == MODE_CMAC:
        parts = [w(T_DATA, c) for c in _chunks(req.data)] or [w(T_DATA, b"")]
    elif req.mode in (MODE_ENC, MODE_DEC):
        if len(req.iv) != 12:
            raise InputError(f"a GCM IV must be 12 bytes (96 bits), got {len(req.iv)}")
        parts = [w(T_IV, req.iv)] + [w(T_AD, c) for c in _chunks(req.aad)] + [w(T_DATA, c) for c in _chunks(req.data)]
    else:
        raise InputError(f"unknown mode {req.mode!r}; modes: {', '.join(f'{v} ({k})' for k, v in MODE_NAMES.items())}")
    parts[-1] = parts[-1][:2] + (1,) + parts[-1][3:]
    if req.mode == MODE_DEC:
        if not 1 <= len(req.tag) <= 16:
            raise InputError(f"a GCM tag to check must be 1..16 bytes, got {len(req.tag)}")
        parts.append(w(T_TAG, req.tag))
    return parts


def stimulus_text(groups: list[tuple[bytes | None, list[Request]]]) -> str:
    """The test bench's stimulus (format ``aes-modes-stim 1``, ``tb/tb_aes_modes.v``) for ``groups`` =
    [(16-byte key, [Request])]: each group's ``K`` line carries the key and H = E_K(0^128) (the
    ``hkey`` port of the TLUT build's RTL; :func:`~dcsflow.designs.aes_modes.model.gcm_hash_key`);
    a key of None drives zeros on both (a specialized netlist reads neither).

    Raises:
        InputError: a key that is not 16 bytes, a malformed request (:func:`words`).
    """
    lines = [f"{STIM_MAGIC} {FORMAT_VERSION}"]
    for key, reqs in groups:
        if key is None:
            lines.append(f"K {0:032x} {0:032x}")
        elif len(key) != 16:
            raise InputError(f"the key must be 16 bytes (128 bits), got {len(key)}")
        else:
            lines.append(f"K {bytes(key).hex()} {gcm_hash_key(bytes(key)).hex()}")
        for r in reqs:
            lines.append(f"M {r.mode}")
            lines += [f"W {t} {n} {last} {d:032x}" for t, n, last, d in words(r)]
    return "\n".join(lines) + "\n"


def parse_core_results(text: str, groups: list[tuple[bytes, list[Request]]]) -> list[list[Response]]:
    """The test bench's result file (``aes-modes-results 1``) -> one list of :class:`Response` per
    group, in order.

    Raises:
        SimulationError: unreadable or incomplete result, a timeout (the message names the group).
    """
    lines = text.splitlines()
    if not lines or lines[0].split() != [RESULTS_MAGIC, str(FORMAT_VERSION)]:
        raise SimulationError(f"simulation result does not start with '{RESULTS_MAGIC} {FORMAT_VERSION}'")
    firsts, outs, cur, ended = [], [], Response(), False
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "A" and len(f) == 2:
                firsts.append(int(f[1]))
            elif f[0] == "O" and len(f) == 7:
                typ, nb, last, ok, data, cyc = int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5], 16), int(f[6])
                cur.out_cycles.append(cyc)
                if typ == T_DATA:
                    cur.out += data.to_bytes(16, "big")[:nb]
                elif typ == T_TAG:
                    cur.tag, cur.tag_ok = data.to_bytes(16, "big"), bool(ok)
                else:
                    raise ValueError
                if last:
                    outs.append(cur)
                    cur = Response()
            elif f[0] == "TIMEOUT":
                raise SimulationError(f"simulation timed out after {len(outs)} messages")
            elif f[0] == "END":
                ended = True
            else:
                raise ValueError
        except ValueError:
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}") from None
    n = sum(len(rs) for _, rs in groups)
    if not ended or len(outs) != n or len(firsts) != n:
        raise SimulationError(f"simulation ended early ({len(outs)} of {n} messages)")
    res, i = [], 0
    for _, reqs in groups:
        grp = []
        for r in reqs:
            o = outs[i]
            o.first = firsts[i]
            if r.mode == MODE_DEC:
                o.tag = None
            else:
                o.tag_ok = None
            grp.append(o)
            i += 1
        res.append(grp)
    return res


def simulate(groups: list[tuple[bytes | None, list[Request]]], sources: list[Path] | None = None, top: str = "aes_modes",
             key_table: int | None = 1, stall_seed: int | None = None,
             workdir: str | Path | None = None) -> list[list[Response]]:
    """Run ``groups`` = [(key, [Request])] through the core in ONE Icarus run (the key changes
    only between groups, with a reset; a key of None: zeros on the parameter ports, for a
    specialized netlist).

    Args:
        sources: Verilog files (default: the RTL, :func:`rtl_files`; or a netlist and Yosys's
            cells_sim.v). top: the module the test bench instantiates. key_table: the RTL's
            ``KEY_TABLE`` (None for netlists). stall_seed: random gaps on s_valid and m_ready.
        workdir: folder for the files (default: a private temporary folder, removed afterwards).
    Raises:
        InputError: malformed requests. SimulationError: Icarus missing or failing, a timeout.
    """
    defines = {"TOP": top, **({"KEY_TABLE": int(key_table)} if key_table is not None else {})}
    text = run_test_bench([*(sources if sources is not None else rtl_files()), TB_CORE], stimulus_text(groups),
                          workdir, prefix="aes-modes-sim-", defines=defines,
                          plusargs=[f"+stall={int(stall_seed)}"] if stall_seed is not None else [],
                          error=SimulationError, missing=SimulatorMissing)
    return parse_core_results(text, groups)

# ------------------------------------------------------------------------------- known answers

def request_of(v) -> Request:
    """The core's :class:`Request` for a known answer (:class:`~dcsflow.designs.aes_modes.vectors.CmacVector`
    or :class:`~dcsflow.designs.aes_modes.vectors.GcmVector`): CMAC of its message, GCM encryption of
    its plaintext, or GCM decryption of its ciphertext with its tag (decryption records)."""
    if isinstance(v, CmacVector):
        return Request(MODE_CMAC, v.msg)
    if v.decrypt:
        return Request(MODE_DEC, v.ct, v.iv, v.aad, v.tag)
    return Request(MODE_ENC, v.pt, v.iv, v.aad)


def judge(v, r: Response) -> tuple[bool, str]:
    """Does the core's response ``r`` match the known answer ``v``? Returns (ok, reason when not):
    CMAC: the tag; GCM encryption: ciphertext and tag; GCM decryption: the flag (``m_tag_ok``)
    and, when the tag verifies, the plaintext. A FAIL record passes only when the core flags
    the tag as wrong."""
    if isinstance(v, CmacVector):
        return (True, "") if r.tag == v.tag else (False, "tag differs")
    if not v.decrypt:
        if r.out != v.ct:
            return False, "ciphertext differs"
        return (True, "") if r.tag == v.tag else (False, "tag differs")
    if v.fail:
        return (True, "") if r.tag_ok is False else (False, "a tag that does not verify was accepted")
    if not r.tag_ok:
        return False, "a tag that verifies was refused"
    return (True, "") if r.out == v.pt else (False, "plaintext differs")


def tampered(v: GcmVector) -> GcmVector:
    """A decryption record made from GCM record ``v`` with the tag's last bit flipped: the core
    must flag it (source: v's + " tampered tag")."""
    tag = v.tag[:-1] + bytes([v.tag[-1] ^ 1])
    return GcmVector(v.source + " tampered tag", v.key, v.iv, None, v.aad, v.ct, tag, decrypt=True, fail=True)


@dataclass
class SimReport:
    """Outcome of :func:`check_rtl`: vectors passed/total, failures [(source, reason)], and per
    vector (source, mode, payload or message bytes, additional-data bytes, latency in cycles: first
    input to last output handshake)."""

    passed: int = 0
    total: int = 0
    failures: list = field(default_factory=list)
    latencies: list = field(default_factory=list)


def check_rtl(vectors, key_table: int | None = 1, stall_seed: int | None = None,
              workdir: str | Path | None = None, sources: list[Path] | None = None,
              top: str = "aes_modes") -> SimReport:
    """Simulate the RTL (``KEY_TABLE`` = ``key_table``), or a netlist (``sources``, ``top``,
    ``key_table`` None, the key port driven), on known answers (one key group per distinct key,
    all in one Icarus run) and judge every response (:func:`judge`).

    Raises:
        InputError: a malformed record. SimulationError: Icarus missing or failing, a timeout.
    """
    grouped = group_vectors(vectors)
    res = simulate([(k, [request_of(v) for v in vs]) for k, vs in grouped], sources, top, key_table=key_table,
                   stall_seed=stall_seed, workdir=workdir)
    rep = SimReport(total=len(vectors))
    for (_, vs), rs in zip(grouped, res):
        for v, r in zip(vs, rs):
            ok, why = judge(v, r)
            rep.passed += ok
            if not ok:
                rep.failures.append((v.source, why))
            req = request_of(v)
            rep.latencies.append((v.source, req.mode, len(req.data), len(req.aad), r.latency))
    return rep
