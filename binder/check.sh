#!/usr/bin/env bash
# Rebuild what Binder builds, in a fresh virtual environment, and run every
# tutorial in it: install binder/requirements.txt from the repository root
# (as repo2docker does), run binder/postBuild (warms numba's cache), then
# execute each notebook with nbval. Binder itself is not reachable from CI;
# this checks the same files.
#
#   bash binder/check.sh [venv directory, default .binder-venv]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.binder-venv}
rm -rf "$venv"
python3 -m venv "$venv"
venv=$(cd "$venv" && pwd)  # absolute, for PATH below
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
"$venv/bin/pip" install -q -r binder/requirements.txt
# nbval is the notebook runner only; it is not part of the Binder image.
"$venv/bin/pip" install -q nbval
PATH="$venv/bin:$PATH" bash binder/postBuild
"$venv/bin/python" -m pytest --nbval-lax --nbval-sanitize-with .ci/nbval_sanitize.cfg \
  notebooks/ -p no:cacheprovider -q
echo "binder check: every notebook ran in the Binder environment"
