package gen

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the errors.golden files under testdata/cases from the current front end")

// TestGolden runs every case under testdata/cases. A case is a directory with a
// spec.yaml (and any sources or specs it names) and either errors.golden
// (the spec is invalid; every problem, one per line, as jobgen prints them)
// or nothing more: the spec is valid, and what each backend generates from
// it is that backend's golden files, under gen/<backend>/testdata/cases/<case>/.
// A spec that is valid but that a backend cannot generate is that backend's
// case. Adding a behaviour means adding a directory; run with -update to
// record it, then read the diff.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/cases/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			_, loadErr := LoadFS(os.DirFS(dir), "spec.yaml", data)
			errorsFile := filepath.Join(dir, "errors.golden")
			if *update {
				os.Remove(errorsFile)
				if loadErr != nil {
					writeFile(t, errorsFile, []byte(errorLines(loadErr)))
				}
				return
			}
			wantErrs, readErr := os.ReadFile(errorsFile)
			switch {
			case readErr == nil && loadErr == nil:
				t.Fatalf("spec is valid, but errors.golden expects:\n%s", wantErrs)
			case readErr == nil:
				if got := errorLines(loadErr); got != string(wantErrs) {
					t.Errorf("errors differ from errors.golden:\n%s", UnifiedDiff("errors.golden", "got", wantErrs, []byte(got)))
				}
			case loadErr != nil:
				t.Fatalf("spec is invalid, but the case has no errors.golden:\n%s", errorLines(loadErr))
			}
		})
	}
}

// errorLines renders a spec error the way jobgen prints it: one problem a line.
func errorLines(err error) string {
	var list ErrorList
	if !errors.As(err, &list) {
		return err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
