#!/usr/bin/env bash
# run.sh proves that the property tests bite. For each deliberate bug in
# proptest/mutants/NNN-name.patch it copies the working tree (uncommitted
# changes included, .git excluded) to a scratch directory, applies the
# patch with patch -p1, runs the property tests that must catch it with a
# fixed number of checks, and also the unit tests of the packages the patch
# touches, with -short (no browser, no long loops), for comparison.
# Mutants run MUTANT_JOBS at a time, each in a copy of its own. It prints
# one table and exits non-zero when a mutant survives the properties, a
# patch no longer applies, or a mutant does not build.
#
# A patch may begin with header lines, before its diff:
#   Properties: PKG [go test flags]   the properties that must catch it (each
#                                     patch names its own, so a mutant runs
#                                     only those; no quoting: one word a flag)
#                                     (default: ./proptest, every property but
#                                     TestPgstoreMachine, which needs a server)
#   Needs: postgres                   they run against JOBGEN_TEST_POSTGRES
#                                     (`make pg-up` prints it), with CI=true
#                                     so that a missing server fails
# Other lines before the diff say what the bug is.
#
# Usage: proptest/mutants/run.sh [NNN-name.patch ...]
# Environment: GO (default go), MUTANT_CHECKS (checks per property,
# default 200), MUTANT_PG_CHECKS (checks of TestPgstoreMachine, default
# 100), MUTANT_JOBS (mutants at once, default 4: most of a mutant's time
# waits on PostgreSQL, the disk or a timer, not a core).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
go=${GO:-go}
checks=${MUTANT_CHECKS:-200}
pgchecks=${MUTANT_PG_CHECKS:-100}
jobs=${MUTANT_JOBS:-4}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobgen-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [ $# -gt 0 ]; then
	patches=()
	for p in "$@"; do patches+=("$here/$(basename "$p")"); done
else
	patches=("$here"/[0-9]*.patch)
fi

# properties PATCH prints the go test arguments of the properties that must
# catch PATCH.
properties() {
	local line
	line=$(sed -n '/^--- /q; s/^Properties: *//p' "$1" | head -n 1)
	echo "${line:-./proptest -skip TestPgstoreMachine}"
}

# needspg PATCH succeeds when PATCH's properties need PostgreSQL.
needspg() { sed -n '/^--- /q; /^Needs: *postgres/p' "$1" | grep -q .; }

# copy DIR copies the working tree into DIR, leaving out what no Go test
# reads: the Python environment and the checkers' caches are four fifths of
# the tree, and every mutant copies it twice.
copy() {
	mkdir -p "$1"
	tar -C "$root" --exclude=./.git --exclude='testdata/rapid' --exclude=./tools/python/.venv \
		--exclude=.mypy_cache --exclude=.pytest_cache --exclude=.hypothesis --exclude=__pycache__ \
		--exclude=./test-output -cf - . | tar -C "$1" -xf -
}

# proptests DIR LOG PG ARGS... runs the properties ARGS in DIR, output to
# LOG; PG=yes runs them against the test server, with CI=true.
proptests() {
	local dir=$1 log=$2 pg=$3
	shift 3
	local env=(JOBGEN_PGSTORE_CHECKS="$pgchecks")
	if [ "$pg" = yes ]; then env+=(CI=true); fi
	# rapid's flags only where the package's tests use rapid: go test refuses
	# a flag no test binary defines.
	local rapidflags=(-rapid.checks="$checks" -rapid.nofailfile)
	if ! grep -qs 'pgregory.net/rapid' "$dir/${1%/...}"/*_test.go; then rapidflags=(); fi
	# shellcheck disable=SC2068 # ARGS are go test arguments, split on purpose
	(cd "$dir" && env "${env[@]}" "$go" test $@ -count=1 "${rapidflags[@]}" -timeout 20m) >"$log" 2>&1
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

for patch in "${patches[@]}"; do
	if needspg "$patch" && [ -z "${JOBGEN_TEST_POSTGRES:-}" ]; then
		echo "$(basename "$patch") needs PostgreSQL: run \`make pg-up\` and export the JOBGEN_TEST_POSTGRES it prints" >&2
		exit 2
	fi
done

copy "$scratch/base"
echo "baseline: the property tests pass on the unmutated tree ($checks checks each, $pgchecks of TestPgstoreMachine)"
declare -A baselined=()
for patch in "${patches[@]}"; do
	props=$(properties "$patch")
	pg=no
	if needspg "$patch"; then pg=yes; fi
	[ -n "${baselined[$props $pg]:-}" ] && continue
	baselined[$props $pg]=1
	if ! proptests "$scratch/base" "$scratch/base.log" "$pg" "$props"; then
		cat "$scratch/base.log"
		echo "baseline failed ($props): fix the properties or the code before judging mutants" >&2
		exit 2
	fi
done

# mutant PATCH runs one mutant and writes its table row to $scratch/NAME.row
# and its exit status (0 caught, 1 survived, 2 error) to $scratch/NAME.status.
mutant() {
	local patch=$1 name dir log caught by pkgs units pg=no status=0
	name=$(basename "$patch" .patch)
	dir="$scratch/$name"
	rm -rf "$dir"
	cp -r "$scratch/base" "$dir"
	if ! (cd "$dir" && patch -p1 -s --no-backup-if-mismatch <"$patch") >"$scratch/$name.patch.log" 2>&1; then
		printf '%-52s %-7s %s\n' "$name" "ERROR" "patch does not apply: $(head -c 200 "$scratch/$name.patch.log")" >"$scratch/$name.row"
		echo 2 >"$scratch/$name.status"
		rm -rf "$dir"
		return
	fi
	if needspg "$patch"; then pg=yes; fi
	log="$scratch/$name.log"
	if proptests "$dir" "$log" "$pg" "$(properties "$patch")"; then
		caught=no by=- status=1
	else
		caught=yes by=$(failed "$log")
		if [ "$by" = BUILD-FAILED ]; then
			caught=ERROR status=2
		fi
	fi
	pkgs=$(grep -E '^\+\+\+ b/' "$patch" | sed -E 's|^\+\+\+ b/||; s|/[^/]*$||' | sort -u)
	units=""
	for pkg in $pkgs; do
		if (cd "$dir" && "$go" test -short -count=1 -timeout 2m "./$pkg") >"$scratch/$name.${pkg//\//_}.log" 2>&1; then
			units="$units $pkg: missed"
		else
			units="$units $pkg: caught"
		fi
	done
	{
		printf '%-52s %-7s %-48s%s\n' "$name" "$caught" "$by" "$units"
		if [ "$caught" != yes ]; then
			sed -n '1,40p' "$log" | sed 's/^/    /'
		fi
	} >"$scratch/$name.row"
	echo "$status" >"$scratch/$name.status"
	rm -rf "$dir"
}

for patch in "${patches[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	mutant "$patch" &
done
wait

status=0
printf '\n%-52s %-7s %-48s %s\n' "mutant" "caught" "by property test" "unit tests (-short) of the patched packages"
for patch in "${patches[@]}"; do
	name=$(basename "$patch" .patch)
	cat "$scratch/$name.row"
	s=$(cat "$scratch/$name.status")
	status=$((s > status ? s : status))
done
exit $status
