package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
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
		if got := goName(in); got != want {
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
	if got := unifiedDiff("a", "b", []byte(a), []byte(b)); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("a", "b", []byte(a), []byte(a)); got != "" {
		t.Errorf("equal inputs gave a diff:\n%s", got)
	}
	if got := unifiedDiff("a", "b", nil, []byte("x\n")); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
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

// TestGenerateIsDeterministic generates the shipped spec repeatedly and into
// two directories; every run must give the same bytes, because the output is
// committed and verified.
func TestGenerateIsDeterministic(t *testing.T) {
	data := readJobsSpec(t)
	first, err := Generate(jobsSpecPath, data)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, err := Generate(jobsSpecPath, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(first) {
			t.Fatalf("run %d gave %d files, first gave %d", i, len(again), len(first))
		}
		for j := range first {
			if again[j].Path != first[j].Path || !bytes.Equal(again[j].Content, first[j].Content) {
				t.Fatalf("run %d: %s differs from the first run", i, first[j].Path)
			}
		}
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	if _, err := Write(dirA, first); err != nil {
		t.Fatal(err)
	}
	again, _ := Generate(jobsSpecPath, data)
	if _, err := Write(dirB, again); err != nil {
		t.Fatal(err)
	}
	for _, f := range first {
		a, _ := os.ReadFile(filepath.Join(dirA, f.Path))
		b, _ := os.ReadFile(filepath.Join(dirB, f.Path))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between the two output directories", f.Path)
		}
	}
}

func TestGeneratedFilesCarryTheHeader(t *testing.T) {
	files, err := Generate(jobsSpecPath, readJobsSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasPrefix(string(f.Content), Header+"\n") {
			t.Errorf("%s does not start with %q", f.Path, Header)
		}
	}
}

func TestWriteAndCompare(t *testing.T) {
	root := t.TempDir()
	files := []File{
		{Path: "p/a.gen.go", Content: []byte(Header + "\n\npackage p\n")},
		{Path: "p/b.gen.go", Content: []byte(Header + "\n\npackage p\n\nconst B = 1\n")},
	}
	changes, err := Write(root, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].Kind != Missing || changes[1].Kind != Missing {
		t.Fatalf("first write: %+v", changes)
	}
	if changes, _ := Compare(root, files); len(changes) != 0 {
		t.Fatalf("a fresh tree differs: %+v", changes)
	}
	// A hand-written file in the package directory is never an orphan; a
	// generated one the spec no longer yields is.
	writeFile(t, filepath.Join(root, "p", "hand.go"), []byte("package p\n"))
	writeFile(t, filepath.Join(root, "p", "old.gen.go"), []byte(Header+"\n\npackage p\n"))
	writeFile(t, filepath.Join(root, "p", "b.gen.go"), []byte(Header+"\n\npackage p\n\nconst B = 2\n"))
	changes, err = Compare(root, files)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(changes[0].Path, changes[0].Kind, " ", changes[1].Path, changes[1].Kind)
	if len(changes) != 2 || got != "p/b.gen.gostale p/old.gen.goorphan" {
		t.Fatalf("changes = %+v", changes)
	}
	if !strings.Contains(changes[0].Diff, "-const B = 2\n+const B = 1\n") {
		t.Errorf("stale diff does not show the change:\n%s", changes[0].Diff)
	}
	if _, err := Write(root, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "p", "old.gen.go")); !os.IsNotExist(err) {
		t.Error("the orphaned generated file was not removed")
	}
	if _, err := os.Stat(filepath.Join(root, "p", "hand.go")); err != nil {
		t.Error("a hand-written file was removed")
	}
	if changes, _ := Compare(root, files); len(changes) != 0 {
		t.Fatalf("tree still differs after Write: %+v", changes)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(root, "p", ".*tmp*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestParseRefusesInvalidSpecWithPositions(t *testing.T) {
	_, err := Parse("s.yaml", []byte("jobgen: 1\npackage: {name: p}\nrecords:\n  A:\n    fields:\n      b: Missing\n"))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("err = %v", err)
	}
	if list[0].Pos != (Pos{"s.yaml", 6, 10}) {
		t.Errorf("position = %v, want s.yaml:6:10", list[0].Pos)
	}
}

// FuzzLoad feeds arbitrary bytes to the loader. It must never panic, and
// must return either a model or positioned errors — never neither.
func FuzzLoad(f *testing.F) {
	f.Add(readJobsSpec(f))
	seeds, _ := filepath.Glob("testdata/cases/*/spec.yaml")
	for _, s := range seeds {
		data, _ := os.ReadFile(s)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := ParseFS(fstest.MapFS{}, "fuzz.yaml", data)
		if (spec == nil) == (err == nil) {
			t.Fatalf("Parse returned spec=%v err=%v; want exactly one", spec != nil, err)
		}
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 {
					t.Fatalf("error without a position: %v", e)
				}
			}
			return
		}
		if _, err := Emit(spec); err != nil {
			t.Fatalf("a valid spec failed to emit: %v", err)
		}
	})
}

