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

// A ScalarKind is what a predeclared type is on the wire, whatever Go
// calls it: backends switch on it, never on Go's type names.
type ScalarKind int

// The kinds of scalar.
const (
	NotScalar    ScalarKind = iota // error, and every type that is not predeclared
	ScalarString                   // a JSON string
	ScalarBool                     // true or false
	ScalarInt                      // a signed integer of Bits bits
	ScalarUint                     // an unsigned integer of Bits bits
	ScalarFloat                    // a finite number of Bits bits
	ScalarAny                      // any JSON value
)

// A Scalar is what a predeclared type holds: its kind and width.
type Scalar struct {
	Kind ScalarKind
	// Bits is the width of an integer or float. Go's int and uint are
	// taken as 64 bits, the platforms jobgen targets, and marked Native.
	Bits   int
	Native bool // int or uint: as wide as the platform's word
}

// scalars are the predeclared Go types a spec may use, but error, with
// what each is on the wire: the one table of Go's scalar types.
var scalars = map[string]Scalar{
	"string": {Kind: ScalarString}, "bool": {Kind: ScalarBool}, "any": {Kind: ScalarAny},
	"int8": {ScalarInt, 8, false}, "int16": {ScalarInt, 16, false}, "int32": {ScalarInt, 32, false}, "rune": {ScalarInt, 32, false},
	"int64": {ScalarInt, 64, false}, "int": {ScalarInt, 64, true},
	"uint8": {ScalarUint, 8, false}, "byte": {ScalarUint, 8, false}, "uint16": {ScalarUint, 16, false}, "uint32": {ScalarUint, 32, false},
	"uint64": {ScalarUint, 64, false}, "uint": {ScalarUint, 64, true},
	"float32": {ScalarFloat, 32, false}, "float64": {ScalarFloat, 64, false},
}

// builtin reports whether name is a predeclared Go type a spec may use.
func builtin(name string) bool { _, ok := scalars[name]; return ok || name == "error" }

// ScalarOf is what the predeclared type name is on the wire; its Kind is
// NotScalar for any other name.
func ScalarOf(name string) Scalar { return scalars[name] }

// Scalar is what t is on the wire when it is a predeclared type; its Kind
// is NotScalar for every other type.
func (t *Type) Scalar() Scalar {
	if t.Kind != TypeBuiltin {
		return Scalar{}
	}
	return scalars[t.Name]
}

// Integer reports whether s is a signed or unsigned integer.
func (s Scalar) Integer() bool { return s.Kind == ScalarInt || s.Kind == ScalarUint }

// Range is the smallest and largest value of an integer narrower than 64
// bits; ok is false for every other scalar, whose range JSON does not
// bound in practice.
func (s Scalar) Range() (lo, hi int64, ok bool) {
	switch {
	case s.Kind == ScalarInt && s.Bits < 64:
		return -1 << (s.Bits - 1), 1<<(s.Bits-1) - 1, true
	case s.Kind == ScalarUint && s.Bits < 64:
		return 0, 1<<s.Bits - 1, true
	}
	return 0, 0, false
}

// IsBytes reports whether t is []byte (or []uint8), which JSON holds as a
// base64 string.
func (t *Type) IsBytes() bool {
	return t.Kind == TypeSlice && t.Elem.Scalar() == Scalar{ScalarUint, 8, false}
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
