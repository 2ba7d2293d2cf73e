// Command apiaudit lists the exported API of the module's packages and who
// uses each identifier, so the question "would a user call this?" can be put
// to every package with the evidence beside it (decision 0243).
//
// For each package (the generated packages, whose API the spec owns, and
// package main are left out) it prints one Markdown row per exported
// top-level identifier, and per exported method or field of an exported
// type, with the places that use it:
//
//   - outside: non-test files of other packages of the module — the
//     generated code, cmd and the examples included;
//   - own: the package's own non-test files;
//   - tests: test files, of any package ("its own tests only" when all of
//     them are the package's own, which export_test.go can serve).
//
// A top-level identifier is matched exactly, through the importing file's
// import name. A method or field is matched by name alone (any selector
// .Name in a file that imports the package, or in the package itself), so
// it may be counted as used when another type's member shares its name; and
// a method reached only through an interface (String, Error, ServeHTTP)
// shows no use at all. The table is evidence to judge, not a verdict: an
// identifier nothing in the module uses may be exactly what a user calls.
//
// Usage: go run ./internal/apiaudit [-unused] [package-dir ...]
// With -unused it prints only the rows nothing outside the package's tests
// uses. It reads the module from the current directory.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	unused := flag.Bool("unused", false, "print only what nothing but tests uses")
	flag.Parse()
	if err := run(os.Stdout, ".", flag.Args(), *unused); err != nil {
		fmt.Fprintln(os.Stderr, "apiaudit:", err)
		os.Exit(1)
	}
}

// A file is one parsed Go file of the module.
type file struct {
	dir  string // package directory, relative to the module root
	test bool
	ast  *ast.File
}

// A decl is one exported identifier: Name, or Type.Name for a member.
type decl struct {
	dir, pkg, name, kind string
	member               string // the method or field name, for a member
}

// uses counts where an identifier is used.
type uses struct{ outside, own, tests, otherTests int }

func run(w io.Writer, root string, only []string, unusedOnly bool) error {
	module, err := modulePath(root)
	if err != nil {
		return err
	}
	files, err := parseModule(root)
	if err != nil {
		return err
	}
	var decls []decl
	for _, f := range files {
		if f.test || f.ast.Name.Name == "main" || isGenerated(f.dir) {
			continue
		}
		if len(only) > 0 && !slices.Contains(only, f.dir) {
			continue
		}
		decls = append(decls, exportedDecls(f)...)
	}
	slices.SortFunc(decls, func(a, b decl) int {
		return strings.Compare(a.dir+" "+a.name, b.dir+" "+b.name)
	})
	decls = slices.CompactFunc(decls, func(a, b decl) bool { return a.dir == b.dir && a.name == b.name })

	count := countUses(files, module, decls)
	fmt.Fprintln(w, "| package | identifier | kind | outside | own | tests | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, d := range decls {
		u := count[d.dir+" "+d.name]
		v := verdict(u)
		if unusedOnly && u.outside > 0 {
			continue
		}
		fmt.Fprintf(w, "| `%s` | `%s` | %s | %d | %d | %d | %s |\n", d.dir, d.name, d.kind, u.outside, u.own, u.tests, v)
	}
	return nil
}

// verdict names the class of an identifier's uses.
func verdict(u uses) string {
	switch {
	case u.outside > 0:
		return "used outside"
	case u.own > 0 && u.tests > 0:
		return "own package and tests"
	case u.own > 0:
		return "own package only"
	case u.otherTests > 0:
		return "tests only"
	case u.tests > 0:
		return "its own tests only"
	default:
		return "unused in the module"
	}
}

// isGenerated reports whether dir holds generated code (a directory named
// generated, or one under it), whose API the spec owns.
func isGenerated(dir string) bool { return slices.Contains(strings.Split(dir, "/"), "generated") }

func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("go.mod names no module")
}

// parseModule parses every Go file of the module as `go list ./...` sees it:
// testdata, hidden and underscored directories, node_modules and nested
// modules are not part of it.
func parseModule(root string) ([]file, error) {
	fset := token.NewFileSet()
	var files []file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == root {
				return nil
			}
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		files = append(files, file{dir: filepath.ToSlash(rel), test: strings.HasSuffix(name, "_test.go"), ast: f})
		return nil
	})
	return files, err
}

