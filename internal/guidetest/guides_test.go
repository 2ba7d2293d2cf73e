package guidetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// repo is the module's root, seen from this package.
func repo(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// guide is the path of a guide under docs/guides.
func guide(t *testing.T, name string) string {
	return filepath.Join(repo(t), "docs", "guides", name)
}

// scratchBeside makes a scratch directory whose ../jobgen is this
// repository, as a user's module sits beside their clone (the test runs
// offline, so it makes no clone). The link lives in a directory named after
// the repository and kept between runs, so the go command builds jobgen
// there from its cache instead of from nothing in every run.
func scratchBeside(t *testing.T) string {
	t.Helper()
	r := repo(t)
	parent := filepath.Join(os.TempDir(), fmt.Sprintf("jobgen-guide-%x", sha256.Sum256([]byte(r)))[:39])
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "jobgen")
	if target, err := os.Readlink(link); err != nil || target != r {
		os.Remove(link)
		if err := os.Symlink(r, link); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	dir, err := os.MkdirTemp(parent, "module-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// offline is the environment of a guide's commands: the test's own, with
// the go command kept off the network and out of any workspace around it.
func offline(extra ...string) []string {
	env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	return append(env, extra...)
}

// needGo skips under -short: a guide's test runs the go command many times.
func needGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a guide's commands with the go command in a scratch module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("no go command on PATH")
	}
}

// TestTheOwnVocabularyGuideRunsAsWritten follows docs/guides/your-own-vocabulary.md
// from an empty directory: install before a release, a spec, generating, a
// job of the module's own kind recording its own facts, reading them back
// with jobgen journal, and the compatibility checks for CI.
func TestTheOwnVocabularyGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	c := Run{Guide: guide(t, "your-own-vocabulary.md"), Dir: scratchBeside(t), Env: offline()}.Do(t)
	if c.Ran < 15 || c.Wrote != 3 {
		t.Fatalf("the guide ran %d commands and wrote %d files; it walks a whole module (3 files), so it should run more", c.Ran, c.Wrote)
	}
}

// database creates a database of the test's own on the server of
// JOBGEN_TEST_POSTGRES, drops it when the test ends, and returns its DSN: a
// guide's commands then use the journal's default schema, as an operator's
// do. Without a server the test skips, or fails under CI=true.
func database(t *testing.T) string {
	t.Helper()
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("JOBGEN_TEST_POSTGRES: %v", err)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "guide_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// TestTheProductionGuideRunsAsWritten follows docs/guides/production.md
// against a database of its own: a host refusing an unmigrated schema, the
// migration, hosts at work with their metrics, status, reading the history,
// archiving it, and a fleet view over a host forwarding a follow to it.
func TestTheProductionGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	dsn := database(t)
	needTools(t, "curl", "jq")
	secret := make([]byte, 32)
	rand.Read(secret)
	env := offline("JOBGEN_DSN="+dsn, "JOBGEN_FLEET_SECRET="+hex.EncodeToString(secret), "HOST_ADDR="+freeAddr(t), "ADDR="+freeAddr(t))
	c := Run{Guide: guide(t, "production.md"), Dir: scratchBeside(t), Env: env}.Do(t)
	if c.Ran < 20 || c.Wrote != 1 {
		t.Fatalf("the guide ran %d commands and wrote %d files; it walks migrate, status and archive with a host, so it should run more", c.Ran, c.Wrote)
	}
}

// built builds the commands of this module that a guide runs, named by
// their directories, into a directory it returns, for the guide's PATH.
func built(t *testing.T, pkgs ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, p := range pkgs {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, filepath.Base(p)), "./"+p)
		cmd.Dir = repo(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", p, err, out)
		}
	}
	return bin
}

// onPath is env with dir first on its PATH (the last PATH env holds, as
// exec.Cmd takes it).
func onPath(env []string, dir string) []string {
	path := os.Getenv("PATH")
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	return append(env, "PATH="+dir+string(os.PathListSeparator)+path)
}

// TestTheAgentsGuideRunsAsWritten follows docs/guides/agents-and-mcp.md:
// the MCP demo's two sessions, a task and a subagent, then a client's
// first messages over stdio.
func TestTheAgentsGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	bin := built(t, "examples/mcpjobs")
	c := Run{Guide: guide(t, "agents-and-mcp.md"), Dir: t.TempDir(), Env: onPath(offline(), bin)}.Do(t)
	if c.Ran != 2 || c.Wrote != 1 {
		t.Fatalf("the guide ran %d commands and wrote %d files, want 2 and 1: the demo and a stdio session", c.Ran, c.Wrote)
	}
}

// freeAddr is a loopback address no one listens on, for a server a guide
// starts.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// needTools skips the test, or fails it under CI=true, when a command the
// guide runs is not on PATH.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH under CI=true", n)
			}
			t.Skipf("%s is not on PATH", n)
		}
	}
}

// TestTheConsoleGuideRunsAsWritten follows docs/guides/console.md: the demo
// console served, its roster, a follow to the end of a job, its record, the
// subagents, and the refusals of what no route serves and of a foreign host.
func TestTheConsoleGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	needTools(t, "curl", "jq")
	bin := built(t, "examples/jobsweb")
	c := Run{Guide: guide(t, "console.md"), Dir: t.TempDir(), Env: onPath(offline("ADDR="+freeAddr(t)), bin)}.Do(t)
	if c.Ran != 9 {
		t.Fatalf("the guide ran %d commands, want 9", c.Ran)
	}
}

// npmOffline keeps npm from the network and from asking about audits and
// funding, as the go command is kept by offline.
var npmOffline = []string{"npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}

// TestTheTypeScriptGuideRunsAsWritten follows docs/guides/typescript.md: a
// module's spec as a TypeScript package beside jobgen's, installed with
// npm, a fact decoded and one refused, and the wire client following a job
// of the console's demo to its end.
func TestTheTypeScriptGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	needTools(t, "node", "npm")
	bin := built(t, "examples/jobsweb")
	env := onPath(offline(append(npmOffline, "ADDR="+freeAddr(t))...), bin)
	c := Run{Guide: guide(t, "typescript.md"), Dir: scratchBeside(t), Env: env}.Do(t)
	if c.Ran != 9 || c.Wrote != 4 {
		t.Fatalf("the guide ran %d commands and wrote %d files, want 9 and 4", c.Ran, c.Wrote)
	}
}

// TestThePythonGuideRunsAsWritten follows docs/guides/python.md: a module's
// spec as a Python package beside jobgen's, a fact decoded and one refused,
// and jobgen_client following a job of the console's demo to its end, with
// the project's Python environment first on PATH.
func TestThePythonGuideRunsAsWritten(t *testing.T) {
	t.Parallel()
	needGo(t)
	venv := filepath.Join(repo(t), "tools", "python", ".venv", "bin")
	if _, err := os.Stat(filepath.Join(venv, "python3")); err != nil {
		msg := "the Python guide needs the project's venv: run tools/python/venv.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := built(t, "examples/jobsweb")
	env := onPath(onPath(offline("ADDR="+freeAddr(t)), bin), venv)
	c := Run{Guide: guide(t, "python.md"), Dir: scratchBeside(t), Env: env}.Do(t)
	if c.Ran != 8 || c.Wrote != 4 {
		t.Fatalf("the guide ran %d commands and wrote %d files, want 8 and 4", c.Ran, c.Wrote)
	}
}
