package typescript

import (
	"fmt"
	"path"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// Backend generates a spec's module of a TypeScript package, in Dir under
// its root, as three files: <package.name>.ts, the TypeScript source;
// <package.name>.mjs, the same module as JavaScript; and
// <package.name>.d.mts, its declarations. A module holds a branded string
// type per id, a string-literal union and value list per enum, an interface
// per record, union variant and live fact version, a discriminated union per
// union, FactEnvelope (the union of every fact version the spec still
// decodes), the defaults as constants, and for every type a decoder
// decodeX(json: unknown): X that refuses what the generated Go decoders
// refuse, throwing a DecodeError with a JSON path, and an encoder
// encodeX(x: X) that writes what they accept. Only what travels in JSON is
// declared (gen.Index.OnWire): faces, records of funcs and what holds them
// are Go's alone. spec/README.md, "TypeScript", lists the mapping and where
// the two sides must differ.
//
// The modules of one root make one package (a gen.Packager, decision 0096):
// package.json names it Package and exports each module as
// Package/<package.name>; the runtime module (runtime.ts, .mjs, .d.mts),
// which every module imports, holds DecodeError and the codec helpers, so
// an error of any vocabulary is one class; Modules are hand-written modules
// the package carries beside the generated ones. There is one runtime for
// every package jobgen generates, the one jobgen's own package carries: a
// package with a Runtime imports it from there, writes none of its own, and
// declares that package, with its Peers, in package.json (decision 0143).
//
// Dir is empty when the package has a root of its own, and one directory
// (such as "ts") when it lives beside the Go packages under theirs.
type Backend struct {
	Dir string
	// Package is the package's npm name, such as "@jobgen/jobgen". Without
	// one no package.json is written: the modules and the runtime alone,
	// for a caller that makes a package of its own.
	Package string
	// Version is the package's version in package.json; empty is 0.0.0.
	Version string
	// Modules are the hand-written modules the package carries.
	Modules []Module
	// Runtime is the package whose runtime module the modules import,
	// Runtime.Name + "/runtime", when it is not this package's own: jobgen's
	// package, for every package but jobgen's. Zero, the package writes the
	// runtime and its modules import it as ./runtime.js.
	Runtime Peer
	// Peers are the other packages the modules import: the packages of
	// the other Go modules whose specs the package's specs import.
	Peers []Peer
}

// A Peer is a package that a package's modules import and that a front end
// installs beside it: package.json declares it in peerDependencies, so that
// the front end holds one copy of it, whose DecodeError is the one every
// package throws, and npm refuses a version that does not match.
type Peer struct {
	Name string // its npm name, "@jobgen/jobgen"
	// Version is the version its package.json declares; the range
	// declared is ^Version, the releases that keep its API.
	Version string
}

// A Module is a hand-written module a package carries beside the generated
// ones: JavaScript and its declarations, compiled from TypeScript by the
// module's owner, exported as Package/<Name> like a spec's module.
type Module struct {
	Name string
	// Origin names the compiled module's file in the copies' markers, so
	// that jobgen removes them when it is gone.
	Origin gen.Origin
	// JS and Declarations are the contents of <Name>.mjs and <Name>.d.mts.
	JS, Declarations []byte
}

// Name implements Backend.
func (Backend) Name() string { return "TypeScript" }

// Marker implements Backend: a line comment, as in Go, in all three files.
func (Backend) Marker() gen.Marker {
	return gen.Marker{Suffix: ".ts", Also: []string{".mjs", ".d.mts"}, Format: "// " + gen.MarkerText + "\n"}
}

// Check implements Backend: names the module would declare twice, type
// names that shadow the JavaScript and TypeScript globals the module relies
// on, import aliases that are TypeScript reserved words, the JSON name
// __proto__, a package name that is one of the package's own modules, and
// another module's spec imported from a TypeScript package without a name,
// each at the declaration that causes it.
func (b Backend) Check(r *gen.Resolved) gen.ErrorList {
	s := r.Spec()
	if s == nil {
		return nil // Files reports it
	}
	errs := checkTSNames(s)
	errs = append(errs, checkForeignPackages(s)...)
	for _, own := range b.ownModules() {
		if s.Package.Name == own {
			errs.Add(s.Package.Pos, "package.name %s is the name of the TypeScript package's own %s module; choose another", own, own)
		}
	}
	return errs
}

// Files implements Backend.
func (b Backend) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	s := r.Spec()
	if s == nil {
		return nil, gen.ErrNotResolved
	}
	return emitTS(s, o, b.Dir, b.Runtime.Name), nil
}

// Emit renders a valid spec as its module's three files, with the marker
// naming the spec as a file beside them; see Backend. The module imports
// ./runtime.js, which RuntimeFiles holds.
func Emit(r *gen.Resolved) ([]gen.File, error) {
	s := r.Spec()
	if s == nil {
		return nil, gen.ErrNotResolved
	}
	if errs := checkTSNames(s); len(errs) > 0 {
		return nil, errs
	}
	return emitTS(s, gen.BesideSpec(s), "", ""), nil
}