// exportedDecls lists f's exported top-level identifiers, and the exported
// methods and fields of its exported types.
func exportedDecls(f file) []decl {
	var out []decl
	add := func(name, kind, member string) {
		out = append(out, decl{dir: f.dir, pkg: f.ast.Name.Name, name: name, kind: kind, member: member})
	}
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				add(d.Name.Name, "func", "")
			} else if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
				add(recv+"."+d.Name.Name, "method", d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					add(s.Name.Name, "type", "")
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								if n.IsExported() {
									add(s.Name.Name+"."+n.Name, "field", n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range s.Names {
						if n.IsExported() {
							add(n.Name, kind, "")
						}
					}
				}
			}
		}
	}
	return out
}

// receiverType is the name of a method's receiver type, without a pointer
// or type parameters.
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// countUses counts, for every decl, the files' references to it: a
// top-level identifier through its import name (or bare, in its own
// package), a member by its name in a selector.
func countUses(files []file, module string, decls []decl) map[string]uses {
	wanted := map[string][]decl{} // by dir
	for _, d := range decls {
		wanted[d.dir] = append(wanted[d.dir], d)
	}
	// A member is reached through a value, whose type the file need not
	// import: a package's files reach the members of every package any of
	// them imports.
	imported := map[string]map[string]bool{} // dir -> dirs its files import
	for _, f := range files {
		if imported[f.dir] == nil {
			imported[f.dir] = map[string]bool{f.dir: true}
		}
		for _, dir := range imports(f, module, wanted) {
			imported[f.dir][dir] = true
		}
	}
	count := map[string]uses{}
	for _, f := range files {
		// The packages f names: its own, bare, and each import by its name.
		reach := map[string]string{} // local name ("" for its own) -> dir
		reach[""] = f.dir
		for local, dir := range imports(f, module, wanted) {
			reach[local] = dir
		}
		top, member := references(f, reach)
		for dir := range imported[f.dir] {
			for _, d := range wanted[dir] {
				var n int
				if d.member != "" {
					n = member[d.member]
				} else {
					n = top[dir+" "+d.name]
				}
				if n <= 0 {
					continue
				}
				u := count[d.dir+" "+d.name]
				switch {
				case f.test:
					u.tests += n
					if f.dir != d.dir {
						u.otherTests += n
					}
				case dir == f.dir:
					u.own += n
				default:
					u.outside += n
				}
				count[d.dir+" "+d.name] = u
			}
		}
	}
	return count
}

// references counts f's references: top by the directory and name of the
// top-level identifier (through reach, f's import names, or bare in f's own
// package), member by the selector or literal key name.
func references(f file, reach map[string]string) (top, member map[string]int) {
	top, member = map[string]int{}, map[string]int{}
	skip := declaring(f.ast)
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if dir, ok := reach[x.Name]; ok && x.Name != "" {
					top[dir+" "+n.Sel.Name]++
					return false
				}
			}
			member[n.Sel.Name]++
			ast.Inspect(n.X, visit)
			return false
		case *ast.CompositeLit:
			// Keyed fields of a literal use the fields by name.
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok {
						member[k.Name]++
						skip[k] = true
					}
				}
			}
		case *ast.Ident:
			if !skip[n] {
				top[f.dir+" "+n.Name]++
			}
		}
		return true
	}
	ast.Inspect(f.ast, visit)
	return top, member
}

// imports maps the import names of f to the directories of the module's
// packages they import, of those in wanted.
func imports(f file, module string, wanted map[string][]decl) map[string]string {
	out := map[string]string{}
	for _, imp := range f.ast.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		dir, ok := strings.CutPrefix(p, module+"/")
		if !ok || wanted[dir] == nil {
			continue
		}
		local := wanted[dir][0].pkg
		if imp.Name != nil {
			local = imp.Name.Name
		}
		out[local] = dir
	}
	return out
}

// declaring returns the identifiers of f that declare a name (a function,
// method, type, value or field, and a method's receiver type), which are not
// uses of it.
func declaring(f *ast.File) map[*ast.Ident]bool {
	skip := map[*ast.Ident]bool{f.Name: true}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			skip[n.Name] = true
			if n.Recv != nil {
				ast.Inspect(n.Recv.List[0].Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						skip[id] = true
					}
					return true
				})
			}
		case *ast.TypeSpec:
			skip[n.Name] = true
		case *ast.ValueSpec:
			for _, id := range n.Names {
				skip[id] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				skip[id] = true
			}
		}
		return true
	})
	return skip
}
