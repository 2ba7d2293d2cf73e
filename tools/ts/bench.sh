#!/usr/bin/env bash
# Compiles tools/ts/bench.ts with generated/ts into a temporary directory and
# runs it with node; prints a Markdown table of per-frame costs.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tools/ts/node_modules/.bin/tsc --strict --target ES2022 --module ES2022 --moduleResolution bundler \
  --lib ES2022 --rootDir . --outDir "$out" \
  tools/ts/bench.ts tools/ts/node.d.ts generated/ts/jobs.ts
echo '{"type": "module"}' >"$out/package.json"
node "$out/tools/ts/bench.js"
