package gentest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// Deterministic checks that b obeys the first rule of gen.Backend: its
// output is committed and verified, so repeated runs over the spec jobgen
// ships, and runs into two directories, give the same bytes.
func Deterministic(t *testing.T, b gen.Backend) {
	t.Helper()
	load := func() *gen.Resolved {
		s, err := gen.Load(JobsSpecPath(), ReadJobsSpec(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := load()
	o := gen.BesideSpec(first.Spec())
	want, err := b.Files(first, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		got, err := b.Files(load(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s run %d gave %d files, the first gave %d", b.Name(), i, len(got), len(want))
		}
		for j := range want {
			if got[j].Path != want[j].Path || !bytes.Equal(got[j].Content, want[j].Content) {
				t.Fatalf("%s run %d: %s differs from the first run", b.Name(), i, want[j].Path)
			}
		}
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	for _, run := range []struct {
		dir  string
		spec *gen.Resolved
	}{{dirA, first}, {dirB, load()}} {
		tree, err := gen.Render([]gen.Target{{Backend: b, Root: run.dir}}, []*gen.Resolved{run.spec})
		if err == nil {
			_, err = tree.Write()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	filepath.WalkDir(dirA, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dirA, p)
		a, _ := os.ReadFile(p)
		other, _ := os.ReadFile(filepath.Join(dirB, rel))
		if !bytes.Equal(a, other) {
			t.Errorf("%s differs between the two output directories", rel)
		}
		n++
		return nil
	})
	if n == 0 {
		t.Error("nothing was written")
	}
}
