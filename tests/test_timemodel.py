"""The constants of the modelled times (:mod:`dcsflow.scg.timemodel`) are written once, with a source
each, and every reader takes them from there: the code, the benchmarks and the hand-written pages
restate none of their values."""

from __future__ import annotations

import re

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import timemodel as tm


def test_every_constant_has_a_unit_and_a_source():
    names = [c.name for c in tm.CONSTANTS]
    assert len(set(names)) == len(names)
    for c in tm.CONSTANTS:
        assert getattr(tm, c.name) is c, f"{c.name} is not the module attribute of that name"
        assert c.value > 0 and c.unit and c.what
        # a document, a published figure, a derivation or an assumption said as such
        assert re.search(r"\b(UG\d+|DS\d+|published|derived:|assumed|measured:|FACTS\.md|flow/boards)", c.source), \
            f"{c.name}: no source ({c.source!r})"


def test_hwicap_word_cost_is_the_published_tlut_figure_over_its_words():
    """0.211 µs per word = 230 µs per TLUT read-modify-write / the words of that sequence, counted by
    the back end's model of the vendor-style driver (an independent count of UG470 packets)."""
    from dcsflow.flow.backend.report import rmw_words_per_tlut

    assert tm.RMW_WORDS_PER_TLUT == rmw_words_per_tlut()
    assert tm.HWICAP_US_PER_WORD.value == pytest.approx(tm.HWICAP_US_PER_TLUT_RMW.value / rmw_words_per_tlut(),
                                                        abs=5e-4)


def test_helpers_convert_with_the_constants():
    assert tm.icap_us_per_word() == pytest.approx(0.01)           # 32 bit x 100 MHz = 400 MB/s
    assert tm.icap_us(532) == pytest.approx(5.32)
    assert tm.hwicap_us(1000) == pytest.approx(211.0)
    assert tm.a9_us(667) == pytest.approx(1.0)
    assert tm.pcap_us(145) == pytest.approx(4.0)
    assert tm.dma_us(150) == pytest.approx(1.0)
    assert tm.loader_us(130) == pytest.approx(1.3)
    subs = tm.substitutions()
    assert subs["a9_hz"] == "667 MHz" and subs["pcap_bytes_per_s"] == "145 MB/s"
    assert subs["icap_mbytes"] == "400 MB/s" and subs["hwicap_us_per_word"] == "0.211 µs"


#: a value of a constant written as a literal in code (Python) or in a hand-written page
_CODE = re.compile(r"\b(667e6|667_000_000|667\.0e6|650e6|0\.211\b|145e6|145\.0\b|600e6|AXI_US_PER_WORD\s*=|"
                   r"CPU_HZ\s*=|FABRIC_HZ\s*=|ICAP_US_PER_WORD\s*=|DMA_BYTES_PER_S\s*=)")
_PAGE = re.compile(r"(667 MHz|145 MB/s|600 MB/s|0\.211 µs|0\.2 µs|0\.01 µs)")


def test_no_reader_restates_a_constant():
    found = []
    for folder in ("flow", "scg", "tmap", "dcsflow", "benchmarks", "designs"):
        for f in sorted((REPO_ROOT / folder).rglob("*.py")):
            if f.name == "timemodel.py":
                continue
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if _CODE.search(line) and not line.lstrip().startswith("#"):
                    found.append(f"{f.relative_to(REPO_ROOT)}:{i}: {line.strip()}")
    docs = REPO_ROOT / "docs"
    for f in sorted(docs.rglob("*.md")):
        if "results" in f.relative_to(docs).parts or "_build" in f.parts:
            continue            # results pages are written by the benchmarks, from the module
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if _PAGE.search(line):
                found.append(f"{f.relative_to(REPO_ROOT)}:{i}: {line.strip()}")
    assert not found, "constants of the time models restated instead of read from dcsflow.scg.timemodel:\n" \
        + "\n".join(found)
