package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeGoHead is what each of README.md's Go examples is type-checked
// inside: the imports they use, a registry an example may use or declare
// its own of, and a function whose parameters are the names they take as
// given.
const readmeGoHead = `package readme

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

var (
	_ = jobhistory.StreamOf
	_ = journal.Open
	_ = procjob.Start
	_ registry.FollowStart
)

var reg *registry.Registry

func example(ctx context.Context, session jobs.SessionID, path string) {
`

// TestTheREADMEsGoExamplesAreTheAPI type-checks README.md's Go examples
// against the generated job vocabulary and the runtime packages, each as
// the body of a function given a context, a session and a path, beside a
// registry, with "…" standing for the rest of a body. The face rule's must fail
// with exactly the error its comment quotes, on its Append line, so the
// compiler's words stay its words; the journal's must have none.
func TestTheREADMEsGoExamplesAreTheAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the runtime packages from source")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		section string // the heading the ```go block follows
		fails   bool   // its Append line's comment is the one error
	}{
		{"## The face rule", true},
		{"## A job and its journal", false},
	} {
		t.Run(tt.section, func(t *testing.T) {
			lines, errs, fset := checkREADMEBlock(t, string(readme), tt.section)
			want, at := "", -1
			for i, line := range lines {
				if code, comment, ok := strings.Cut(line, "// "); ok && strings.Contains(code, ".Append(") {
					want, at = comment, i
				}
			}
			if !tt.fails {
				if len(errs) > 0 {
					t.Fatalf("README.md's example has type errors: %v", errs)
				}
				return
			}
			if want == "" {
				t.Fatal("README.md's example has no Append line with the compiler's error in its comment")
			}
			if len(errs) != 1 {
				t.Fatalf("README.md's example has %d type errors, want exactly the one on Append: %v", len(errs), errs)
			}
			got := errs[0]
			if line := fset.Position(got.Pos).Line - strings.Count(readmeGoHead, "\n") - 1; line != at {
				t.Errorf("the error is on line %d of the example, want %d (the Append line): %s", line+1, at+1, got.Msg)
			}
			if got.Msg != want {
				t.Errorf("the compiler says %q; README.md's comment says %q", got.Msg, want)
			}
		})
	}
}

// checkREADMEBlock type-checks the first ```go block after section in
// readme inside readmeGoHead, with each "…" line made a statement that ends
// the body it stands in. It returns the block's lines and the type errors.
func checkREADMEBlock(t *testing.T, readme, section string) ([]string, []types.Error, *token.FileSet) {
	t.Helper()
	_, rest, ok := strings.Cut(readme, section+"\n")
	_, block, ok2 := strings.Cut(rest, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("README.md has no ```go block after %q", section)
	}
	lines := strings.Split(block, "\n")
	body := make([]string, len(lines))
	for i, line := range lines {
		body[i] = line
		switch code, _, _ := strings.Cut(strings.TrimSpace(line), "//"); strings.TrimSpace(code) {
		case "…":
			if strings.Contains(strings.Join(lines[:i], "\n"), "jobs.Hooks, error)") {
				body[i] = "return jobs.Hooks{}, nil"
			} else {
				body[i] = "_, _ = frame, err"
			}
		}
	}
	fset := token.NewFileSet()
	src := readmeGoHead + strings.Join(body, "\n") + "\n}\n"
	file, err := parser.ParseFile(fset, "readme.go", src, 0)
	if err != nil {
		t.Fatalf("README.md's example does not parse: %v\n%s", err, src)
	}
	var errs []types.Error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "source", nil),
		Error:    func(err error) { errs = append(errs, err.(types.Error)) },
	}
	_, _ = conf.Check("readme", fset, []*ast.File{file}, nil) // Error above collects every error
	return lines, errs, fset
}
