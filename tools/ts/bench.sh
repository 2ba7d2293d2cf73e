#!/usr/bin/env bash
# Compiles tools/ts/bench.ts into a temporary directory and runs it with node
# against the package generated/ts (@jobgen/jobgen, its JavaScript as a front
# end imports it); prints a Markdown table of per-frame costs.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tools/ts/node_modules/.bin/tsc --strict --target ES2022 --module ES2022 --moduleResolution bundler \
  --lib ES2022 --rootDir . --outDir "$out" \
  tools/ts/bench.ts tools/ts/node.d.ts
echo '{"type": "module"}' >"$out/package.json"
mkdir -p "$out/node_modules/@jobgen"
ln -s "$PWD/generated/ts" "$out/node_modules/@jobgen/jobgen"
node "$out/tools/ts/bench.js"
