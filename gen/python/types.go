package python

import (
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// This file renders the spec's type expressions as Python annotations, and
// says which of them hold a zero value Python can write as a default.

// runtimeName marks name as imported from the runtime and returns it.
func (w *pyWriter) runtimeName(name string) string {
	w.runtime[name] = true
	return name
}

// pyType renders a wire type as a Python annotation.
func (w *pyWriter) pyType(t *gen.Type) string {
	switch t.Kind {
	case gen.TypeNamed:
		if w.own != "" {
			return w.own + "." + t.Name
		}
		return t.Name
	case gen.TypeBuiltin:
		return w.scalar(t.Scalar())
	case gen.TypeQualified:
		if im := t.Import(); im != nil && im.Imported != nil {
			w.specs[im.Alias] = true
			return im.Alias + "." + t.Name
		}
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return w.runtimeName("Timestamp")
		case "time.Duration":
			return w.runtimeName("Int64")
		}
		w.pydantic["JsonValue"] = true
		return "JsonValue"
	case gen.TypeSlice:
		if t.IsBytes() {
			return w.runtimeName("Bytes")
		}
		return "list[" + w.pyType(t.Elem) + "]"
	case gen.TypeMap:
		key := "str"
		if k := t.Key; k.Declared() && (k.Decl() == gen.DeclEnum || k.Decl() == gen.DeclID) {
			key = w.pyType(k)
		}
		return "dict[" + key + ", " + w.pyType(t.Elem) + "]"
	case gen.TypePointer:
		return w.pyType(t.Elem) + " | None"
	}
	w.pydantic["JsonValue"] = true
	return "JsonValue"
}

// scalar is the Python type of a predeclared Go type: integers and floats
// carry their Go width, which the runtime's types check.
func (w *pyWriter) scalar(s gen.Scalar) string {
	switch s.Kind {
	case gen.ScalarString:
		return "str"
	case gen.ScalarBool:
		return "bool"
	case gen.ScalarInt:
		return w.runtimeName("Int" + strconv.Itoa(s.Bits))
	case gen.ScalarUint:
		return w.runtimeName("Uint" + strconv.Itoa(s.Bits))
	case gen.ScalarFloat:
		return w.runtimeName("Float" + strconv.Itoa(s.Bits))
	}
	w.pydantic["JsonValue"] = true
	return "JsonValue"
}

// zero is the Python literal of t's zero value when Go omits a field that
// holds it and Python can hold it too; ok is false for types whose absence
// Python writes as None: enums, UUIDs, records, pointers, times, bytes and
// raw JSON.
func (w *pyWriter) zero(t *gen.Type) (string, bool) {
	switch t.Kind {
	case gen.TypeBuiltin:
		switch s := t.Scalar(); s.Kind {
		case gen.ScalarString:
			return `""`, true
		case gen.ScalarBool:
			return "False", true
		case gen.ScalarInt, gen.ScalarUint:
			return "0", true
		case gen.ScalarFloat:
			return "0.0", true
		}
	case gen.TypeQualified:
		if t.Pkg+"."+t.Name == "time.Duration" {
			return "0", true
		}
	}
	if t.Declared() && t.Decl() == gen.DeclID && w.idKind(t) == gen.IDString {
		return w.pyType(t) + `("")`, true
	}
	return "", false
}

// idKind is the kind of the id t names, in this spec or an imported one.
func (w *pyWriter) idKind(t *gen.Type) gen.IDKind {
	s := w.spec
	if im := t.Import(); t.Kind == gen.TypeQualified && im != nil && im.Imported != nil {
		s = im.Imported.Spec()
	}
	if d := s.Index().IDs[t.Name]; d != nil {
		return d.Kind
	}
	return ""
}

// fieldType is the annotation of a field: an enum restricted to a
// machine's terminal states holds only those, and a bounded field is
// annotated with its bounds.
func (w *pyWriter) fieldType(f *gen.Field) string {
	if f.TerminalOf() == nil {
		return w.bounded(f, w.pyType(f.Type))
	}
	var states []string
	for _, st := range f.TerminalOf().Terminal {
		states = append(states, strconv.Quote(st.Name))
	}
	w.typing["Literal"] = true
	return "Literal[" + strings.Join(states, ", ") + "]"
}

// bounded is typ annotated with f's bounds (decision 0208), pydantic's ge,
// le and max_length, which refuse what Go's decoder refuses (invalidValue);
// a bound the type keeps by itself is left to it, as Go leaves it. The
// bounds come after the type's own, so they are the ones pydantic checks.
func (w *pyWriter) bounded(f *gen.Field, typ string) string {
	var args []string
	if b := f.CheckedMin(); b != nil {
		args = append(args, "ge="+strconv.FormatInt(b.Value, 10))
	}
	if b := f.CheckedMax(); b != nil {
		args = append(args, "le="+strconv.FormatInt(b.Value, 10))
	}
	if b := f.MaxLength; b != nil {
		args = append(args, "max_length="+strconv.FormatInt(b.Value, 10))
	}
	if len(args) == 0 {
		return typ
	}
	w.typing["Annotated"], w.pydantic["Field"] = true, true
	return "Annotated[" + typ + ", Field(" + strings.Join(args, ", ") + ")]"
}

// onWire reports whether a field travels in JSON and names only
// declarations that do (gen.Index.OnWire): the fields a Python model holds.
func onWire(x *gen.Index, f *gen.Field) bool {
	if f.Type == nil || !f.Wire() {
		return false
	}
	ok := true
	f.Type.Walk(func(t *gen.Type) {
		switch {
		case !ok:
		case t.Kind == gen.TypeNamed:
			ok = x.OnWire(t.Name)
		case t.Kind == gen.TypeQualified && t.Import() != nil && t.Import().Imported != nil:
			ok = t.Import().Imported.Spec().Index().OnWire(t.Name)
		}
	})
	return ok
}

// wireFields are the fields of a list a model holds.
func wireFields(x *gen.Index, fields []*gen.Field) []*gen.Field {
	var out []*gen.Field
	for _, f := range fields {
		if onWire(x, f) {
			out = append(out, f)
		}
	}
	return out
}
