#!/usr/bin/env bash
# Installs every build and test dependency of fmlp from Debian's packages
# (Debian 12 "bookworm": LLVM/MLIR 22 come from bookworm-security). Installs
# only what is missing, so running it again is cheap.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3 python3-venv
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libgtest-dev nlohmann-json3-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all build and test dependencies are installed"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup: done"
