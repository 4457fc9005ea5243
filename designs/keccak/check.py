"""The Keccak core's side of ``dcsflow check`` / ``check --frames`` (a :class:`dcsflow.flow.check.DesignCheck`).

User parameters (the design's parameter transform, :func:`dcsflow.designs.keccak.design.key_state_transform`):
``key`` (256 bits, key byte k in bits [8k +: 8]), ``key_len`` (bytes, 0..32), ``custom`` (1256 bits,
the KMAC128 customization string S, byte k in bits [8k +: 8]) and ``custom_len`` (bytes, 0..157).
Circuit parameters: those four and ``key_state`` (1600 bits, the state after the S and key blocks).

Vectors: without ``--vectors`` a fixed set in every mode: the KMAC128 known answers of
:func:`dcsflow.designs.keccak.hashvec.kmac_vectors` (``--keys N`` keys, default 2, six messages each;
pycryptodome) and five records each of the CAVP SHA3-256 and SHAKE128 short-message files
(:data:`SHORT_PICK`): about 20 s. Icarus simulates the gate-level core at roughly 100 cycles per
second, so the whole short-message files take minutes (``--vectors FILE``, or
``benchmarks/keccak_bench.py``). With ``--vectors FILE``: every record of one ``.rsp`` file
(SHA3-256, SHAKE128 or KMAC128, :mod:`dcsflow.designs.keccak.hashvec`). KMAC128 vectors that share
a key and customization string share one specialized netlist; the hash vectors (the key does not
matter to them) run on the first group's netlist, or on one specialized for the all-zero key when
there is no KMAC128 vector. Each netlist runs its vectors in one Icarus run with
``tb/tb_keccak.v``, the parameter ports driven with zeros: the specialized netlist must not read
them (the key is in the LUT contents and in the frames).
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.yosys import cells_sim

from . import hashvec
from .sim import HashRequest, run_hash

#: parameter ports of the core and their widths (manifest ``params`` of a build)
PARAMS = {"key": 256, "key_len": 6, "custom": 1256, "custom_len": 8, "key_state": 1600}
#: default number of KMAC128 keys in a check
DEFAULT_KEYS = 2
#: the CAVP short-message records of the default check: every 34th SHA3-256 record (messages of
#: 0, 34, 68, 102, 136 bytes: the last fills a block exactly) and every 84th SHAKE128 record
SHORT_PICK = {"SHA3/SHA3_256ShortMsg.rsp": 34, "SHAKE/SHAKE128ShortMsg.rsp": 84}


def request_of(v: hashvec.HashVector, key_state: bytes | None = None) -> HashRequest:
    """The simulation request of vector ``v`` (output length = the expected output's)."""
    return HashRequest(hashvec.MODES[v.mode], v.message, len(v.expected), key=v.key, custom=v.custom,
                       key_state=key_state)


def compare(vectors: list, results: list) -> list[tuple[bool, str]]:
    """(ok, reason) per vector: the output bytes equal the expected ones and ``m_last`` came on the
    final word only."""
    oks = []
    for v, r in zip(vectors, results):
        if r.output != v.expected:
            oks.append((False, f"{v.mode} output differs"))
        elif not r.last_ok:
            oks.append((False, "m_last not on the final output word"))
        else:
            oks.append((True, ""))
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
    res = run_hash([request_of(v) for v in vectors], workdir=work, sources=[net, cells_sim()],
                   drive_params=False)
    cycles = [(len(v.message), r.t_out_first - r.t_in_first) for v, r in zip(vectors, res) if v.mode == "kmac128"]
    return compare(vectors, res), cycles


def conventional_verilog(build_dir: str | Path) -> str:
    """Structural Verilog (module ``keccak_core``) of the chosen conventional candidate of a
    finished build (``report.json`` ``conventional.baseline``, ``baselines/<name>/netlist.json``),
    written by :func:`dcsflow.flow.netlist.write_verilog`: one net per bit, which Icarus simulates
    at the speed of the specialized netlists (Yosys's ``write_verilog`` keeps wide vectors whose
    every bit change re-evaluates the whole vector: far slower on this core).

    Raises:
        CheckError: no report, no chosen candidate, or its netlist is missing.
    """
    from dcsflow.fileio import InputError as FileInputError, NETLIST_LIMIT, load_json_file
    from dcsflow.flow import netlist as nl

    b = Path(build_dir)
    try:
        name = load_json_file(b / "report.json")["conventional"]["baseline"]
        mod = load_json_file(b / "baselines" / str(name) / "netlist.json", NETLIST_LIMIT)["modules"]["keccak_core"]
    except (OSError, KeyError, TypeError, ValueError, FileInputError) as e:
        raise CheckError(f"{b}: no conventional netlist of a keccak build ({type(e).__name__})") from None
    return nl.write_verilog(mod, "keccak_core")


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
    out = hashvec.kmac_vectors(keys=keys)
    for f, step in SHORT_PICK.items():
        out += hashvec.read_rsp(base / f)[::step]
    return out


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
    vecs = hashvec.read_rsp(options.vectors) if options.vectors else default_vectors(options.keys or DEFAULT_KEYS)
    groups: dict[tuple[bytes, bytes], list[int]] = {}
    hashes = []
    for i, v in enumerate(vecs):
        if v.mode == "kmac128":
            groups.setdefault((v.key, v.custom), []).append(i)
        else:
            hashes.append(i)
    if not groups:
        groups[(b"", b"")] = []
    first = next(iter(groups))
    groups[first] = hashes + groups[first]
    return DesignCheck(vecs, [(user_params(k, c), idx) for (k, c), idx in groups.items()],
                       lambda v: v.source, run_group)
