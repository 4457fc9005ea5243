#!/usr/bin/env bash
# Installs everything dcsflow needs on a fresh Debian machine:
#   Debian tools (Yosys, ABC, Icarus Verilog, Verilator, ...) and a virtual environment .venv
#   with the project installed (editable) and its test dependencies.
# Run as root, or as a user with sudo. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(yosys berkeley-abc iverilog verilator python3-venv python3-pip python3-dev make gcc gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)
APT_PACKAGES+=(ghdl)   # VHDL input through GHDL (flow/vhdl.py)
# Vivado back end tests: tclsh runs the generated Tcl against UG835 option stubs
APT_PACKAGES+=(tcl)
# tests/test_report_page.py: the build's page (report.html) loaded in headless Chromium
APT_PACKAGES+=(chromium)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "[setup] installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating virtual environment .venv"
  "$PY" -m venv .venv
fi
echo "[setup] installing dcsflow into .venv"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[flow,test]'
.venv/bin/python -c "import dcsflow.tmap._cutsc" 2>/dev/null || \
  echo "[setup] warning: TMAP's compiled core (tmap/_cutsc.c) was not built (C compiler or Python headers missing?); the pure-Python mapper is about 30x slower"
echo "[setup] done: $(.venv/bin/dcsflow --version)"
