package factspec

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
)

// A structOf is a struct of a spec as generated code decodes it: a fact
// version, a record or a union variant, with its wire fields.
type structOf struct {
	v      *Vocabulary // where the structs its fields name are
	spec   *gen.Spec
	name   string       // the Go name errors give it: JobSettled, JobSettledV1
	fields []*gen.Field // its wire fields, a variant's common ones first
	fact   bool         // a fact version, read in one pass even with no fields
	// recursive marks a record that holds itself (gen.RecursiveRecords),
	// read in one pass wherever it is (decision 0157).
	recursive bool
	union     *gen.Union // a variant's union; nil for other structs
	tag       gen.Tag    // a variant's tag

	keys []string // the JSON names a decoder knows: see names
	owns []own    // how the one-pass decoder reads each field: see ownOf
}

// typ is the struct as errors name it: jobs.JobSettled.
func (st *structOf) typ() string { return st.spec.Package.Name + "." + st.name }

// onePass reports whether generated code reads the struct in one pass
// (decodeNAME): a fact version or a record of at most 64 wire fields, the
// width of its key masks; a record needs one field at least.
func (st *structOf) onePass() bool {
	return st.union == nil && len(st.fields) <= 64 && (st.fact || len(st.fields) > 0)
}

// names are the JSON names a decoder of the struct knows: the union's
// discriminator first, for a variant, then each wire field's.
func (st *structOf) names() []string {
	var out []string
	if st.union != nil {
		out = append(out, st.union.Discriminator)
	}
	for _, fd := range st.fields {
		out = append(out, fd.JSON)
	}
	return out
}

// An own is how a one-pass decoder reads a field's value itself, rather
// than through encoding/json (notOwn).
type own int

const (
	notOwn own = iota
	ownString
	ownBool
	ownInt
	ownUUID
	ownEnum
	ownRecord
	ownPointer // a pointer to a recursive record
	ownList    // a list of a recursive record
)

// ownOf is how the one-pass decoder of st reads a value of type t: the
// scalars it reads itself, and the ids, enums and one-pass records of its
// own spec.
func (st *structOf) ownOf(t *gen.Type) own {
	switch t.Scalar().Kind {
	case gen.ScalarString:
		return ownString
	case gen.ScalarBool:
		return ownBool
	case gen.ScalarInt:
		return ownInt
	}
	if (t.Kind == gen.TypePointer || t.Kind == gen.TypeSlice) && t.Elem.Kind == gen.TypeNamed && t.Elem.Decl() == gen.DeclRecord {
		if el := st.v.layout(st.spec, t.Elem.Name); el.recursive {
			return map[bool]own{true: ownPointer, false: ownList}[t.Kind == gen.TypePointer]
		}
	}
	if t.Kind != gen.TypeNamed {
		return notOwn
	}
	x := st.spec.Index()
	switch t.Decl() {
	case gen.DeclID:
		if x.IDs[t.Name].Kind == gen.IDUUID {
			return ownUUID
		}
		return ownString
	case gen.DeclEnum:
		return ownEnum
	case gen.DeclRecord:
		if st.v.layout(st.spec, t.Name).onePass() {
			return ownRecord
		}
	}
	return notOwn
}

// readOnePass reads the struct at d as its generated decodeNAME does: a
// loop over the object's keys, refusing a key twice or one that differs
// from a field's only in case, then the checks of what it read.
func (st *structOf) readOnePass(d *codec.Decoder) (map[string]any, error) {
	more, err := d.Object()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", st.spec.Package.Name, st.name, err)
	}
	names := st.keys
	seen := make([]bool, len(st.fields))
	present := make([]bool, len(st.fields))
	out := map[string]any{}
	var others codec.KeySet
	for first := true; more; first = false {
		var key []byte
		key, more, err = d.Next(first)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		i := slices.Index(names, string(key))
		if i < 0 {
			if err := others.Other(st.typ(), key, names); err != nil {
				return nil, err
			}
			if _, err := d.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		if seen[i] {
			return nil, codec.DuplicateKey(st.typ(), key)
		}
		seen[i] = true
		if present[i], err = st.readField(st.fields[i], st.owns[i], d, out); err != nil {
			return nil, err
		}
	}
	for i, fd := range st.fields {
		if gen.WireRequired(fd) && !present[i] {
			return nil, codec.MissingField(st.typ(), fd.JSON)
		}
	}
	return out, st.terminal(out)
}

