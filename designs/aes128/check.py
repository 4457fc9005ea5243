"""The AES-128 cores' side of ``dcsflow check`` / ``check --frames`` (a :class:`dcsflow.flow.check.DesignCheck`).

Parameter input: ``key`` (128 bits, key byte 0 in the MSBs). Vectors: the NIST CAVP AES-128 ECB
KAT files (:func:`dcsflow.designs.aes128.vectors.load_kat`, 284 encryption vectors, 150 distinct
keys), or one CAVP response file given with ``--vectors``. Vectors that share a key share one
specialized netlist, simulated on all their plaintexts in one Icarus run with the test bench
``tb/tb_aes128.v``; the test bench drives the key port with zeros (the TLUT netlist does not read
it: the key is in the LUT contents).
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.yosys import cells_sim

from .sim import group_vectors, simulate_groups
from .vectors import load_kat, read_rsp

#: parameter port of both cores and its width
KEY_PORT, KEY_BITS = "key", 128


def run_group(work: Path, verilog: str, top: str, vectors: list):
    """Simulate one specialized netlist (text) on ``vectors`` (all with the key it was specialized
    for). Returns ([(ok, reason)] per vector, [(blocks, cycles)]).

    Raises:
        SimulationError: Icarus missing or failing, timeout.
    """
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    res = simulate_groups([(bytes(16), [v.plaintext for v in vectors])], [net, cells_sim()], top,
                          workdir=work)[0]
    oks = []
    for i, v in enumerate(vectors):
        got = res.ciphertexts[i] if i < len(res.ciphertexts) else None
        oks.append((got == v.ciphertext, "" if got == v.ciphertext else "no output" if got is None
                    else "ciphertext differs"))
    return oks, [(len(vectors), res.cycles)]


def aes_check(build, options: CheckOptions) -> DesignCheck:
    """:class:`DesignCheck` of an AES-128 build (module docstring).

    Raises:
        CheckError: the build's parameter is not a 128-bit ``key``, or the file holds no
        encryption vectors. VectorFileError: unreadable vector file / package missing.
    """
    params = dict(build.manifest["params"])
    if params != {KEY_PORT: KEY_BITS}:
        raise CheckError(f"{build.path}: an AES-128 check needs one parameter '{KEY_PORT}' of {KEY_BITS} bits, "
                         f"the build has {params}")
    vecs = read_rsp(options.vectors) if options.vectors else load_kat()
    if not vecs:
        raise CheckError(f"{options.vectors}: no [ENCRYPT] records")
    index = {id(v): i for i, v in enumerate(vecs)}
    groups = [({KEY_PORT: int.from_bytes(k, "big")}, [index[id(v)] for v in vs]) for k, vs in group_vectors(vecs)]
    return DesignCheck(vecs, groups, lambda v: v.source, run_group, vector_file=options.vectors)
