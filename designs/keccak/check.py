"""The Keccak core's side of ``dcsflow check`` / ``check --frames`` (a :class:`dcsflow.flow.check.DesignCheck`).

User parameters (the design's parameter transform, :func:`dcsflow.designs.keccak.design.key_state_transform`):
``key`` (256 bits, key byte k in bits [8k +: 8]), ``key_len`` (bytes, 0..32), ``custom`` (1256 bits,
the KMAC128 customization string S, byte k in bits [8k +: 8]) and ``custom_len`` (bytes, 0..157).
Circuit parameters: those four, ``key_state`` (1600 bits, the state after the S and key blocks) and
``keyak_pack`` (240 bits, the Lake Keyak key pack).

Vectors: without ``--vectors`` a fixed set in every mode: the KMAC128 known answers of
:func:`dcsflow.designs.keccak.hashvec.kmac_vectors` (``--keys N`` keys, default 2, six messages each;
pycryptodome), five records each of the CAVP SHA3-256 and SHAKE128 short-message files
(:data:`SHORT_PICK`) and :func:`keyak_cases`: the first steps of the first Lake Keyak session
(wrapped, unwrapped, and unwrapped with a tampered tag and a tampered ciphertext, whose flag must
be set); about a minute. Icarus simulates the gate-level core at roughly 100 cycles per second,
so whole files take minutes (``--vectors FILE``, or ``benchmarks/keccak_bench.py``). With
``--vectors FILE``: every record of one ``.rsp`` file (SHA3-256, SHAKE128 or KMAC128,
:mod:`dcsflow.designs.keccak.hashvec`) or of a Lake Keyak file in ``LakeKeyak.txt``'s format
(:mod:`dcsflow.designs.keccak.vectors`: each session wrapped, its decryption records unwrapped).
Vectors that share a key (and KMAC customization string) share one specialized netlist; the hash
vectors (the key does not matter to them) run on the first group's netlist, or on one specialized
for the all-zero key when there is no keyed vector. Each netlist runs its vectors in one Icarus run with
``tb/tb_keccak.v``, the parameter ports driven with zeros: the specialized netlist must not read
them (the key is in the LUT contents and in the frames).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.yosys import cells_sim

from . import hashvec
from . import vectors as keyak_vectors
from .sim import MODE_KMAC128, HashRequest, keyak_ok, run_hash, session_requests

#: parameter ports of the core and their widths (manifest ``params`` of a build)
PARAMS = {"key": 256, "key_len": 6, "custom": 1256, "custom_len": 8, "key_state": 1600, "keyak_pack": 240}
#: default number of KMAC128 keys in a check
DEFAULT_KEYS = 2
#: the CAVP short-message records of the default check: every 34th SHA3-256 record (messages of
#: 0, 34, 68, 102, 136 bytes: the last fills a block exactly) and every 84th SHAKE128 record
SHORT_PICK = {"SHA3/SHA3_256ShortMsg.rsp": 34, "SHAKE/SHAKE128ShortMsg.rsp": 84}
#: steps of the first Lake Keyak session in the default check (messages of 0..17 bytes, two forgets)
KEYAK_STEPS = 9


@dataclass(frozen=True)
class KeyakCase:
    """A Lake Keyak session run as one sequence of operations on one netlist: ``pairs`` =
    ((:class:`KeyakRequest`, :class:`KeyakExpect`), ...) in order (a session's messages chain);
    ``source`` names it, ``key`` is its key (16..28 bytes). It passes when every operation does."""

    source: str
    key: bytes
    pairs: tuple
    mode: str = "lake-keyak"
    custom: bytes = b""


def keyak_file_cases(path) -> list[KeyakCase]:
    """Every session of a Lake Keyak known-answer file (``LakeKeyak.txt`` format): wrapped, its
    decryption records unwrapped.

    Raises:
        VectorFileError: unreadable or malformed file.
    """
    return session_cases(keyak_vectors.read_lake_keyak(path).sessions)


def session_cases(sessions: list, decrypt: bool = False) -> list[KeyakCase]:
    """One :class:`KeyakCase` per session (:class:`dcsflow.designs.keccak.vectors.Session`): wrapped
    (decryption records unwrapped), or with ``decrypt`` every message unwrapped (source + " unwrap")."""
    return [KeyakCase(s.source + (" unwrap" if decrypt else ""), s.key,
                      tuple(session_requests(s, pack=False, decrypt=decrypt))) for s in sessions]


def _tamper(pairs: list, index: int, field: str) -> tuple:
    """``pairs`` up to ``index`` with one bit of message ``index``'s tag or body flipped: the core
    must set its flag (the plaintext still leaves the core before the tag check, so the expected
    output is the decryption of the tampered ciphertext: the flipped bit at the same place)."""
    req, exp = pairs[index]
    data = bytearray(getattr(req, field))
    data[-1] ^= 0x01
    out = bytearray(exp.output)
    if field == "body":
        out[-1] ^= 0x01
    return (*pairs[:index], (dataclasses.replace(req, **{field: bytes(data)}),
                             dataclasses.replace(exp, output=bytes(out), tag_fail=True, source=exp.source + " tampered " + field)))


def keyak_cases(steps: int = KEYAK_STEPS) -> list[KeyakCase]:
    """The default Lake Keyak cases: the first ``steps`` steps of the bundled file's first session
    wrapped; the same unwrapped; unwrapped up to the last message with its tag tampered; and up to
    the first message with a body with its ciphertext tampered.

    Raises:
        VectorFileError: the bundled file is damaged.
    """
    s = keyak_vectors.load_lake_keyak().sessions[0]
    wrap = session_requests(s, pack=False)[:steps]
    unwrap = session_requests(s, pack=False, decrypt=True)[:steps]
    msgs = [i for i, (r, _) in enumerate(unwrap) if r.op == "unwrap"]
    body = next(i for i in msgs if unwrap[i][0].body)
    return [KeyakCase(f"{s.source} wrap", s.key, tuple(wrap)),
            KeyakCase(f"{s.source} unwrap", s.key, tuple(unwrap)),
            KeyakCase(f"{s.source} tampered tag", s.key, _tamper(unwrap, msgs[-1], "tag")),
            KeyakCase(f"{s.source} tampered ciphertext", s.key, _tamper(unwrap, body, "body"))]


def request_of(v: hashvec.HashVector, key_state: bytes | None = None) -> HashRequest:
    """The simulation request of vector ``v`` (output length = the expected output's)."""
    return HashRequest(hashvec.MODES[v.mode], v.message, len(v.expected), key=v.key, custom=v.custom,
                       key_state=key_state)


def requests_of(vectors: list) -> list:
    """The simulation requests of ``vectors`` (hash vectors and :class:`KeyakCase` sessions) in order."""
    out = []
    for v in vectors:
        if isinstance(v, KeyakCase):
            out += [r for r, _ in v.pairs]
        else:
            out.append(request_of(v))
    return out


def per_record(vectors: list, results: list) -> list[tuple[str, bool, str]]:
    """(source, ok, reason) per request of :func:`requests_of`: the output bytes equal the expected
    ones and ``m_last`` came on the final word only; a Lake Keyak operation also delivers the expected
    tag flag (:func:`dcsflow.designs.keccak.sim.keyak_ok`). ``results``: one per request."""
    out = []
    results = iter(results)
    for v in vectors:
        if isinstance(v, KeyakCase):
            out += [(e.source, *keyak_ok(e, next(results))) for _, e in v.pairs]
            continue
        r = next(results)
        if r.output != v.expected:
            out.append((v.source, False, f"{v.mode} output differs"))
        elif not r.last_ok:
            out.append((v.source, False, "m_last not on the final output word"))
        else:
            out.append((v.source, True, ""))
    return out


def compare(vectors: list, results: list) -> list[tuple[bool, str]]:
    """(ok, reason) per vector (:func:`per_record`); a Lake Keyak session passes when each of its
    operations does, else its reason names the first failing record."""
    recs = iter(per_record(vectors, results))
    oks = []
    for v in vectors:
        mine = [next(recs) for _ in (v.pairs if isinstance(v, KeyakCase) else (v,))]
        bad = [(src, why) for src, ok, why in mine if not ok]
        oks.append((not bad, (f"{bad[0][0]}: {bad[0][1]}" if isinstance(v, KeyakCase) else bad[0][1]) if bad else ""))
    return oks


def run_group(work: Path, verilog: str, top: str, vectors: list):
    """Simulate one specialized netlist (text, module ``keccak_core``) on ``vectors``, parameter
    ports at zero. Returns ([(ok, reason)] per vector, [(message bytes, cycles from the first input
    transfer to the first output word)] of the KMAC128 vectors).

    Raises:
        SimulationError: Icarus missing or failing, a timeout.
    """
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    reqs = requests_of(vectors)
    res = run_hash(reqs, workdir=work, sources=[net, cells_sim()], drive_params=False)
    return compare(vectors, res), kmac_cycles(reqs, res)


def kmac_cycles(requests: list, results: list) -> list[tuple[int, int]]:
    """(message bytes, cycles from the first input transfer to the first output word) of each
    KMAC128 request among ``requests`` (one result per request)."""
    return [(len(q.message), r.t_out_first - r.t_in_first) for q, r in zip(requests, results)
            if isinstance(q, HashRequest) and q.mode == MODE_KMAC128]


def conventional_verilog(build_dir: str | Path) -> str:
    """Structural Verilog (module ``keccak_core``) of the chosen conventional candidate of a
    finished build (:func:`dcsflow.flow.check.conventional_verilog`).

    Raises:
        CheckError: no report, no chosen candidate, its netlist missing, or not a keccak build.
    """
    from dcsflow.flow.check import conventional_verilog as conv

    top, text = conv(build_dir)
    if top != "keccak_core":
        raise CheckError(f"{build_dir}: not a keccak build (top {top})")
    return text


def user_params(key: bytes, custom: bytes) -> dict[str, int]:
    """The user parameter values of a KMAC128 key and customization string."""
    return {"key": int.from_bytes(key, "little"), "key_len": len(key),
            "custom": int.from_bytes(custom, "little"), "custom_len": len(custom)}


def default_vectors(keys: int) -> list[hashvec.HashVector]:
    """The fixed check set (module docstring) with ``keys`` KMAC128 keys.

    Raises:
        VectorFileError: pycryptodome or cryptography_vectors missing.
    """
    base = hashvec.cavp_dir()
    out: list = hashvec.kmac_vectors(keys=keys)
    for f, step in SHORT_PICK.items():
        out += hashvec.read_rsp(base / f)[::step]
    return out + keyak_cases()


def read_vectors(path) -> list:
    """The cases of one ``--vectors`` file: a Lake Keyak file (:func:`keyak_file_cases`) or a
    ``.rsp`` file (:func:`dcsflow.designs.keccak.hashvec.read_rsp`), told apart by the Keyak file's
    ``initialize with:`` line.

    Raises:
        VectorFileError: unreadable or malformed file.
    """
    if keyak_vectors.is_lake_keyak(path):
        return keyak_file_cases(path)
    return hashvec.read_rsp(path)


def keccak_check(build, options: CheckOptions) -> DesignCheck:
    """:class:`DesignCheck` of a Keccak core build (module docstring).

    Raises:
        CheckError: the build's parameters are not the core's, ``--keys`` below 1.
        VectorFileError: unreadable vector file, package missing.
    """
    params = dict(build.manifest["params"])
    if params != PARAMS:
        raise CheckError(f"{build.path}: a Keccak core check needs the parameters {PARAMS}, the build has {params}")
    if options.keys is not None and options.keys < 1:
        raise CheckError("--keys must be at least 1")
    vecs = read_vectors(options.vectors) if options.vectors else default_vectors(options.keys or DEFAULT_KEYS)
    groups: dict[tuple[bytes, bytes], list[int]] = {}
    hashes = []
    for i, v in enumerate(vecs):
        if v.mode in ("kmac128", "lake-keyak"):
            groups.setdefault((v.key, v.custom), []).append(i)
        else:
            hashes.append(i)
    if not groups:
        groups[(b"", b"")] = []
    first = next(iter(groups))
    groups[first] = hashes + groups[first]
    return DesignCheck(vecs, [(user_params(k, c), idx) for (k, c), idx in groups.items()],
                       lambda v: v.source, run_group, vector_file=options.vectors)
