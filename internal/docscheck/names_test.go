package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// qualified is a name a page cites in backquotes as package.Name, such as
// `pgstore.WithoutMigrate` or `jobs.RecordingJob.Append`.
var qualified = regexp.MustCompile("`[^`\n]*`")

var qualifiedName = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)`)

// exported maps each package name of the module to the exported top-level
// names its packages declare (several directories may share a name).
func exported(t *testing.T) map[string]map[string]bool {
	t.Helper()
	names := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range modulePackages(t) {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			pkg := file.Name.Name
			if names[pkg] == nil {
				names[pkg] = map[string]bool{}
			}
			for _, d := range file.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						names[pkg][d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							names[pkg][s.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range s.Names {
								names[pkg][n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

// TestTheGuidesNameOnlyWhatExists holds the guides and the architecture to
// the code: every package.Name they cite in backquotes, of a package of this
// module, is declared there, so a renamed or removed identifier fails here
// rather than in a reader's editor.
func TestTheGuidesNameOnlyWhatExists(t *testing.T) {
	names := exported(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "docs", "architecture.md"))
	checked := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, span := range qualified.FindAllString(string(data), -1) {
			for _, m := range qualifiedName.FindAllStringSubmatch(span, -1) {
				decls, ours := names[m[1]]
				if !ours {
					continue // another module's package, or not Go
				}
				checked++
				if !decls[m[2]] {
					t.Errorf("%s cites %s.%s, which package %s does not declare", filepath.Base(page), m[1], m[2], m[1])
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d names; the guides cite more than that, so the scan is wrong", checked)
	}
}
