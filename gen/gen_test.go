package gen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestErrorListBehavesLikeGoScanner(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Fatal("an empty list must be a nil error")
	}
	l.Add(Pos{"b.yaml", 1, 1}, "in b")
	l.Add(Pos{"a.yaml", 9, 2}, "second")
	l.Add(Pos{"a.yaml", 3, 7}, "first")
	l.Add(Pos{"a.yaml", 3, 7}, "first")
	l.RemoveMultiples()
	want := []string{"a.yaml:3:7: first", "a.yaml:9:2: second", "b.yaml:1:1: in b"}
	if len(l) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(l), len(want), l)
	}
	for i, e := range l {
		if e.Error() != want[i] {
			t.Errorf("error %d = %q, want %q", i, e.Error(), want[i])
		}
	}
	if got := l.Err().Error(); got != "a.yaml:3:7: first (and 2 more errors)" {
		t.Errorf("Error() = %q", got)
	}
	var target ErrorList
	if !errors.As(fmt.Errorf("wrapped: %w", l.Err()), &target) || len(target) != 3 {
		t.Error("an ErrorList must survive wrapping for errors.As")
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"jobId":          "JobID",
		"id":             "ID",
		"toolCall":       "ToolCall",
		"job/settled":    "JobSettled",
		"in-progress":    "InProgress",
		"tool_call_url":  "ToolCallURL",
		"order.served":   "OrderServed",
		"retainBytes":    "RetainBytes",
		"httpServer":     "HTTPServer",
		"utf8Text":       "UTF8Text",
		"producerReport": "ProducerReport",
		"jobIds":         "JobIDs",
		"urls":           "URLs",
		"status":         "Status",
		"ids":            "IDs",
	} {
		if got := GoName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFixInitialisms: the suggestion for a spec name that staticcheck's
// ST1003 would flag is the name it asks for; a name it accepts is kept.
func TestFixInitialisms(t *testing.T) {
	for in, want := range map[string]string{
		"OrderId":    "OrderID",
		"OrderID":    "OrderID",
		"UrlPath":    "URLPath",
		"JobIds":     "JobIDs",
		"HttpServer": "HTTPServer",
		"HTTPServer": "HTTPServer",
		"Status":     "Status",
		"Ids":        "IDs",
		"Idle":       "Idle",
	} {
		if got := fixInitialisms(in); got != want {
			t.Errorf("fixInitialisms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSuggestOnlyCloseNames(t *testing.T) {
	cases := []struct {
		in, want string
		from     []string
	}{
		{"dok", "doc", []string{"doc", "fields", "type"}},
		{"feilds", "fields", []string{"doc", "fields"}},
		{"colour", "", []string{"doc", "fields"}},
		{"Stauts", "Status", []string{"Item", "Status", "TaskID"}},
		{"x", "", []string{"doc"}},
	}
	for _, c := range cases {
		if got := suggest(c.in, c.from); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	b := "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n"
	want := `--- a
+++ b
@@ -1,6 +1,6 @@
 one
 two
-three
+THREE
 four
 five
 six
@@ -8,3 +8,4 @@
 eight
 nine
 ten
+eleven
`
	if got := UnifiedDiff("a", "b", []byte(a), []byte(b)); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := UnifiedDiff("a", "b", []byte(a), []byte(a)); got != "" {
		t.Errorf("equal inputs gave a diff:\n%s", got)
	}
	if got := UnifiedDiff("a", "b", nil, []byte("x\n")); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("diff from nothing:\n%s", got)
	}
}

// jobsSpecPath is the shipped spec, seen from this package's directory.
const jobsSpecPath = "../spec/jobs.yaml"

func readJobsSpec(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(jobsSpecPath)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseRefusesInvalidSpecWithPositions(t *testing.T) {
	_, err := Load("s.yaml", []byte("jobgen: 1\npackage: {name: p}\nrecords:\n  A:\n    fields:\n      b: Missing\n"))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("err = %v", err)
	}
	if list[0].Pos != (Pos{"s.yaml", 6, 10}) {
		t.Errorf("position = %v, want s.yaml:6:10", list[0].Pos)
	}
}

// FuzzLoad feeds arbitrary bytes to the loader. It must never panic, and
// must return either a model or positioned errors — never neither. (The Go
// backend's FuzzEmit also emits what loads.)
func FuzzLoad(f *testing.F) {
	f.Add(readJobsSpec(f))
	seeds, _ := filepath.Glob("testdata/cases/*/spec.yaml")
	for _, s := range seeds {
		data, _ := os.ReadFile(s)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := loadFuzzed(t, data, false)
		if err == nil && spec.Spec() == nil {
			t.Fatal("a valid spec has no model")
		}
	})
}

// TestSourceSyntaxErrorPointsIntoTheSource keeps a source that does not parse
// out of testdata (gofmt would trip over it) and checks the error lands at
// the offending line of the source, not in the spec.
func TestSourceSyntaxErrorPointsIntoTheSource(t *testing.T) {
	spec := []byte("jobgen: 1\npackage: {name: demo, sources: [up/*.go]}\nenums:\n  E: {values: {a: {}}}\n")
	dir := fstest.MapFS{"up/bad.go": {Data: []byte("//go:build jobgen\n\npackage demo\n\nfunc broken( {\n")}}
	_, err := LoadFS(dir, "specs/demo.yaml", spec)
	if got := errorLines(err); !strings.HasPrefix(got, filepath.Join("specs", "up", "bad.go")+":5:14: Go syntax: ") {
		t.Errorf("errors:\n%s", got)
	}
}

// TestSourcesNeverLeaveTheSpecDirectory: a symbolic
// link inside the spec's directory, to a file or a directory outside it,
// does not let package.sources read what it points to.
func TestSourcesNeverLeaveTheSpecDirectory(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	writeFile(t, filepath.Join(outside, "secret.go"), []byte("//go:build jobgen\n\npackage demo\n\nconst Secret = 1\n"))
	specDir := filepath.Join(root, "spec")
	os.MkdirAll(filepath.Join(specDir, "up"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(specDir, "up", "secret.go")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(outside, filepath.Join(specDir, "linked"))
	for _, pattern := range []string{"up/*.go", "linked/*.go"} {
		spec := []byte("jobgen: 1\npackage: {name: demo, sources: [" + pattern + "]}\nenums:\n  E: {values: {a: {}}}\n")
		file := filepath.Join(specDir, "demo.yaml")
		writeFile(t, file, spec)
		_, err := Load(file, spec)
		if err == nil {
			t.Errorf("sources %s read a file outside the spec's directory", pattern)
			continue
		}
		if want := map[string]string{"up/*.go": "up/secret.go is a link that leads outside the spec's directory", "linked/*.go": "linked/*.go matches no file"}[pattern]; !strings.Contains(err.Error(), want) {
			t.Errorf("sources %s: %v", pattern, err)
		}
	}
}
