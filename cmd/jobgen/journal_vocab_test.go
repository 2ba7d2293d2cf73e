package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
)

// deploySpec is a runtime's own vocabulary: a job kind of its own and a
// fact jobgen was not built with.
const deploySpec = `jobgen: 1
package: {name: deploy, path: example.com/deployer/generated/deploy}
enums:
  Verdict: {values: {approved: {}, rejected: {}}}
facts:
  deploy/approved:
    versions:
      v1:
        fields:
          service: string
          verdict: Verdict
          approvals: {type: int, optional: true}
`

// ownPayloads are facts of the runtime's vocabulary and of jobgen's
// subagent vocabulary, which jobgen's job vocabulary does not read.
var ownPayloads = []string{
	`{"type":"deploy/approved","v":1,"data":{"service":"api","verdict":"approved","approvals":2}}`,
	`{"type":"subagent/created","v":1,"data":{"child":"c1","at":5,"header":{"parentSession":"s1","origin":"subagent","delegationDepth":1},"descriptor":{"version":2,"mode":"continuable","provider":"p"}}}`,
	`{"type":"deploy/approved","v":1,"data":{"service":"web","verdict":"rejected"}}`,
}

// deployModule is a module whose jobgen.yaml lists deploySpec, and the
// working directory of the test from now on.
func deployModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":           "module example.com/deployer\n\ngo 1.25\n",
		"jobgen.yaml":      "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: generated}\n",
		"spec/deploy.yaml": deploySpec,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// ownJournal is writeJournal's journal with ownPayloads after its facts.
func ownJournal(t *testing.T, more ...string) string {
	t.Helper()
	path := writeJournal(t)
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, append(append([]string(nil), ownPayloads...), more...)...)
	return path
}

