package python

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// DefaultPackage is the Python package the modules go in when the
// configuration names none.
const DefaultPackage = "jobgen_vocab"

// Backend generates a spec's Python module, <Package>/<package.name>.py,
// under its root, and, as a gen.Packager, the package's own files. The
// module holds a str subclass per id (a UUID one checks the canonical form),
// a Literal type and a tuple of values per enum, a pydantic model per
// record, union variant, live fact version and envelope, a discriminated
// union per union and FactEnvelope, discriminated on type and v, the
// defaults as constants, and decode functions for unions and facts.
// spec/README.md, "Python", lists the mapping and where Python must differ
// from Go.
//
// Dir is empty when the package has a root of its own, and one directory
// (such as "python") when it lives beside the Go packages under theirs.
//
// There is one runtime for every package jobgen generates, the runtime
// module of jobgen's own package (jobgen_vocab.runtime), so a DecodeError
// of any vocabulary is one class: a package with a Runtime imports it from
// there, writes none of its own, and declares that package, with the ones
// it Requires, in pyproject.toml (decision 0144).
type Backend struct {
	// Package is the Python package, a directory under the root; empty
	// means DefaultPackage.
	Package string
	Dir     string
	// Runtime is the package whose runtime module the modules import,
	// Runtime.runtime, when it is not this package's own: jobgen's package,
	// for every package but jobgen's. Empty, the package writes runtime.py
	// and its modules import it as .runtime.
	Runtime string
	// Requires are the other packages the modules import: the packages of
	// the other Go modules whose specs the package's specs import.
	Requires []string
}

// runtimeModule is the runtime module's name in the package.
const runtimeModule = "runtime"

// packageVersion is the version of every package the backend writes, in
// its pyproject.toml and in the dependencies other packages declare on it.
const packageVersion = "0"

// Name implements Backend.
func (Backend) Name() string { return "Python" }

// Marker implements Backend: a line comment.
func (Backend) Marker() gen.Marker {
	return gen.Marker{Suffix: ".py", Format: "# " + gen.MarkerText + "\n"}
}

// Check implements Backend: see checkNames; and a spec named like the
// runtime module, or importing another module's spec whose Python package
// has no name or this package's Package (unset, as jobgen check has it,
// nothing names this package yet).
func (b Backend) Check(r *gen.Resolved) gen.ErrorList {
	s := r.Spec()
	if s == nil {
		return nil // Files reports it
	}
	errs := append(checkNames(s), checkClientNames(s)...)
	if s.Package.Name == runtimeModule || s.Package.Name == clientModule {
		errs.Add(s.Package.Pos, "package.name %s is the name of the Python package's %s module; choose another", s.Package.Name, map[bool]string{true: "runtime", false: "client runtime"}[s.Package.Name == runtimeModule])
	}
	for _, im := range s.Imports {
		if im.Imported == nil || !im.Foreign() {
			continue
		}
		switch other := im.Found.Packages["python"]; {
		case other == "":
			errs.Add(im.ModulePos, "imports.%s.module: the Python package of %s has no name, so a module cannot import its %s module; jobgen names it from that module's jobgen.yaml (python.package) or its path (with gen.Module.Packages[\"python\"] in the library)", im.Alias, im.Found, im.Imported.Spec().Package.Name)
		case other == b.Package:
			errs.Add(im.ModulePos, "imports.%s.module: the Python package of %s is %s, as this one is; name this one in jobgen.yaml (python.package)", im.Alias, im.Found, other)
		}
	}
	return errs
}

// CheckPackage refuses a name that cannot be the package's: one that is not
// an ASCII Python identifier, or is a keyword.
func CheckPackage(name string) error {
	switch {
	case !pyPackageName.MatchString(name):
		return fmt.Errorf("%q is not a Python package name (ASCII letters, digits and _, not starting with a digit)", name)
	case slices.Contains(pyKeywords, name):
		return fmt.Errorf("%q is a Python keyword, which cannot be imported", name)
	}
	return nil
}

// pyPackageName is what an import name of a package may be.
var pyPackageName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (b Backend) pkg() string {
	if b.Package == "" {
		return DefaultPackage
	}
	return b.Package
}

