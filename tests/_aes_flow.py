"""The AES-128 flow test (tests/test_aes128_flow_*.py): one build per core, every step on it in one
test function (pytest-xdist would build a module fixture once per worker)."""

from __future__ import annotations

import subprocess

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl, rekey as rk

FW = REPO_ROOT / "firmware"


def subset_rsp(path, vectors) -> None:
    """Write ``vectors`` as a CAVP response file (format of designs.aes128.vectors.read_rsp)."""
    lines = ["[ENCRYPT]", ""]
    for i, v in enumerate(vectors):
        lines += [f"COUNT = {i}", f"KEY = {v.key.hex()}", f"PLAINTEXT = {v.plaintext.hex()}",
                  f"CIPHERTEXT = {v.ciphertext.hex()}", ""]
    path.write_text("\n".join(lines))


def rekey_cli(dcsflow, build, tmp_path):
    """dcsflow rekey: JSON figures equal the Python SCG's; a key of the wrong size is one error line."""
    import json

    key = "2b7e151628aed2a6abf7158809cf4f3c"
    r = dcsflow("rekey", build, "--param", f"key={key}", "--to", "emulator", "--verify", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    py = rk.rekey(bf.load_build(build), {"key": int(key, 16)}, "emulator", verify=True)
    assert d["frames"] == py.frames > 0 and d["icap_words"] == py.icap_words
    r = dcsflow("rekey", build, "--param", "key=" + "0" * 30, "--to", "emulator")
    assert r.returncode == 1 and r.stderr.startswith("error: ") and "128 bits" in r.stderr
    assert "Traceback" not in r.stderr
    r = dcsflow("rekey", build, "--param", "key=" + "g" * 32, "--to", "emulator")
    assert r.returncode == 1 and "not hex" in r.stderr and "128 bits" in r.stderr


def firmware_host_and_qemu(dcsflow, build, tmp_path, keys):
    """codegen, then the firmware against the C model natively and in QEMU: frame hash of every
    rekey equals the Python SCG's plan."""
    gen, out = tmp_path / "gen", tmp_path / "fw"
    r = dcsflow("codegen", build, "--out", gen)
    assert r.returncode == 0, r.stderr
    # -O0: the generated C of aes128_iter (2 MB) takes ~1 min per target at -O2 and ~10 s at -O0;
    # this test checks results, benchmarks/aes_bench.py counts instructions of the -O2 build
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={out}", "OPT=-O0", "host", "qemu"], check=True,
                   capture_output=True)
    b = bf.load_build(build)
    cmds = ["verify on"] + [f"rekey {k}" for k in keys]
    host = subprocess.run([str(out / "host" / "scg_host"), *cmds], capture_output=True, text=True, timeout=300)
    q = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config",
                        f"enable=on,target=native,arg=scg,arg={';'.join(cmds)}",
                        "-kernel", str(out / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=300)
    texts = [host.stdout, q.stdout + q.stderr]
    gen_style = (gen / "scg_gen.h").read_text()
    if 'SCG_GEN_STYLE "table"' not in gen_style:
        # the other code style too (table-driven loops, chosen by default for large PPCs), natively
        gt, ot = tmp_path / "gen_table", tmp_path / "fw_table"
        r = dcsflow("codegen", build, "--out", gt, "--style", "table")
        assert r.returncode == 0 and "(table code)" in r.stdout, r.stderr
        subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gt}", f"BUILD={ot}", "host"], check=True,
                       capture_output=True)
        texts.append(subprocess.run([str(ot / "host" / "scg_host"), *cmds], capture_output=True, text=True,
                                    timeout=300).stdout)
    for text in texts:
        res = [dict(kv.split("=") for kv in line.split()[1:]) for line in text.splitlines()
               if line.startswith("rekey ")]
        assert len(res) == len(keys), text[-500:]
        for k, d in zip(keys, res):
            assert d["rc"] == "0"
            assert d["hash"] == pl.frames_hash(pl.plan(b, {"key": int(k, 16)}).frames, b.device)



def whole_flow(design: str, tmp_path, dcsflow, build_dir=None) -> dict:
    """Build ``design`` (TLUT + conventional), check the TLUT build on all 284 CAVP KAT vectors
    (independent reference: the response files), a wrong ciphertext is reported, ``check --frames``
    on vectors of 7 keys, rekey, codegen and the firmware natively and in QEMU. Returns the report."""
    from dcsflow.designs.aes128.vectors import load_kat
    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.flow.check import check_build

    if build_dir is None:
        out = tmp_path / "b"
        rep = build(BuildOptions(design=design, out=out, progress=False)).report
    else:                     # a finished build folder of this design (slow designs, by hand)
        import json
        from pathlib import Path

        out = Path(build_dir)
        rep = json.loads((out / "report.json").read_text())
        assert rep["design"] == design
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == {"key": 128}
    assert t["tluts"] > 0 and t["ppc_ands"] > 0 and t["luts"] < c["luts"]

    res = check_build(out, progress=False)
    assert res.total == 284 and res.passed == 284, res.failures[:3]

    vs = load_kat()
    bad = type(vs[10])(vs[10].source, vs[10].key, vs[10].plaintext,
                       bytes([vs[10].ciphertext[0] ^ 1]) + vs[10].ciphertext[1:])
    subset_rsp(tmp_path / "bad.rsp", [vs[10], bad])
    r = dcsflow("check", out, "--vectors", tmp_path / "bad.rsp", "--quiet")
    assert r.returncode == 1 and "passed 1/2" in r.stdout and "bad.rsp:ENCRYPT:1" in r.stdout, r.stdout + r.stderr

    pick = vs[7:28:4] + vs[0:2]                      # KeySbox keys and the zero key
    subset_rsp(tmp_path / "sub.rsp", pick)
    r = dcsflow("check", out, "--frames", "--vectors", tmp_path / "sub.rsp", "--quiet")
    assert r.returncode == 0 and f"passed {len(pick)}/{len(pick)}" in r.stdout, r.stdout + r.stderr

    rekey_cli(dcsflow, out, tmp_path)
    firmware_host_and_qemu(dcsflow, out, tmp_path, [v.key.hex() for v in vs[7:10]] + ["f" * 32])
    return rep
