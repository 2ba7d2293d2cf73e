#!/usr/bin/env bash
# lock.sh compiles requirements.in into requirements.txt: every package the
# Python side needs, transitive ones included, at an exact version with its
# hashes, so .ci/run installs the same bytes on every machine. Run it after
# changing a pin in requirements.in; it needs the network (PyPI).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q pip-tools
PIP_FIND_LINKS= "$tmp/venv/bin/pip-compile" -q --generate-hashes --strip-extras --no-header --allow-unsafe \
	-o requirements.txt requirements.in
