"""``dcsflow sim`` and ``dcsflow demo`` (the main job)."""

from __future__ import annotations

import pytest

from dcsflow.designs.picipher import model
from dcsflow.designs.picipher.errors import VectorFileError

GOOD = """[vector #1 (1)]
KEY (12) = 25CFA7958E16A944F11F17EB
NPUB (4) = ECDD50A8
NSEC (0) = 
MSG (0) = 
AD (0) = 
CIPHER (16) = A064CCE52F3C59C2222264761857DC1F
"""


def _record(num, key, pmn, msg, ad=b"", cipher=None):
    cipher = cipher if cipher is not None else model.encrypt(key, pmn, msg, ad)
    h = lambda b: b.hex().upper()  # noqa: E731
    return (f"[vector #{num} ({num})]\nKEY ({len(key)}) = {h(key)}\nNPUB (4) = {h(pmn)}\n"
            f"MSG ({len(msg)}) = {h(msg)}\nAD ({len(ad)}) = {h(ad)}\nCIPHER ({len(cipher)}) = {h(cipher)}\n\n")


@pytest.mark.main_job
def test_demo_main_job_builds_and_checks_both_designs(builds):
    """The README's main job: build picipher and picipher_cis, check each on the 25 official
    no-AD/no-SMN vectors of the 96-bit key (and aes128_iter on a CAVP file). Run once per test
    session (its builds are the session's builds of these designs: tests/_buildcache.py)."""
    r = builds.demo()
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "picipher: check passed 25/25" in r.stdout
    assert "picipher_cis: check passed 25/25" in r.stdout
    assert "aes128_iter: check on ECBKeySbox128.rsp passed 21/21" in r.stdout      # the demo ends with aes128_iter
    assert (r.out / "picipher" / "report.json").is_file()
    assert (r.out / "picipher_cis" / "report.json").is_file()
    # every table fits 80 columns; the final table shows full design names
    assert max(map(len, r.stdout.splitlines())) <= 80 and "…" not in r.stdout
    assert "│ picipher_cis " in r.stdout.split("TLUT implementations")[-1]
    assert "build picipher_cis: backend done in" in r.stderr and "check picipher_cis: simulation done in" in r.stderr
    # the demo's builds have the figures of the table (tests/test_build_figures.py)
    from _build_figures import compare

    for d in ("picipher", "picipher_cis", "aes128_iter"):
        assert compare(r.out / d, ci_form=True) == [], d


def test_sim_official_vectors_both_key_sizes(dcsflow):
    for design in ("picipher", "picipher128"):
        r = dcsflow("sim", design)
        assert r.returncode == 0, r.stderr
        assert "passed 75/75" in r.stdout


def test_sim_counts_skipped_and_fails_on_a_wrong_record(dcsflow, tmp_path):
    key, pmn = bytes(range(12)), b"abcd"
    good = model.encrypt(key, pmn, b"hello, world 1234")
    bad = bytes([good[0] ^ 0x80]) + good[1:]
    f = tmp_path / "mine.test-vectors"
    f.write_text(GOOD + "\n" + _record(2, key, pmn, b"x", ad=b"ad")
                 + _record(3, key, pmn, b"hello, world 1234", cipher=bad))
    r = dcsflow("sim", "picipher", "--vectors", f)
    assert r.returncode == 1
    assert "passed 4/6" in r.stdout and "skipped 1" in r.stdout
    f.write_text(GOOD + "\n" + _record(2, key, pmn, b"x", ad=b"ad") + _record(3, key, pmn, bytes(40)))
    r = dcsflow("sim", "picipher", "--vectors", f, "--buffer-key", "--stall", "5")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "passed 6/6" in r.stdout


def test_sim_malformed_file_names_file_and_line(dcsflow, tmp_path):
    f = tmp_path / "broken.test-vectors"
    f.write_text(GOOD.replace("NPUB (4) = ECDD50A8", "NPUB (4) = ECDD50A"))
    r = dcsflow("sim", "picipher", "--vectors", f)
    assert r.returncode == 1
    assert "broken.test-vectors:3:" in r.stderr and "Traceback" not in r.stderr


