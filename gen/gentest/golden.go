package gentest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// FrontEndCases is where the front end's cases are, seen from a backend's
// package directory: the specs every backend generates from.
const FrontEndCases = "../testdata/cases"

// Golden runs backend b over every case and compares what it generates with
// the golden files under the backend's own testdata/cases/<case>/: want/,
// the files b generates (and those more adds, such as the packages of
// imported specs), or errors.golden, what b.Check reports. A case is a
// valid spec among the front end's cases (FrontEndCases), or a spec.yaml of
// the backend's own case, one Validate accepts and b cannot generate. With
// update, the golden files are rewritten instead; read the diff.
func Golden(t *testing.T, b gen.Backend, update bool, more func(r *gen.Resolved, file string) ([]gen.File, error)) {
	t.Helper()
	cases := map[string]string{}
	own, _ := filepath.Glob("testdata/cases/*/spec.yaml")
	shared, _ := filepath.Glob(FrontEndCases + "/*/spec.yaml")
	for _, p := range append(shared, own...) {
		cases[filepath.Base(filepath.Dir(p))] = filepath.Dir(p)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	n := 0
	for _, name := range names {
		in := cases[name]
		data, err := os.ReadFile(filepath.Join(in, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := gen.LoadFS(os.DirFS(in), "spec.yaml", data)
		if err != nil {
			if !strings.HasPrefix(in, filepath.FromSlash(FrontEndCases)) {
				t.Errorf("%s: the backend's own case is no valid spec:\n%s", name, ErrorLines(err))
			}
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			files, genErr := generate(b, spec, more)
			golden(t, filepath.Join("testdata", "cases", name), files, genErr, update)
		})
	}
	if n == 0 {
		t.Fatal("no valid spec among the cases")
	}
}

// generate is what b makes of spec, with its files' markers naming the spec
// as seen from want/, or what b.Check reports.
func generate(b gen.Backend, spec *gen.Resolved, more func(r *gen.Resolved, file string) ([]gen.File, error)) ([]gen.File, error) {
	if errs := b.Check(spec); len(errs) > 0 {
		errs.RemoveMultiples()
		return nil, errs.Err()
	}
	o, err := gen.NewOrigin("want", "spec.yaml")
	if err != nil {
		return nil, err
	}
	files, err := b.Files(spec, o)
	if err != nil || more == nil {
		return files, err
	}
	extra, err := more(spec, "spec.yaml")
	return append(files, extra...), err
}

// golden compares files, or genErr, with the golden files of the case in
// dir, or records them there.
func golden(t *testing.T, dir string, files []gen.File, genErr error, update bool) {
	errorsFile := filepath.Join(dir, "errors.golden")
	wantDir := filepath.Join(dir, "want")
	if update {
		os.RemoveAll(wantDir)
		os.Remove(errorsFile)
		if genErr != nil {
			WriteFile(t, errorsFile, []byte(ErrorLines(genErr)))
		}
		for _, f := range files {
			WriteFile(t, filepath.Join(wantDir, filepath.FromSlash(f.Path)+".golden"), f.Content)
		}
		return
	}
	wantErrs, readErr := os.ReadFile(errorsFile)
	switch {
	case readErr == nil && genErr == nil:
		t.Fatalf("the backend generates the spec, but errors.golden expects:\n%s", wantErrs)
	case readErr == nil:
		if got := ErrorLines(genErr); got != string(wantErrs) {
			t.Errorf("errors differ from errors.golden:\n%s", gen.UnifiedDiff("errors.golden", "got", wantErrs, []byte(got)))
		}
		return
	case genErr != nil && !errors.Is(readErr, os.ErrNotExist):
		t.Fatal(readErr)
	case genErr != nil:
		t.Fatalf("the backend refuses the spec, but the case expects output:\n%s", ErrorLines(genErr))
	}
	want := readTree(t, wantDir)
	for _, f := range files {
		w, ok := want[f.Path]
		if !ok {
			t.Errorf("generated %s, which want/ does not have (run with -update to record it)", f.Path)
			continue
		}
		if !bytes.Equal(w, f.Content) {
			t.Errorf("%s differs from its golden file:\n%s", f.Path, gen.UnifiedDiff("want", "got", w, f.Content))
		}
		delete(want, f.Path)
	}
	for p := range want {
		t.Errorf("want/ has %s, which was not generated", p)
	}
}

// readTree reads the golden files under dir by the path of the file each
// holds.
func readTree(t *testing.T, dir string) map[string][]byte {
	want := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		want[filepath.ToSlash(strings.TrimSuffix(rel, ".golden"))] = content
		return err
	})
	if err != nil {
		t.Fatalf("reading the golden files (run with -update to record them): %v", err)
	}
	return want
}
