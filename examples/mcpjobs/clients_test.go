package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The clients nobody here wrote: the official Python SDK (mcp, pinned in
// tools/python/requirements.in) and TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in tools/mcpclient), each a process
// of its own, drive this example's server — a process of its own too —
// over streamable HTTP and stdio. tools/python/mcp_client.py and
// tools/mcpclient/client.mjs say which requests each SDK sends through
// its typed API and which through its raw one (both lack the client side
// of tasks in some form).

// binary builds the example once per test.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpjobs")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// need returns path when it exists, and otherwise fails the test under
// CI=true and skips it elsewhere, saying how to install it.
func need(t *testing.T, path, how string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: %s", path, how)
		}
		t.Skipf("%s is missing: %s", path, how)
	}
	abs, _ := filepath.Abs(path)
	return abs
}

// A server is the example serving HTTP as a process.
type server struct {
	cmd        *exec.Cmd
	url        string
	alice, bob string
}

// startServer runs the example on a free port over the journal at path.
func startServer(t *testing.T, bin, path string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "-addr", addr, "-journal", path)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd}
	t.Cleanup(func() { s.stop(t) })
	lines := bufio.NewScanner(stdout)
	for (s.url == "" || s.bob == "") && lines.Scan() {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, "serving MCP (streamable HTTP) on "); ok {
			s.url, _, _ = strings.Cut(rest, " ")
		}
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "session alice: Authorization: Bearer "); ok {
			s.alice = tok
		}
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "session bob: Authorization: Bearer "); ok {
			s.bob = tok
		}
	}
	if s.url == "" || s.bob == "" {
		t.Fatalf("the server did not say where it serves: %s", stderr.String())
	}
	go func() { // keep the pipe drained
		for lines.Scan() {
		}
	}()
	return s
}

// stop ends the server as Ctrl-C does, and waits for it.
func (s *server) stop(t *testing.T) {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Error("the server did not stop on SIGINT")
	}
	s.cmd = nil
}

// checks runs a client and returns its JSON lines by check name (several
// lines of one name in order).
func checks(t *testing.T, name string, args ...string) map[string][]map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, stderr.String())
	}
	got := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s printed %q, not a check", name, line)
		}
		c, _ := m["check"].(string)
		got[c] = append(got[c], m)
	}
	if len(got["done"]) != 1 {
		t.Fatalf("%s did not finish:\n%s\n%s", name, out, stderr.String())
	}
	t.Logf("%s:\n%s", name, out)
	return got
}

func one(t *testing.T, got map[string][]map[string]any, check string) map[string]any {
	t.Helper()
	if len(got[check]) == 0 {
		t.Fatalf("no %q check", check)
	}
	return got[check][0]
}

// expectMain holds what the main scenario of either client must show.
func expectMain(t *testing.T, got map[string][]map[string]any, transport string, newest string) {
	t.Helper()
	versions := map[string]string{}
	for _, v := range got["version"] {
		versions[fmt.Sprint(v["mode"])] = fmt.Sprint(v["negotiated"])
	}
	if versions["auto"] != newest || versions["legacy"] != "" && versions["legacy"] != "2025-11-25" {
		t.Errorf("over %s the versions negotiated are %v, want %s newest and 2025-11-25 when asked", transport, versions, newest)
	}
	var names []string
	for _, tool := range got["tool"] {
		name := fmt.Sprint(tool["name"])
		names = append(names, name)
		if tool["strict"] != true || tool["title"] == nil || tool["annotations"] == nil {
			t.Errorf("tool %s: %v, want a strict input schema, a title and annotations", name, tool)
		}
		wantTasks := name == "shell" || name == "job_wait"
		if (tool["taskSupport"] == "optional") != wantTasks {
			t.Errorf("tool %s: taskSupport %v", name, tool["taskSupport"])
		}
	}
	if !slices.Contains(names, "subagent_start") || !slices.Contains(names, "send_message") || !slices.Contains(names, "shell") {
		t.Errorf("over %s the tools are %v", transport, names)
	}
	if b := one(t, got, "bogus"); b["isError"] != true || !strings.Contains(fmt.Sprint(b["text"]), `job_list has no argument \"bogus\"`) {
		t.Errorf("job_list with a bogus argument: %v", b)
	}
	for _, check := range []string{"task-2025", "task-2026"} {
		if len(got[check]) == 0 {
			continue // a client without that form says why in its own file
		}
		task := one(t, got, check)
		// Each step lasts 0.7 s and the clients poll at least every 0.5 s,
		// so a loaded machine may hide a step, never all of them.
		statuses := fmt.Sprint(task["statuses"])
		if !regexp.MustCompile(`\[working step [123] of 3\]`).MatchString(statuses) || !strings.HasSuffix(statuses, "[completed exit status 0]]") {
			t.Errorf("%s over %s went %s, want its progress line seen, then completed", check, transport, statuses)
		}
		structured, _ := task["structured"].(map[string]any)
		if structured["finished"] != true || !strings.Contains(fmt.Sprint(structured["notice"]), "completed: exit status 0") {
			t.Errorf("%s over %s: result %v", check, transport, structured)
		}
	}
	if c := one(t, got, "cancel-2025"); c["after"] != "cancelled" {
		t.Errorf("a cancelled task over %s is %v", transport, c)
	}
	if transport == "http" {
		f := one(t, got, "foreign-task")
		if f["foreign"] == "" || f["foreign"] != f["unknown"] {
			t.Errorf("another session's task reads %q, an unknown one %q: want the same refusal", f["foreign"], f["unknown"])
		}
	}
	s := one(t, got, "subagent")
	if !strings.Contains(fmt.Sprint(s["first"]), "look at the build log") || !strings.Contains(fmt.Sprint(s["second"]), "and the test log?") {
		t.Errorf("the subagent's reports over %s: %v", transport, s)
	}
}