def test_sim_malformed_key_line_is_not_quoted(dcsflow, tmp_path):
    """A record line that does not parse may be a key with a typo: named by file and line only."""
    key = GOOD.split("KEY (12) = ")[1].split("\n")[0]
    typo = key[:-1] + "G"
    f = tmp_path / "typo.test-vectors"
    f.write_text(GOOD.replace(key, typo))
    assert typo in f.read_text()
    r = dcsflow("sim", "picipher", "--vectors", f)
    assert r.returncode == 1 and "typo.test-vectors:2: not a vector record line" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert not any(typo[i:i + 6] in r.stderr for i in range(len(typo) - 5)), r.stderr


def test_sim_key_size_mismatch_is_one_line(dcsflow, tmp_path):
    f = tmp_path / "v.test-vectors"
    f.write_text(GOOD)
    r = dcsflow("sim", "picipher128", "--vectors", f)
    assert r.returncode == 1
    assert r.stderr.startswith("error:") and "96-bit key" in r.stderr and "Traceback" not in r.stderr


def test_sim_missing_file_and_bad_design(dcsflow, tmp_path):
    r = dcsflow("sim", "picipher", "--vectors", tmp_path / "none")
    assert r.returncode == 1 and "not found" in r.stderr
    r = dcsflow("sim", "aes")
    assert r.returncode == 2


def test_picipher_encrypt_decrypt_match_official_record(dcsflow):
    # vector #9 of pi16cipher096v2_4 (no SMN, empty message and AD)
    r = dcsflow("picipher", "encrypt", "--key", "25CFA7958E16A944F11F17EB", "--pmn", "ECDD50A8")
    assert r.returncode == 0 and r.stdout.strip() == "A064CCE52F3C59C2222264761857DC1F"
    r = dcsflow("picipher", "decrypt", "--key", "25CFA7958E16A944F11F17EB", "--pmn", "ECDD50A8",
                "--cipher", "A064CCE52F3C59C2222264761857DC1E")
    assert r.returncode == 1 and r.stdout == "" and r.stderr.startswith("error: tag mismatch")


def test_picipher_bad_input_names_expected_size(dcsflow):
    r = dcsflow("picipher", "encrypt", "--key", "00" * 13, "--pmn", "00" * 4)
    assert r.returncode == 1 and "12 bytes" in r.stderr and "16 bytes" in r.stderr
    r = dcsflow("picipher", "params", "--key", "00" * 12, "--pmn", "0g0000")
    assert r.returncode == 1 and "PMN" in r.stderr and "4 bytes (8 hex digits)" in r.stderr
    assert "Traceback" not in r.stderr


def test_picipher_params_agree_with_model(dcsflow):
    key, pmn = bytes(range(16)), b"\x01\x02\x03\x04"
    r = dcsflow("picipher", "params", "--key", key.hex(), "--pmn", pmn.hex())
    assert r.returncode == 0
    assert f"cis_param 448'h{model.cis_parameters(key, pmn).as_int():0112X}" in r.stdout
    assert "key_mn    160'h000102030405060708090A0B0C0D0E0F01020304" in r.stdout


