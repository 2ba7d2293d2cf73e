package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// tsFold is _fold for an ASCII name: its upper case.
func tsFold(name string) string { return strings.ToUpper(name) }

// tsType renders a wire type as TypeScript.
func (w *tsWriter) tsType(t *gen.Type) string {
	switch t.Kind {
	case gen.TypeNamed:
		return t.Name
	case gen.TypeBuiltin:
		switch t.Scalar().Kind {
		case gen.ScalarString:
			return "string"
		case gen.ScalarBool:
			return "boolean"
		case gen.ScalarAny:
			return "unknown"
		}
		return "number"
	case gen.TypeQualified:
		if t.Import() != nil && t.Import().Imported != nil {
			w.uses[t.Import().Alias] = true
			return t.Import().Alias + "." + t.Name
		}
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return "string"
		case "time.Duration":
			return "number"
		}
		return "unknown"
	case gen.TypeSlice:
		if isBytes(t) {
			return "string"
		}
		el := w.tsType(t.Elem)
		if strings.ContainsAny(el, " |") {
			return "Array<" + el + ">"
		}
		return el + "[]"
	case gen.TypeMap:
		if (t.Key.Kind == gen.TypeNamed || t.Key.Import() != nil) && t.Key.Decl() == gen.DeclEnum {
			return "{ [key in " + w.tsType(t.Key) + "]?: " + w.tsType(t.Elem) + " }"
		}
		return "{ [key: string]: " + w.tsType(t.Elem) + " }"
	case gen.TypePointer:
		return w.tsType(t.Elem) + " | null"
	}
	return "unknown"
}

func isBytes(t *gen.Type) bool { return t.IsBytes() }

// A tsScalar is how a type that Go reads without a decoder of its own is
// checked and what it is when JSON holds null where Go keeps a zero value.
type tsScalar struct {
	check string // a helper call with %[1]s the value, %[2]s the path and %[3]s the key
	zero  string // the zero value, cast to the type
	bare  string // the zero value as a value of its type, such as "" or _zeroUUID
}

// scalar describes t when it is a scalar: a builtin, an id, an enum, or a
// time; ok is false for records, variants, lists, maps, pointers and values
// TypeScript does not check.
func (w *tsWriter) scalar(t *gen.Type) (tsScalar, bool) {
	plain := func(check, zero string) (tsScalar, bool) { return tsScalar{check, zero, zero}, true }
	switch t.Kind {
	case gen.TypeBuiltin:
		sc := t.Scalar()
		if lo, hi, ok := sc.Range(); ok {
			return plain(fmt.Sprintf("_range(%%[1]s, %%[2]s, %%[3]s, %d, %d)", lo, hi), "0")
		}
		switch {
		case sc.Kind == gen.ScalarString:
			return plain("_str(%[1]s, %[2]s, %[3]s)", `""`)
		case sc.Kind == gen.ScalarBool:
			return plain("_bool(%[1]s, %[2]s, %[3]s)", "false")
		case sc.Kind == gen.ScalarInt:
			return plain("_int(%[1]s, %[2]s, %[3]s)", "0")
		case sc.Kind == gen.ScalarUint:
			return plain("_uint(%[1]s, %[2]s, %[3]s)", "0")
		case sc.Kind == gen.ScalarFloat && sc.Bits == 64:
			return plain("_float(%[1]s, %[2]s, %[3]s)", "0")
		case sc.Kind == gen.ScalarFloat:
			return plain("_float32(%[1]s, %[2]s, %[3]s)", "0")
		}
	case gen.TypeQualified:
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return plain("_time(%[1]s, %[2]s, %[3]s)", "_zeroTime")
		case "time.Duration":
			return plain("_int(%[1]s, %[2]s, %[3]s)", "0")
		}
	}
	if qual, decl, id, ok := w.ref(t); ok {
		name := qual + t.Name
		cast := func(x string) string { return ty("(") + x + ty(" as "+name+")") }
		switch decl {
		case gen.DeclID:
			if id == gen.IDUUID {
				return tsScalar{cast("_uuid(%[1]s, %[2]s, %[3]s)"), cast("_zeroUUID"), "_zeroUUID"}, true
			}
			return tsScalar{cast("_str(%[1]s, %[2]s, %[3]s)"), cast(`""`), `""`}, true
		case gen.DeclEnum:
			// Go keeps an enum's zero value, "", where JSON holds null.
			return tsScalar{"_enum(%[1]s, %[2]s, %[3]s, " + qual + "is" + t.Name + ", " + strconv.Quote(t.Name) + ")", cast(`""`), `""`}, true
		}
	}
	return tsScalar{}, false
}

