#!/usr/bin/env bash
# page.sh build|check: the live page's modules in jobhttp/static/. The
# package's modules the page imports (runtime, jobs, wire) are copied from
# generated/ts as jobgen writes them, JavaScript and declarations, so the page
# runs exactly what a front end importing @jobgen/jobgen runs, the generated
# client of wire.mjs included; the page's own TypeScript (app.mts and the
# console's modules) is compiled against them by the pinned tsc, with
# static/tsconfig.json. build writes them; check fails when the committed
# files differ.
set -euo pipefail
cd "$(dirname "$0")/../.."
tsc=tools/ts/node_modules/.bin/tsc
static=jobhttp/static
if [ ! -x "$tsc" ]; then
  echo "page.sh: no pinned TypeScript in tools/ts: run make ts-deps (needs Node.js and npm)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/out"
for m in runtime jobs wire; do
  for ext in mjs d.mts; do cp "generated/ts/$m.$ext" "$tmp/src/"; done
done
sources=()
for f in "$static"/*.mts; do
  case "$f" in *.d.mts) continue ;; esac
  cp "$f" "$tmp/src/"
  sources+=("$(basename "$f" .mts)")
done
cp "$static/tsconfig.json" "$tmp/src/"
"$tsc" -p "$tmp/src/tsconfig.json" --outDir "$tmp/compiled"
for m in runtime jobs wire; do
  for ext in mjs d.mts; do cp "$tmp/src/$m.$ext" "$tmp/out/"; done
done
for m in "${sources[@]}"; do
  for ext in mjs d.mts; do
    [ "$m" = app ] && [ "$ext" = d.mts ] && continue # the page's entry point declares nothing
    { echo "// Compiled by tools/ts/page.sh from $static/$m.mts with the pinned tsc. DO NOT EDIT."
      cat "$tmp/compiled/$m.$ext"; } > "$tmp/out/$m.$ext"
  done
done
case "${1:-}" in
  build)
    for f in "$tmp"/out/*; do
      out="$static/$(basename "$f")"
      if ! cmp -s "$f" "$out"; then cp "$f" "$out"; echo "wrote $out"; fi
    done ;;
  check)
    status=0
    for f in "$tmp"/out/*; do
      out="$static/$(basename "$f")"
      if ! cmp -s "$f" "$out"; then
        diff -u "$out" "$f" 2>&1 | head -40 >&2 || true
        echo "page.sh: $out is not what the package and tsc make: run make generate" >&2
        status=1
      fi
    done
    [ $status -eq 0 ] && echo "page.sh: $static is up to date"
    exit $status ;;
  *) echo "usage: page.sh build|check" >&2; exit 2 ;;
esac
