package typescript

import (
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// This file holds the names a TypeScript module may not declare: the
// JavaScript and TypeScript globals, the reserved words, jobgen's own names,
// and two spec declarations claiming one name.

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
func checkTSNames(s *gen.Spec) gen.ErrorList {
	decls := tsDecls(s)
	errs := checkTSBindings(decls)
	errs = append(errs, checkTSCollisions(s, decls)...)
	return append(errs, checkTSProto(s)...)
}

// A tsDecl is one declaration of the spec as the module binds it: the
// top-level names it declares, the first of which may be a type name or an
// import alias with rules of its own.
type tsDecl struct {
	what  string // where the spec declares it, such as "records.Job"
	pos   gen.Pos
	names []string
	typ   bool // names[0] is a type name, which must not shadow a global
	alias bool // names[0] is an import alias, which must not be a reserved word
}

// tsDecls lists the declarations the module makes of the spec's, in the
// order the spec's sections are checked: imports, ids, enums, records and
// unions with their variants that travel in JSON, live fact versions and
// defaults.
func tsDecls(s *gen.Spec) []tsDecl {
	var out []tsDecl
	for _, im := range s.Imports {
		if im.Imported != nil {
			out = append(out, tsDecl{what: "imports." + im.Alias, pos: im.Pos, names: []string{im.Alias}, alias: true})
		}
	}
	for _, d := range s.IDs {
		out = append(out, tsDecl{what: "ids." + d.Name, pos: d.Pos, names: []string{d.Name, "decode" + d.Name}, typ: true})
	}
	for _, d := range s.Enums {
		out = append(out, tsDecl{what: "enums." + d.Name, pos: d.Pos, names: []string{d.Name, d.Name + "Values", "is" + d.Name, "decode" + d.Name}, typ: true})
	}
	x := s.Index()
	for _, d := range s.Records {
		if !x.OnWire(d.Name) {
			continue // Go's alone: the module declares nothing for it
		}
		out = append(out, tsDecl{what: "records." + d.Name, pos: d.Pos, names: []string{d.Name, "decode" + d.Name, "encode" + d.Name}, typ: true})
	}
	for _, u := range s.Unions {
		if !x.OnWire(u.Name) {
			continue
		}
		names := []string{u.Name, "decode" + u.Name, "encode" + u.Name}
		if len(u.Common) > 0 {
			names = append(names, u.CommonName())
		}
		out = append(out, tsDecl{what: "unions." + u.Name, pos: u.Pos, names: names, typ: true})
		for _, v := range u.Variants {
			out = append(out, tsDecl{what: "unions." + u.Name + ".variants." + v.Name, pos: v.Pos, names: []string{v.Name, "decode" + v.Name, "encode" + v.Name}, typ: true})
		}
	}
	for _, f := range s.Facts {
		out = append(out, tsDecl{what: "facts." + f.Name, pos: f.Pos, names: []string{f.GoName + "Type"}})
		for _, v := range f.LiveVersions() {
			name := f.StructName(v)
			what := fmt.Sprintf("facts.%s.versions.v%d", f.Name, v.Number)
			out = append(out, tsDecl{what: what, pos: v.Pos, names: []string{name, name + "Envelope", "decode" + name, "encode" + name}})
		}
	}
	for _, d := range s.Defaults {
		out = append(out, tsDecl{what: "defaults." + d.Name, pos: d.Pos, names: []string{d.GoName}})
	}
	if len(s.Tools) > 0 {
		out = append(out, tsDecl{what: "tools", pos: s.Tools[0].Pos, names: []string{"tools"}})
	}
	if s.HTTP != nil {
		for _, r := range s.HTTP.Routes {
			switch {
			case r.Answer == gen.AnswerStream && r.Stream != nil && r.Stream.Union == nil:
				out = append(out, tsDecl{what: "http.routes." + r.Name, pos: r.Pos, names: []string{r.Name + "Event"}, typ: true})
			case r.Answer == gen.AnswerMedia:
				out = append(out, tsDecl{what: "http.routes." + r.Name, pos: r.Pos, names: []string{r.Name + "Answer"}, typ: true})
			}
		}
	}
	return out
}

// checkTSBindings reports the import aliases that are reserved words and
// the type names that shadow a global, in declaration order.
func checkTSBindings(decls []tsDecl) gen.ErrorList {
	var errs gen.ErrorList
	for _, d := range decls {
		name := d.names[0]
		switch {
		case d.alias && slices.Contains(tsReserved, name):
			errs.Add(d.pos, "%s: alias %s is a reserved word in TypeScript; choose another", d.what, name)
		case d.typ && slices.Contains(tsGlobals, name):
			errs.Add(d.pos, "%s: name %s shadows the TypeScript global %s; rename it", d.what, name, name)
		}
	}
	return errs
}

// A tsOwner is what first claimed a name: jobgen itself (no position) or a
// declaration of the spec.
type tsOwner struct {
	what string
	pos  gen.Pos
}

// checkTSCollisions reports each name claimed by jobgen and a declaration,
// or by two declarations, at the later one in the spec; a declaration does
// not collide with itself.
func checkTSCollisions(s *gen.Spec, decls []tsDecl) gen.ErrorList {
	taken := map[string]tsOwner{}
	own := tsFixedNames
	if len(s.Facts) > 0 {
		own = append(slices.Clip(own), "FactEnvelope", "decodeFact", "encodeFact", "readFact", "UnknownFact")
	}
	if len(s.Tools) > 0 {
		own = append(slices.Clip(own), "ToolAnnotations", "ToolDefinition") // the runtime's types of the tool table
	}
	if s.HTTP != nil {
		own = append(slices.Clip(own), "Client", "ClientOptions", "StreamOptions", "With", "_Wire") // the client and the runtime's types it names
	}
	for _, n := range own {
		taken[n] = tsOwner{what: "jobgen's own " + n}
	}
	type claim struct {
		name string
		tsOwner
	}
	var claims []claim
	for _, d := range decls {
		for _, n := range d.names {
			claims = append(claims, claim{n, tsOwner{d.what, d.pos}})
		}
	}
	slices.SortStableFunc(claims, func(a, b claim) int { return gen.ComparePos(a.pos, b.pos) })
	var errs gen.ErrorList
	for _, c := range claims {
		first, dup := taken[c.name]
		switch {
		case !dup:
			taken[c.name] = c.tsOwner
		case first.pos.File == "":
			errs.Add(c.pos, "%s: TypeScript name %s is taken by %s", c.what, c.name, first.what)
		case first.what != c.what:
			errs.Add(c.pos, "%s: generates the TypeScript name %s, as %s at %d:%d does", c.what, c.name, first.what, first.pos.Line, first.pos.Col)
		}
	}
	return errs
}

// checkTSProto reports the wire fields named __proto__: such a property
// sets an object's prototype instead of holding a value, in object literals
// and assignments alike.
func checkTSProto(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	eachTSFieldList(s, func(what string, fields []*gen.Field) {
		for _, f := range fields {
			if f.Wire() && f.JSON == "__proto__" {
				errs.Add(f.Pos, "%s.%s: JSON name __proto__ cannot be a TypeScript property: it sets the object's prototype", what, f.Name)
			}
		}
	})
	return errs
}

// eachTSFieldList calls fn with every field list of the spec whose fields
// become TypeScript properties, and where the spec declares it.
func eachTSFieldList(s *gen.Spec, fn func(what string, fields []*gen.Field)) {
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
