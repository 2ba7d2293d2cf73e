package gen

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// TSBackend generates a spec's TypeScript module, <package.name>.ts, in Dir
// under its root: one self-contained ES module holding a branded string type
// per id, a string-literal union and value list per enum, an interface per
// record, union variant and live fact version, a discriminated union per
// union, FactEnvelope (the union of every fact version the spec still
// decodes), the defaults as constants, and for every type a decoder
// decodeX(json: unknown): X that refuses what the generated Go decoders
// refuse, throwing a DecodeError with a JSON path, and an encoder
// encodeX(x: X) that writes what they accept. spec/README.md, "TypeScript",
// lists the mapping and where the two sides must differ.
//
// Dir is empty when the module has a root of its own, and one directory
// (such as "ts") when it lives beside the Go packages under theirs.
type TSBackend struct{ Dir string }

// Name implements Backend.
func (TSBackend) Name() string { return "TypeScript" }

// Marker implements Backend: a line comment, as in Go.
func (TSBackend) Marker() Marker { return Marker{Suffix: ".ts", Format: "// " + MarkerText + "\n"} }

// Check implements Backend: names the module would declare twice, type
// names that shadow the JavaScript and TypeScript globals the module relies
// on, import aliases that are TypeScript reserved words and the JSON name
// __proto__, each at the declaration that causes it.
func (TSBackend) Check(r *Resolved) ErrorList {
	s, err := r.model()
	if err != nil {
		return nil // Files reports it
	}
	return checkTSNames(s)
}

// Files implements Backend.
func (b TSBackend) Files(r *Resolved, o Origin) ([]File, error) {
	s, err := r.model()
	if err != nil {
		return nil, err
	}
	f := emitTS(s, o, path.Join(b.Dir, s.Package.Name+".ts"))
	return []File{f}, nil
}

// EmitTS renders a valid spec as its TypeScript module, with the marker
// naming the spec as a file beside it; see TSBackend.
func EmitTS(r *Resolved) (File, error) {
	s, err := r.model()
	if err != nil {
		return File{}, err
	}
	if errs := checkTSNames(s); len(errs) > 0 {
		return File{}, errs
	}
	return emitTS(s, besideSpec(s), s.Package.Name+".ts"), nil
}

func emitTS(s *Spec, o Origin, name string) File {
	w := &tsWriter{spec: s, zero: map[string]bool{}}
	w.b.Grow(32<<10 + 8<<10*(len(s.Records)+len(s.Unions)+2*len(s.Facts)))
	w.b.WriteString(mark(TSBackend{}, o, name))
	w.module()
	return File{Path: name, Content: []byte(w.b.String())}
}

// tsGlobals are the JavaScript built-ins and TypeScript utility types a
// declaration must not shadow: the module and its users refer to them.
var tsGlobals = []string{
	"AggregateError", "Array", "ArrayBuffer", "ArrayLike", "AsyncGenerator", "AsyncIterable",
	"AsyncIterator", "Atomics", "Awaited", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean",
	"Capitalize", "ConstructorParameters", "DataView", "Date", "Error", "EvalError", "Exclude",
	"Extract", "Float32Array", "Float64Array", "Function", "Generator", "Infinity", "InstanceType",
	"Int16Array", "Int32Array", "Int8Array", "Intl", "Iterable", "IterableIterator", "Iterator",
	"JSON", "Lowercase", "Map", "Math", "NaN", "NoInfer", "NonNullable", "Number", "Object", "Omit",
	"OmitThisParameter", "Parameters", "Partial", "Pick", "Promise", "PromiseLike", "PropertyKey",
	"Proxy", "RangeError", "Readonly", "ReadonlyArray", "ReadonlyMap", "ReadonlySet", "Record",
	"ReferenceError", "Reflect", "RegExp", "Required", "ReturnType", "Set", "SharedArrayBuffer",
	"String", "Symbol", "SyntaxError", "TemplateStringsArray", "ThisParameterType", "ThisType",
	"TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray",
	"Uncapitalize", "Uppercase", "WeakMap", "WeakRef", "WeakSet",
}