def test_picipher_wide_encrypt_decrypt_match_official_records(dcsflow):
    """--word 32/64: the golden model's command line on official π32/π64 records (read from the
    shipped files): one without SMN, one with (CIPHER = C0 || C || tag)."""
    from dcsflow.designs.picipher.vectors import load_official

    for w, bits in ((32, 256), (64, 128)):
        vs = load_official(bits, w)
        for v in (next(v for v in vs if v.smn is None and v.msg), next(v for v in vs if v.smn and len(v.msg) > w)):
            args = ["--word", str(w), "--key", v.key.hex(), "--pmn", v.pmn.hex()]
            smn = ["--smn", v.smn.hex()] if v.smn else []
            r = dcsflow("picipher", "encrypt", *args, "--msg", v.msg.hex(), "--ad", v.ad.hex(), *smn)
            assert r.returncode == 0 and r.stdout.strip() == v.cipher.hex().upper(), (w, v.number, r.stderr)
            flag = ["--with-smn"] if v.smn else []
            r = dcsflow("picipher", "decrypt", *args, "--cipher", v.cipher.hex(), "--ad", v.ad.hex(), *flag)
            want = ([f"SMN {v.smn.hex().upper()}"] if v.smn else []) + [v.msg.hex().upper()]
            assert r.returncode == 0 and r.stdout.split("\n")[:len(want)] == want, (w, v.number, r.stderr)
            bad = bytes([v.cipher[0] ^ 1]) + v.cipher[1:]
            r = dcsflow("picipher", "decrypt", *args, "--cipher", bad.hex(), "--ad", v.ad.hex(), *flag)
            assert r.returncode == 1 and r.stdout == "" and r.stderr.startswith("error: tag mismatch")


def test_picipher_wide_bad_input_is_one_line(dcsflow):
    r = dcsflow("picipher", "encrypt", "--word", "64", "--key", "00" * 12, "--pmn", "00" * 16)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "π64-Cipher key" in r.stderr and "16 bytes (32 hex digits) or 32 bytes (64 hex digits)" in r.stderr
    r = dcsflow("picipher", "params", "--word", "32", "--key", "00" * 16, "--pmn", "00" * 4)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "π32-Cipher PMN (nonce) must be 16 bytes (32 hex digits), got 4 bytes" in r.stderr
    r = dcsflow("picipher", "encrypt", "--word", "32", "--key", "00" * 16, "--pmn", "00" * 16, "--smn", "00" * 16)
    assert r.returncode == 1 and "π32-Cipher SMN must be 32 bytes (64 hex digits)" in r.stderr
    r = dcsflow("picipher", "encrypt", "--word", "24", "--key", "00" * 16, "--pmn", "00" * 16)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_picipher_wide_params(dcsflow):
    key, pmn = bytes(range(32)), bytes(range(16))
    r = dcsflow("picipher", "params", "--word", "64", "--key", key.hex(), "--pmn", pmn.hex())
    assert r.returncode == 0, r.stderr
    p = model.PI64.cis_parameters(key, pmn)
    assert f"key_mn    384'h{(key + pmn).hex().upper()}" in r.stdout
    assert f"cis_param 1600'h{p.as_int():0400X}" in r.stdout


def test_sim_wide_designs_on_official_vectors(dcsflow):
    # every π-Cipher sim command takes the official record format; default: the design's own file
    for design, n in (("picipher32", 49), ("picipher64_256_cis", 97)):
        r = dcsflow("sim", design)
        assert r.returncode == 0, r.stdout[-1000:] + r.stderr
        assert f"passed {3 * n}/{3 * n}" in r.stdout
    from dcsflow.designs.picipher.vectors import official_file

    r = dcsflow("sim", "picipher64", "--vectors", official_file(128, 32))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == "error: vector #1 is a π32-Cipher record; design expects π64-Cipher"
    r = dcsflow("sim", "picipher", "--vectors", official_file(256, 64))
    assert r.returncode == 1 and "design expects π16-Cipher" in r.stderr and "Traceback" not in r.stderr


