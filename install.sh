#!/usr/bin/env bash
# Installs softlearning and its dependencies into ./.venv (Python 3.11), and
# the system library for offscreen rendering (Debian/Ubuntu: libosmesa6)
# when it is missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

if ! ldconfig -p 2>/dev/null | grep -q 'libOSMesa\.so'; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq libosmesa6 >/dev/null
    else
        echo "Note: install OSMesa (e.g. libosmesa6) to render videos and pixel observations." >&2
    fi
fi

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
"$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The sweeps (optuna), tracking (MLflow, W&B), docs (MkDocs), ONNX and
# robotics (gymnasium-robotics) extras too,
# so that the tests cover them. uv resolves and installs the same versions
# as pip in a fraction of the time (about 30 s instead of 2 minutes on a
# fresh machine); pip does it where uv cannot be had.
EXTRAS='.[test,sweeps,tracking,docs,onnx,robotics]'
if .venv/bin/python -m pip install -q uv 2>/dev/null; then
    # Bytecode compiled now, as pip does: where PYTHONDONTWRITEBYTECODE is
    # set, Python would compile every module again in every process.
    .venv/bin/python -m uv pip install -q --compile-bytecode \
        --python .venv/bin/python -e "$EXTRAS"
else
    .venv/bin/python -m pip install -q -e "$EXTRAS"
fi
echo "softlearning installed in $(pwd)/.venv"