// tsReserved are the words a module cannot bind as a name: JavaScript's
// reserved words in strict mode code, which every ES module is, and the
// names strict mode forbids binding.
var tsReserved = []string{
	"arguments", "await", "break", "case", "catch", "class", "const", "continue", "debugger",
	"default", "delete", "do", "else", "enum", "eval", "export", "extends", "false", "finally",
	"for", "function", "if", "implements", "import", "in", "instanceof", "interface", "let", "new",
	"null", "package", "private", "protected", "public", "return", "static", "super", "switch",
	"this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield",
}

// tsFixedNames are the names every module exports whatever the spec says.
var tsFixedNames = []string{"DecodeError", "DecodeErrorKind", "EncodeError", "JSONObject", "JSONValue"}

// checkTSNames claims every top-level name the module declares and reports
// the collisions, the shadowed globals and the JSON names JavaScript objects
// cannot carry as plain properties.
func checkTSNames(s *Spec) ErrorList {
	var errs ErrorList
	type owner struct {
		what string
		pos  Pos
	}
	taken := map[string]owner{}
	for _, n := range tsFixedNames {
		taken[n] = owner{what: "jobgen's own " + n}
	}
	if len(s.Facts) > 0 {
		for _, n := range []string{"FactEnvelope", "decodeFact", "encodeFact"} {
			taken[n] = owner{what: "jobgen's own " + n}
		}
	}
	type claim struct {
		name string
		what string
		pos  Pos
	}
	var claims []claim
	add := func(what string, pos Pos, names ...string) {
		for _, n := range names {
			claims = append(claims, claim{n, what, pos})
		}
	}
	typeName := func(what, name string, pos Pos) {
		if slices.Contains(tsGlobals, name) {
			errs.Add(pos, "%s: name %s shadows the TypeScript global %s; rename it", what, name, name)
		}
	}
	for _, im := range s.Imports {
		if im.Imported == nil {
			continue
		}
		what := "imports." + im.Alias
		if slices.Contains(tsReserved, im.Alias) {
			errs.Add(im.Pos, "%s: alias %s is a reserved word in TypeScript; choose another", what, im.Alias)
		}
		add(what, im.Pos, im.Alias)
	}
	for _, d := range s.IDs {
		typeName("ids."+d.Name, d.Name, d.Pos)
		add("ids."+d.Name, d.Pos, d.Name, "decode"+d.Name)
	}
	for _, d := range s.Enums {
		typeName("enums."+d.Name, d.Name, d.Pos)
		add("enums."+d.Name, d.Pos, d.Name, d.Name+"Values", "is"+d.Name, "decode"+d.Name)
	}
	for _, d := range s.Records {
		typeName("records."+d.Name, d.Name, d.Pos)
		add("records."+d.Name, d.Pos, d.Name, "decode"+d.Name, "encode"+d.Name)
	}
	for _, u := range s.Unions {
		typeName("unions."+u.Name, u.Name, u.Pos)
		add("unions."+u.Name, u.Pos, u.Name, "decode"+u.Name, "encode"+u.Name)
		if len(u.Common) > 0 {
			add("unions."+u.Name, u.Pos, u.CommonName())
		}
		for _, v := range u.Variants {
			what := "unions." + u.Name + ".variants." + v.Name
			typeName(what, v.Name, v.Pos)
			add(what, v.Pos, v.Name, "decode"+v.Name, "encode"+v.Name)
		}
	}
	for _, f := range s.Facts {
		add("facts."+f.Name, f.Pos, f.GoName+"Type")
		for _, v := range f.Versions {
			if v.Retired {
				continue
			}
			name := f.StructName(v)
			what := fmt.Sprintf("facts.%s.versions.v%d", f.Name, v.Number)
			add(what, v.Pos, name, name+"Envelope", "decode"+name, "encode"+name)
		}
	}
	for _, d := range s.Defaults {
		add("defaults."+d.Name, d.Pos, d.GoName)
	}
	slices.SortStableFunc(claims, func(a, b claim) int { return comparePos(a.pos, b.pos) })
	for _, c := range claims {
		first, dup := taken[c.name]
		switch {
		case !dup:
			taken[c.name] = owner{c.what, c.pos}
		case first.pos.File == "":
			errs.Add(c.pos, "%s: TypeScript name %s is taken by %s", c.what, c.name, first.what)
		case first.what != c.what:
			errs.Add(c.pos, "%s: generates the TypeScript name %s, as %s at %d:%d does", c.what, c.name, first.what, first.pos.Line, first.pos.Col)
		}
	}
	// A property named __proto__ sets an object's prototype instead of
	// holding a value, in object literals and assignments alike.
	eachTSFieldList(s, func(what string, fields []*Field) {
		for _, f := range fields {
			if f.Wire() && f.JSON == "__proto__" {
				errs.Add(f.Pos, "%s.%s: JSON name __proto__ cannot be a TypeScript property: it sets the object's prototype", what, f.Name)
			}
		}
	})
	return errs
}