// Files implements Backend.
func (b Backend) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	s := r.Spec()
	if s == nil {
		return nil, gen.ErrNotResolved
	}
	name := path.Join(b.Dir, b.pkg(), s.Package.Name+".py")
	files := []gen.File{emitModule(s, o, name, b.Runtime)}
	if s.HTTP != nil && len(s.HTTP.Routes) > 0 {
		files = append(files, emitClient(s, o, path.Join(b.Dir, b.pkg(), s.Package.Name+"_client.py"), b.Runtime))
	}
	return files, nil
}

// Emit renders a valid spec as its Python module alone, with the marker
// naming the spec as a file beside it; see Backend.
func Emit(r *gen.Resolved) (gen.File, error) {
	s := r.Spec()
	if s == nil {
		return gen.File{}, gen.ErrNotResolved
	}
	if errs := checkNames(s); len(errs) > 0 {
		return gen.File{}, errs
	}
	return emitModule(s, gen.BesideSpec(s), s.Package.Name+".py", ""), nil
}

// pyRuntime is the runtime every module imports, the package's runtime.py.
//
//go:embed pyruntime.py
var pyRuntime string

// Runtime is the text of the runtime module, runtime.py, without its marker.
func Runtime() string { return pyRuntime }

// opening opens the package's own files, in the comment syntax of Python
// and of TOML alike.
const opening = "# " + gen.PackageText + "\n"

// PackageFiles implements gen.Packager: the files of the package that no
// spec owns, the runtime every module imports unless the package imports
// another's (Runtime: then it is retired), __init__.py, py.typed and,
// beside the package's directory, the pyproject.toml that installs it.
func (b Backend) PackageFiles() ([]gen.PackageFile, error) {
	pkg := b.pkg()
	if err := CheckPackage(pkg); err != nil {
		return nil, err
	}
	deps := []string{`"pydantic>=2.11,<3"`}
	seen := map[string]bool{}
	for _, other := range append(slices.Clone(b.Requires), b.Runtime) {
		switch {
		case other == "" || seen[other]:
			continue
		case other == pkg:
			return nil, fmt.Errorf("package %s cannot require itself", pkg)
		}
		if err := CheckPackage(other); err != nil {
			return nil, fmt.Errorf("a package required: %w", err)
		}
		seen[other] = true
		deps = append(deps, fmt.Sprintf("%q", dist(other)+"=="+packageVersion))
	}
	var files []gen.PackageFile
	add := func(name, content string) {
		files = append(files, gen.PackageFile{File: gen.File{Path: path.Join(b.Dir, name), Content: []byte(opening + content)}, Opening: opening})
	}
	add("pyproject.toml", fmt.Sprintf(`# The vocabularies jobgen generates from this module's specs, as one package.
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = %q
version = %q
description = "Pydantic models of the jobgen vocabularies, generated from their specs"
requires-python = ">=3.11"
dependencies = [%s]

[project.optional-dependencies]
# The clients of the specs' routes (<name>_client) and their runtime (client) call over httpx.
client = ["httpx>=0.27,<1"]

[tool.hatch.build.targets.wheel]
packages = [%q]
`, dist(pkg), packageVersion, strings.Join(deps, ", "), pkg))
	add(pkg+"/__init__.py", fmt.Sprintf("\"\"\"Package %s holds the modules jobgen generates, one per spec.\n\n"+
		"Import a vocabulary by its spec's package name: from %s import jobs.\n\"\"\"\n", pkg, pkg))
	if b.Runtime == "" {
		add(pkg+"/"+clientModule+".py", pyClient)
		add(pkg+"/"+runtimeModule+".py", pyRuntime)
	} else {
		// A copy written before the package imported Runtime's (the client
		// runtime came later: no package wrote a copy of its own).
		files = append(files, gen.PackageFile{File: gen.File{Path: path.Join(b.Dir, pkg, runtimeModule+".py")}, Opening: opening, Retired: true})
	}
	add(pkg+"/py.typed", "")
	return files, nil
}

// dist is the distribution name pyproject.toml gives package pkg.
func dist(pkg string) string { return strings.ReplaceAll(pkg, "_", "-") }

// A pyWriter writes one module.
type pyWriter struct {
	spec *gen.Spec
	b    strings.Builder
	// runtime holds the names the module imports from the runtime, typing
	// the names from typing, and specs the aliases of the imported specs it
	// names: the imports, known once the module is written.
	runtime, typing, pydantic map[string]bool
	specs                     map[string]bool
	timedelta                 bool
	// runtimePackage is the package whose runtime the module imports; ""
	// for its own.
	runtimePackage string
	// own, when set, is the module the spec's own types are named from:
	// the spec's module, for its client module (client.go).
	own string
	// tables names the module-level dict of each enum conversion an upcast
	// makes (upcast.go).
	tables map[*gen.Conv]string
}

