package factspec

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
)

// unmarshal reads raw as the struct's generated UnmarshalJSON does: into a
// shadow struct (encoding/json matching keys regardless of case, the
// required fields pointers), then the key check, the discriminator, the
// required fields and the terminal states, each refusal in that order.
func (st *structOf) unmarshal(raw []byte) (map[string]any, error) {
	if st.recursive {
		// Its generated UnmarshalJSON reads it in one pass (decision 0157).
		d := codec.NewDecoder(raw)
		out, err := st.readOnePass(d)
		if err != nil {
			return nil, err
		}
		return out, d.End()
	}
	r := &jsonReader{v: st.v, d: codec.NewDecoder(raw)}
	sh := shadow{st: st, out: map[string]any{}, present: make([]bool, len(st.fields))}
	switch r.d.Peek() {
	case 'n':
		r.d.Null()
	case '{':
		if err := sh.read(r); err != nil {
			return nil, err
		}
	default:
		r.mismatch(st.typ())
	}
	if r.soft != nil {
		return nil, r.soft
	}
	if err := codec.CheckKeys(st.typ(), raw, st.keys...); err != nil {
		return nil, err
	}
	if st.union != nil {
		disc := st.union.Discriminator
		if sh.tag == nil {
			return nil, codec.MissingField(st.typ(), disc)
		}
		if !sameTag(sh.tag, st.tag) {
			return nil, fmt.Errorf("%s: %s: %s is %v, want %s: %w", st.spec.Package.Name, st.name, disc, sh.tag, st.tag.Text(), codec.ErrWrongVariant)
		}
		sh.out[disc] = sh.tag
	}
	for i, fd := range st.fields {
		if gen.WireRequired(fd) && !sh.present[i] {
			return nil, codec.MissingField(st.typ(), fd.JSON)
		}
	}
	return sh.out, st.terminal(sh.out)
}

// A shadow is what UnmarshalJSON's shadow struct holds once encoding/json
// has read an object into it.
type shadow struct {
	st      *structOf
	out     map[string]any
	present []bool // a required field's pointer is set
	tag     any    // the discriminator, when set: a string or a bool
}

// read reads the members of the object at r into the shadow: a key names
// the field whose name it is, or else the first whose name it equals but
// for case; a later member of a field overwrites an earlier one.
func (sh *shadow) read(r *jsonReader) error {
	names := sh.st.keys
	more, _ := r.d.Object()
	for first := true; more; first = false {
		var key []byte
		key, more, _ = r.d.Next(first)
		if !more {
			break
		}
		i := slices.Index(names, string(key))
		if i < 0 {
			i = slices.IndexFunc(names, func(n string) bool { return bytes.EqualFold([]byte(n), key) })
		}
		switch {
		case i < 0:
			r.d.Skip()
		case sh.st.union != nil && i == 0:
			sh.tag = r.tag(sh.st.union)
		default:
			if sh.st.union != nil {
				i--
			}
			if err := sh.field(r, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// field reads the value of field i: a required field's null leaves its
// pointer unset; an optional one reads null as its type does.
func (sh *shadow) field(r *jsonReader, i int) error {
	fd := sh.st.fields[i]
	required := gen.WireRequired(fd)
	if required && r.d.Null() {
		sh.present[i] = false
		delete(sh.out, fd.JSON)
		return nil
	}
	v, err := r.value(sh.st.spec, fd.Type)
	if err != nil {
		return err
	}
	sh.present[i] = required
	if v != nil {
		sh.out[fd.JSON] = v
	} else {
		delete(sh.out, fd.JSON)
	}
	return nil
}

// tag reads a discriminator into its shadow field, a pointer to a string or
// a bool: null unsets it.
func (r *jsonReader) tag(u *gen.Union) any {
	want := gen.TagString
	if len(u.Variants) > 0 {
		want = u.Variants[0].Tag.Kind
	}
	switch c := r.d.Peek(); {
	case c == 'n':
		r.d.Null()
		return nil
	case want == gen.TagString && c == '"':
		s, _ := r.d.String()
		return s
	case want == gen.TagBool && (c == 't' || c == 'f'):
		b, _ := r.d.Bool()
		return b
	}
	r.mismatch("*" + string(want))
	return nil
}

// sameTag reports whether tag, as read, is t.
func sameTag(tag any, t gen.Tag) bool {
	if t.Kind == gen.TagBool {
		return tag == t.Bool
	}
	return tag == t.String
}

// decodeUnion reads data as the generated Decode<Union> does: it probes the
// discriminator alone (keys matched regardless of case, the last one
// winning), then decodes the variant the tag names.
func (v *Vocabulary) decodeUnion(s *gen.Spec, u *gen.Union, data []byte) (any, error) {
	r := &jsonReader{v: v, d: codec.NewDecoder(data)}
	var tag any
	switch r.d.Peek() {
	case 'n':
		r.d.Null()
	case '{':
		more, _ := r.d.Object()
		for first := true; more; first = false {
			var key []byte
			key, more, _ = r.d.Next(first)
			switch {
			case !more:
			case bytes.EqualFold(key, []byte(u.Discriminator)):
				tag = r.tag(u)
			default:
				r.d.Skip()
			}
		}
	default:
		r.mismatch("struct")
	}
	if r.soft != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.Package.Name, u.Name, r.soft)
	}
	if tag == nil {
		return nil, codec.MissingField(s.Package.Name+"."+u.Name, u.Discriminator)
	}
	for _, vr := range u.Variants {
		if sameTag(tag, vr.Tag) {
			return r.v.layout(s, vr.Name).unmarshal(data)
		}
	}
	return nil, fmt.Errorf("%s: %s: %s %v: %w", s.Package.Name, u.Name, u.Discriminator, tag, codec.ErrUnknownVariant)
}