// ref says how the module names a declared type t: one of its own spec's
// (qual is empty), or one of an imported spec's (qual is "alias."); ok is
// false for every other type.
func (w *tsWriter) ref(t *gen.Type) (qual string, decl gen.DeclKind, id gen.IDKind, ok bool) {
	spec := w.spec
	switch {
	case t.Kind == gen.TypeNamed:
	case t.Kind == gen.TypeQualified && t.Import() != nil && t.Import().Imported != nil:
		qual, spec = t.Import().Alias+".", t.Import().Imported.Spec()
		w.uses[t.Import().Alias] = true
	default:
		return "", 0, "", false
	}
	for _, d := range spec.IDs {
		if d.Name == t.Name {
			id = d.Kind
		}
	}
	return qual, t.Decl(), id, true
}

// isStruct reports whether t is a record or a union variant, of this spec or
// an imported one: a type with a decoder of its own, which reads null as an
// object without fields.
func isStruct(t *gen.Type) bool {
	return (t.Kind == gen.TypeNamed || t.Import() != nil && t.Import().Imported != nil) && (t.Decl() == gen.DeclRecord || t.Decl() == gen.DeclVariant)
}

// qualified is the module's name for a function of a declared type, such
// as decodeJobSnapshot or jobs.decodeJobSnapshot.
func (w *tsWriter) qualified(t *gen.Type, fn string) string {
	if t.Kind == gen.TypeQualified && t.Import() != nil {
		w.uses[t.Import().Alias] = true
		return t.Import().Alias + "." + fn + t.Name
	}
	return fn + t.Name
}

// tsPath renders the path of a member: key is a TypeScript expression,
// a string literal for a field.
func tsPath(path, key string) string {
	if lit, err := strconv.Unquote(key); err == nil && strings.HasPrefix(key, `"`) {
		return path + " + " + strconv.Quote("."+lit)
	}
	return "_at(" + path + ", " + key + ")"
}

// decode is an expression reading v, known not to be null, as t.
func (w *tsWriter) decode(t *gen.Type, v, path, key string) string {
	if sc, ok := w.scalar(t); ok {
		return fmt.Sprintf(sc.check, v, path, key)
	}
	switch {
	case isStruct(t):
		return w.qualified(t, "decode") + "(" + v + ", " + tsPath(path, key) + ")"
	case isBytes(t):
		return fmt.Sprintf("_bytes(%s, %s, %s)", v, path, key)
	case t.Kind == gen.TypeSlice:
		return fmt.Sprintf("_arr(%s, %s, %s, %s)", v, path, key, arrow(w.element(t.Elem, "e", "p", "i"), "e", "p", "i"))
	case t.Kind == gen.TypeMap:
		keyFn := "undefined"
		if _, decl, id, ok := w.ref(t.Key); ok && (decl == gen.DeclEnum || id == gen.IDUUID) {
			sc, _ := w.scalar(t.Key)
			keyFn = arrow(fmt.Sprintf(sc.check, "n", "p", "n"), "n", "p")
		}
		return fmt.Sprintf("_map(%s, %s, %s, %s, %s)", v, path, key, keyFn, arrow(w.element(t.Elem, "e", "p", "n"), "e", "p", "n"))
	case t.Kind == gen.TypePointer:
		return w.decode(t.Elem, v, path, key)
	}
	// any, json.RawMessage and other Go types with JSON methods of their own
	// pass through unchecked.
	return v
}

// element is an expression reading v as t where Go decodes into a value in
// place, as in a list element or map value: null leaves Go's zero value.
func (w *tsWriter) element(t *gen.Type, v, path, key string) string {
	if sc, ok := w.scalar(t); ok {
		return fmt.Sprintf("%s === null ? %s : %s", v, sc.zero, fmt.Sprintf(sc.check, v, path, key))
	}
	switch {
	case isStruct(t):
		return w.decode(t, v, path, key)
	case t.Kind == gen.TypePointer || t.Kind == gen.TypeBuiltin || t.Kind == gen.TypeQualified:
		return fmt.Sprintf("%s === null ? null : %s", v, w.decode(t, v, path, key))
	case t.Kind == gen.TypeMap:
		return fmt.Sprintf("%s === null ? {} : %s", v, w.decode(t, v, path, key))
	case isBytes(t):
		return fmt.Sprintf(`%s === null ? "" : %s`, v, w.decode(t, v, path, key))
	}
	return fmt.Sprintf("%s === null ? [] : %s", v, w.decode(t, v, path, key))
}

