package factspec

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
)

// A jsonReader reads one JSON value, whose syntax is already checked, as
// encoding/json reads it into the Go type a spec declares: a value of the
// wrong JSON kind is noted (soft), skipped and reported once the whole value
// is read, while an error of a method (UnmarshalJSON of a record or variant,
// UnmarshalText of an id or enum) ends the read at once.
type jsonReader struct {
	v    *Vocabulary
	d    *codec.Decoder
	soft error // the first value of the wrong kind
}

// decodeJSON reads raw as json.Unmarshal reads it into the Go type t of
// spec s.
func (v *Vocabulary) decodeJSON(s *gen.Spec, t *gen.Type, raw []byte) (any, error) {
	r := &jsonReader{v: v, d: codec.NewDecoder(raw)}
	out, err := r.value(s, t)
	if err != nil {
		return nil, err
	}
	return out, r.soft
}

// mismatch skips the value at the decoder, which is not of the JSON kind a
// Go value of type want takes, noting the first such value.
func (r *jsonReader) mismatch(want string) {
	kind := kindName(r.d.Peek())
	r.d.Skip()
	r.note(fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", kind, want))
}

// note keeps err when it is the first value of the wrong kind.
func (r *jsonReader) note(err error) {
	if r.soft == nil {
		r.soft = err
	}
}

// kindName names the JSON kind of a value that starts with c.
func kindName(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// value reads a value of type t of spec s; null is read as encoding/json
// reads it into t: nothing for a pointer, list or map, a method's call for a
// record, and no change (nil here) for the rest.
func (r *jsonReader) value(s *gen.Spec, t *gen.Type) (any, error) {
	switch t.Kind {
	case gen.TypePointer:
		if r.d.Null() {
			return nil, nil
		}
		return r.value(s, t.Elem)
	case gen.TypeSlice:
		return r.list(s, t)
	case gen.TypeMap:
		return r.mapOf(s, t)
	case gen.TypeBuiltin:
		return r.scalar(t.Scalar(), t.Name)
	case gen.TypeNamed:
		return r.declared(s, t.Name, t.Decl())
	case gen.TypeQualified:
		if im := t.Import(); im != nil && im.Imported != nil {
			return r.declared(im.Imported.Spec(), t.Name, t.Decl())
		}
		return r.goType(t)
	}
	return r.raw()
}

// raw reads any value as its JSON.
func (r *jsonReader) raw() (any, error) {
	raw, _ := r.d.Skip()
	return json.RawMessage(raw), nil
}

// declared reads a value of the declaration name of spec s.
func (r *jsonReader) declared(s *gen.Spec, name string, kind gen.DeclKind) (any, error) {
	switch kind {
	case gen.DeclID, gen.DeclEnum:
		if kind == gen.DeclID && s.Index().IDs[name].Kind == gen.IDString {
			return r.str(name)
		}
		return r.text(s, name, kind)
	case gen.DeclRecord:
		st := r.v.layout(s, name)
		if len(st.fields) == 0 {
			return r.plain(st.typ()) // no UnmarshalJSON: every field is Go's alone
		}
		return r.method(st)
	case gen.DeclVariant:
		return r.method(r.v.layout(s, name))
	}
	return r.raw()
}

// method reads a record or variant through its UnmarshalJSON, whose error
// ends the read.
func (r *jsonReader) method(st *structOf) (any, error) {
	raw, _ := r.d.Skip()
	v, err := st.unmarshal(raw)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// plain reads a struct that has no UnmarshalJSON and no wire field: any
// object, whose keys name nothing.
func (r *jsonReader) plain(want string) (any, error) {
	switch r.d.Peek() {
	case 'n':
		r.d.Null()
		return nil, nil
	case '{':
		r.d.Skip()
		return map[string]any{}, nil
	}
	r.mismatch(want)
	return nil, nil
}

// text reads an id or enum through its UnmarshalText: a string, whose
// refusal ends the read; null leaves it as it is.
func (r *jsonReader) text(s *gen.Spec, name string, kind gen.DeclKind) (any, error) {
	switch r.d.Peek() {
	case 'n':
		r.d.Null()
		return nil, nil
	case '"':
		b, _ := r.d.StringBytes()
		v, err := textValue(s, name, kind, b)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	r.mismatch(s.Package.Name + "." + name)
	return nil, nil
}

// str reads a string.
func (r *jsonReader) str(want string) (any, error) {
	switch r.d.Peek() {
	case 'n':
		r.d.Null()
		return nil, nil
	case '"':
		return r.d.String()
	}
	r.mismatch(want)
	return nil, nil
}

// scalar reads a value of a predeclared type.
func (r *jsonReader) scalar(sc gen.Scalar, name string) (any, error) {
	c := r.d.Peek()
	switch {
	case sc.Kind == gen.ScalarAny:
		if r.d.Null() {
			return nil, nil
		}
		return r.raw()
	case sc.Kind == gen.ScalarString:
		return r.str(name)
	case c == 'n':
		r.d.Null()
		return nil, nil
	case sc.Kind == gen.ScalarBool && (c == 't' || c == 'f'):
		return r.d.Bool()
	case sc.Integer() || sc.Kind == gen.ScalarFloat:
		if c == '-' || '0' <= c && c <= '9' {
			num, _ := r.d.Number()
			return r.number(sc, name, string(num))
		}
	}
	r.mismatch(name)
	return nil, nil
}

// number parses num as encoding/json parses a number into a value of sc:
// an integer without fraction or exponent, within its width.
func (r *jsonReader) number(sc gen.Scalar, name, num string) (any, error) {
	var v any
	var err error
	switch sc.Kind {
	case gen.ScalarInt:
		v, err = strconv.ParseInt(num, 10, sc.Bits)
	case gen.ScalarUint:
		v, err = strconv.ParseUint(num, 10, sc.Bits)
	default:
		v, err = strconv.ParseFloat(num, sc.Bits)
	}
	if err != nil {
		r.note(fmt.Errorf("json: cannot unmarshal number %s into Go value of type %s", num, name))
		return nil, nil
	}
	return v, nil
}

// goType reads a value of a type from a Go package, which no spec
// describes: time.Duration, time.Time and json.RawMessage as Go reads them,
// anything else as any JSON.
func (r *jsonReader) goType(t *gen.Type) (any, error) {
	switch t.Pkg + "." + t.Name {
	case "time.Duration":
		return r.scalar(gen.ScalarOf("int64"), "time.Duration")
	case "time.Time":
		raw, _ := r.d.Skip()
		var at time.Time
		if err := at.UnmarshalJSON(raw); err != nil { // its refusal ends the read
			return nil, err
		}
		if string(raw) == "null" {
			return nil, nil
		}
		return strings.Trim(string(raw), `"`), nil
	}
	return r.raw()
}

// list reads a list: a JSON array, or null; []byte is a base64 string too.
func (r *jsonReader) list(s *gen.Spec, t *gen.Type) (any, error) {
	if r.d.Null() {
		return nil, nil
	}
	if t.IsBytes() && r.d.Peek() == '"' {
		text, _ := r.d.StringBytes()
		b := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
		n, err := base64.StdEncoding.Decode(b, text)
		if err != nil {
			r.note(err)
			return nil, nil
		}
		return b[:n], nil
	}
	if r.d.Peek() != '[' {
		r.mismatch(t.String())
		return nil, nil
	}
	out := []any{}
	more, _ := r.d.Array()
	for more {
		v, err := r.value(s, t.Elem)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		more, _ = r.d.More()
	}
	return out, nil
}

// mapOf reads a map: a JSON object, or null. Each member's value is read
// before its key, as encoding/json does; a map's keys are not checked for
// repeats or case.
func (r *jsonReader) mapOf(s *gen.Spec, t *gen.Type) (any, error) {
	if r.d.Null() {
		return nil, nil
	}
	if r.d.Peek() != '{' {
		r.mismatch(t.String())
		return nil, nil
	}
	out := map[string]any{}
	more, _ := r.d.Object()
	for first := true; more; first = false {
		var key []byte
		key, more, _ = r.d.Next(first)
		if !more {
			break
		}
		k := string(key)
		v, err := r.value(s, t.Elem)
		if err != nil {
			return nil, err
		}
		if err := r.mapKey(s, t.Key, k); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// mapKey checks a map key as encoding/json reads it into the key type: an
// id or enum through UnmarshalText, an integer parsed.
func (r *jsonReader) mapKey(s *gen.Spec, t *gen.Type, key string) error {
	if sc := t.Scalar(); sc.Integer() {
		if _, err := r.number(sc, t.Name, key); err != nil {
			return err
		}
		return nil
	}
	ks := s
	if im := t.Import(); t.Kind == gen.TypeQualified && im != nil && im.Imported != nil {
		ks = im.Imported.Spec()
	} else if t.Kind != gen.TypeNamed {
		return nil
	}
	_, err := textValue(ks, t.Name, t.Decl(), []byte(key))
	return err
}
