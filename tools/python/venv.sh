#!/usr/bin/env bash
# venv.sh makes tools/python/.venv, the project's own Python environment, and
# installs requirements.txt into it (hashes checked) when it is missing or the
# lock changed; it never touches the system Python. It prints the venv's
# python on stdout. JOBGEN_PYTHON names the interpreter to build it with
# (default python3, which must be 3.11 or later).
set -euo pipefail
cd "$(dirname "$0")"
py=${JOBGEN_PYTHON:-python3}
venv=$PWD/.venv
stamp=$venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	"$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "venv.sh: Python 3.11 or later is needed, not " + sys.version)'
	echo "venv.sh: installing tools/python/requirements.txt into $venv" >&2
	rm -rf "$venv"
	"$py" -m venv "$venv"
	"$venv/bin/pip" install -q --require-hashes --no-deps -r requirements.txt >&2
	echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
