// Package wireschema builds the JSON Schema of what a spec's types are in
// JSON, from the model, in two forms: the document's, where a declared
// type is a $ref to its definition (the form gen/jsonschema writes as
// <package>.schema.json), and the inlined form, a schema of its own with
// every definition in its place, which a model is shown as a tool's input
// and result (decision 0207: the Go, TypeScript and Python backends put it
// in their tool tables). One builder serves both, so the two cannot say
// different things. It knows no target but JSON.
package wireschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// An Object is a JSON object whose members keep their order, so that a
// schema is written the same way every time and reads top-down.
type Object []Member

// A Member is one key of an Object and its value: a string, a number, a
// bool, a list ([]any) or an Object.
type Member struct {
	Key string
	Val any
}

// Set returns o with key's value replaced, or appended when o has none.
func (o Object) Set(key string, val any) Object {
	for i, m := range o {
		if m.Key == key {
			o[i].Val = val
			return o
		}
	}
	return append(o, Member{key, val})
}

// Delete returns o without key.
func (o Object) Delete(key string) Object {
	return slices.DeleteFunc(o, func(m Member) bool { return m.Key == key })
}

// MarshalJSON writes o as compact JSON with its keys sorted, as
// encoding/json writes a map, and without HTML escapes: the bytes a
// generated tool table holds.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(o)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// plain turns Objects into maps, which encoding/json sorts.
func plain(v any) any {
	switch v := v.(type) {
	case Object:
		m := make(map[string]any, len(v))
		for _, x := range v {
			m[x.Key] = plain(x.Val)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

// A builder builds schemas in one form: named says what a declared type
// is, a $ref or its definition, and text how a description is written.
type builder struct {
	named func(s *gen.Spec, t *gen.Type) Object
	text  func(string) string
}

// document is the builder of the document's form: declared types by
// $ref, descriptions as the spec wrote them.
var document = builder{named: docRef, text: strings.TrimSpace}

// docRef is the $ref of a declared type in the document of the spec that
// uses it: into the document itself, an imported spec's document beside
// it, or another module's below it.
func docRef(_ *gen.Spec, t *gen.Type) Object {
	if t.Kind == gen.TypeNamed {
		return Ref(t.Name)
	}
	im := t.Import()
	if im.Foreign() {
		return Object{{"$ref", ForeignSchema(im) + "#/$defs/" + t.Name}}
	}
	return Object{{"$ref", im.Imported.Spec().Package.Name + ".schema.json#/$defs/" + t.Name}}
}

// Defs returns the document's definition of every id, enum, record, union
// and union variant of s that travels in JSON (gen.Index.OnWire), by name:
// faces, records of funcs and what holds them are Go's alone.
func Defs(s *gen.Spec) map[string]Object {
	defs := map[string]Object{}
	x := s.Index()
	for _, id := range s.IDs {
		defs[id.Name] = document.def(s, id.Name)
	}
	for _, en := range s.Enums {
		defs[en.Name] = document.def(s, en.Name)
	}
	for _, r := range s.Records {
		if x.OnWire(r.Name) {
			defs[r.Name] = document.def(s, r.Name)
		}
	}
	for _, u := range s.Unions {
		if x.OnWire(u.Name) {
			defs[u.Name] = document.def(s, u.Name)
			for _, v := range u.Variants {
				defs[v.Name] = document.def(s, v.Name)
			}
		}
	}
	return defs
}

// Type is the document's schema of a wire type.
func Type(t *gen.Type) Object { return document.typ(nil, t) }

// Fields is the document's schema of an object holding fields, a record's
// or a fact version's.
func Fields(doc string, fields []*gen.Field) Object { return document.object(nil, doc, nil, fields) }

// def is the definition of the declaration name of s, which Validate
// found: an id, an enum, a record, a union or a union variant.
func (b builder) def(s *gen.Spec, name string) Object {
	x := s.Index()
	switch {
	case x.IDs[name] != nil:
		id := x.IDs[name]
		if id.Kind == gen.IDUUID {
			// format is only an annotation in 2020-12; the pattern enforces it.
			return b.described(id.Doc, Object{{"type", "string"}, {"format", "uuid"}, {"pattern", UUIDPattern}, {"not", Object{{"const", NilUUID}}}})
		}
		return b.described(id.Doc, Object{{"type", "string"}})
	case x.Enums[name] != nil:
		en := x.Enums[name]
		values := make([]any, 0, len(en.Values))
		for _, v := range en.Values {
			values = append(values, v.Value)
		}
		return b.described(en.Doc, Object{{"type", "string"}, {"enum", values}})
	case x.Records[name] != nil:
		r := x.Records[name]
		return b.object(s, r.Doc, nil, r.Fields)
	case x.Unions[name] != nil:
		u := x.Unions[name]
		var variants []any
		for _, v := range u.Variants {
			variants = append(variants, b.named(s, gen.DeclaredType(v.Name, gen.DeclVariant)))
		}
		return b.described(u.Doc+fmt.Sprintf("\n\nThe variant is named by %q.", u.Discriminator), Object{{"oneOf", variants}})
	}
	uv := x.Variants[name]
	var tag any = uv.Variant.Tag.String
	if uv.Variant.Tag.Kind == gen.TagBool {
		tag = uv.Variant.Tag.Bool
	}
	disc := Member{uv.Union.Discriminator, Object{{"const", tag}}}
	return b.object(s, uv.Variant.Doc, &disc, append(slices.Clone(uv.Union.Common), uv.Variant.Fields...))
}

// Ref points at the definition of a name in the same document.
func Ref(name string) Object { return Object{{"$ref", "#/$defs/" + name}} }

// Described puts a description first, when there is one.
func Described(doc string, o Object) Object { return document.described(doc, o) }

func (b builder) described(doc string, o Object) Object {
	if doc = b.text(doc); doc == "" {
		return o
	}
	return append(Object{{"description", doc}}, o...)
}

// object is the schema of a struct's JSON, fields declared in s: disc,
// when given, is the union discriminator a variant writes first.
func (b builder) object(s *gen.Spec, doc string, disc *Member, fields []*gen.Field) Object {
	var props Object
	var required []any
	if disc != nil {
		props = append(props, *disc)
		required = append(required, disc.Key)
	}
	for _, f := range fields {
		if f.Wire() {
			props = append(props, Member{f.JSON, b.field(s, f)})
			if gen.WireRequired(f) {
				required = append(required, f.JSON)
			}
		}
	}
	o := b.described(doc, Object{{"type", "object"}})
	if len(props) > 0 {
		o = append(o, Member{"properties", props})
	}
	if len(required) > 0 {
		o = append(o, Member{"required", required})
	}
	return o
}

// field is the schema of one field: its type's, with the field's bounds
// (decision 0208), its terminal states and its description in place of the
// type's.
func (b builder) field(s *gen.Spec, f *gen.Field) Object {
	schema := slices.Clone(b.typ(s, f.Type))
	if f.Min != nil {
		schema = schema.Set("minimum", f.Min.Value)
	}
	if f.Max != nil {
		schema = schema.Set("maximum", f.Max.Value)
	}
	if f.MaxLength != nil {
		schema = schema.Set("maxLength", f.MaxLength.Value)
	}
	if m := f.TerminalOf(); m != nil {
		var states []any
		for _, t := range m.Terminal {
			states = append(states, t.Name)
		}
		schema = schema.Set("enum", states)
	}
	if doc := b.text(f.Doc); doc != "" {
		schema = schema.Set("description", doc)
	}
	return schema
}

// UUIDPattern is the text form of a UUID, as the generated MarshalText
// writes it. Decoders read only this canonical, lower-case form, and never
// NilUUID.
const UUIDPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

// NilUUID is the one UUID of that form decoders refuse.
const NilUUID = "00000000-0000-0000-0000-000000000000"

// typ is the schema of the JSON encoding/json writes for a wire type used
// in s.
func (b builder) typ(s *gen.Spec, t *gen.Type) Object {
	switch t.Kind {
	case gen.TypeNamed:
		return b.named(s, t)
	case gen.TypePointer:
		return b.typ(s, t.Elem)
	case gen.TypeSlice:
		if t.IsBytes() {
			return Object{{"type", []any{"string", "null"}}, {"contentEncoding", "base64"}}
		}
		return Object{{"type", []any{"array", "null"}}, {"items", b.typ(s, t.Elem)}}
	case gen.TypeMap:
		o := Object{{"type", []any{"object", "null"}}}
		if t.Key.Declared() {
			o = append(o, Member{"propertyNames", b.typ(s, t.Key)})
		}
		return append(o, Member{"additionalProperties", b.typ(s, t.Elem)})
	case gen.TypeQualified:
		if t.Import() != nil {
			return b.named(s, t)
		}
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return Object{{"type", "string"}, {"format", "date-time"}}
		case "time.Duration":
			return Object{{"type", "integer"}, {"$comment", "nanoseconds"}}
		}
		return Object{{"$comment", "Go type " + t.Alias + "." + t.Name + ", encoded by its own JSON methods"}}
	case gen.TypeBuiltin:
		sc := t.Scalar()
		switch sc.Kind {
		case gen.ScalarString:
			return Object{{"type", "string"}}
		case gen.ScalarBool:
			return Object{{"type", "boolean"}}
		case gen.ScalarFloat:
			return Object{{"type", "number"}}
		case gen.ScalarAny:
			return Object{}
		}
		o := Object{{"type", "integer"}}
		if lo, hi, ok := sc.Range(); ok {
			o = append(o, Member{"minimum", lo}, Member{"maximum", hi})
		} else if sc.Kind == gen.ScalarUint {
			o = append(o, Member{"minimum", 0})
		}
		return o
	}
	return Object{}
}

// ForeignSchema is the reference to the schema of another module's spec:
// the relative path <package.path>.schema.json, the Go import path of the
// spec's package with the extension. A schema of this module lies beside
// the schema that refers to it; another module's is expected below it at
// that path, where a consumer copies (or registers, for a validator that
// resolves references itself) that module's <package>.schema.json
// (decision 0090).
func ForeignSchema(im *gen.Import) string { return im.Path + ".schema.json" }
