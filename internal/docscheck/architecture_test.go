package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the module's root directory, seen from this package.
const root = "../.."

// clientDirs are the packages of the module that hold no Go: the TypeScript
// and Python code users install, and the page's sources they are built from.
var clientDirs = []string{"generated/ts", "generated/python", "jobhttp/static", "clients/python"}

// modulePackages lists the directories of the module that hold Go files, as
// `go list ./...` sees them: directories named testdata, hidden or
// underscored ones, node_modules and nested modules are not part of it.
func modulePackages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel != "." {
				seen[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	return pkgs
}

// TestTheArchitectureNamesEveryPackage holds docs/architecture.md to the
// tree: every package of the module, and every client directory, appears on
// the map in backquotes, so a package added without a line there fails.
func TestTheArchitectureNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	pkgs := modulePackages(t)
	if len(pkgs) < 40 || !slices.Contains(pkgs, "registry") || !slices.Contains(pkgs, "journal/pgstore") {
		t.Fatalf("found %d packages (%v); the walk of the module is wrong", len(pkgs), pkgs)
	}
	for _, p := range append(pkgs, clientDirs...) {
		if !strings.Contains(text, "`"+p+"`") && !strings.Contains(text, "`"+p+"/`") {
			t.Errorf("docs/architecture.md does not name `%s`: give it a row saying its job and its contract", p)
		}
	}
}
