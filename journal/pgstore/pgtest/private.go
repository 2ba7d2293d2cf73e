package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// A PrivateServer is a PostgreSQL cluster of one test's own, run by
// .ci/pg.sh, which the test may SIGKILL without disturbing the others: the
// crash loops' server.
type PrivateServer struct {
	t      testing.TB
	script string
	env    []string
	// DSN reaches the server.
	DSN string
}

var exportLine = regexp.MustCompile(`export JOBGEN_TEST_POSTGRES='([^']+)'`)

// StartPrivateServer starts a cluster in a directory and on a loopback
// port of its own, stopped and removed when t ends. It skips or fails as
// DSN does when the test server is absent, since both need PostgreSQL.
func StartPrivateServer(t testing.TB) *PrivateServer {
	t.Helper()
	DSN(t) // the same gate as every server test: skip locally, fail under CI
	script, err := pgScript()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "jobgen-crash-pg-")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ps := &PrivateServer{t: t, script: script, env: append(os.Environ(), "JOBGEN_PG_DIR="+dir, "JOBGEN_PG_PORT="+strconv.Itoa(port))}
	t.Cleanup(func() {
		ps.run("stop")
		os.RemoveAll(dir)
	})
	out := ps.run("start")
	m := exportLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("pg.sh start printed no DSN: %s", out)
	}
	ps.DSN = string(m[1])
	return ps
}

// pgScript finds .ci/pg.sh above the test's directory (a package of the
// module).
func pgScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		script := filepath.Join(dir, ".ci", "pg.sh")
		if _, err := os.Stat(script); err == nil {
			return script, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no .ci/pg.sh above the test's directory")
		}
		dir = up
	}
}

func (ps *PrivateServer) run(cmd string) []byte {
	ps.t.Helper()
	c := exec.Command(ps.script, cmd)
	c.Env = ps.env
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		ps.t.Fatalf("pg.sh %s: %v\n%s%s", cmd, err, out, stderr.Bytes())
	}
	return out
}

// Restart SIGKILLs the server, as a crash would, and starts it again on
// the same data (crash recovery from the WAL), after a pause of down.
func (ps *PrivateServer) Restart(down time.Duration) {
	ps.Kill()
	time.Sleep(down)
	ps.Start()
}

// Kill SIGKILLs the server and its processes, keeping the data.
func (ps *PrivateServer) Kill() { ps.run("kill") }

// Start starts the server again on its data.
func (ps *PrivateServer) Start() { ps.run("start") }

// CrashRounds is how many times a crash loop kills its server: 2 in an
// ordinary run (CI), JOBGEN_CRASH_ROUNDS when `make crash` asks for more.
func CrashRounds(t testing.TB) int {
	if v := os.Getenv("JOBGEN_CRASH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("JOBGEN_CRASH_ROUNDS=%q: want a positive number", v)
		}
		return n
	}
	return 2
}
