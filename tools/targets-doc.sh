#!/usr/bin/env bash
# targets-doc.sh writes the table of make targets in docs/guides/contributing.md,
# between its "targets:begin" and "targets:end" markers: each target of the
# Makefile, what its ## comment says it does, and how long it took here.
#
#   tools/targets-doc.sh                 time the cheap targets, keep the other rows' times
#   tools/targets-doc.sh test race ...   time these targets too (on the CI machine)
#   TARGETS_ALL=1 tools/targets-doc.sh   time every target that ends by itself
#   TARGETS_LOG_DIR=dir tools/targets-doc.sh ...   keep each timed target's output
#                                        in dir/NAME.log (the scoreboard's table, say)
#
# A target that is not timed in a run keeps the time and the note of the run
# that last timed it, so a quick run on a laptop does not erase what the CI
# machine measured. Each timed row notes the machine's cores and its load
# average (1 minute) when the target started, and whether it passed.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/guides/contributing.md
make=${MAKE:-make}

# Cheap targets: seconds each, nothing installed, no server needed.
cheap=" check verify breaking generate vet lint demo demo-subagents demo-mcp "
# Targets that serve until stopped, and what this script must not run.
never=" demo-web demo-fleet "
shared=" pg-up pg-down "
self=" targets-doc "

# targets prints "name<TAB>description" for each target, in Makefile order,
# once, the description from its first line that has one.
targets() {
	awk '
	/^[a-z][a-z0-9-]*:([^=]|$)/ {
		name = $0; sub(/:.*/, "", name)
		desc = ""; if (index($0, "## ")) { desc = $0; sub(/^[^#]*## /, "", desc) }
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		if (desc != "" && d[name] == "") d[name] = desc
	}
	END { for (i = 1; i <= n; i++) printf "%s\t%s\n", order[i], d[order[i]] }
	' Makefile
}

# previous prints the time and note cells of target $1's row in the doc.
previous() {
	awk -F' \\| ' -v t="| \`make $1\`" '$1 == t { sub(/ \|$/, "", $4); print $3 " | " $4; exit }' "$doc"
}

timed=" $* "
cores=$(nproc)
rows=""
while IFS=$'\t' read -r name desc; do
	cells=$(previous "$name")
	run=no
	case "$timed$cheap" in *" $name "*) run=yes ;; esac
	if [ "${TARGETS_ALL:-}" = 1 ]; then run=yes; fi
	case "$never" in *" $name "*) run=no; cells="serves until stopped | not timed" ;; esac
	case "$shared" in *" $name "*) run=no; cells="seconds | not timed: it starts or removes the cluster the tests share" ;; esac
	case "$self" in *" $name "*) run=no; cells="the sum of the cheap targets | not timed: it is this script" ;; esac
	if [ "$run" = yes ]; then
		load=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		log=/tmp/targets-doc.$$.log
		if [ -n "${TARGETS_LOG_DIR:-}" ]; then mkdir -p "$TARGETS_LOG_DIR"; log=$TARGETS_LOG_DIR/$name.log; fi
		if $make -s "$name" >"$log" 2>&1; then
			result=passed
		else
			# The last line that is not make's own says why.
			why=$(grep -v '^make' "$log" | tail -n 1 | tr -d '`|' | cut -c1-120)
			result="failed ($why)"
		fi
		secs=$(echo "$(date +%s.%N) - $start" | bc)
		cells="$(printf '%.1f s' "$secs") | $result, $(date -u +%Y-%m-%d), $cores cores, load $load"
		echo "targets-doc: make $name: $cells" >&2
	fi
	[ -n "$cells" ] || cells="not timed yet | run \`tools/targets-doc.sh $name\`"
	rows+="| \`make $name\` | ${desc:-see the Makefile} | $cells |"$'\n'
done < <(targets)
rm -f /tmp/targets-doc.$$.log

table="| target | does | time | measured |"$'\n'"|---|---|---|---|"$'\n'"$rows"
awk -v table="$table" '
	/<!-- targets:begin/ { print; printf "%s", table; skip = 1; next }
	/<!-- targets:end/ { skip = 0 }
	!skip { print }
' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"