// TestSourceSyntaxErrorPointsIntoTheSource keeps a source that does not parse
// out of testdata (gofmt would trip over it) and checks the error lands at
// the offending line of the source, not in the spec.
func TestSourceSyntaxErrorPointsIntoTheSource(t *testing.T) {
	spec := []byte("jobgen: 1\npackage: {name: demo, sources: [up/*.go]}\nenums:\n  E: {values: {a: {}}}\n")
	dir := fstest.MapFS{"up/bad.go": {Data: []byte("//go:build jobgen\n\npackage demo\n\nfunc broken( {\n")}}
	_, err := ParseFS(dir, "specs/demo.yaml", spec)
	if got := errorLines(err); !strings.HasPrefix(got, filepath.Join("specs", "up", "bad.go")+":5:14: Go syntax: ") {
		t.Errorf("errors:\n%s", got)
	}
}

// TestParseReadsSourcesNextToTheSpec is the path the CLI takes: sources are
// found relative to the spec file, not to the working directory.
func TestParseReadsSourcesNextToTheSpec(t *testing.T) {
	data, err := os.ReadFile("testdata/cases/kitchen-sink/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate("testdata/cases/kitchen-sink/spec.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	if !slices.Contains(names, "kitchen/served_late.src.gen.go") {
		t.Errorf("generated %v, want the copied source among them", names)
	}
}

// TestSpecsComparedWithoutSourcesStillLoad: breaking reads an old spec from
// git, where its sources are not at hand; the model must still load.
func TestSpecsComparedWithoutSourcesStillLoad(t *testing.T) {
	data, err := os.ReadFile("testdata/cases/kitchen-sink/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseFS(nil, "old.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Emit(spec); err == nil {
		t.Error("Emit of a spec whose sources were never read succeeded; it would drop the upcasters")
	}
}

// TestOrphansAreRecognisedInEveryFormat: docs and schemas a spec no longer
// yields are removed like Go files, and hand-written neighbours are not.
func TestOrphansAreRecognisedInEveryFormat(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "gone.md"), []byte("<!-- Code generated by jobgen from gone.yaml. DO NOT EDIT. -->\n\n# Package gone\n"))
	writeFile(t, filepath.Join(root, "gone.schema.json"), []byte("{\n  \"$comment\": \"Code generated by jobgen from gone.yaml. DO NOT EDIT.\",\n  \"title\": \"gone\"\n}\n"))
	writeFile(t, filepath.Join(root, "notes.md"), []byte("# Notes\n\nCode generated by jobgen. DO NOT EDIT. is quoted here, not a marker.\n"))
	writeFile(t, filepath.Join(root, "hand.json"), []byte("{\n  \"title\": \"mine\"\n}\n"))
	changes, err := Compare(root, []File{{Path: "kept.md", Content: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Path+" "+string(c.Kind))
	}
	want := []string{"gone.md orphan", "gone.schema.json orphan", "kept.md missing"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
}

// TestSchemaAndDocsAreDeterministic: like the Go output, the schema and the
// reference are committed and verified, so repeated runs give equal bytes;
// and the schema is JSON.
func TestSchemaAndDocsAreDeterministic(t *testing.T) {
	spec, err := Parse(jobsSpecPath, readJobsSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := EmitSchema(spec)
	docs, _ := EmitDocs(spec)
	if !json.Valid(schema.Content) {
		t.Fatalf("the schema is not JSON:\n%s", schema.Content)
	}
	for i := 0; i < 20; i++ {
		again, _ := Parse(jobsSpecPath, readJobsSpec(t))
		s, _ := EmitSchema(again)
		d, _ := EmitDocs(again)
		if !bytes.Equal(s.Content, schema.Content) || !bytes.Equal(d.Content, docs.Content) {
			t.Fatalf("run %d differs from the first", i)
		}
	}
	for _, f := range []File{schema, docs} {
		name := filepath.Join(t.TempDir(), path.Base(f.Path))
		writeFile(t, name, f.Content)
		if ok, _ := isGenerated(name); !ok {
			t.Errorf("%s does not start with jobgen's marker, so it would never be removed as an orphan", f.Path)
		}
	}
}

// TestSpecImportsWithoutAFileSystemStillLoad: breaking reads an old spec from
// git, where the specs it imports are not at hand; it must still load, with
// its imported names compared as written.
func TestSpecImportsWithoutAFileSystemStillLoad(t *testing.T) {
	data, err := os.ReadFile("testdata/cases/import-spec/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseFS(nil, "old.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.Spec().Records[0].Fields[0].Type.String(); got != "base.OwnerID" {
		t.Errorf("owner's type = %s, want base.OwnerID", got)
	}
	if _, err := Emit(spec); err == nil {
		t.Error("Emit of a spec whose imports were never read succeeded; it would import a package with no path")
	}
}
