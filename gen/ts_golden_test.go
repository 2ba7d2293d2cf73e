package gen

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTSGolden pins the TypeScript module of every valid case under
// testdata/cases in testdata/ts/<case>.ts.golden, and runs the cases under
// testdata/ts/errors: specs that are valid for Go but not for TypeScript,
// each with the errors.golden jobgen prints. Run with -update to record.
func TestTSGolden(t *testing.T) {
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
			spec, err := ParseFS(os.DirFS(dir), "spec.yaml", data)
			if err != nil {
				return // an error case of the Go backend; TestGolden covers it
			}
			f, err := EmitTS(spec)
			if err != nil {
				t.Fatalf("a spec valid for Go is refused by the TypeScript backend:\n%s", errorLines(err))
			}
			checkGolden(t, filepath.Join("testdata/ts", filepath.Base(dir)+".ts.golden"), f.Content)
		})
	}
	errDirs, _ := filepath.Glob("testdata/ts/errors/*")
	if len(errDirs) == 0 {
		t.Fatal("no TypeScript error cases")
	}
	for _, dir := range errDirs {
		t.Run("errors/"+filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			spec, err := ParseFS(os.DirFS(dir), "spec.yaml", data)
			if err != nil {
				t.Fatalf("the case must be valid for Go, so that only TypeScript refuses it:\n%s", errorLines(err))
			}
			_, err = EmitTS(spec)
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("EmitTS returned %v, want an ErrorList", err)
			}
			checkGolden(t, filepath.Join(dir, "errors.golden"), []byte(errorLines(err)))
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		writeFile(t, name, got)
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./gen -run TestTSGolden -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs:\n%s", name, unifiedDiff("want", "got", want, got))
	}
}

// TestTSGoldenCompiles runs the pinned tsc (tools/ts) with every strictness
// flag the tool directory sets over each golden module, so that every
// construct of the spec language yields TypeScript that type-checks, not
// only jobs.yaml. It needs `npm ci` in tools/ts; under CI=true it fails
// without it.
func TestTSGoldenCompiles(t *testing.T) {
	tsc := requireTSC(t)
	goldens, _ := filepath.Glob("testdata/ts/*.ts.golden")
	if len(goldens) == 0 {
		t.Fatal("no golden modules")
	}
	dir := t.TempDir()
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, strings.TrimSuffix(filepath.Base(g), ".golden")), data)
	}
	tsconfig, err := os.ReadFile("../tools/ts/tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(string(tsconfig), `"../../generated/ts/*.ts"`, `"*.ts"`, 1)
	writeFile(t, filepath.Join(dir, "tsconfig.json"), []byte(conf))
	cmd := exec.Command(tsc, "-p", filepath.Join(dir, "tsconfig.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// requireTSC returns the path of tools/ts's tsc, skipping locally and
// failing under CI=true when node or the tool is missing.
func requireTSC(t *testing.T) string {
	t.Helper()
	tsc, _ := filepath.Abs("../tools/ts/node_modules/.bin/tsc")
	_, nodeErr := exec.LookPath("node")
	_, tscErr := os.Stat(tsc)
	if nodeErr == nil && tscErr == nil {
		return tsc
	}
	msg := "needs node and the pinned TypeScript: install Node.js, then run `make ts-deps` (npm ci in tools/ts)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
