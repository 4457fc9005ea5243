"""Installs dcsflow: every module under the one import namespace ``dcsflow``.

The repository keeps one top-level folder per part of the pipeline; ``package_dir`` maps them into
the namespace (:data:`ROOTS`). ``pip install dcsflow`` without extras installs the runtime (the core
``dcsflow.*`` modules and ``dcsflow.scg``: ``python -m dcsflow.scg``) and no third-party package; the extra ``flow`` adds what the flow, the ``dcsflow`` command and the bundled designs need;
``test`` what the test suite needs; ``docs`` what building the documentation needs.
"""

import re
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup

here = Path(__file__).parent
version = re.search(r'__version__ = "([^"]+)"', (here / "dcsflow" / "__init__.py").read_text()).group(1)

#: installed package -> repository folder
ROOTS = {
    "dcsflow": "dcsflow",            # the core: AIG, affine records, atomic file output, tool locator
    "dcsflow.tmap": "tmap",          # TLUT mapper, PPC construction
    "dcsflow.scg": "scg",            # the runtime
    "dcsflow.scg.firmware": "firmware",  # C firmware, shipped so that `codegen --firmware DIR` works
    "dcsflow.flow": "flow",          # the pipeline and the dcsflow command
    "dcsflow.designs": "designs",    # bundled designs, one folder each
}


def _packages() -> list[str]:
    """Every package under :data:`ROOTS`; data folders (``designs/*/rtl``, ``scg/xc7/<part>``,
    ``flow/boards``, ...) are namespace packages, so every file the flow reads at run time is in the
    wheel (tests/test_wheel.py)."""
    out = []
    for name, folder in ROOTS.items():
        out.append(name)
        if name in ("dcsflow", "dcsflow.scg.firmware"):
            continue
        out += [f"{name}.{p}" for p in find_namespace_packages(where=str(here / folder),
                                                               exclude=["__pycache__", "*.__pycache__"])]
    return out


FLOW_REQUIRES = [
    "click>=8.1",
    "rich>=13",
    "networkx>=3",
    "matplotlib>=3.6",
    # AES-128 designs: golden model and the NIST CAVP KAT vectors
    "cryptography>=41",
    "cryptography_vectors>=41",
    # `dcsflow check` of a dcsflow.toml project: the user's cocotb test, Icarus as simulator
    "cocotb>=2",
    "tomli>=2; python_version < '3.11'",
    # Vivado back end: vivado/ files rendered from flow/templates/vivado/*.j2 and board templates
    "jinja2>=3",
]

#: the documentation (docs/: Sphinx, MyST Markdown pages, the CLI reference from the click commands)
DOCS_REQUIRES = [
    "sphinx>=7",
    "myst-parser>=2",
    "sphinx-click>=5",
]

setup(
    name="dcsflow",
    version=version,
    description="Parameterized-configuration (TLUT/PPC/SCG) tool flow for Xilinx 7-series FPGAs",
    long_description=(here / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="BSD-3-Clause",
    python_requires=">=3.10",
    packages=_packages(),
    package_dir=ROOTS,
    include_package_data=True,
    package_data={"": ["*.v", "*.vh", "*.s", "*.inc", "*.json", "*.yaml", "*.db", "*.md", "SHA256SUMS",
                       "*.test-vectors", "*.tcl", "*.xdc", "*.j2", "*.txt"],
                  "dcsflow.scg.firmware": ["*.c", "*.h", "*.S", "*.ld", "Makefile"]},
    install_requires=[],            # the runtime: standard library only
    extras_require={
        "flow": FLOW_REQUIRES,
        "test": ["pytest>=7", "pytest-xdist>=3", "hypothesis>=6", "import-linter>=2",
                 "pycryptodome>=3.15",  # second DES (tests/test_tmap_des.py) and AES (FIPS-197 C.1) implementation, KMAC128 (tests/test_keccak_model.py)
                 *DOCS_REQUIRES],       # tests/test_docs.py builds the documentation
        "docs": DOCS_REQUIRES,
    },
    # compiled core of the TLUT mapper (tmap/cuts.py falls back to pure Python if it is missing)
    ext_modules=[Extension("dcsflow.tmap._cutsc", ["tmap/_cutsc.c"], optional=True, extra_compile_args=["-O2"])],
    entry_points={
        "console_scripts": ["dcsflow=dcsflow.flow.__main__:main"],
        # the bundled designs, registered exactly as a third-party package registers its own
        # (dcsflow.flow.design; `dcsflow designs` lists what is installed)
        "dcsflow.designs": [
            "picipher = dcsflow.designs.picipher.design:PICIPHER",
            "picipher128 = dcsflow.designs.picipher.design:PICIPHER128",
            "picipher_cis = dcsflow.designs.picipher.design:PICIPHER_CIS",
            "picipher32 = dcsflow.designs.picipher.design:PICIPHER32",
            "picipher32_cis = dcsflow.designs.picipher.design:PICIPHER32_CIS",
            "picipher64 = dcsflow.designs.picipher.design:PICIPHER64",
            "picipher64_cis = dcsflow.designs.picipher.design:PICIPHER64_CIS",
            "aes128_iter = dcsflow.designs.aes128.design:AES128_ITER",
            "aes128_pipe = dcsflow.designs.aes128.design:AES128_PIPE",
            "ppe = dcsflow.designs.ppe.design:PPE",
            "keccak = dcsflow.designs.keccak.design:KECCAK",
            "aes_modes = dcsflow.designs.aes_modes.design:AES_MODES",
        ],
    },
)