def test_wide_designs_are_installed(dcsflow):
    import json

    r = dcsflow("designs", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for w in (32, 64):
        assert d[f"picipher{w}"]["check"] and d[f"picipher{w}_cis"]["check"]
        assert d[f"picipher{w}_cis"]["user_params"] == {"key_mn": 256}
        assert d[f"picipher{w}"]["origin"].startswith(f"entry point picipher{w} ")


def test_wide_cis_transform_matches_the_model():
    from dcsflow.designs.picipher.design import PICIPHER64_CIS

    key, pmn = bytes(range(16)), bytes(range(50, 66))
    got = PICIPHER64_CIS.circuit_values({"key_mn": int.from_bytes(key + pmn, "big")})
    assert got == {"cis_param": model.PI64.cis_parameters(key, pmn).as_int()}
    assert got["cis_param"] < 1 << 1600


def _wide_record(v, key=None, pmn=None):
    key, pmn = key if key is not None else v.key, pmn if pmn is not None else v.pmn
    h = lambda b: b.hex().upper()  # noqa: E731
    return (f"[vector #{v.number} ({v.number})]\nKEY ({len(key)}) = {h(key)}\nNPUB ({len(pmn)}) = {h(pmn)}\n"
            f"MSG ({len(v.msg)}) = {h(v.msg)}\nAD (0) = \nCIPHER ({len(v.cipher)}) = {h(v.cipher)}\n\n")


def test_wide_check_refuses_records_of_another_key_or_word_size(tmp_path):
    """``dcsflow check`` of a picipher32/64 build: a record (without AD and SMN) with a key or nonce of
    another size than the design's is an error naming the record, not a silent skip, even among good
    records; nothing is simulated (the build is a stub: the refusal comes first)."""
    from types import SimpleNamespace

    from dcsflow.designs.picipher.check import pi16_check, select_vectors
    from dcsflow.designs.picipher.vectors import load_official
    from dcsflow.flow.design import CheckError, CheckOptions

    build = SimpleNamespace(manifest={"params": {"key_mn": 256}}, path=tmp_path / "b")
    for w in (32, 64):
        good = select_vectors(load_official(128, w), 128, w)[0]
        k256 = select_vectors(load_official(256, w), 256, w)[0]
        pi16 = select_vectors(load_official(96), 96)[0]
        cases = {"256-bit key; design expects 128": _wide_record(good) + _wide_record(k256),
                 f"is a π16-Cipher record; design expects π{w}-Cipher": _wide_record(pi16) + _wide_record(good)}
        for msg, text in cases.items():
            f = tmp_path / "v.txt"
            f.write_text(text)
            with pytest.raises(CheckError, match=msg):
                pi16_check(build, CheckOptions(vectors=f), key_bits=128, cis=False, word_bits=w)
        f.write_text(_wide_record(good, pmn=good.pmn[:4]))            # a 4-byte nonce with a π32/π64 tag
        with pytest.raises(VectorFileError, match="CIPHER must be 16 bytes"):
            pi16_check(build, CheckOptions(vectors=f), key_bits=128, cis=False, word_bits=w)
        f.write_text(_wide_record(good, key=good.key[:12]))           # a 12-byte (π16) key
        with pytest.raises(VectorFileError, match=f"KEY must be 16 or 32 bytes for π{w}-Cipher, got 12"):
            pi16_check(build, CheckOptions(vectors=f), key_bits=128, cis=False, word_bits=w)
        f.write_text(_wide_record(good))
        chk = pi16_check(build, CheckOptions(vectors=f), key_bits=128, cis=False, word_bits=w)
        assert chk.groups == [({"key_mn": int.from_bytes(good.key + good.pmn, "big")}, [0])]


def test_wide_sim_refuses_a_key_of_another_size(dcsflow, tmp_path):
    from dcsflow.designs.picipher.check import select_vectors
    from dcsflow.designs.picipher.vectors import load_official

    v = select_vectors(load_official(256, 32), 256, 32)[0]
    f = tmp_path / "v.txt"
    f.write_text(_wide_record(v))
    r = dcsflow("sim", "picipher32", "--vectors", f)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"error: vector #{v.number} has a 256-bit key; design expects 128"
    f.write_text(_wide_record(v, key=v.key[:12]))
    r = dcsflow("sim", "picipher64_cis", "--vectors", f)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert "KEY must be 16 or 32 bytes for π32-Cipher, got 12" in r.stderr