func eachTSFieldList(s *Spec, fn func(what string, fields []*Field)) {
	for _, r := range s.Records {
		fn("records."+r.Name+".fields", r.Fields)
	}
	for _, u := range s.Unions {
		fn("unions."+u.Name+".common", u.Common)
		for _, v := range u.Variants {
			fn("unions."+u.Name+".variants."+v.Name+".fields", v.Fields)
		}
	}
	for _, f := range s.Facts {
		for _, v := range f.Versions {
			fn(fmt.Sprintf("facts.%s.versions.v%d.fields", f.Name, v.Number), v.Fields)
		}
	}
}

// capArticle is article(word) opening a sentence.
func capArticle(word string) string {
	a := article(word)
	return strings.ToUpper(a[:1]) + a[1:]
}

type tsWriter struct {
	spec *Spec
	b    strings.Builder
	// zero names the records and variants an encoder or decoder needs an
	// _isZero function for: those used as optional fields.
	zero map[string]bool
}

func (w *tsWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// doc writes a TSDoc comment at the given indent; an empty doc falls back to
// the sentence given, so that no exported name is left bare.
func (w *tsWriter) doc(indent, doc, fallback string) {
	lines := tsDocLines(doc, fallback)
	if len(lines) == 0 {
		return
	}
	if len(lines) == 1 && len(indent)+len(lines[0]) < 90 {
		w.line("%s/** %s */", indent, lines[0])
		return
	}
	w.line("%s/**", indent)
	for _, l := range lines {
		if l == "" {
			w.line("%s *", indent)
		} else {
			w.line("%s * %s", indent, l)
		}
	}
	w.line("%s */", indent)
}

// tsDocLines fills a doc the way docLines does for Go, escaping the end of
// a comment.
func tsDocLines(doc, fallback string) []string {
	text := docLines(doc, fallback)
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

func (w *tsWriter) module() {
	s := w.spec
	w.line("// Its decoders refuse what the Go package %s refuses; see jobgen's spec/README.md, \"TypeScript\".", s.Package.Name)
	w.line("")
	w.doc("", s.Package.Doc, "Package "+s.Package.Name+" is generated by jobgen from "+path.Base(s.File)+".")
	w.line("")
	w.imports()
	w.runtime()
	// The zero checks are found while walking the fields, and written last.
	for _, d := range sortedBy(s.IDs, func(d *ID) string { return d.Name }) {
		w.id(d)
	}
	for _, d := range sortedBy(s.Enums, func(d *Enum) string { return d.Name }) {
		w.enum(d)
	}
	for _, d := range sortedBy(s.Records, func(d *Record) string { return d.Name }) {
		w.record(d)
	}
	for _, u := range sortedBy(s.Unions, func(d *Union) string { return d.Name }) {
		w.union(u)
	}
	if len(s.Facts) > 0 {
		w.facts()
	}
	if len(s.Defaults) > 0 {
		w.defaults()
	}
	w.zeroChecks()
}

// imports binds each imported spec's module under its alias: the modules of
// specs that import one another are written side by side.
func (w *tsWriter) imports() {
	n := 0
	for _, im := range w.spec.Imports {
		if im.Imported != nil {
			w.line("import * as %s from %q;", im.Alias, "./"+im.Imported.Spec().Package.Name+".js")
			n++
		}
	}
	if n > 0 {
		w.line("")
	}
}

func (w *tsWriter) id(d *ID) {
	w.line("")
	w.doc("", d.Doc, capArticle(d.Name)+" "+d.Name+" is an identifier.")
	w.line("export type %s = string & { readonly __brand: %q };", d.Name, d.Name)
	w.line("")
	what := "any string"
	if d.Kind == IDUUID {
		what = "a UUID in canonical form (8-4-4-4-12 lower-case hex digits), not the nil UUID"
	}
	w.doc("", fmt.Sprintf("decode%s reads %s %s from JSON: %s. Null is the zero %s, as in Go.", d.Name, article(d.Name), d.Name, what, d.Name), "")
	w.line("export function decode%s(json: unknown, path = \"$\"): %s {", d.Name, d.Name)
	w.line("  return %s;", w.element(&Type{Kind: TypeNamed, Name: d.Name, decl: declID}, "json", "path", `""`))
	w.line("}")
}

func (w *tsWriter) enum(d *Enum) {
	w.line("")
	w.doc("", d.Doc, capArticle(d.Name)+" "+d.Name+" is one of a closed set of values.")
	var lits []string
	for _, v := range d.Values {
		lits = append(lits, strconv.Quote(v.Value))
	}
	if len(d.Values) > 1 {
		w.line("export type %s =", d.Name)
		for i, v := range d.Values {
			end := ""
			if i == len(d.Values)-1 {
				end = ";"
			}
			if v.Doc != "" {
				w.doc("  ", v.Doc, "")
			}
			w.line("  | %s%s", strconv.Quote(v.Value), end)
		}
	} else {
		w.line("export type %s = %s;", d.Name, strings.Join(lits, " | "))
	}
	w.line("")
	w.doc("", fmt.Sprintf("%sValues is every %s, in declaration order.", d.Name, d.Name), "")
	w.line("export const %sValues: readonly %s[] = [%s];", d.Name, d.Name, strings.Join(lits, ", "))
	w.line("")
	w.doc("", fmt.Sprintf("is%s reports whether v is one of the declared %s values.", d.Name, d.Name), "")
	w.line("export function is%s(v: unknown): v is %s {", d.Name, d.Name)
	w.line("  switch (v) {")
	for _, l := range lits {
		w.line("    case %s:", l)
	}
	w.line("      return true;")
	w.line("  }")
	w.line("  return false;")
	w.line("}")
	w.line("")
	w.doc("", fmt.Sprintf("decode%s reads %s %s from JSON, refusing a value outside it. Null is the empty string, as in Go, although it is no %s.", d.Name, article(d.Name), d.Name, d.Name), "")
	w.line("export function decode%s(json: unknown, path = \"$\"): %s {", d.Name, d.Name)
	w.line("  return %s;", w.element(&Type{Kind: TypeNamed, Name: d.Name, decl: declEnum}, "json", "path", `""`))
	w.line("}")
}

// wireFields are the fields that travel in JSON, in the order Go's wire
// struct holds them: common fields first.
func wireFields(lists ...[]*Field) []*Field {
	var out []*Field
	for _, l := range lists {
		for _, f := range l {
			if f.Wire() {
				out = append(out, f)
			}
		}
	}
	return out
}

// required reports whether Go's decoder refuses JSON without the field.
func tsRequired(f *Field) bool { return !f.Optional && !f.Type.Collection() }

func (w *tsWriter) fieldsInterface(fields []*Field) {
	for _, f := range wireFields(fields) {
		if f.Doc != "" {
			w.doc("  ", f.Doc, "")
		}
		opt := ""
		if f.Optional {
			opt = "?"
		}
		w.line("  %s%s: %s;", f.JSON, opt, fieldType(f))
	}
}

func (w *tsWriter) record(r *Record) {
	w.line("")
	w.doc("", r.Doc, capArticle(r.Name)+" "+r.Name+" is a record.")
	if len(wireFields(r.Fields)) == 0 {
		w.line("// No field of %s travels in JSON.", r.Name)
	}
	w.line("export interface %s {", r.Name)
	w.fieldsInterface(r.Fields)
	w.line("}")
	w.decoder(r.Name, nil, wireFields(r.Fields))
	w.encoder(r.Name, nil, wireFields(r.Fields))
}

// fieldType is a field's TypeScript type: an enum field restricted to a
// machine's terminal states (terminal: true) holds only those.
func fieldType(f *Field) string {
	if f.terminalOf == nil {
		return tsType(f.Type)
	}
	var states []string
	for _, st := range f.terminalOf.Terminal {
		states = append(states, strconv.Quote(st.Name))
	}
	return strings.Join(states, " | ")
}

// A tsDisc is the discriminator a variant's decoder checks and its encoder
// writes.
type tsDisc struct {
	json string
	lit  string // the tag as a TypeScript literal: "opened", true
	kind TagKind
}

func tsTagLit(t Tag) string {
	if t.Kind == TagBool {
		return strconv.FormatBool(t.Bool)
	}
	return strconv.Quote(t.String)
}

func (w *tsWriter) union(u *Union) {
	var names []string
	for _, v := range u.Variants {
		names = append(names, v.Name)
	}
	w.line("")
	w.doc("", u.Doc+fmt.Sprintf("\n\nIt is one of %s, told apart in JSON by %q.", strings.Join(names, ", "), u.Discriminator), "")
	w.line("export type %s = %s;", u.Name, strings.Join(names, " | "))
	extends := ""
	if len(u.Common) > 0 {
		extends = " extends " + u.CommonName()
		w.line("")
		w.doc("", fmt.Sprintf("%s holds the fields every %s carries.", u.CommonName(), u.Name), "")
		w.line("export interface %s {", u.CommonName())
		w.fieldsInterface(u.Common)
		w.line("}")
	}
	for _, v := range u.Variants {
		w.line("")
		w.doc("", v.Doc, capArticle(v.Name)+" "+v.Name+" is "+article(u.Name)+" "+u.Name+".")
		w.line("export interface %s%s {", v.Name, extends)
		w.line("  %s: %s;", u.Discriminator, tsTagLit(v.Tag))
		w.fieldsInterface(v.Fields)
		w.line("}")
		disc := &tsDisc{json: u.Discriminator, lit: tsTagLit(v.Tag), kind: v.Tag.Kind}
		w.decoder(v.Name, disc, wireFields(u.Common, v.Fields))
		w.encoder(v.Name, disc, wireFields(u.Common, v.Fields))
	}
	// The decoder probes the discriminator alone first, as DecodeX does.
	disc := u.Discriminator
	w.line("")
	w.doc("", fmt.Sprintf("decode%s reads any %s, choosing the variant by %q; an unknown value is a DecodeError of kind unknownVariant.", u.Name, u.Name, disc), "")
	w.line("export function decode%s(json: unknown, path = \"$\"): %s {", u.Name, u.Name)
	w.line("  const o = _obj(json, path, %q);", u.Name)
	w.line("  let tag: unknown = undefined;")
	w.line("  for (const k of Object.keys(o)) {")
	w.line("    if (k.length === %d && k !== %q && _fold(k) === %q) throw _ambiguous(path, %q, k, %q);", len(disc), disc, tsFold(disc), u.Name, disc)
	w.line("    if (k === %q) {", disc)
	w.line("      const v = o[k];")
	kind := "_str"
	if u.Variants[0].Tag.Kind == TagBool {
		kind = "_bool"
	}
	w.line("      tag = v === null ? undefined : %s(v, path, %q);", kind, disc)
	w.line("    }")
	w.line("  }")
	w.line("  switch (tag) {")
	w.line("    case undefined:")
	w.line("      throw _missing(path, %q, %q);", u.Name, disc)
	for _, v := range u.Variants {
		w.line("    case %s:", tsTagLit(v.Tag))
		w.line("      return decode%s(json, path);", v.Name)
	}
	w.line("  }")
	w.line("  throw new DecodeError(\"unknownVariant\", _at(path, %q), `%s: unknown %s ${JSON.stringify(tag)}`);", disc, u.Name, disc)
	w.line("}")
	w.line("")
	w.doc("", fmt.Sprintf("encode%s writes any %s as JSON, with %q naming its variant.", u.Name, u.Name, disc), "")
	w.line("export function encode%s(value: %s): JSONObject {", u.Name, u.Name)
	w.line("  switch (value.%s) {", disc)
	for _, v := range u.Variants {
		w.line("    case %s:", tsTagLit(v.Tag))
		w.line("      return encode%s(value);", v.Name)
	}
	w.line("  }")
	w.line("  throw new EncodeError(\"unknownVariant\", %q, `unknown %s ${JSON.stringify((value as { %s: unknown }).%s)}`);", u.Name+"."+disc, disc, disc, disc)
	w.line("}")
}

func (w *tsWriter) facts() {
	s := w.spec
	facts := sortedBy(s.Facts, func(f *Fact) string { return f.Name })
	w.line("")
	for _, f := range facts {
		w.doc("", fmt.Sprintf("%sType is the wire type of %s facts.", f.GoName, f.GoName), "")
		w.line("export const %sType = %q;", f.GoName, f.Name)
	}
	var envelopes []string
	for _, f := range facts {
		for _, v := range f.Versions {
			if v.Retired {
				continue
			}
			name := f.StructName(v)
			envelopes = append(envelopes, name+"Envelope")
			doc := named(f.Doc, f.Name, name)
			if v != f.Latest() {
				doc = fmt.Sprintf("%s is version %d of %s, still decoded. Go's DecodeFact upcasts it to %s with %s; decodeFact returns it as it is, and a TypeScript reader converts it itself.", name, v.Number, f.Name, f.GoName, v.Upcast.Name)
			}
			if v.Doc != "" {
				doc += "\n\n" + v.Doc
			}
			w.line("")
			w.doc("", doc, "")
			w.line("export interface %s {", name)
			w.fieldsInterface(v.Fields)
			w.line("}")
			w.decoder(name, nil, wireFields(v.Fields))
			w.encoder(name, nil, wireFields(v.Fields))
			w.line("")
			w.doc("", fmt.Sprintf("%s %sEnvelope is a %s v%d fact as the journal stores it.", capArticle(name), name, f.Name, v.Number), "")
			w.line("export interface %sEnvelope {", name)
			w.line("  type: %q;", f.Name)
			w.line("  v: %d;", v.Number)
			w.line("  data: %s;", name)
			w.line("}")
		}
	}
	w.line("")
	w.doc("", "A FactEnvelope is a fact as the journal stores it: its type, its version and its data. It is one of the versions the spec still decodes; retired versions and unknown types are refused.", "")
	w.line("export type FactEnvelope =")
	for i, e := range envelopes {
		end := ""
		if i == len(envelopes)-1 {
			end = ";"
		}
		w.line("  | %s%s", e, end)
	}
	if len(envelopes) == 0 {
		w.line("  never;")
	}
	w.line("")
	w.doc("", "decodeFact reads an envelope written by Go's EncodeFact with this or an earlier spec. Data that is absent or null is a DecodeError of kind missingField, a type this spec does not decode one of kind unknownFact, and a known type at a version it does not decode (newer, or retired) one of kind unknownVersion.", "")
	w.line("export function decodeFact(json: unknown, path = \"$\"): FactEnvelope {")
	w.line("  const o = _obj(json, path, \"FactEnvelope\");")
	w.line("  let type = \"\";")
	w.line("  let v = 0;")
	w.line("  let data: unknown = undefined;")
	w.line("  for (const k of Object.keys(o)) {")
	w.line("    const x = o[k];")
	w.line("    switch (k) {")
	w.line("      case \"type\":")
	w.line("        if (x !== null) type = _str(x, path, \"type\");")
	w.line("        continue;")
	w.line("      case \"v\":")
	w.line("        if (x !== null) v = _int(x, path, \"v\");")
	w.line("        continue;")
	w.line("      case \"data\":")
	w.line("        data = x;")
	w.line("        continue;")
	w.line("    }")
	w.line("    switch (_fold(k)) {")
	w.line("      case \"TYPE\":")
	w.line("      case \"V\":")
	w.line("      case \"DATA\":")
	w.line("        throw _ambiguous(path, \"FactEnvelope\", k, _fold(k).toLowerCase());")
	w.line("    }")
	w.line("  }")
	w.line("  if (data === undefined || data === null) throw _missing(path, \"FactEnvelope\", \"data\");")
	w.line("  const at = path + \".data\";")
	w.line("  switch (type) {")
	for _, f := range facts {
		var live []*FactVersion
		for _, v := range f.Versions {
			if !v.Retired {
				live = append(live, v)
			}
		}
		if len(live) == 0 {
			continue
		}
		w.line("    case %q:", f.Name)
		w.line("      switch (v) {")
		for _, v := range live {
			w.line("        case %d:", v.Number)
			w.line("          return { type: %q, v: %d, data: decode%s(data, at) };", f.Name, v.Number, f.StructName(v))
		}
		w.line("      }")
		w.line("      throw new DecodeError(\"unknownVersion\", path + \".v\", `%s v${v} is not decoded by this build`);", f.Name)
	}
	w.line("  }")
	w.line("  throw new DecodeError(\"unknownFact\", path + \".type\", `unknown fact type ${JSON.stringify(type)}`);")
	w.line("}")
	w.line("")
	w.doc("", "encodeFact writes an envelope as Go's EncodeFact does, {\"type\",\"v\",\"data\"}; Go's DecodeFact reads it.", "")
	w.line("export function encodeFact(fact: FactEnvelope): JSONObject {")
	w.line("  switch (fact.type) {")
	for _, f := range facts {
		var live []*FactVersion
		for _, v := range f.Versions {
			if !v.Retired {
				live = append(live, v)
			}
		}
		if len(live) == 0 {
			continue
		}
		w.line("    case %q:", f.Name)
		w.line("      switch (fact.v) {")
		for _, v := range live {
			w.line("        case %d:", v.Number)
			w.line("          return { type: %q, v: %d, data: encode%s(fact.data) };", f.Name, v.Number, f.StructName(v))
		}
		w.line("      }")
		w.line("      break;")
	}
	w.line("  }")
	w.line("  const { type, v } = fact as { type: unknown; v: unknown };")
	w.line("  throw new EncodeError(\"unknownFact\", \"FactEnvelope\", `unknown fact ${JSON.stringify(type)} v${String(v)}`);")
	w.line("}")
}

func (w *tsWriter) defaults() {
	w.line("")
	for _, d := range sortedBy(w.spec.Defaults, func(d *Default) string { return d.GoName }) {
		value, unit := d.Value, ""
		switch d.Unit {
		case UnitKiB:
			value, unit = d.Value*1024, "It is in bytes."
		case UnitMiB:
			value, unit = d.Value*1024*1024, "It is in bytes."
		case UnitMs:
			unit = "It is in milliseconds."
		case UnitSeconds:
			value, unit = d.Value*1000, "It is in milliseconds."
		case UnitMinutes:
			value, unit = d.Value*60000, "It is in milliseconds."
		}
		doc := named(d.Doc, d.Name, d.GoName)
		if unit != "" {
			doc = strings.TrimSpace(doc + " " + unit)
		}
		w.doc("", doc, d.GoName+" is a default.")
		w.line("export const %s = %d;", d.GoName, value)
	}
}