// The official Python SDK negotiates 2026-07-28 over HTTP and stdio (and
// 2025-11-25 when asked), validates every schema, runs a task in each
// form, cancels one, cannot see another session's, and exchanges messages
// with a subagent; a task's status and result survive a restart.
func TestPythonSDKClient(t *testing.T) {
	slowClient(t)
	py := need(t, "../../tools/python/.venv/bin/python", "run tools/python/venv.sh")
	script := need(t, "../../tools/python/mcp_client.py", "")
	bin, dir, srv := driveBoth(t, "python", []string{py, script}, "2026-07-28")

	restart(t, "python", []string{py, script}, bin, dir, srv)
}

// slowClient leaves an official SDK's scenario out of -short (make test):
// each drives two transports and a restart, about twenty seconds; make
// test-all and make race (both in make ci) run them.
func slowClient(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test) leaves the official MCP SDK clients out: make test-all runs them")
	}
}

// restart has a client finish a task, restarts the server over the same
// journal, and has the client read the task back: its status and result
// come from the job's facts, and its cancel is refused (it has finished).
func restart(t *testing.T, name string, client []string, bin, dir string, srv *server) {
	t.Helper()
	taskFile := filepath.Join(dir, "task-"+name)
	run := func(args ...string) []string { return append(slices.Clone(client), args...) }
	before := one(t, checks(t, name+" before a restart", run("http", srv.url, srv.alice, srv.bob, "before-restart", taskFile)...), "before-restart")
	srv.stop(t)
	srv = startServer(t, bin, filepath.Join(dir, "http"))
	after := one(t, checks(t, name+" after a restart", run("http", srv.url, srv.alice, srv.bob, "after-restart", taskFile)...), "after-restart")
	structured, _ := after["structured"].(map[string]any)
	if after["taskId"] != before["taskId"] || after["status"] != "failed" || after["statusMessage"] != "exit status 3" ||
		!strings.Contains(fmt.Sprint(structured["notice"]), "failed: exit status 3") || !strings.Contains(fmt.Sprint(after["cancel"]), "already finished") {
		t.Errorf("after a restart %s reads the task as %v", name, after)
	}
}

// The official TypeScript SDK, whose newest version is 2025-11-25,
// negotiates it over HTTP and stdio, validates every schema, runs a task
// through its experimental tasks API (created from the tool's
// taskSupport, polled, its result checked against the tool's output
// schema), cancels one, cannot see another session's, exchanges messages
// with a subagent, and reads a task back after a restart.
func TestTypeScriptSDKClient(t *testing.T) {
	slowClient(t)
	node, err := exec.LookPath("node")
	if err != nil {
		node = need(t, "/usr/bin/node", "install Node.js")
	}
	need(t, "../../tools/mcpclient/node_modules/@modelcontextprotocol/sdk/package.json", "run make mcpclient-deps (npm ci in tools/mcpclient)")
	script := need(t, "../../tools/mcpclient/client.mjs", "")
	bin, dir, srv := driveBoth(t, "typescript", []string{node, script}, "2025-11-25")
	restart(t, "typescript", []string{node, script}, bin, dir, srv)
}

// driveBoth runs a client's main scenario (client is its command line)
// over HTTP against a server process and over stdio, expecting newest as
// the version it negotiates; it returns the binary, the directory of the
// journals and the HTTP server, for more.
func driveBoth(t *testing.T, name string, client []string, newest string) (bin, dir string, srv *server) {
	t.Helper()
	bin, dir = binary(t), t.TempDir()
	srv = startServer(t, bin, filepath.Join(dir, "http"))
	run := func(args ...string) []string { return append(slices.Clone(client), args...) }
	expectMain(t, checks(t, name+" over http", run("http", srv.url, srv.alice, srv.bob, "main")...), "http", newest)
	expectMain(t, checks(t, name+" over stdio", run("stdio", bin, "-stdio", "-journal", filepath.Join(dir, "stdio"), "--", "main")...), "stdio", newest)
	return bin, dir, srv
}
