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

// faceRuleMarker is the heading of README.md's section whose ```go block
// TestTheREADMEsFaceRuleFailsAsItSays type-checks.
const faceRuleMarker = "## The face rule"

// TestTheREADMEsFaceRuleFailsAsItSays type-checks README.md's face-rule
// example against the generated job vocabulary and the registry, as the
// body of a function given a registry, a context and a session: the one
// error must be the one its comment quotes, on the Append line, so the
// example stays the API it shows and the compiler's words stay its words.
func TestTheREADMEsFaceRuleFailsAsItSays(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the registry from source")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), faceRuleMarker)
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("README.md has no ```go block after %q", faceRuleMarker)
	}
	var want, appendLine = "", 0
	lines := strings.Split(block, "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "…" {
			lines[i] = "\t\treturn jobs.Hooks{}, nil"
		}
		if code, comment, ok := strings.Cut(line, "// "); ok && strings.Contains(code, ".Append(") {
			want, appendLine = comment, i
		}
	}
	if want == "" {
		t.Fatal("README.md's face-rule example has no Append line with the compiler's error in its comment")
	}
	const head = `package readme

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func example(ctx context.Context, reg *registry.Registry, session jobs.SessionID) {
`
	src := head + strings.Join(lines, "\n") + "\n}\n"
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "readme.go", src, 0)
	if err != nil {
		t.Fatalf("README.md's face-rule example does not parse: %v\n%s", err, src)
	}
	var errs []types.Error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "source", nil),
		Error:    func(err error) { errs = append(errs, err.(types.Error)) },
	}
	_, _ = conf.Check("readme", fset, []*ast.File{file}, nil) // Error above collects every error
	if len(errs) != 1 {
		t.Fatalf("README.md's face-rule example has %d type errors, want exactly the one on Append: %v", len(errs), errs)
	}
	got := errs[0]
	if line := fset.Position(got.Pos).Line - strings.Count(head, "\n") - 1; line != appendLine {
		t.Errorf("the error is on line %d of the example, want %d (the Append line): %s", line+1, appendLine+1, got.Msg)
	}
	if got.Msg != want {
		t.Errorf("the compiler says %q; README.md's comment says %q", got.Msg, want)
	}
}