// readField reads the value of fd at d into out, reading null as the
// generated case does: it leaves a required field missing and an optional
// one as it is, and reaches a record or a value read by encoding/json, which
// read null in their own ways. present reports a required field read.
func (st *structOf) readField(fd *gen.Field, how own, d *codec.Decoder, out map[string]any) (present bool, err error) {
	nullable := gen.WireRequired(fd) || how != notOwn && how != ownRecord
	if nullable && d.Null() {
		return false, nil
	}
	v, err := st.readValue(fd, how, d)
	if err != nil {
		return false, codec.FieldError(st.typ(), fd.JSON, err)
	}
	if v != nil {
		out[fd.JSON] = v
	}
	return gen.WireRequired(fd), nil
}

// readValue reads a value of fd's type at d, as how says.
func (st *structOf) readValue(fd *gen.Field, how own, d *codec.Decoder) (any, error) {
	t := fd.Type
	switch how {
	case ownString:
		return d.String()
	case ownBool:
		return d.Bool()
	case ownInt:
		bits := t.Scalar().Bits
		if t.Scalar().Native {
			bits = strconv.IntSize
		}
		return d.Int(bits)
	case ownUUID, ownEnum:
		b, err := d.StringBytes()
		if err != nil {
			return nil, err
		}
		return textValue(st.spec, t.Name, t.Decl(), b)
	case ownRecord:
		return st.v.layout(st.spec, t.Name).readOnePass(d)
	case ownPointer:
		return st.v.layout(st.spec, t.Elem.Name).readOnePass(d)
	case ownList:
		return st.v.layout(st.spec, t.Elem.Name).readList(d)
	}
	raw, err := d.Skip()
	if err != nil {
		return nil, err
	}
	return st.v.decodeJSON(st.spec, t, raw)
}

// readList reads a list of the struct at d in one pass, each element in
// place: null as an object without fields, as encoding/json reads null
// into a struct with UnmarshalJSON.
func (st *structOf) readList(d *codec.Decoder) ([]any, error) {
	more, err := d.Array()
	if err != nil {
		return nil, err
	}
	out := []any{}
	for more {
		el, err := st.readOnePass(d)
		if err != nil {
			return nil, err
		}
		out = append(out, el)
		if more, err = d.More(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readRaw reads the struct at d as d.Unmarshal does: its JSON, then its
// UnmarshalJSON.
func (st *structOf) readRaw(d *codec.Decoder) (map[string]any, error) {
	raw, err := d.Skip()
	if err != nil {
		return nil, err
	}
	return st.unmarshal(raw)
}

// terminal refuses a value of a terminal: true field that is not a terminal
// state of its machine; an optional field may be absent.
func (st *structOf) terminal(out map[string]any) error {
	for _, fd := range st.fields {
		m := fd.TerminalOf()
		if m == nil {
			continue
		}
		v, _ := out[fd.JSON].(string)
		if v == "" && !gen.WireRequired(fd) {
			continue
		}
		if !slices.ContainsFunc(m.Terminal, func(r gen.Ref) bool { return r.Name == v }) {
			return fmt.Errorf("%s: %s: %s %q is not a terminal state of %s: %w", st.spec.Package.Name, st.name, fd.JSON, v, m.Name, codec.ErrInvalidEnum)
		}
	}
	return nil
}

// textValue reads b, the text of an id or enum name of spec s, as the
// generated UnmarshalText does: a UUID in canonical form, a declared enum
// value, any text for a string id.
func textValue(s *gen.Spec, name string, kind gen.DeclKind, b []byte) (string, error) {
	x := s.Index()
	switch {
	case kind == gen.DeclID && x.IDs[name].Kind == gen.IDUUID:
		if _, err := codec.ParseUUID(b); err != nil {
			return "", fmt.Errorf("%s: %s %q: %w", s.Package.Name, name, b, err)
		}
	case kind == gen.DeclEnum:
		en := x.Enums[name]
		if !slices.ContainsFunc(en.Values, func(v *gen.EnumValue) bool { return v.Value == string(b) }) {
			return "", fmt.Errorf("%s: %s %q: %w", s.Package.Name, name, b, codec.ErrInvalidEnum)
		}
	}
	return string(b), nil
}