// emitModule writes spec s as the module at name, importing the runtime of
// package runtime, or its own package's when that is "".
func emitModule(s *gen.Spec, o gen.Origin, name, runtime string) gen.File {
	w := &pyWriter{spec: s, runtimePackage: runtime, runtime: map[string]bool{}, typing: map[string]bool{}, pydantic: map[string]bool{}, specs: map[string]bool{}}
	w.b.Grow(16<<10 + 4<<10*(len(s.Records)+len(s.Unions)+2*len(s.Facts)))
	w.body()
	body := w.b.String()
	w.b.Reset()
	w.b.WriteString(gen.Mark(Backend{}, o, name))
	w.docstring("", doctext.Named(s.Package.Doc, s.Package.Name, s.Package.Name), "Module "+s.Package.Name+" is generated by jobgen from "+path.Base(s.File)+".")
	w.line("")
	w.imports()
	if !strings.HasPrefix(body, "\n\nclass ") && !strings.HasPrefix(body, "\n\ndef ") {
		body = strings.TrimPrefix(body, "\n") // isort: one blank line before a statement
	}
	w.b.WriteString(body)
	return gen.File{Path: name, Content: []byte(w.b.String())}
}

func (w *pyWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// blank writes the two blank lines that separate top-level statements.
func (w *pyWriter) blank() { w.b.WriteString("\n\n") }

// body writes everything after the imports, in the order Python needs:
// ids and enums, then records, unions and facts (whose annotations are read
// lazily), then what names them at run time.
func (w *pyWriter) body() {
	s := w.spec
	for _, d := range gen.SortedBy(s.IDs, func(d *gen.ID) string { return d.Name }) {
		w.id(d)
	}
	for _, d := range gen.SortedBy(s.Enums, func(d *gen.Enum) string { return d.Name }) {
		w.enum(d)
	}
	x := s.Index()
	for _, d := range gen.SortedBy(s.Records, func(d *gen.Record) string { return d.Name }) {
		if x.OnWire(d.Name) {
			w.record(d)
		}
	}
	for _, u := range gen.SortedBy(s.Unions, func(d *gen.Union) string { return d.Name }) {
		if x.OnWire(u.Name) {
			w.union(u)
		}
	}
	if len(s.Facts) > 0 {
		w.facts()
	}
	if len(s.Defaults) > 0 {
		w.defaults()
	}
	if len(s.Tools) > 0 {
		w.tools()
	}
}

// imports writes the module's imports, grouped and sorted as isort does:
// the standard library; the other packages, pydantic, jobgen's runtime and
// the packages of other Go modules' specs; then the package's own modules.
func (w *pyWriter) imports() {
	w.line("from __future__ import annotations")
	var std, own [][2]any
	third := map[string][]string{}
	if w.timedelta {
		std = append(std, [2]any{"datetime", []string{"timedelta"}})
	}
	if len(w.typing) > 0 {
		std = append(std, [2]any{"typing", isortMembers(w.typing)})
	}
	if len(w.pydantic) > 0 {
		third["pydantic"] = isortMembers(w.pydantic)
	}
	mods := importedModules(w.spec, w.specs, third)
	if len(mods) > 0 {
		own = append(own, [2]any{".", mods})
	}
	if len(w.runtime) > 0 && w.runtimePackage == "" {
		own = append(own, [2]any{"." + runtimeModule, isortMembers(w.runtime)})
	} else if len(w.runtime) > 0 {
		third[w.runtimePackage+"."+runtimeModule] = isortMembers(w.runtime)
	}
	var others [][2]any
	for _, mod := range gen.SortedKeys(third) {
		others = append(others, [2]any{mod, isortOrder(third[mod])})
	}
	for _, group := range [][][2]any{std, others, own} {
		if len(group) == 0 {
			continue
		}
		w.line("")
		for _, im := range group {
			w.fromImport(im[0].(string), im[1].([]string))
		}
	}
}

// fromImport writes from mod import names, wrapped as black wraps it: one
// name a line, with a trailing comma, when they do not fit on one.
func (w *pyWriter) fromImport(mod string, names []string) {
	if one := "from " + mod + " import " + strings.Join(names, ", "); len(one) <= 88 {
		w.line("%s", one)
		return
	}
	w.line("from %s import (", mod)
	for _, n := range names {
		w.line("    %s,", n)
	}
	w.line(")")
}

// bracketed writes head, which ends in an opening bracket, items joined by
// commas, close and tail, as black lays it out: on one line when it fits
// in 88 columns, else the items on one indented line of their own (for the
// arguments of a call or a subscript), else one a line with a trailing
// comma, as black writes a tuple, list or dict display it splits.
func (w *pyWriter) bracketed(indent, head string, items []string, close, tail string) {
	joined := strings.Join(items, ", ")
	if one := indent + head + joined + close + tail; len(one) <= 88 {
		w.line("%s", one)
		return
	}
	w.line("%s%s", indent, head)
	display := strings.HasSuffix(head, "= (") || strings.HasSuffix(head, "= {") || strings.HasSuffix(head, "= [")
	if inner := indent + "    " + joined; len(inner) <= 88 && !display {
		w.line("%s", inner)
	} else {
		for _, it := range items {
			w.line("%s    %s,", indent, it)
		}
	}
	w.line("%s%s%s", indent, close, tail)
}

// docstring writes a docstring at indent: the doc, or the fallback for an
// undocumented name, filled to 88 columns, as PEP 257 lays it out.
func (w *pyWriter) docstring(indent, doc, fallback string) {
	if one := docLines(doc, fallback, 88-len(indent)-6); len(one) == 1 {
		w.line(`%s"""%s"""`, indent, one[0])
		return
	}
	lines := docLines(doc, fallback, 88-len(indent)-3)
	if len(lines) == 0 {
		return
	}
	if len(lines) == 1 {
		// Too long for one line with its quotes: two lines, as black would
		// otherwise join one line and its closing quotes.
		lines = docLines(doc, fallback, len(lines[0])-1)
	}
	w.line(`%s"""%s`, indent, lines[0])
	for _, l := range lines[1:] {
		if l == "" {
			w.line("")
		} else {
			w.line("%s%s", indent, l)
		}
	}
	w.line(`%s"""`, indent)
}

// docLines fills a doc as doctext does for Go, in lines of at most width
// columns, escaping what would end the docstring.
func docLines(doc, fallback string, width int) []string {
	if strings.TrimSpace(doc) == "" {
		doc = fallback
	}
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, doctext.Wrap(strings.Join(para, " "), width)...)
			para = nil
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(doc), "\n") {
		l = strings.TrimRight(l, " \t")
		switch {
		case l == "":
			flush()
			out = append(out, "")
		case strings.HasPrefix(l, "- "):
			flush()
			for i, part := range doctext.Wrap(l[2:], width-2) {
				out = append(out, map[bool]string{true: "- ", false: "  "}[i == 0]+part)
			}
		case strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t"):
			flush()
			out = append(out, strings.ReplaceAll(l, "\t", "    "))
		default:
			para = append(para, l)
		}
	}
	flush()
	for i, l := range out {
		l = strings.ReplaceAll(l, `\`, `\\`)
		out[i] = strings.ReplaceAll(l, `"""`, `\"\"\"`)
	}
	if len(out) > 0 && strings.HasSuffix(out[len(out)-1], `"`) {
		out[len(out)-1] += " "
	}
	return out
}

// capArticle is doctext.Article(word) opening a sentence.
func capArticle(word string) string {
	a := doctext.Article(word)
	return strings.ToUpper(a[:1]) + a[1:]
}

// importedModules names the modules of the imported specs that used (by
// alias) holds, as an import line's members ("jobs", "base as b"), and adds
// another Go module's to third under its Python package.
func importedModules(s *gen.Spec, used map[string]bool, third map[string][]string) []string {
	var mods []string
	for _, im := range s.Imports {
		if im.Imported == nil || !used[im.Alias] {
			continue
		}
		mod := im.Imported.Spec().Package.Name
		if mod != im.Alias {
			mod += " as " + im.Alias
		}
		if im.Foreign() {
			other := im.Found.Packages["python"]
			third[other] = append(third[other], mod)
		} else {
			mods = append(mods, mod)
		}
	}
	return mods
}