// local is the decoder's variable for a field.
func local(f *gen.Field) string { return "f_" + f.JSON }

// slot is the statement that reads one occurrence of field f's key. Go
// decodes every occurrence (a wrong type in any is refused; Go refuses a
// repeated key anyway, which JSON.parse hides), into a pointer for a required field, so that null means
// missing, and in place for the others.
func (w *tsWriter) slot(f *gen.Field) string {
	l, key := local(f), strconv.Quote(f.JSON)
	t := f.Type
	if gen.WireRequired(f) {
		if t.Kind == gen.TypePointer {
			t = t.Elem
		}
		return fmt.Sprintf("%s = v === null ? undefined : %s;", l, w.decode(t, "v", "path", key))
	}
	if _, ok := w.scalar(t); ok {
		return fmt.Sprintf("if (v !== null) %s = %s;", l, w.decode(t, "v", "path", key))
	}
	switch {
	case isStruct(t):
		return fmt.Sprintf("%s = %s;", l, w.decode(t, "v", "path", key))
	case t.Kind == gen.TypePointer:
		return fmt.Sprintf("%s = v === null ? null : %s;", l, w.decode(t.Elem, "v", "path", key))
	}
	return fmt.Sprintf("%s = v === null ? undefined : %s;", l, w.decode(t, "v", "path", key))
}

// nonZero is a condition that holds when x, of type t and not undefined,
// is not the zero value Go's omitzero leaves out.
func (w *tsWriter) nonZero(t *gen.Type, x string) string {
	if sc, ok := w.scalar(t); ok {
		switch sc.bare {
		case `""`, "0", "false":
			return x
		}
		return x + " !== " + sc.bare
	}
	switch {
	case isStruct(t) && t.Kind == gen.TypeQualified:
		// An imported record's zero check is its module's own; one that is
		// all zero reads in Go as if it were absent anyway.
		return "true"
	case isStruct(t):
		w.needZero(t.Name)
		return "!_isZero" + t.Name + "(" + x + ")"
	case t.Kind == gen.TypePointer || t.Kind == gen.TypeBuiltin || t.Kind == gen.TypeQualified:
		return x + " !== null"
	case isBytes(t):
		return x
	}
	return "true"
}

// present is the condition under which an optional field x is written:
// it is set and, as Go's omitzero has it, not zero.
func (w *tsWriter) present(t *gen.Type, x string) string {
	switch nz := w.nonZero(t, x); nz {
	case x:
		return x
	case "true":
		return x + " !== undefined"
	default:
		return x + " !== undefined && " + nz
	}
}

// needZero records that _isZero<name> must be written, with the zero checks
// of the records it holds.
func (w *tsWriter) needZero(name string) {
	if w.zero[name] {
		return
	}
	w.zero[name] = true
	for _, f := range w.structFields(name) {
		if isStruct(f.Type) && f.Type.Kind == gen.TypeNamed {
			w.needZero(f.Type.Name)
		}
	}
}

// structFields are the wire fields of a record or variant, common fields
// first; a variant's discriminator is not among them.
func (w *tsWriter) structFields(name string) []*gen.Field {
	for _, r := range w.spec.Records {
		if r.Name == name {
			return gen.WireFields(r.Fields)
		}
	}
	for _, u := range w.spec.Unions {
		for _, v := range u.Variants {
			if v.Name == name {
				return gen.WireFields(u.Common, v.Fields)
			}
		}
	}
	return nil
}

