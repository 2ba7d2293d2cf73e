#!/usr/bin/env bash
# page.sh build|check: the live page's decoders, jobhttp/static/jobs.js, are the
# generated TypeScript of spec/jobs.yaml (generated/ts/jobs.ts) compiled by the
# pinned tsc. build writes them; check fails when the committed file differs.
set -euo pipefail
cd "$(dirname "$0")/../.."
tsc=tools/ts/node_modules/.bin/tsc
out=jobhttp/static/jobs.js
if [ ! -x "$tsc" ]; then
  echo "page.sh: no pinned TypeScript in tools/ts: run make ts-deps (needs Node.js and npm)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tsc" --strict --target es2022 --module es2022 --outDir "$tmp" generated/ts/jobs.ts
{
  echo "// Compiled by tools/ts/page.sh (make generate) from generated/ts/jobs.ts with the pinned tsc. DO NOT EDIT."
  cat "$tmp/jobs.js"
} > "$tmp/page.js"
case "${1:-}" in
  build)
    if ! cmp -s "$tmp/page.js" "$out"; then cp "$tmp/page.js" "$out"; echo "wrote $out"; fi ;;
  check)
    if ! cmp -s "$tmp/page.js" "$out"; then
      diff -u "$out" "$tmp/page.js" | head -40 >&2 || true
      echo "page.sh: $out is not what tsc makes of generated/ts/jobs.ts: run make generate" >&2
      exit 1
    fi
    echo "page.sh: $out is up to date" ;;
  *) echo "usage: page.sh build|check" >&2; exit 2 ;;
esac