// emitTS renders spec s as the three files of its module in dir, importing
// the runtime of package runtime, or its own package's when that is "".
func emitTS(s *gen.Spec, o gen.Origin, dir, runtime string) []gen.File {
	w := &tsWriter{spec: s, index: s.Index(), runtime: runtime, zero: map[string]bool{}, uses: map[string]bool{}}
	w.b.Grow(32<<10 + 8<<10*(len(s.Records)+len(s.Unions)+2*len(s.Facts)))
	w.module()
	base := path.Join(dir, s.Package.Name)
	mark := func(name string) string { return gen.Mark(Backend{}, o, name) }
	return []gen.File{
		{Path: base + ".ts", Content: []byte(mark(base+".ts") + w.render(tsSource))},
		{Path: base + ".mjs", Content: []byte(mark(base+".mjs") + w.render(tsJS))},
		{Path: base + ".d.mts", Content: []byte(mark(base+".d.mts") + w.render(tsDeclarations))},
	}
}

// capArticle is article(word) opening a sentence.
func capArticle(word string) string {
	a := doctext.Article(word)
	return strings.ToUpper(a[:1]) + a[1:]
}

type tsWriter struct {
	spec  *gen.Spec
	index *gen.Index
	// runtime is the package whose runtime module the module imports; ""
	// for the module's own package.
	runtime string
	// b holds the module's code: TypeScript, with its types marked (see
	// ty) so that the JavaScript is b without them; d holds the
	// declarations.
	b, d tsBuffer
	// zero names the records and variants an encoder or decoder needs an
	// _isZero function for: those used as optional fields.
	zero map[string]bool
	// uses holds the aliases of the imported specs whose names the module
	// writes, the modules it imports.
	uses map[string]bool
}

func (w *tsWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// doc writes a TSDoc comment at the given indent to the code, and to the
// declarations when decl is set; an empty doc falls back to the sentence
// given, so that no exported name is left bare.
func (w *tsWriter) doc(indent, doc, fallback string) {
	w.b.WriteString(docText(indent, doc, fallback))
}

// docText is a TSDoc comment, marked as a comment (see comment).
func docText(indent, doc, fallback string) string {
	lines := tsDocLines(doc, fallback)
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	if len(lines) == 1 && len(indent)+len(lines[0]) < 90 {
		fmt.Fprintf(&b, "%s/** %s */\n", indent, lines[0])
		return comment(b.String())
	}
	fmt.Fprintf(&b, "%s/**\n", indent)
	for _, l := range lines {
		if l == "" {
			fmt.Fprintf(&b, "%s *\n", indent)
		} else {
			fmt.Fprintf(&b, "%s * %s\n", indent, l)
		}
	}
	fmt.Fprintf(&b, "%s */\n", indent)
	return comment(b.String())
}

// tsDocLines fills a doc the way docLines does for Go, escaping the end of
// a comment.
func tsDocLines(doc, fallback string) []string {
	text := doctext.Lines(doc, fallback)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		out = append(out, strings.ReplaceAll(l, "*/", "*\\/"))
	}
	return out
}

// module writes the module's declarations; render adds the imports, which
// are what the rest of the module names.
func (w *tsWriter) module() {
	s := w.spec
	// The zero checks are found while walking the fields, and written last.
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
	w.zeroChecks()
}

// preamble is how each of the module's files opens after its marker.
func (w *tsWriter) preamble() string {
	s := w.spec
	return fmt.Sprintf("// Its decoders refuse what the Go package %s refuses; see jobgen's spec/README.md, \"TypeScript\".\n\n", s.Package.Name) +
		docText("", s.Package.Doc, "Package "+s.Package.Name+" is generated by jobgen from "+path.Base(s.File)+".")
}

// specifier is how a module of the package names the module of an
// imported spec, in a file of the given kind: a sibling file, since the
// modules of specs that import one another are written side by side; for a
// spec of another Go module, that module's package and the module it
// exports for the spec, OTHER/<package.name> (decision 0090).
func (w *tsWriter) specifier(im *gen.Import, kind tsKind) string {
	if im.Foreign() {
		return im.Found.Packages["ts"] + "/" + im.Imported.Spec().Package.Name
	}
	return "./" + im.Imported.Spec().Package.Name + kind.importExt()
}

// runtimeSpecifier is how a file of the given kind names the runtime
// module: Runtime/runtime, or the sibling file in the runtime's own package.
func (w *tsWriter) runtimeSpecifier(kind tsKind) string {
	if w.runtime != "" {
		return w.runtime + "/" + runtimeName
	}
	return "./" + runtimeName + kind.importExt()
}

// checkForeignPackages refuses an import of another module's spec whose
// TypeScript package has no name: the module would have nothing to import.
func checkForeignPackages(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	for _, im := range s.Imports {
		if im.Imported != nil && im.Foreign() && im.Found.Packages["ts"] == "" {
			errs.Add(im.ModulePos, "imports.%s.module: the TypeScript package of %s has no name, so a module cannot import its %s module; jobgen names it from that module's jobgen.yaml (typescript.package) or its path (with gen.Module.Packages[\"ts\"] in the library)", im.Alias, im.Found, im.Imported.Spec().Package.Name)
		}
	}
	return errs
}
