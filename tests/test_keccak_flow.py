"""The whole flow on the keccak design: build (TLUT with KEY_STATE=1 + the conventional candidates
with KEY_STATE=0), ``check`` per mode on the default set (KMAC128 answers of pycryptodome, NIST CAVP
SHA3-256 / SHAKE128 records, Lake Keyak sessions with tampered tags and ciphertexts that the core
must flag), a tampered MAC is reported, ``check --frames`` on KMAC128 and on a Lake Keyak session,
the chosen conventional netlist on the same vectors with its key ports driven, ``rekey --param kmac=...``
against the Python SCG, wrong values as one error line, codegen and the firmware natively and in
QEMU (frame hashes equal the Python plan's), and the design's targets (fewer slices at no greater
LUT depth, fewer KMAC128 cycles).

Opt-in: the build takes ~6 min on 2 cores and the steps after it ~3 min, beyond the CI budget
beside the rest of the suite. ``DCSFLOW_SLOW_TESTS=1`` runs it; ``DCSFLOW_KECCAK_BUILD=DIR``
runs every step after the build on a finished ``dcsflow build keccak --out DIR``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from _cli import one_line_error
from _firmware_check import firmware_rekeys_match_plan

GIVEN = os.environ.get("DCSFLOW_KECCAK_BUILD")
SP800_185_KEY = bytes(range(0x40, 0x60)).hex()


@pytest.mark.skipif(os.environ.get("DCSFLOW_SLOW_TESTS") != "1" and not GIVEN,
                    reason="keccak's whole flow takes ~10 min on 2 cores: set DCSFLOW_SLOW_TESTS=1 "
                           "(or DCSFLOW_KECCAK_BUILD=DIR for a finished build)")
def test_keccak_whole_flow(tmp_path, dcsflow):
    from dcsflow.designs.keccak import hashvec
    from dcsflow.designs.keccak.check import PARAMS, compare, conventional_verilog, request_of
    from dcsflow.designs.keccak.design import kmac_values
    from dcsflow.designs.keccak.sim import run_hash
    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.flow.check import check_build
    from dcsflow.flow.yosys import cells_sim
    from dcsflow.scg import buildfolder as bf, rekey as rk

    if GIVEN is None:
        out = tmp_path / "b"
        rep = build(BuildOptions(design="keccak", out=out, progress=False)).report
    else:
        out = Path(GIVEN)
        rep = json.loads((out / "report.json").read_text())
        assert rep["design"] == "keccak"
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == PARAMS
    assert t["tluts"] > 0 and t["depth"] <= c["depth"], (t, c)
    be = rep["backend"]
    assert be["tlut"]["slices"] < be["conventional"]["slices"], (be["tlut"], be["conventional"])

    # check on the default set: every mode, 2 KMAC keys, 4 Lake Keyak cases; cycles of the one-block message
    res = check_build(out, progress=False)
    assert res.total == 22 + 4 and res.passed == res.total, res.failures[:3]
    cyc = dict(res.cycles)
    assert cyc[160] == 10 + 24 and cyc[8] == 1 + 24          # 160 bytes: 10 words of 128 bits

    # a tampered MAC is reported (the record's source line), the good one passes
    vs = hashvec.kmac_vectors(keys=1, per_key=3)
    bad = type(vs[1])(vs[1].mode, vs[1].message, bytes([vs[1].expected[0] ^ 1]) + vs[1].expected[1:],
                      vs[1].source, vs[1].key, vs[1].custom)
    (tmp_path / "bad.rsp").write_text(hashvec.format_rsp([vs[0], bad]))
    r = dcsflow("check", out, "--vectors", tmp_path / "bad.rsp", "--quiet")
    assert r.returncode == 1 and "passed 1/2" in r.stdout and "bad.rsp:" in r.stdout, r.stdout + r.stderr

    # check --frames: the specialized configuration frames decoded back into the netlist
    pick = hashvec.kmac_vectors(keys=2, per_key=2)
    (tmp_path / "sub.rsp").write_text(hashvec.format_rsp(pick))
    r = dcsflow("check", out, "--frames", "--vectors", tmp_path / "sub.rsp", "--quiet")
    assert r.returncode == 0 and f"passed {len(pick)}/{len(pick)}" in r.stdout, r.stdout + r.stderr

    # check --frames on one Lake Keyak session (the bundled file's third: an 18-byte key, 4 messages),
    # cut from the file's text: the same lines, a file of the same format
    from dcsflow.designs.keccak import vectors as kv

    lines = kv.LAKE_KEYAK_FILE.read_text().splitlines()
    sessions = kv.load_lake_keyak().sessions
    start = int(sessions[2].source.split(":")[1]) - 1
    end = int(sessions[3].source.split(":")[1]) - 2
    (tmp_path / "keyak.txt").write_text("\n".join(lines[start:end]) + "\n")
    r = dcsflow("check", out, "--frames", "--vectors", tmp_path / "keyak.txt", "--quiet")
    assert r.returncode == 0 and "passed 1/1" in r.stdout, r.stdout + r.stderr

    # the chosen conventional netlist on KMAC128 answers with its key ports driven: the same MACs,
    # two permutations more per message
    net = tmp_path / "conv.v"
    net.write_text(conventional_verilog(out))
    cv = hashvec.kmac_vectors(keys=1)
    cres = run_hash([request_of(v) for v in cv], workdir=tmp_path / "conv", sources=[net, cells_sim()])
    assert all(ok for ok, _ in compare(cv, cres))
    conv_cycles = {len(v.message): r.t_out_first - r.t_in_first for v, r in zip(cv, cres)}
    assert conv_cycles[160] == 1 + 3 * 24 > cyc[160]
    # ... and on the Lake Keyak cases of the check (key port driven), tampered ones flagged
    from dcsflow.designs.keccak.check import keyak_cases, requests_of

    kc = keyak_cases()
    kres = run_hash(requests_of(kc), workdir=tmp_path / "conv_keyak", sources=[net, cells_sim()])
    assert all(ok for ok, _ in compare(kc, kres))

    # rekey with the named value: the same frames as the Python SCG; bad values are one line
    b = bf.load_build(out)
    vals = kmac_values(SP800_185_KEY + ",4d7920546167676564", PARAMS)
    r = dcsflow("rekey", out, "--param", f"kmac={SP800_185_KEY},4d7920546167676564", "--to", "emulator",
                "--verify", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    py = rk.rekey(b, {p: vals[p] for p in b.ports}, "emulator", verify=True)
    assert d["frames"] == py.frames > 0 and d["icap_words"] == py.icap_words
    one_line_error(dcsflow("rekey", out, "--param", "kmac=" + "00" * 33, "--to", "emulator"), "0..32 bytes")
    one_line_error(dcsflow("rekey", out, "--param", "kmac=abc", "--to", "emulator"), "hex bytes")
    one_line_error(dcsflow("rekey", out, "--param", "keyak=" + "00" * 15, "--to", "emulator"), "16..28 bytes")
    r = dcsflow("rekey", out, "--param", "keyak=" + bytes(range(16)).hex(), "--to", "emulator", "--verify", "--json")
    assert r.returncode == 0, r.stderr

    # codegen, firmware natively and in QEMU: frame hash of every rekey equals the Python SCG's plan
    keys = [SP800_185_KEY, "00" * 16, bytes(range(16, 48)).hex() + "," + "61" * 157]
    full = [kmac_values(k, PARAMS) for k in keys]
    assigns = [{p: v[p] for p in b.ports} for v in full]
    users = [{p: v[p] for p in ("key", "key_len", "custom", "custom_len")} for v in full]
    firmware_rekeys_match_plan(dcsflow, out, b, assigns, tmp_path, users)     # the board gets the key alone
