package codeshape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genPath is the import path of the generator's front end; its
// subpackages are the backends and what they share.
const genPath = "github.com/jobgen/jobgen/gen"

// genShared are the subpackages of gen that backends may import: what two
// backends share, and the support for their tests. Every other subpackage
// is a backend (the compatibility checker counts as one), so a new
// backend is held to the rule without being listed.
var genShared = []string{"doctext", "gentest", "wireschema"}

// An importEdge is one import of a package under gen by a file under gen:
// from and to are package directories relative to gen ("" for gen itself).
type importEdge struct {
	file     string
	from, to string
}

// importRule reports what is wrong with e, or "": the front end imports
// none of its subpackages; a shared package imports no other subpackage; a
// backend imports gen and the shared packages, never another backend. A
// test of the front end may use the backends as real targets.
func importRule(e importEdge) string {
	shared := func(p string) bool { return slices.Contains(genShared, p) }
	switch {
	case e.to == "" || e.to == e.from:
		return ""
	case e.from == "" && strings.HasSuffix(e.file, "_test.go"):
		return ""
	case e.from == "":
		return fmt.Sprintf("the front end imports gen/%s; a backend imports gen, never the other way", e.to)
	case shared(e.from):
		return fmt.Sprintf("gen/%s, which backends share, imports gen/%s", e.from, e.to)
	case !shared(e.to):
		return fmt.Sprintf("backend gen/%s imports backend gen/%s; move what both need to gen or to a shared package (%s)", e.from, e.to, strings.Join(genShared, ", "))
	}
	return ""
}

// genEdges lists the imports of packages under gen made by the Go files
// (tests included) under dir, the gen directory.
func genEdges(dir string) ([]importEdge, error) {
	var out []importEdge
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		from := filepath.ToSlash(rel)
		if from == "." {
			from = ""
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if ip != genPath && !strings.HasPrefix(ip, genPath+"/") {
				continue
			}
			out = append(out, importEdge{path.Join(from, filepath.Base(p)), from, strings.TrimPrefix(strings.TrimPrefix(ip, genPath), "/")})
		}
		return nil
	})
	return out, err
}

// TestBackendsImportOnlyTheFrontEnd holds the generator's packages to
// importRule (decision 0073).
func TestBackendsImportOnlyTheFrontEnd(t *testing.T) {
	edges, err := genEdges("../../gen")
	if err != nil {
		t.Fatal(err)
	}
	backends := map[string]bool{}
	for _, e := range edges {
		if msg := importRule(e); msg != "" {
			t.Errorf("gen/%s: %s", e.file, msg)
		}
		if e.to == "" && e.from != "" && !slices.Contains(genShared, e.from) {
			backends[e.from] = true
		}
	}
	if len(backends) < 5 {
		t.Fatalf("found %d packages importing gen (%v): the walk is not seeing the backends", len(backends), backends)
	}
}

// TestImportRuleRefusesWhatCrossesBackends holds the rule itself to what it
// must refuse and allow.
func TestImportRuleRefusesWhatCrossesBackends(t *testing.T) {
	tests := []struct {
		edge importEdge
		bad  bool
	}{
		{importEdge{"golang/emit.go", "golang", ""}, false},
		{importEdge{"typescript/ts.go", "typescript", "doctext"}, false},
		{importEdge{"typescript/golden_test.go", "typescript", "gentest"}, false},
		{importEdge{"typescript/ts.go", "typescript", "golang"}, true},
		{importEdge{"typescript/ts_test.go", "typescript", "golang"}, true},
		{importEdge{"python/py.go", "python", "markdown"}, true},
		{importEdge{"breaking/breaking.go", "breaking", "golang"}, true},
		{importEdge{"backend.go", "", "golang"}, true},
		{importEdge{"output_test.go", "", "golang"}, false},
		{importEdge{"doctext/doctext.go", "doctext", "golang"}, true},
		{importEdge{"doctext/doctext.go", "doctext", ""}, false},
	}
	for _, tt := range tests {
		if got := importRule(tt.edge) != ""; got != tt.bad {
			t.Errorf("%+v: refused = %v, want %v (%s)", tt.edge, got, tt.bad, importRule(tt.edge))
		}
	}
}

// goScalars are Go's names for the scalar types, which only the Go backend
// writes: every other backend reads what a type is from the model
// (gen.Type.Scalar), so one table says it.
var goScalars = []string{"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune", "float32", "float64"}

// TestBackendsKeepNoTableOfGoTypes refuses a string literal naming a Go
// scalar type in a backend other than Go's.
func TestBackendsKeepNoTableOfGoTypes(t *testing.T) {
	dirs, _ := filepath.Glob("../../gen/*")
	checked := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || filepath.Base(dir) == "golang" || filepath.Base(dir) == "testdata" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(goScalars, s) {
						t.Errorf("%s: the Go type name %q; switch on gen.Type.Scalar instead", p, s)
					}
				}
				return true
			})
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files", checked)
	}
}
