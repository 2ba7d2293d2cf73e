#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of journal/pgstore.
#
#   .ci/pg.sh start   install PostgreSQL when missing, create the cluster and start it;
#                     prints `export JOBGEN_TEST_POSTGRES=DSN` on stdout (eval it)
#   .ci/pg.sh env     print that export line for a running cluster
#   .ci/pg.sh stop    stop the cluster and delete its directory
#   .ci/pg.sh kill    SIGKILL the server and its processes (crash tests), keeping the data
#   .ci/pg.sh status  exit 0 when the cluster runs
#
# JOBGEN_PG_DIR (default $TMPDIR/jobgen-pg) holds the data, the log and the Unix socket;
# JOBGEN_PG_PORT (default 55432) is the loopback port. The server runs with fsync and
# synchronous_commit on, as in production: the tests measure real durability.
set -euo pipefail

cmd=${1:-}
dir=${JOBGEN_PG_DIR:-${TMPDIR:-/tmp}/jobgen-pg}
port=${JOBGEN_PG_PORT:-55432}
data=$dir/data
dsn="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"

say() { echo "pg.sh: $*" >&2; }

# bindir prints the directory of the newest installed server's binaries, or nothing.
bindir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return
		fi
	done
	if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		dirname "$(command -v pg_ctl)"
	fi
}

install() {
	if [ "$(id -u)" != 0 ]; then
		say "PostgreSQL is not installed and this is not root: apt-get install postgresql"
		exit 1
	fi
	say "installing PostgreSQL from the distribution's packages"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
}

# as_pg runs a command as the postgres user when root (initdb refuses root).
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

running() {
	local bin=$1
	[ -f "$data/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1
}

start() {
	local bin
	bin=$(bindir)
	if [ -z "$bin" ]; then
		install
		bin=$(bindir)
		[ -n "$bin" ] || { say "no initdb after installing postgresql"; exit 1; }
	fi
	if running "$bin"; then
		say "already running in $dir"
		echo "export JOBGEN_TEST_POSTGRES='$dsn'"
		return
	fi
	mkdir -p "$dir"
	if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
	chmod 700 "$dir"
	if [ ! -f "$data/PG_VERSION" ]; then
		as_pg "$bin/initdb" -D "$data" -A trust -U postgres -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
	fi
	as_pg "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 120 start \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=on -c synchronous_commit=on" >&2 ||
		{ tail -n 30 "$dir/server.log" >&2; exit 1; }
	say "PostgreSQL $("$bin/postgres" -V | awk '{print $3}') running in $dir on 127.0.0.1:$port"
	echo "export JOBGEN_TEST_POSTGRES='$dsn'"
}

stop() {
	local bin
	bin=$(bindir)
	if [ -n "$bin" ] && running "$bin"; then
		as_pg "$bin/pg_ctl" -D "$data" -m fast -w stop >&2 || true
	fi
	# Only ever delete a directory that holds a cluster this script made.
	if [ -f "$data/PG_VERSION" ] || [ -f "$dir/initdb.log" ]; then
		rm -rf "$dir"
	fi
}

# kill ends the postmaster and its children with SIGKILL, as a crash would, and waits
# until they are gone; `start` then runs crash recovery on the same data.
crash() {
	[ -f "$data/postmaster.pid" ] || { say "no postmaster.pid in $data"; exit 1; }
	local pid kids
	pid=$(head -n 1 "$data/postmaster.pid")
	kids=$(pgrep -P "$pid" || true)
	kill -KILL "$pid" $kids 2>/dev/null || true
	for _ in $(seq 1 200); do
		local alive=0
		for p in $pid $kids; do
			if kill -0 "$p" 2>/dev/null; then alive=1; fi
		done
		[ "$alive" = 0 ] && return
		sleep 0.05
	done
	say "server processes still alive after SIGKILL"
	exit 1
}

case "$cmd" in
start) start ;;
stop) stop ;;
kill) crash ;;
env) echo "export JOBGEN_TEST_POSTGRES='$dsn'" ;;
status) bin=$(bindir); [ -n "$bin" ] && running "$bin" ;;
*)
	echo "usage: $0 start|stop|env|kill|status" >&2
	exit 2
	;;
esac
