package gentest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// WriteFile writes data to name, making its directory first, or fails t.
func WriteFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ErrorLines renders a spec error the way jobgen prints it: one problem a
// line.
func ErrorLines(err error) string {
	var list gen.ErrorList
	if !errors.As(err, &list) {
		return err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

// JobsSpecPath is the path of the spec jobgen ships, spec/jobs.yaml, from
// the test's working directory, wherever the test's package is.
func JobsSpecPath() string {
	_, here, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(here), "..", "..", "spec", "jobs.yaml")
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil {
			return rel
		}
	}
	return p
}

// ReadJobsSpec returns the content of the spec jobgen ships, or fails t.
func ReadJobsSpec(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(JobsSpecPath())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// SyntheticSpec returns a valid spec with n facts of six fields each, plus
// the records and enums they use, for measuring how generation scales.
func SyntheticSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("jobgen: 1\npackage: {name: synth}\nids:\n  ThingID: {kind: uuid}\n  OwnerID: {kind: string}\n")
	b.WriteString("enums:\n  State:\n    values: {a: {}, b: {}, c: {}}\n")
	b.WriteString("records:\n  Detail:\n    fields: {note: string, size: {type: int64, optional: true}}\n")
	b.WriteString("facts:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  thing/event%d:\n    doc: A thing/event%d fact is synthetic.\n    versions:\n      v1:\n        fields:\n", i, i)
		b.WriteString("          thingId: ThingID\n          at: int64\n          owner: {type: OwnerID, optional: true}\n")
		b.WriteString("          state: State\n          detail: Detail\n          tags: \"[]string\"\n")
	}
	return []byte(b.String())
}

// LoadCase loads the spec of the front end's golden case name
// (FrontEndCases/name/spec.yaml), with the files beside it.
func LoadCase(t testing.TB, name string) *gen.Resolved {
	t.Helper()
	dir := filepath.Join(FrontEndCases, name)
	data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gen.LoadFS(os.DirFS(dir), "spec.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// WriteCase loads the front end's golden case name and writes, below dir,
// what files makes of its spec and of each spec it imports (their modules
// sit side by side, as a package holds them). It returns the case.
func WriteCase(t testing.TB, dir, name string, files func(*gen.Resolved) ([]gen.File, error)) *gen.Resolved {
	t.Helper()
	spec := LoadCase(t, name)
	specs := []*gen.Resolved{spec}
	for _, im := range spec.Spec().Imports {
		if im.Imported != nil {
			specs = append(specs, im.Imported)
		}
	}
	for _, r := range specs {
		out, err := files(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out {
			WriteFile(t, filepath.Join(dir, f.Path), f.Content)
		}
	}
	return spec
}
