#!/usr/bin/env bash
# page.sh build|check: the live page's modules in jobhttp/static/ are the
# package generated/ts (@jobgen/jobgen) as jobgen writes it: the JavaScript of
# its runtime and of the jobs vocabulary, copied so that the page runs exactly
# what a front end importing the package runs. build writes them; check fails
# when the committed files differ.
set -euo pipefail
cd "$(dirname "$0")/../.."
static=jobhttp/static
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in runtime jobs; do
  cp "generated/ts/$m.mjs" "$tmp/$m.mjs"
done
case "${1:-}" in
  build)
    for f in "$tmp"/*; do
      out="$static/$(basename "$f")"
      if ! cmp -s "$f" "$out"; then cp "$f" "$out"; echo "wrote $out"; fi
    done ;;
  check)
    status=0
    for f in "$tmp"/*; do
      out="$static/$(basename "$f")"
      if ! cmp -s "$f" "$out"; then
        diff -u "$out" "$f" 2>&1 | head -40 >&2 || true
        echo "page.sh: $out is not what the package holds: run make generate" >&2
        status=1
      fi
    done
    [ $status -eq 0 ] && echo "page.sh: $static is up to date"
    exit $status ;;
  *) echo "usage: page.sh build|check" >&2; exit 2 ;;
esac
