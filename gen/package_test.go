package gen_test

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
	"github.com/jobgen/jobgen/gen/markdown"
)

// packaged is the Markdown backend as a Packager: each spec's <name>.md,
// and two files of the package itself, runtime.md and manifest.json, whose
// content is version.
type packaged struct {
	markdown.Backend
	version string
}

const (
	runtimeOpening  = "<!-- " + gen.PackageText + " -->\n"
	manifestOpening = "{\n  \"//\": \"" + gen.PackageText + "\",\n"
)

func (p packaged) PackageFiles() ([]gen.PackageFile, error) {
	return []gen.PackageFile{
		{File: gen.File{Path: "runtime.md", Content: []byte(runtimeOpening + "runtime " + p.version + "\n")}, Opening: runtimeOpening},
		{File: gen.File{Path: "manifest.json", Content: []byte(manifestOpening + "  \"v\": \"" + p.version + "\"\n}\n")}, Opening: manifestOpening},
	}, nil
}

// TestPackageFilesBelongToThePackage: a Packager's own files are written
// with the first spec, shared by specs generated one at a time, replaced
// when they change, and never reported as orphans of a spec.
func TestPackageFilesBelongToThePackage(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	a := specAt(t, filepath.Join(dir, "spec"), "a.yaml", "alpha")
	b := specAt(t, filepath.Join(dir, "spec"), "b.yaml", "beta")
	v1 := []gen.Target{{Backend: packaged{version: "1"}, Root: root}}
	got := kinds(write(t, render(t, v1, a)))
	want := []string{filepath.ToSlash(root) + "/alpha.md missing", filepath.ToSlash(root) + "/manifest.json missing", filepath.ToSlash(root) + "/runtime.md missing"}
	if !slices.Equal(got, want) {
		t.Fatalf("first write: %v, want %v", got, want)
	}
	if got := kinds(write(t, render(t, v1, b))); !slices.Equal(got, []string{filepath.ToSlash(root) + "/beta.md missing"}) {
		t.Fatalf("the second spec's run: %v, want only its own file", got)
	}
	for _, s := range []*gen.Resolved{a, b} {
		if changes := compare(t, render(t, v1, s)); len(changes) != 0 {
			t.Errorf("verify of %s alone: %v", s.Spec().File, kinds(changes))
		}
	}
	v2 := []gen.Target{{Backend: packaged{version: "2"}, Root: root}}
	if got := kinds(write(t, render(t, v2, a))); !slices.Equal(got, []string{filepath.ToSlash(root) + "/manifest.json stale", filepath.ToSlash(root) + "/runtime.md stale"}) {
		t.Fatalf("a new package version: %v, want both package files stale", got)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "manifest.json")); !strings.Contains(string(data), `"v": "2"`) {
		t.Errorf("manifest.json not replaced:\n%s", data)
	}
	if tree, err := gen.Render(v2, nil); err != nil || len(tree.Files(0)) != 0 {
		t.Errorf("a run without specs yields package files: %v", err)
	}
}

// shedding is packaged without its runtime.md, which it lists as retired.
type shedding struct{ packaged }

func (s shedding) PackageFiles() ([]gen.PackageFile, error) {
	files, _ := s.packaged.PackageFiles()
	files[0].Retired = true
	return files, nil
}

// TestARetiredPackageFileIsAnOrphan: a file the package no longer carries
// (a runtime, once the package imports another's) is reported by verify
// and removed by generate when it opens as the package's, and never
// written; a hand-written file of that name is left alone.
func TestARetiredPackageFileIsAnOrphan(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	s := specAt(t, filepath.Join(dir, "spec"), "a.yaml", "alpha")
	write(t, render(t, []gen.Target{{Backend: packaged{version: "1"}, Root: root}}, s))
	shed := []gen.Target{{Backend: shedding{packaged{version: "1"}}, Root: root}}
	runtime := filepath.ToSlash(root) + "/runtime.md"
	if got := kinds(compare(t, render(t, shed, s))); !slices.Equal(got, []string{runtime + " orphan"}) {
		t.Fatalf("verify once the package sheds runtime.md: %v, want it an orphan", got)
	}
	if got := kinds(write(t, render(t, shed, s))); !slices.Equal(got, []string{runtime + " orphan"}) {
		t.Fatalf("generate once the package sheds runtime.md: %v, want it removed", got)
	}
	if _, err := os.Stat(filepath.Join(root, "runtime.md")); !os.IsNotExist(err) {
		t.Fatalf("runtime.md is still there: %v", err)
	}
	if changes := compare(t, render(t, shed, s)); len(changes) != 0 {
		t.Errorf("verify after generate: %v", kinds(changes))
	}
	gentest.WriteFile(t, filepath.Join(root, "runtime.md"), []byte("# my own runtime notes\n"))
	if changes := compare(t, render(t, shed, s)); len(changes) != 0 {
		t.Errorf("a hand-written runtime.md: %v, want it left alone", kinds(changes))
	}
}

