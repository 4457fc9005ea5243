"""The AES-128 modes core's side of ``dcsflow check`` / ``check --frames`` (a
:class:`dcsflow.flow.check.DesignCheck`).

User parameter: ``key`` (128 bits, key byte 0 in the MSBs); circuit parameters: ``key`` and
``hkey`` = H = E_K(0^128) (the design's parameter transform, :func:`dcsflow.designs.aes_modes.design.hash_key_transform`). Vectors (:mod:`dcsflow.designs.aes_modes.vectors`,
read at run time from ``cryptography_vectors``): without ``--vectors`` a fixed set of
:func:`default_vectors` — the 4 CMAC examples of SP 800-38B, every :data:`PICK`-th kept record of
the CAVS GCM encryption and decryption files (decryption records whose tag does not verify
included) and one encryption record's ciphertext with a tampered tag (the core must flag it);
with ``--vectors FILE`` every kept record of one file in either format (:func:`read_vectors`).
Vectors that share a key share one specialized netlist, simulated on all of them in one Icarus run
with ``tb/tb_aes_modes.v``; the test bench drives the parameter ports with zeros (the specialized
netlist must not read them: the round keys, H and the CMAC subkeys are in the LUT contents).
"""

from __future__ import annotations

import re
from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.yosys import cells_sim

from . import vectors as V
from .sim import group_vectors, judge, request_of, simulate, tampered

#: parameter ports of the core (circuit parameters: the key and H = E_K(0^128)) and their widths
PARAMS = {"key": 128, "hkey": 128}
#: the default check takes every PICK-th kept record of each GCM file (375 kept each: 5 records,
#: spread over the files' sections of payload and additional-data lengths)
PICK = 75


def default_vectors() -> list:
    """The default check's known answers (module docstring): 4 CMAC, 5 GCM encryption, 5 GCM
    decryption records and one tampered tag.

    Raises:
        VectorFileError: cryptography_vectors missing or a file unreadable.
    """
    enc = V.load_gcm_encrypt().records
    return [*V.load_cmac().records, *enc[::PICK], *V.load_gcm_decrypt().records[::PICK], tampered(enc[0])]


_GCM = re.compile(r"^\s*(?:\[\s*IVlen\s*=|IV\s*=)", re.M)
_DECRYPT = re.compile(r"^\s*FAIL\s*$", re.M)


def read_vectors(path: str | Path) -> list:
    """Every kept record of one vector file: a CMAC file (SP 800-38B examples' or CAVP
    ``CMACGenAES128.rsp`` field names) or a CAVS GCM response file, encryption or decryption (a
    decryption file is recognised by its ciphertext coming before its plaintext or by a ``FAIL``
    record).

    Raises:
        VectorFileError: unreadable or malformed file (one line).
        CheckError: the file holds no record the core takes.
    """
    text = V.read_text(path)
    name = Path(path).name
    if _GCM.search(text):
        ct, pt = re.search(r"^\s*CT\s*=", text, re.M), re.search(r"^\s*PT\s*=", text, re.M)
        decrypt = bool(_DECRYPT.search(text)) or (ct is not None and (pt is None or ct.start() < pt.start()))
        vs = V.parse_gcm(text, name, decrypt)
    else:
        vs = V.parse_cmac(text, name)
    if not vs.records:
        raise CheckError(f"{path}: no record the core takes (128-bit key; GCM: 96-bit IV, 128-bit tag)")
    return vs.records


def run_group(work: Path, verilog: str, top: str, vectors: list):
    """Simulate one specialized netlist (text) on ``vectors`` (all with the key it was specialized
    for). Returns ([(ok, reason)] per vector, [(payload bytes, cycles from the first input to
    the last output)]).

    Raises:
        SimulationError: Icarus missing or failing, a timeout.
    """
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    reqs = [request_of(v) for v in vectors]
    res = simulate([(None, reqs)], [net, cells_sim()], top, key_table=None, workdir=work)[0]
    return [judge(v, r) for v, r in zip(vectors, res)], [(len(q.data), r.latency) for q, r in zip(reqs, res)]


def aes_modes_check(build, options: CheckOptions) -> DesignCheck:
    """:class:`DesignCheck` of an ``aes_modes`` build (module docstring).

    Raises:
        CheckError: the build's parameters are not the core's; the file holds no record the
            core takes. VectorFileError: unreadable vector file, package missing.
    """
    params = dict(build.manifest["params"])
    if params != PARAMS:
        raise CheckError(f"{build.path}: an AES-128 modes check needs the parameters {PARAMS}, "
                         f"the build has {params}")
    vecs = read_vectors(options.vectors) if options.vectors else default_vectors()
    index = {id(v): i for i, v in enumerate(vecs)}
    groups = [({"key": int.from_bytes(k, "big")}, [index[id(v)] for v in vs]) for k, vs in group_vectors(vecs)]
    return DesignCheck(vecs, groups, lambda v: v.source, run_group, vector_file=options.vectors)
