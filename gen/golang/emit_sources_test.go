package golang

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// FuzzEmit feeds arbitrary bytes to the loader and emits Go from every spec
// that loads: a valid spec always emits.
func FuzzEmit(f *testing.F) {
	f.Add(gentest.ReadJobsSpec(f))
	seeds, _ := filepath.Glob("../testdata/cases/*/spec.yaml")
	for _, s := range seeds {
		data, _ := os.ReadFile(s)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := gen.Load("fuzz.yaml", data)
		if err != nil {
			return
		}
		if _, err := Emit(spec); err != nil {
			t.Fatalf("a valid spec failed to emit: %v", err)
		}
	})
}

// TestParseReadsSourcesNextToTheSpec is the path the CLI takes: sources are
// found relative to the spec file, not to the working directory.
func TestParseReadsSourcesNextToTheSpec(t *testing.T) {
	data, err := os.ReadFile("../testdata/cases/kitchen-sink/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate("../testdata/cases/kitchen-sink/spec.yaml", data)
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
	data, err := os.ReadFile("../testdata/cases/kitchen-sink/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gen.LoadFS(nil, "old.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Emit(spec); err == nil {
		t.Error("Emit of a spec whose sources were never read succeeded; it would drop the upcasters")
	}
}

// TestSpecImportsWithoutAFileSystemStillLoad: breaking reads an old spec from
// git, where the specs it imports are not at hand; it must still load, with
// its imported names compared as written.
func TestSpecImportsWithoutAFileSystemStillLoad(t *testing.T) {
	data, err := os.ReadFile("../testdata/cases/import-spec/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gen.LoadFS(nil, "old.yaml", data)
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
