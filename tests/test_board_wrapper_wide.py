"""The PYNQ-Z1 block design's AXI4-Lite wrapper (``flow/boards/dcs_axil_wrapper.v.j2``) for the π32- and
π64-Cipher message processors: rendered from the ports Yosys reads from the RTL (``W`` = 32 / 64: 256-
and 512-bit tags, 6- and 7-bit byte counts), driven by AXI register accesses in Icarus around the RTL
(key port tied to 0 by the wrapper, ``BUFFER_KEY=0``). Encrypting must give the golden model's
CIPHER for Key‖PMN = 0 (independent reference), and decrypting with the expected tag written to
TAG_IN must set tag_ok, with a wrong tag must not. A few seconds per word size."""

from __future__ import annotations

import json

import pytest
from _axi_tb import run_wrapper

from dcsflow.designs.picipher.sim import rtl_files
from dcsflow.flow.backend.vivado import render, template_context
from dcsflow.flow.yosys import run_script


@pytest.mark.parametrize("w", [32, 64])
def test_axi_lite_wrapper_runs_the_wide_message_processor(w, tmp_path):
    srcs = " ".join(str(p) for p in rtl_files())
    run_script(f"read_verilog {srcs}\nchparam -set W {w} -set KEY_BITS 128 picipher_mp\n"
               f"hierarchy -top picipher_mp\nproc\nwrite_json {tmp_path / 'ports.json'}\n", tmp_path, "ports")
    module = json.loads((tmp_path / "ports.json").read_text())["modules"]["picipher_mp"]
    ctx = template_context("picipher_mp", module, [], None, "xc7z020clg400-1", "key_mn")
    assert ctx["port_widths"]["tag"] == 8 * w and ctx["port_widths"]["m_bytes"] == {32: 6, 64: 7}[w]
    (tmp_path / "wrapper.v").write_text(render("boards/dcs_axil_wrapper.v.j2", ctx))
    msg = bytes((7 * i + 3) & 0xFF for i in range(w + 5))          # a full block and 5 bytes
    r = run_wrapper(tmp_path, w, [tmp_path / "wrapper.v", *rtl_files()], bytes(16), bytes(16), msg, rtl=True)
    assert r["cipher"] == r["expected"]
    assert r["plain"] == msg
    assert r["tag_ok"] == [0, 1, 0]                                  # encrypt; right tag; wrong tag
