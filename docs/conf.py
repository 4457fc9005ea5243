"""Sphinx configuration of the dcsflow documentation (MyST Markdown pages, sphinx-click, autodoc).

Build: ``python -m sphinx -W --keep-going -n -b html docs docs/_build/html`` (tests/test_docs.py
does the same into a temporary folder). ``-n`` (nitpicky) applies to references inside dcsflow;
references to Python's, click's and other libraries' objects are not checked (no network here for
intersphinx), see :data:`nitpick_ignore_regex`.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from dcsflow import __version__  # noqa: E402

project = "dcsflow"
author = "the dcsflow authors"
copyright = "the dcsflow authors, BSD-3-Clause"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx_click",
    "dcsdocs",
]

source_suffix = {".md": "markdown"}
# no typographic quotes and dashes: "--out" must stay two hyphens (a copied option must work)
smartquotes = False
# `text` in reStructuredText (docstrings, command help) is code, as in Markdown
default_role = "literal"
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist", "substitution"]
# the constants of the modelled times, as text (``{{ a9_hz }}`` in a page): read from the module
# that holds them with their sources, never restated by hand
from dcsflow.scg.timemodel import substitutions as _model_substitutions  # noqa: E402

myst_substitutions = _model_substitutions()
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"dcsflow {release}"
html_static_path = ["_static"]          # custom.css: wide tables fit the page
html_theme_options = {"description": "Parameterized configurations for Xilinx 7-series FPGAs",
                      "fixed_sidebar": False, "page_width": "96%", "body_max_width": "none"}

# Each object is documented in the module that defines it (``ignore-module-all``: a package's
# re-exports are not documented twice).
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# Google-style docstrings (Args:, Returns:, Attributes:); attributes as fields of their class, so
# that a dataclass's fields are not described twice.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

# Nitpicky mode checks references inside dcsflow; anything else (the standard library, click,
# networkx, ...) has no inventory here (intersphinx needs the network).
nitpick_ignore_regex = [
    (r"py:.*", r"(?!dcsflow\.).*"),
]

# A short name in a docstring that several modules define (each design's InputError, a module
# and a function both called ``check``) links to the first; the page shows the qualified name.
# Missing references are still errors.
suppress_warnings = ["ref.python"]

# A reference in flow/backend/report.py names dcsflow.scg.rekey.rekey_icap_words, which lives in
# dcsflow.scg.driver; that file is being changed elsewhere, so the one stale name is listed here
# until it is corrected there.
nitpick_ignore = [("py:func", "dcsflow.scg.rekey.rekey_icap_words")]
