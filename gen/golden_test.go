package gen

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cases from the current generator")

// TestGolden runs every case under testdata/cases. A case is a directory with a
// spec.yaml (and any sources or specs it names) and either errors.golden
// (the spec is invalid; every problem, one per line, as jobgen prints them)
// or want/ (the files the spec generates: its Go package and those of the
// specs it imports, and its JSON Schema and Markdown reference under schema/
// and docs/).
// Adding a behaviour means adding a directory; run with -update to record it,
// then read the diff.
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
			files, genErr := generateAll(os.DirFS(dir), "spec.yaml", data)
			errorsFile := filepath.Join(dir, "errors.golden")
			wantDir := filepath.Join(dir, "want")
			if *update {
				os.RemoveAll(wantDir)
				os.Remove(errorsFile)
				if genErr != nil {
					writeFile(t, errorsFile, []byte(errorLines(genErr)))
				}
				for _, f := range files {
					writeFile(t, filepath.Join(wantDir, filepath.FromSlash(f.Path)+".golden"), f.Content)
				}
				return
			}
			wantErrs, readErr := os.ReadFile(errorsFile)
			switch {
			case readErr == nil && genErr == nil:
				t.Fatalf("spec is valid, but errors.golden expects:\n%s", wantErrs)
			case readErr == nil:
				if got := errorLines(genErr); got != string(wantErrs) {
					t.Errorf("errors differ from errors.golden:\n%s", unifiedDiff("errors.golden", "got", wantErrs, []byte(got)))
				}
				return
			case genErr != nil:
				t.Fatalf("spec is invalid, but the case expects output:\n%s", errorLines(genErr))
			}
			want := map[string][]byte{}
			walkErr := filepath.WalkDir(wantDir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(wantDir, p)
				if err != nil {
					return err
				}
				content, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				want[filepath.ToSlash(strings.TrimSuffix(rel, ".golden"))] = content
				return nil
			})
			if walkErr != nil {
				t.Fatalf("reading the golden files (run with -update to record them): %v", walkErr)
			}
			for _, f := range files {
				w, ok := want[f.Path]
				if !ok {
					t.Errorf("generated %s, which want/ does not have", f.Path)
					continue
				}
				if !bytes.Equal(w, f.Content) {
					t.Errorf("%s differs from its golden file:\n%s", f.Path, unifiedDiff("want", "got", w, f.Content))
				}
				delete(want, f.Path)
			}
			for p := range want {
				t.Errorf("want/ has %s, which was not generated", p)
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

// generateAll is every output of a spec, each backend's under its own
// directory of want/: Go at the top, the JSON Schema under schema/ and the
// Markdown reference under docs/. The markers name the spec as seen from
// the golden file's own directory.
func generateAll(dir fs.FS, file string, data []byte) ([]File, error) {
	spec, err := LoadFS(dir, file, data)
	if err != nil {
		return nil, err
	}
	var errs ErrorList
	for _, b := range Backends() {
		errs = append(errs, b.Check(spec)...)
	}
	errs.RemoveMultiples()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	var out []File
	for _, b := range Backends() {
		sub, ok := goldenDirs[b.Name()]
		if !ok {
			sub = strings.ToLower(strings.ReplaceAll(b.Name(), " ", ""))
		}
		o, err := NewOrigin(path.Join("want", sub), file)
		if err != nil {
			return nil, err
		}
		files, err := b.Files(spec, o)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			f.Path = path.Join(sub, f.Path)
			out = append(out, f)
		}
	}
	// The Go packages of imported specs too, so that the output compiles.
	for _, im := range spec.Spec().Imports {
		if im.Imported == nil {
			continue
		}
		o, err := NewOrigin("want", path.Join(path.Dir(file), im.Spec))
		if err != nil {
			return nil, err
		}
		more, err := GoBackend{}.Files(im.Imported, o)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// goldenDirs places each backend's golden files under want/; a backend not
// listed gets the directory of its name in lower case ("typescript").
var goldenDirs = map[string]string{"Go": "", "JSON Schema": "schema", "Markdown": "docs", "TypeScript": "ts"}
