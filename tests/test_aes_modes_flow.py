"""The whole flow on the aes_modes design: build (TLUT with KEY_TABLE=1: round keys, CMAC subkeys
and GHASH's multiplier by H from the PPC, H from the parameter transform; the conventional
candidates with KEY_TABLE=0), ``check`` on the default sample (CMAC examples, GCM encryption and
decryption records with FAIL records and a tampered tag, which the core must flag), a wrong tag in
a vector file is reported, ``check --frames``, the chosen conventional netlist on the same records
with its key port driven, ``rekey`` against the Python SCG and wrong keys as one error line,
codegen and the firmware natively and in QEMU (frame hashes equal the Python plan's), and the
targets: fewer slices at no greater LUT depth.

Opt-in: the build takes minutes on 2 cores, beyond the CI budget beside the rest of the suite.
``DCSFLOW_SLOW_TESTS=1`` runs it; ``DCSFLOW_AES_MODES_BUILD=DIR`` runs every step after the build on
a finished ``dcsflow build aes_modes --out DIR``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from _cli import one_line_error
from _firmware_check import firmware_rekeys_match_plan

GIVEN = os.environ.get("DCSFLOW_AES_MODES_BUILD")


def _gcm_lines(path: Path, first: int, n: int) -> str:
    """A section header block and ``n`` records of a CAVS GCM file, from record ``first`` on, cut
    from the file's own text (the same lines, a file of the same format)."""
    lines = path.read_text().splitlines()
    head = [ln for ln in lines[:40] if ln.startswith("[")]
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Count")]
    end = starts[first + n] if first + n < len(starts) else len(lines)
    return "\n".join(head + [""] + lines[starts[first]:end]) + "\n"


@pytest.mark.skipif(os.environ.get("DCSFLOW_SLOW_TESTS") != "1" and not GIVEN,
                    reason="aes_modes' whole flow takes minutes on 2 cores: set DCSFLOW_SLOW_TESTS=1 "
                           "(or DCSFLOW_AES_MODES_BUILD=DIR for a finished build)")
def test_aes_modes_whole_flow(tmp_path, dcsflow):
    from dcsflow.designs.aes_modes import sim, vectors as V
    from dcsflow.designs.aes_modes.check import PARAMS, default_vectors
    from dcsflow.designs.aes_modes.design import hash_key_transform
    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.flow.check import check_build, conventional_verilog
    from dcsflow.flow.yosys import cells_sim
    from dcsflow.scg import buildfolder as bf, rekey as rk

    if GIVEN is None:
        out = tmp_path / "b"
        rep = build(BuildOptions(design="aes_modes", out=out, progress=False)).report
    else:
        out = Path(GIVEN)
        rep = json.loads((out / "report.json").read_text())
        assert rep["design"] == "aes_modes"
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == PARAMS
    assert t["tluts"] > 0 and t["depth"] <= c["depth"], (t, c)
    be = rep["backend"]
    assert be["tlut"]["slices"] < be["conventional"]["slices"], (be["tlut"], be["conventional"])

    # check on the default sample: every record passes, the FAIL records and the tampered tag flagged
    res = check_build(out, progress=False)
    assert res.total == len(default_vectors()) == 15 and res.passed == res.total, res.failures[:3]

    # a wrong expected tag in a CMAC file is reported with its record's line, the good records pass
    cm = (V.cavp_dir() / V.CMAC_FILE).read_text()
    tag = V.load_cmac().records[1].tag.hex()
    bad = tag[:-1] + ("0" if tag[-1] != "0" else "1")
    assert cm.count(tag) == 1
    (tmp_path / "bad.txt").write_text(cm.replace(tag, bad))
    r = dcsflow("check", out, "--vectors", tmp_path / "bad.txt", "--quiet")
    assert r.returncode == 1 and "passed 3/4" in r.stdout and "bad.txt:" in r.stdout, r.stdout + r.stderr

    # check --frames on two GCM decryption records (one passes its tag, one FAILs)
    dec = V.load_gcm_decrypt().records
    i = next(k for k in range(len(dec) - 1) if dec[k].fail != dec[k + 1].fail)
    (tmp_path / "dec.rsp").write_text(_gcm_lines(V.cavp_dir() / V.GCM_DECRYPT_FILE, i, 2))
    r = dcsflow("check", out, "--frames", "--vectors", tmp_path / "dec.rsp", "--quiet")
    assert r.returncode == 0 and "passed 2/2" in r.stdout, r.stdout + r.stderr

    # the chosen conventional netlist on the same sample with its key port driven (H after reset)
    top, text = conventional_verilog(out)
    net = tmp_path / "conv.v"
    net.write_text(text)
    crep = sim.check_rtl(default_vectors(), key_table=None, workdir=tmp_path / "conv", sources=[net, cells_sim()],
                         top=top)
    assert crep.total == 15 and crep.passed == crep.total, crep.failures[:3]

    # rekey: the same frames as the Python SCG; bad keys are one line
    b = bf.load_build(out)
    key = bytes(range(16))
    vals = hash_key_transform({"key": int.from_bytes(key, "big")})
    r = dcsflow("rekey", out, "--param", f"key=0x{key.hex()}", "--to", "emulator", "--verify", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    py = rk.rekey(b, {p: vals[p] for p in b.ports}, "emulator", verify=True)
    assert d["frames"] == py.frames > 0 and d["icap_words"] == py.icap_words
    one_line_error(dcsflow("rekey", out, "--param", "key=0x" + "00" * 17, "--to", "emulator"), "key")

    # codegen, firmware natively and in QEMU: frame hash of every rekey equals the Python SCG's plan
    keys = [bytes(16), key, bytes(range(100, 116))]
    users = [{"key": int.from_bytes(k, "big")} for k in keys]
    assigns = [{p: hash_key_transform(u)[p] for p in b.ports} for u in users]
    firmware_rekeys_match_plan(dcsflow, out, b, assigns, tmp_path, users)     # the board gets the key alone
