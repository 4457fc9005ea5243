"""Installs the packages flow, tmap, scg and designs, and the console script ``dcsflow``."""

import re
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup

here = Path(__file__).parent
version = re.search(r'__version__ = "([^"]+)"', (here / "flow" / "__init__.py").read_text()).group(1)

setup(
    name="dcsflow",
    version=version,
    description="Parameterized-configuration (TLUT/PPC/SCG) tool flow for Xilinx 7-series FPGAs",
    long_description=(here / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="BSD-3-Clause",
    python_requires=">=3.10",
    # data folders (designs/*/rtl, designs/vectors/picipher, scg/xc7/<part>, flow/yosys_lib) are
    # namespace packages, so every file the flow reads at run time is in the wheel (tests/test_wheel.py)
    packages=find_namespace_packages(include=["flow", "flow.*", "tmap", "tmap.*", "scg", "scg.*", "designs",
                                              "designs.*"], exclude=["*.__pycache__"]) + ["scg.firmware"],
    # the C firmware (firmware/) ships as scg/firmware/ so that `dcsflow codegen --firmware DIR` works
    # from a wheel install (scg.codegen.firmware_dir)
    package_dir={"scg.firmware": "firmware"},
    include_package_data=True,
    package_data={"": ["*.v", "*.vh", "*.json", "*.yaml", "*.db", "*.md", "SHA256SUMS", "*.test-vectors", "*.tcl", "*.xdc"],
                  "scg.firmware": ["*.c", "*.h", "*.S", "*.ld", "Makefile"]},
    install_requires=[
        "click>=8.1",
        "rich>=13",
        "networkx>=3",
        "matplotlib>=3.6",
        # AES-128 design (issue 13): golden model and the NIST CAVP KAT vectors
        "cryptography>=41",
        "cryptography_vectors>=41",
    ],
    extras_require={
        "test": ["pytest>=7", "pytest-xdist>=3", "hypothesis>=6",
                 "pycryptodome>=3.15"],  # second DES (tests/test_tmap_des.py) and AES (FIPS-197 C.1) implementation
    },
    # compiled core of the TLUT mapper (tmap/cuts.py falls back to pure Python if it is missing)
    ext_modules=[Extension("tmap._cutsc", ["tmap/_cutsc.c"], optional=True, extra_compile_args=["-O2"])],
    entry_points={"console_scripts": ["dcsflow=flow.cli:run"]},
)
