#!/usr/bin/env bash
# run.sh proves that the property tests bite. For each deliberate bug in
# proptest/mutants/NNN-name.patch it copies the working tree (uncommitted
# changes included, .git excluded) to a scratch directory, applies the
# patch with patch -p1, runs the property tests of ./proptest with a fixed
# number of checks, and also the unit tests of the packages the patch
# touches, for comparison. It prints a table and exits non-zero when a
# mutant survives the properties, a patch no longer applies, or a mutant
# does not build.
#
# Usage: proptest/mutants/run.sh [NNN-name.patch ...]
# Environment: GO (default go), MUTANT_CHECKS (checks per property,
# default 200).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
go=${GO:-go}
checks=${MUTANT_CHECKS:-200}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobgen-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [ $# -gt 0 ]; then
	patches=()
	for p in "$@"; do patches+=("$here/$(basename "$p")"); done
else
	patches=("$here"/[0-9]*.patch)
fi

# copy DIR copies the working tree into DIR.
copy() {
	mkdir -p "$1"
	tar -C "$root" --exclude=./.git --exclude='testdata/rapid' -cf - . | tar -C "$1" -xf -
}

# proptests DIR LOG runs the property tests in DIR, output to LOG.
proptests() {
	(cd "$1" && "$go" test ./proptest -count=1 -rapid.checks="$checks" -rapid.nofailfile -timeout 20m) >"$2" 2>&1
}

# failed LOG names the top-level tests that failed, or says why none did.
failed() {
	local names
	names=$(grep -oE '^--- FAIL: Test[A-Za-z0-9_]+' "$1" | sed 's/^--- FAIL: //' | sort -u | paste -sd, - || true)
	if [ -n "$names" ]; then
		echo "$names"
	elif grep -qE '\[build failed\]|\[setup failed\]' "$1"; then
		echo "BUILD-FAILED"
	elif grep -q '^panic:' "$1"; then
		echo "panic"
	else
		echo "?"
	fi
}

copy "$scratch/base"
echo "baseline: the property tests pass on the unmutated tree ($checks checks each)"
if ! proptests "$scratch/base" "$scratch/base.log"; then
	cat "$scratch/base.log"
	echo "baseline failed: fix the properties or the code before judging mutants" >&2
	exit 2
fi

status=0
printf '\n%-52s %-7s %-48s %s\n' "mutant" "caught" "by property test" "unit tests of the patched packages"
for patch in "${patches[@]}"; do
	name=$(basename "$patch" .patch)
	dir="$scratch/$name"
	rm -rf "$dir"
	cp -r "$scratch/base" "$dir"
	if ! (cd "$dir" && patch -p1 -s --no-backup-if-mismatch <"$patch") >"$scratch/$name.patch.log" 2>&1; then
		printf '%-52s %-7s %s\n' "$name" "ERROR" "patch does not apply: $(head -c 200 "$scratch/$name.patch.log")"
		status=2
		continue
	fi
	log="$scratch/$name.log"
	if proptests "$dir" "$log"; then
		caught=no by=- status=$((status > 1 ? status : 1))
	else
		caught=yes by=$(failed "$log")
		if [ "$by" = BUILD-FAILED ]; then
			caught=ERROR status=2
		fi
	fi
	pkgs=$(grep -E '^\+\+\+ b/' "$patch" | sed -E 's|^\+\+\+ b/||; s|/[^/]*$||' | sort -u)
	units=""
	for pkg in $pkgs; do
		if (cd "$dir" && "$go" test -count=1 -timeout 3m "./$pkg") >"$scratch/$name.$pkg.log" 2>&1; then
			units="$units $pkg: missed"
		else
			units="$units $pkg: caught"
		fi
	done
	printf '%-52s %-7s %-48s%s\n' "$name" "$caught" "$by" "$units"
	if [ "$caught" != yes ]; then
		sed -n '1,40p' "$log" | sed 's/^/    /'
	fi
	rm -rf "$dir"
done
exit $status
