package gen

import (
	"go/ast"
	"strings"
)

// A TypeKind says what shape a type expression has.
type TypeKind int

// The type expression shapes.
const (
	TypeNamed     TypeKind = iota // a type the spec declares
	TypeBuiltin                   // string, int64, error, any …
	TypeQualified                 // pkg.Name through an import
	TypeSlice                     // []Elem
	TypeMap                       // map[Key]Elem
	TypePointer                   // *Elem
	TypeFunc                      // func(Params) Results
	TypeChan                      // chan Elem, <-chan Elem, chan<- Elem
)

// A Type is a Go type expression written in the spec, such as "[]RecordChunk"
// or "func(ctx context.Context, job RunningJob) (Hooks, error)".
type Type struct {
	Kind     TypeKind
	Name     string // TypeNamed, TypeBuiltin, TypeQualified
	Pkg      string // import path, TypeQualified
	Alias    string // import alias, TypeQualified
	Key      *Type  // TypeMap
	Elem     *Type  // TypeSlice, TypeMap, TypePointer, TypeChan
	Dir      ast.ChanDir
	Params   []*Param // TypeFunc
	Results  []*Param // TypeFunc
	Variadic bool     // TypeFunc: the last param is ...T
	Pos      Pos

	// decl is what a TypeNamed name, or a TypeQualified name from an imported
	// spec, resolved to; set by Validate.
	decl DeclKind
	// imp is the spec import a TypeQualified name comes from, if any.
	imp *Import
}

// A Param is a parameter or result of a func type; Name may be empty.
type Param struct {
	Name string
	Type *Type
}

// builtinTypes are the predeclared Go types a spec may use.
var builtinTypes = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true, "error": true, "any": true,
}

// standardImports are available to every spec without an imports entry.
func standardImports() []*Import {
	return []*Import{
		{Alias: "context", Path: "context"},
		{Alias: "io", Path: "io"},
		{Alias: "json", Path: "encoding/json"},
		{Alias: "time", Path: "time"},
	}
}

// Wire reports whether values of the type travel in JSON: functions,
// channels, errors, faces and contexts live only in Go.
func (t *Type) Wire() bool {
	switch t.Kind {
	case TypeFunc, TypeChan:
		return false
	case TypeBuiltin:
		return t.Name != "error"
	case TypeQualified:
		if t.imp != nil {
			return t.decl != DeclFace
		}
		return t.Pkg != "context"
	case TypeNamed:
		return t.decl != DeclFace
	case TypeSlice, TypeMap, TypePointer:
		return t.Elem.Wire()
	}
	return true
}

// Declared reports whether the type names a declaration of this spec or of
// a spec it imports, so that decl says what it is.
func (t *Type) Declared() bool {
	return t.Kind == TypeNamed || (t.Kind == TypeQualified && t.imp != nil)
}

// unread reports whether the type names a declaration of a spec import that
// was not read (a spec compared without a file system), so nothing is known
// about it.
func (t *Type) unread() bool { return t.Kind == TypeQualified && t.Pkg == "" }

// Collection reports whether the type is a slice or map, which is never
// "missing" on the wire: absent, null and empty all decode as empty.
func (t *Type) Collection() bool { return t.Kind == TypeSlice || t.Kind == TypeMap }

// String renders the type as Go source.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	switch t.Kind {
	case TypeNamed, TypeBuiltin:
		b.WriteString(t.Name)
	case TypeQualified:
		b.WriteString(t.Alias + "." + t.Name)
	case TypeSlice:
		b.WriteString("[]")
		t.Elem.write(b)
	case TypeMap:
		b.WriteString("map[")
		t.Key.write(b)
		b.WriteString("]")
		t.Elem.write(b)
	case TypePointer:
		b.WriteString("*")
		t.Elem.write(b)
	case TypeChan:
		switch t.Dir {
		case ast.RECV:
			b.WriteString("<-chan ")
		case ast.SEND:
			b.WriteString("chan<- ")
		default:
			b.WriteString("chan ")
		}
		t.Elem.write(b)
	case TypeFunc:
		b.WriteString("func")
		writeParams(b, t.Params, t.Variadic)
		switch {
		case len(t.Results) == 1 && t.Results[0].Name == "":
			b.WriteString(" ")
			t.Results[0].Type.write(b)
		case len(t.Results) > 0:
			b.WriteString(" ")
			writeParams(b, t.Results, false)
		}
	}
}

func writeParams(b *strings.Builder, ps []*Param, variadic bool) {
	b.WriteString("(")
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.Name != "" {
			b.WriteString(p.Name + " ")
		}
		if variadic && i == len(ps)-1 {
			b.WriteString("...")
		}
		p.Type.write(b)
	}
	b.WriteString(")")
}

// Walk calls fn for t and every type inside it.
func (t *Type) Walk(fn func(*Type)) {
	fn(t)
	if t.Key != nil {
		t.Key.Walk(fn)
	}
	if t.Elem != nil {
		t.Elem.Walk(fn)
	}
	for _, p := range t.Params {
		p.Type.Walk(fn)
	}
	for _, p := range t.Results {
		p.Type.Walk(fn)
	}
}

// Decl is what a TypeNamed name, or a TypeQualified name from an imported
// spec, resolved to; DeclNone before Validate and for other types.
func (t *Type) Decl() DeclKind { return t.decl }

// Import is the spec import a TypeQualified name comes from, nil for a Go
// package's type.
func (t *Type) Import() *Import { return t.imp }

// DeclaredType is the TypeNamed type that refers to the spec's declaration
// name of kind decl, as Validate would have resolved it.
func DeclaredType(name string, decl DeclKind) *Type {
	return &Type{Kind: TypeNamed, Name: name, decl: decl}
}
