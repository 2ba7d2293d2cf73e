package gen

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A spec may list hand-written Go files under package.sources: code that
// belongs in the generated package but that jobgen cannot write, such as the
// upcasters of older fact versions. A source sits next to the spec, starts
// with the build constraint SourceConstraint so that the ordinary build
// ignores it, and declares the generated package's name. jobgen copies it
// into the package, without the constraint, as <name>.src.gen.go; there the
// compiler checks it against the generated types.

// SourceConstraint is the build constraint every source must carry.
const SourceConstraint = "//go:build jobgen"

// A Source is one hand-written Go file of the generated package.
type Source struct {
	Path   string // slash-separated, relative to the spec's directory
	Pos    Pos    // the package.sources entry that names it
	Output string // the generated file's name in the package directory

	file  *ast.File // parsed; nil when the file does not parse
	fset  *token.FileSet
	body  []byte // the content without the build constraint
	where string // the file as positions name it
}

// sourcesFS is the spec's directory as Load reads sources from it: through
// an os.Root, so that a symbolic link inside the directory never leads
// outside it (the spec's sources must sit next to it, by design).
func sourcesFS(dir *os.Root) fs.FS { return dir.FS() }

// readSources expands package.sources in dir and parses every file they name.
func readSources(s *Spec, dir fs.FS) ErrorList {
	s.sourcesRead = true
	var errs ErrorList
	seen := map[string]bool{}
	outputs := map[string]*Source{}
	for _, pat := range s.Package.Sources {
		if !fs.ValidPath(pat.Name) || strings.Contains(pat.Name, `\`) {
			errs.Add(pat.Pos, "package.sources: %s must be a slash-separated path below the spec's directory (no .., no leading /)", pat.Name)
			continue
		}
		matches, err := fs.Glob(dir, pat.Name)
		if err != nil {
			errs.Add(pat.Pos, "package.sources: bad pattern %s: %v", pat.Name, err)
			continue
		}
		if len(matches) == 0 {
			errs.Add(pat.Pos, "package.sources: %s matches no file", pat.Name)
			continue
		}
		for _, m := range matches {
			if seen[m] {
				continue
			}
			seen[m] = true
			if !strings.HasSuffix(m, ".go") {
				errs.Add(pat.Pos, "package.sources: %s is not a .go file", m)
				continue
			}
			src := &Source{Path: m, Pos: pat.Pos, Output: strings.TrimSuffix(path.Base(m), ".go") + ".src.gen.go"}
			if first, dup := outputs[src.Output]; dup {
				errs.Add(pat.Pos, "package.sources: %s and %s would both be copied to %s; rename one", first.Path, m, src.Output)
				continue
			}
			outputs[src.Output] = src
			data, err := fs.ReadFile(dir, m)
			if err != nil && strings.Contains(err.Error(), "escapes from parent") {
				errs.Add(pat.Pos, "package.sources: %s is a link that leads outside the spec's directory; a source must sit next to its spec", m)
				continue
			}
			if err != nil {
				errs.Add(pat.Pos, "package.sources: %v", err)
				continue
			}
			src.where = filepath.Join(filepath.Dir(s.File), filepath.FromSlash(m))
			errs = append(errs, src.parse(data, s.Package.Name)...)
			s.Sources = append(s.Sources, src)
		}
	}
	return errs
}

// parse parses the source, checks its package clause and build constraint,
// and keeps its content without the constraint.
func (src *Source) parse(data []byte, pkg string) ErrorList {
	var errs ErrorList
	src.fset = token.NewFileSet()
	f, err := parser.ParseFile(src.fset, src.where, data, parser.ParseComments)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				errs.Add(Pos{File: src.where, Line: e.Pos.Line, Col: e.Pos.Column}, "Go syntax: %s", e.Msg)
			}
		} else {
			errs.Add(Pos{File: src.where, Line: 1, Col: 1}, "Go syntax: %v", err)
		}
		return errs
	}
	src.file = f
	if pkg != "" && f.Name.Name != pkg {
		errs.Add(src.pos(f.Name.Pos()), "source package %s must be %s, the spec's package.name", f.Name.Name, pkg)
	}
	// The constraint is a line comment above the package clause; cut it (and
	// a legacy // +build line) out of the content.
	var cut [][2]int
	found, wrong := false, false
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			text := strings.TrimSpace(c.Text)
			switch {
			case text == SourceConstraint:
				found = true
			case strings.HasPrefix(text, "//go:build"):
				errs.Add(src.pos(c.Pos()), "a source's build constraint must be exactly %q, not %q", SourceConstraint, text)
				wrong = true
			case !strings.HasPrefix(text, "// +build"):
				continue
			}
			start := src.fset.Position(c.Pos()).Offset
			end := src.fset.Position(c.End()).Offset
			if end < len(data) && data[end] == '\n' {
				end++
			}
			cut = append(cut, [2]int{start, end})
		}
	}
	if !found && !wrong {
		errs.Add(Pos{File: src.where, Line: 1, Col: 1}, "a source must start with %q so that the ordinary build skips it", SourceConstraint)
	}
	var body []byte
	last := 0
	for _, c := range cut {
		body = append(body, data[last:c[0]]...)
		last = c[1]
	}
	src.body = append(body, data[last:]...)
	return errs
}

func (src *Source) pos(p token.Pos) Pos {
	q := src.fset.Position(p)
	return Pos{File: src.where, Line: q.Line, Col: q.Column}
}

// topLevel returns the names the source declares at package level, with
// their positions, in source order.
func (src *Source) topLevel() []Ref {
	if src.file == nil {
		return nil
	}
	var out []Ref
	for _, d := range src.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" && d.Name.Name != "_" {
				out = append(out, Ref{Name: d.Name.Name, Pos: src.pos(d.Name.Pos())})
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					out = append(out, Ref{Name: spec.Name.Name, Pos: src.pos(spec.Name.Pos())})
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						if n.Name != "_" {
							out = append(out, Ref{Name: n.Name, Pos: src.pos(n.Pos())})
						}
					}
				}
			}
		}
	}
	return out
}

// findFunc returns the package-level func named name and the source
// declaring it.
func findFunc(sources []*Source, name string) (*ast.FuncDecl, *Source) {
	for _, src := range sources {
		if src.file == nil {
			continue
		}
		for _, d := range src.file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
				return fn, src
			}
		}
	}
	return nil, nil
}

// hasSignature reports whether fn is exactly func(param) (result, error).
func hasSignature(fn *ast.FuncDecl, param, result string) bool {
	t := fn.Type
	if t.TypeParams != nil || t.Params == nil || t.Results == nil {
		return false
	}
	ident := func(e ast.Expr, name string) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == name
	}
	count := func(l *ast.FieldList) int {
		n := 0
		for _, f := range l.List {
			n += max(1, len(f.Names))
		}
		return n
	}
	if count(t.Params) != 1 || count(t.Results) != 2 {
		return false
	}
	res := t.Results.List
	if len(res) != 2 { // (a, b T) is one field with two names: never (T, error)
		return false
	}
	return ident(t.Params.List[0].Type, param) && ident(res[0].Type, result) && ident(res[1].Type, "error")
}

// funcText renders fn's type as Go source, for messages.
func funcText(src *Source, fn *ast.FuncDecl) string {
	var b bytes.Buffer
	printer.Fprint(&b, src.fset, fn.Type)
	return b.String()
}

// sourceNames lists the sources for messages.
func sourceNames(s *Spec) string {
	var names []string
	for _, src := range s.Sources {
		names = append(names, src.Path)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Body is the source's content without its build constraint, as the
// generated copy holds it.
func (src *Source) Body() []byte { return src.body }