func TestJournalCheckReadsTheFactsOfTheModulesSpecs(t *testing.T) {
	path := ownJournal(t)
	dir := deployModule(t)
	if code, stdout, stderr := jobgen(t, "journal", "check", path); code != exitOK || !strings.Contains(stdout, "intact: 6 records") {
		t.Fatalf("check in the module: exit %d, want 0: %s%s", code, stdout, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "intervals", path); code != exitOK || stderr != "" {
		t.Errorf("intervals in the module: exit %d, stderr %q; want no facts skipped as unknown", code, stderr)
	}

	// Elsewhere, only --spec names the runtime's vocabulary; jobgen's own
	// subagent facts are known anyway.
	t.Chdir(t.TempDir())
	code, _, stderr := jobgen(t, "journal", "check", path)
	if code != exitOK || !strings.Contains(stderr, "kept 2 facts this build cannot read: deploy/approved v1 (2)") {
		t.Fatalf("check without the spec: exit %d, want 0 and the facts it kept: %s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "check", "--strict", path); code != exitUnknownFacts {
		t.Fatalf("check --strict without the spec: exit %d, want %d: %s", code, exitUnknownFacts, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "check", "--spec", filepath.Join(dir, "spec", "deploy.yaml"), path); code != exitOK {
		t.Fatalf("check --spec: exit %d, want 0: %s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "check", "--config", filepath.Join(dir, "jobgen.yaml"), path); code != exitOK {
		t.Fatalf("check --config: exit %d, want 0: %s", code, stderr)
	}
}

// TestJournalCheckKeepsAValueOfAnEnumNoSpecDeclares: a value outside its
// enum is one a newer build may have added, which check keeps and reports,
// as every tolerant reader does (decision 0174); --strict fails on it.
func TestJournalCheckKeepsAValueOfAnEnumNoSpecDeclares(t *testing.T) {
	path := ownJournal(t, `{"type":"deploy/approved","v":1,"data":{"service":"api","verdict":"maybe"}}`)
	deployModule(t)
	if code, _, stderr := jobgen(t, "journal", "check", path); code != exitOK || !strings.Contains(stderr, "kept 1 fact this build cannot read: deploy/approved v1 (1)") {
		t.Fatalf("check: exit %d, want 0 and the fact it kept: %s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "check", "--strict", path); code != exitUnknownFacts {
		t.Fatalf("check --strict: exit %d, want %d: %s", code, exitUnknownFacts, stderr)
	}
}

func TestJournalCheckRefusesADamagedFactOfTheModulesSpecs(t *testing.T) {
	for _, c := range []struct{ why, payload, want string }{
		{"a required field missing", `{"type":"deploy/approved","v":1,"data":{"verdict":"approved"}}`, `field "service": missing required field`},
		{"a value of the wrong type", `{"type":"deploy/approved","v":1,"data":{"service":"api","verdict":"approved","approvals":"2"}}`, "cannot unmarshal"},
		{"a key in another case", `{"type":"deploy/approved","v":1,"data":{"Service":"api","service":"api","verdict":"approved"}}`, "ambiguous object key"},
	} {
		t.Run(c.why, func(t *testing.T) {
			path := ownJournal(t, c.payload)
			deployModule(t)
			code, _, stderr := jobgen(t, "journal", "check", path)
			if code != exitFindings || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "record 7 of stream") {
				t.Fatalf("exit %d, want %d naming record 7 and %q: %s", code, exitFindings, c.want, stderr)
			}
		})
	}
}

// A spec that does not load fails check and intervals before they read,
// whatever the journal holds: intervals too, though it decodes job facts
// without the specs and loads them again only for another vocabulary's.
func TestJournalCommandsRefuseAnInvalidSpec(t *testing.T) {
	mixed, jobsOnly := ownJournal(t), writeJournal(t)
	dir := deployModule(t)
	if err := os.WriteFile(filepath.Join(dir, "spec", "deploy.yaml"), []byte(strings.Replace(deploySpec, "verdict: Verdict", "verdict: Verdit", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"check", "intervals"} {
		for _, path := range []string{mixed, jobsOnly} {
			code, stdout, stderr := jobgen(t, "journal", cmd, path)
			if code != exitFindings || stdout != "" || !strings.Contains(stderr, "deploy.yaml:") || !strings.Contains(stderr, "Verdit") {
				t.Fatalf("%s of %s: exit %d, stdout %q; want %d with the spec's error and nothing read: %s", cmd, filepath.Base(path), code, stdout, exitFindings, stderr)
			}
		}
	}
}

// A positioned cat line, as journal cat prints it.
type posLine struct {
	Pos    any    `json:"pos"`
	Stream string `json:"stream"`
	Seq    uint64 `json:"seq"`
	Fact   struct {
		Type string `json:"type"`
	} `json:"fact"`
}

func parseCat(t *testing.T, out string) []posLine {
	t.Helper()
	var lines []posLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var p posLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("cat line %q: %v", l, err)
		}
		if _, ok := p.Pos.(string); !ok {
			t.Fatalf("cat line %q: pos is %T, want a string, as for every backend", l, p.Pos)
		}
		if _, err := journal.ParsePosition(p.Pos.(string)); err != nil {
			t.Fatalf("cat line %q: %v", l, err)
		}
		lines = append(lines, p)
	}
	return lines
}

func TestJournalCatSelects(t *testing.T) {
	path := ownJournal(t)
	deployModule(t)
	cases := []struct {
		args []string
		want []string // the positions printed
	}{
		{nil, []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6"}},
		{[]string{"--after", "0.4"}, []string{"0.5", "0.6"}},
		{[]string{"--after", "4"}, []string{"0.5", "0.6"}},
		{[]string{"--type", "deploy/approved"}, []string{"0.4", "0.6"}},
		{[]string{"--type", "deploy/approved", "--type", "job/settled"}, []string{"0.3", "0.4", "0.6"}},
		{[]string{"--stream", "s1", "--after", "0.3"}, []string{"0.4", "0.5", "0.6"}},
		{[]string{"--stream", "nobody"}, nil},
	}
	for _, c := range cases {
		code, stdout, stderr := jobgen(t, append(append([]string{"journal", "cat"}, c.args...), path)...)
		if code != exitOK {
			t.Fatalf("cat %v: exit %d: %s", c.args, code, stderr)
		}
		var got []string
		for _, l := range parseCat(t, stdout) {
			got = append(got, l.Pos.(string))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("cat %v printed positions %v, want %v", c.args, got, c.want)
		}
	}
	if code, _, stderr := jobgen(t, "journal", "cat", "--type", "deploy/aproved", path); code != exitUsage || !strings.Contains(stderr, "deploy/aproved") {
		t.Errorf("cat --type of a type no spec declares: exit %d, want %d: %s", code, exitUsage, stderr)
	}
	if code, _, _ := jobgen(t, "journal", "cat", "--after", "x.y", path); code != exitUsage {
		t.Errorf("cat --after x.y: exit %d, want %d", code, exitUsage)
	}
}

// A syncBuffer is a bytes.Buffer that a follower writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// follow runs journal cat --follow on arg until the test ends, and returns
// what it prints.
func follow(t *testing.T, arg string, args ...string) *syncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errs := &syncBuffer{}, &syncBuffer{}
	j := &journalRun{path: arg, truncateAt: -1, stdout: out, stderr: errs, follow: true, ctx: ctx, poll: 5 * time.Millisecond}
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "--stream" {
			j.streams = append(j.streams, journal.Stream(args[i+1]))
		}
	}
	done := make(chan int)
	go func() { done <- j.open(journalCat) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("cat --follow: exit %d: %s", code, errs)
		}
	})
	return out
}

// waitLines waits until out holds n lines and returns them.
func waitLines(t *testing.T, out *syncBuffer, n int) []posLine {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < n {
		if time.Now().After(deadline) {
			t.Fatalf("cat --follow printed %d lines in 10s, want %d:\n%s", strings.Count(out.String(), "\n"), n, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return parseCat(t, out.String())
}

func TestJournalCatFollowsAFile(t *testing.T) {
	path := writeJournal(t)
	out := follow(t, path)
	waitLines(t, out, 3)
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ownPayloads {
		if _, err := store.Append(context.Background(), "s2", journal.Entry{Payload: []byte(p)}); err != nil {
			t.Fatal(err)
		}
		if err := store.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	lines := waitLines(t, out, 6)
	if err := store.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if want := (journal.Position{Minor: uint64(i + 1)}).String(); l.Pos != want {
			t.Errorf("line %d: pos %v, want %s", i, l.Pos, want)
		}
	}
	if lines[3].Stream != "s2" || lines[3].Fact.Type != "deploy/approved" || len(lines) != 6 {
		t.Errorf("the records appended while following: %+v", lines[3:])
	}
}