// TestPackageFilesNeverReplaceAHandWrittenFile: a file at a package file's
// path that does not open as the package's is a conflict, and nothing is
// written; a copy with CRLF line endings is still the package's.
func TestPackageFilesNeverReplaceAHandWrittenFile(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	s := specAt(t, dir, "demo.yaml", "demo")
	hand := filepath.Join(root, "manifest.json")
	gentest.WriteFile(t, hand, []byte("{\"name\": \"mine\"}\n"))
	tree := render(t, []gen.Target{{Backend: packaged{version: "1"}, Root: root}}, s)
	_, err := tree.Write()
	var conflict *gen.ConflictError
	if !errors.As(err, &conflict) || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].Name() != hand || !strings.Contains(err.Error(), "not written by jobgen") {
		t.Fatalf("err = %v, want a conflict naming %s", err, hand)
	}
	if _, err := os.Stat(filepath.Join(root, "demo.md")); !os.IsNotExist(err) {
		t.Error("files were written beside the conflict")
	}
	gentest.WriteFile(t, hand, []byte(strings.ReplaceAll(manifestOpening+"  \"v\": \"0\"\n}\n", "\n", "\r\n")))
	if got := kinds(write(t, tree)); !slices.Contains(got, filepath.ToSlash(hand)+" stale") {
		t.Errorf("a CRLF copy of the package's manifest: %v, want it stale", got)
	}
}

// TestASpecMayNotYieldAPackageFile: a spec whose file would be one of the
// package's is refused at its package name.
func TestASpecMayNotYieldAPackageFile(t *testing.T) {
	dir := t.TempDir()
	s := specAt(t, dir, "runtime.yaml", "runtime")
	_, err := gen.Render([]gen.Target{{Backend: packaged{version: "1"}, Root: filepath.Join(dir, "docs")}}, []*gen.Resolved{s})
	var list gen.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.Line != 2 || !strings.Contains(list[0].Msg, "a file of the Markdown package itself") {
		t.Fatalf("err = %v, want one positioned error", err)
	}
}

// badPackage opens a package file without saying jobgen wrote it.
type badPackage struct{ markdown.Backend }

func (badPackage) PackageFiles() ([]gen.PackageFile, error) {
	return []gen.PackageFile{{File: gen.File{Path: "x.md", Content: []byte("x\n")}, Opening: "x\n"}}, nil
}

// TestPackageFilesMustSayTheyAreGenerated: a package file whose opening
// does not carry jobgen's words is a backend bug Render refuses.
func TestPackageFilesMustSayTheyAreGenerated(t *testing.T) {
	dir := t.TempDir()
	s := specAt(t, dir, "demo.yaml", "demo")
	_, err := gen.Render([]gen.Target{{Backend: badPackage{}, Root: filepath.Join(dir, "docs")}}, []*gen.Resolved{s})
	if err == nil || !strings.Contains(err.Error(), "does not say") {
		t.Fatalf("err = %v, want the opening refused", err)
	}
}

// nested writes each spec's module in the package directory dir and the
// package's runtime at runtime, as the Python backend beside the Go
// packages writes python/jobgen_vocab/jobs.py and its _runtime.py.
type nested struct{ dir, runtime string }

const nestedOpening = "# " + gen.PackageText + "\n"

func (nested) Name() string { return "Nested" }

func (nested) Marker() gen.Marker {
	return gen.Marker{Suffix: ".sh", Format: "# " + gen.MarkerText + "\n"}
}

func (nested) Check(*gen.Resolved) gen.ErrorList { return nil }

func (b nested) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	name := path.Join(b.dir, r.Spec().Package.Name+".sh")
	return []gen.File{{Path: name, Content: []byte(gen.Mark(b, o, name) + "module\n")}}, nil
}

func (b nested) PackageFiles() ([]gen.PackageFile, error) {
	return []gen.PackageFile{{File: gen.File{Path: b.runtime, Content: []byte(nestedOpening + "runtime\n")}, Opening: nestedOpening}}, nil
}

// TestPathsThreeElementsDeep: a backend beside the Go packages may write a
// package directory inside its own directory (py/vocab/alpha.sh): its
// files are written and verified, a spec's file there names its spec, and
// once that spec is gone the file is found as an orphan, the package's own
// file never; a path four elements deep is refused, a spec's or a
// package's.
func TestPathsThreeElementsDeep(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "generated")
	a := specAt(t, filepath.Join(dir, "spec"), "a.yaml", "alpha")
	b := specAt(t, filepath.Join(dir, "spec"), "b.yaml", "beta")
	targets := []gen.Target{{Backend: nested{"py/vocab", "py/vocab/_runtime.sh"}, Root: root}}
	at := filepath.ToSlash(root) + "/py/vocab/"
	got := kinds(write(t, render(t, targets, a, b)))
	if want := []string{at + "_runtime.sh missing", at + "alpha.sh missing", at + "beta.sh missing"}; !slices.Equal(got, want) {
		t.Fatalf("first write: %v, want %v", got, want)
	}
	if changes := compare(t, render(t, targets, a, b)); len(changes) != 0 {
		t.Fatalf("a fresh tree differs: %v", kinds(changes))
	}
	data, _ := os.ReadFile(filepath.Join(root, "py", "vocab", "beta.sh"))
	if origin, ok := gen.ReadMarker(nested{}, data); !ok || origin != "../../../spec/b.yaml" {
		t.Errorf("beta.sh names %q (%v), want ../../../spec/b.yaml", origin, ok)
	}
	os.Remove(b.Spec().File)
	if got := kinds(compare(t, render(t, targets, a))); !slices.Equal(got, []string{at + "beta.sh orphan"}) {
		t.Errorf("after deleting b.yaml: %v, want beta.sh alone an orphan", got)
	}
	for _, deep := range []nested{{"py/vocab/x", "py/vocab/_runtime.sh"}, {"py/vocab", "py/vocab/x/_runtime.sh"}} {
		_, err := gen.Render([]gen.Target{{Backend: deep, Root: root}}, []*gen.Resolved{a})
		if err == nil || !strings.Contains(err.Error(), "more than 3 elements deep") {
			t.Errorf("%+v: err = %v, want the path refused", deep, err)
		}
	}
}