// encode is an expression writing x, of type t, as JSON Go reads.
func (w *tsWriter) encode(t *gen.Type, x, field string) string {
	q := strconv.Quote(field)
	switch t.Kind {
	case gen.TypeBuiltin:
		sc := t.Scalar()
		if lo, hi, ok := sc.Range(); ok {
			return fmt.Sprintf("_erange(%s, %s, %d, %d)", x, q, lo, hi)
		}
		switch sc.Kind {
		case gen.ScalarAny:
			return x + ty(" as JSONValue")
		case gen.ScalarInt:
			return "_eint(" + x + ", " + q + ")"
		case gen.ScalarUint:
			return fmt.Sprintf("_erange(%s, %s, 0, Number.MAX_SAFE_INTEGER)", x, q)
		case gen.ScalarFloat:
			return fmt.Sprintf("_efloat(%s, %s, %d)", x, q, sc.Bits)
		}
		return x
	case gen.TypeQualified, gen.TypeNamed:
		if qual, decl, id, ok := w.ref(t); ok {
			switch decl {
			case gen.DeclID:
				if id == gen.IDUUID {
					return "_euuid(" + x + ", " + q + ")"
				}
				return x
			case gen.DeclEnum:
				return "_eenum(" + x + ", " + qual + "is" + t.Name + ", " + q + ")"
			}
			return w.qualified(t, "encode") + "(" + x + ")"
		}
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return x
		case "time.Duration":
			return "_eint(" + x + ", " + q + ")"
		}
		return x + ty(" as JSONValue")
	case gen.TypeSlice:
		if isBytes(t) {
			return x
		}
		if el := w.encode(t.Elem, "e", field+"[]"); el != "e" {
			return x + ".map(" + arrow(el, "e") + ")"
		}
		return x
	case gen.TypeMap:
		keyFn := "undefined"
		if _, decl, id, ok := w.ref(t.Key); ok && (decl == gen.DeclEnum || id == gen.IDUUID) {
			keyFn = arrow(w.encode(t.Key, "n"+ty(" as "+w.tsType(t.Key)), field+"{}"), "n")
		}
		el := w.encode(t.Elem, "e", field+"{}")
		if keyFn == "undefined" && el == "e" {
			return x + ty(" as JSONObject")
		}
		return fmt.Sprintf("_emap(%s, %s, %s)", x, keyFn, arrow(el, "e"))
	case gen.TypePointer:
		return fmt.Sprintf("%s === null || %s === undefined ? null : %s", x, x, w.encode(t.Elem, x, field))
	}
	return x + ty(" as JSONValue")
}

func (w *tsWriter) encoder(name string, disc *tsDisc, fields []*gen.Field) {
	doc := fmt.Sprintf("encode%s writes %s %s as JSON that Go's decoder reads, leaving out optional fields that hold their zero value, as Go does.", name, doctext.Article(name), name)
	param := "value"
	if len(fields) == 0 {
		param = "_value"
	}
	w.function(doc, true, "encode"+name, []tsParam{{name: param, typ: name}}, "JSONObject", func() {
		w.line("  const o%s = {};", ty(": JSONObject"))
		if disc != nil {
			w.line("  o[%q] = %s;", disc.json, disc.lit)
		}
		for _, f := range fields {
			x := "value." + f.JSON
			enc := w.encode(f.Type, x, name+"."+f.JSON)
			if f.Optional {
				w.line("  if (%s) o[%q] = %s;", w.present(f.Type, x), f.JSON, enc)
			} else {
				w.line("  o[%q] = %s;", f.JSON, enc)
			}
		}
		w.line("  return o;")
	})
}

// zeroChecks writes _isZero<X> for each record and variant an optional field
// holds: Go's omitzero leaves such a field out when every field is zero.
func (w *tsWriter) zeroChecks() {
	// Writing one check can call for another, so repeat until none is new.
	done := map[string]bool{}
	for {
		var next string
		for _, n := range gen.SortedKeys(w.zero) {
			if !done[n] {
				next = n
				break
			}
		}
		if next == "" {
			return
		}
		done[next] = true
		var conds []string
		for _, f := range w.structFields(next) {
			x := "v." + f.JSON
			var zero string
			switch {
			case f.Optional:
				zero = fmt.Sprintf("(%s === undefined || !(%s))", x, w.nonZero(f.Type, x))
			case f.Type.Collection():
				zero = fmt.Sprintf("Object.keys(%s).length === 0", x)
			default:
				zero = fmt.Sprintf("!(%s)", w.nonZero(f.Type, x))
			}
			conds = append(conds, zero)
		}
		if len(conds) == 0 {
			conds = []string{"true"}
		}
		param := "v"
		if len(w.structFields(next)) == 0 {
			param = "_v"
		}
		doc := fmt.Sprintf("_isZero%s reports whether every field of v is zero, when Go leaves it out.", next)
		w.function(doc, false, "_isZero"+next, []tsParam{{name: param, typ: next}}, "boolean", func() {
			w.line("  return %s;", strings.Join(conds, " && "))
		})
	}
}

// arrow is an arrow function of params returning body, each parameter the
// body does not use named with a leading _, as noUnusedParameters asks.
func arrow(body string, params ...string) string {
	named := make([]string, len(params))
	for i, p := range params {
		named[i] = p
		if !uses(code(body, true), p) {
			named[i] = "_" + p
		}
	}
	if len(named) == 1 {
		return "(" + named[0] + ") => " + body
	}
	return "(" + strings.Join(named, ", ") + ") => " + body
}
