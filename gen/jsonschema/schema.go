package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// SchemaDialect is the JSON Schema draft jobgen writes.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// Emit renders a valid spec as one JSON Schema document,
// <package>.schema.json, whose $defs describe every id, enum, record, union,
// union variant and live fact version that travels in JSON
// (gen.Index.OnWire) by its Go name, and FactEnvelope, the
// {"type","v","data"} envelope of any fact, and each route's JSON body,
// answer and stream events ("KillJob.body", "ListJobs.response",
// "FollowJob.output"). The schemas describe what the
// generated encoders write and the generated decoders accept: Go-only fields
// are absent, optional fields and lists are not required, lists may be null,
// and unknown properties are allowed, since decoders ignore them (so history
// still carrying a removed field validates). The marker names the spec as
// if the output root were the spec's directory.
func Emit(r *gen.Resolved) (gen.File, error) {
	s, err := r.Model()
	if err != nil {
		return gen.File{}, err
	}
	return emitSchema(s, gen.BesideSpec(s))
}

// Backend generates a spec's JSON Schema, <package.name>.schema.json.
type Backend struct{}

// Name implements Backend.
func (Backend) Name() string { return "JSON Schema" }

// Marker implements Backend. JSON has no comments, so the marker is the
// document's first member, "$comment", which JSON Schema reserves for them.
func (Backend) Marker() gen.Marker {
	return gen.Marker{Suffix: ".schema.json", Format: "{\n  \"$comment\": \"" + gen.MarkerText + "\",\n"}
}

// Check implements Backend: every wire type of a valid spec has a schema.
func (Backend) Check(*gen.Resolved) gen.ErrorList { return nil }

// Files implements Backend.
func (Backend) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	s, err := r.Model()
	if err != nil {
		return nil, err
	}
	f, err := emitSchema(s, o)
	return []gen.File{f}, err
}

// emitSchema writes s as one JSON Schema document: a definition per id,
// enum, record, union and variant, and the fact envelopes, under a root
// that carries the marker first.
func emitSchema(s *gen.Spec, o gen.Origin) (gen.File, error) {
	name := s.Package.Name + ".schema.json"
	defs := typeSchemas(s)
	routeSchemas(s, defs)
	if envelopes := factSchemas(s, defs); len(envelopes) > 0 {
		defs["FactEnvelope"] = jsonObject{
			{"description", "A fact as the journal stores it: its type, its version and its data. Every version listed here is still decoded."},
			{"oneOf", envelopes},
		}
	}
	root := jsonObject{
		// The marker comes first, where jobgen looks for it before it removes
		// a file the specs no longer yield.
		{"$comment", fmt.Sprintf(gen.MarkerText, o.Of(name))},
		{"$schema", SchemaDialect},
		{"title", s.Package.Name},
	}
	if s.Package.Doc != "" {
		root = append(root, jsonMember{"description", s.Package.Doc})
	}
	var sorted jsonObject
	for _, name := range gen.SortedKeys(defs) {
		sorted = append(sorted, jsonMember{name, defs[name]})
	}
	root = append(root, jsonMember{"$defs", sorted})
	var b bytes.Buffer
	if err := writeJSON(&b, root, ""); err != nil {
		return gen.File{}, err
	}
	b.WriteByte('\n')
	return gen.File{Path: name, Content: b.Bytes()}, nil
}

// typeSchemas returns a definition per id, enum, record, union and union
// variant of s that travels in JSON (gen.Index.OnWire), by name: faces,
// records of funcs and what holds them are Go's alone.
func typeSchemas(s *gen.Spec) map[string]jsonObject {
	defs := map[string]jsonObject{}
	for _, id := range s.IDs {
		defs[id.Name] = idSchema(id)
	}
	for _, en := range s.Enums {
		values := make([]any, 0, len(en.Values))
		for _, v := range en.Values {
			values = append(values, v.Value)
		}
		defs[en.Name] = described(en.Doc, jsonObject{{"type", "string"}, {"enum", values}})
	}
	x := s.Index()
	for _, r := range s.Records {
		if x.OnWire(r.Name) {
			defs[r.Name] = objectSchema(r.Doc, nil, r.Fields)
		}
	}
	for _, u := range s.Unions {
		if !x.OnWire(u.Name) {
			continue
		}
		var refs []any
		for _, v := range u.Variants {
			refs = append(refs, ref(v.Name))
			var tag any = v.Tag.String
			if v.Tag.Kind == gen.TagBool {
				tag = v.Tag.Bool
			}
			disc := jsonMember{u.Discriminator, jsonObject{{"const", tag}}}
			defs[v.Name] = objectSchema(v.Doc, &disc, append(slices.Clone(u.Common), v.Fields...))
		}
		doc := strings.TrimSpace(u.Doc + fmt.Sprintf("\n\nThe variant is named by %q.", u.Discriminator))
		defs[u.Name] = described(doc, jsonObject{{"oneOf", refs}})
	}
	return defs
}

// factSchemas adds to defs a definition per live fact version of s, under
// its Go struct name, and returns the envelope schema of each, facts sorted
// by name.
func factSchemas(s *gen.Spec, defs map[string]jsonObject) []any {
	var envelopes []any
	for _, f := range gen.SortedBy(s.Facts, func(f *gen.Fact) string { return f.Name }) {
		for _, v := range f.Versions {
			if v.Retired {
				continue
			}
			name := f.StructName(v)
			doc := f.Doc
			if v != f.Latest() {
				doc = fmt.Sprintf("Version %d of %s, still decoded: readers upcast it to %s.", v.Number, f.Name, f.GoName)
			}
			if v.Doc != "" {
				doc += "\n\n" + v.Doc
			}
			defs[name] = objectSchema(doc, nil, v.Fields)
			envelopes = append(envelopes, jsonObject{
				{"type", "object"},
				{"properties", jsonObject{
					{"type", jsonObject{{"const", f.Name}}},
					{"v", jsonObject{{"const", v.Number}}},
					{"data", ref(name)},
				}},
				{"required", []any{"type", "v", "data"}},
			})
		}
	}
	return envelopes
}

// uuidPattern is the text form of a UUID, as the generated MarshalText writes it.
// Decoders read only this canonical, lower-case form, and never the nil UUID.
const uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

// nilUUID is the one UUID of that form decoders refuse.
const nilUUID = "00000000-0000-0000-0000-000000000000"

// idSchema describes an id: a string, for a uuid one its canonical form.
func idSchema(id *gen.ID) jsonObject {
	if id.Kind == gen.IDUUID {
		// format is only an annotation in 2020-12; the pattern enforces it.
		return described(id.Doc, jsonObject{{"type", "string"}, {"format", "uuid"}, {"pattern", uuidPattern}, {"not", jsonObject{{"const", nilUUID}}}})
	}
	return described(id.Doc, jsonObject{{"type", "string"}})
}

// ref points at the definition of a name in the same document.
func ref(name string) jsonObject { return jsonObject{{"$ref", "#/$defs/" + name}} }

// described puts a description first, when there is one.
func described(doc string, o jsonObject) jsonObject {
	if doc = strings.TrimSpace(doc); doc == "" {
		return o
	}
	return append(jsonObject{{"description", doc}}, o...)
}

// objectSchema describes a struct's JSON: disc, when given, is the union
// discriminator the variant writes first.
func objectSchema(doc string, disc *jsonMember, fields []*gen.Field) jsonObject {
	var props jsonObject
	var required []any
	if disc != nil {
		props = append(props, *disc)
		required = append(required, disc.key)
	}
	for _, f := range fields {
		if !f.Wire() {
			continue
		}
		schema := typeSchema(f.Type)
		if f.TerminalOf() != nil {
			schema = append(schema, jsonMember{"enum", terminalValues(f.TerminalOf())})
		}
		if f.Doc != "" {
			schema = append(schema, jsonMember{"description", f.Doc})
		}
		props = append(props, jsonMember{f.JSON, schema})
		if !f.Optional && !f.Type.Collection() {
			required = append(required, f.JSON)
		}
	}
	o := described(doc, jsonObject{{"type", "object"}})
	if len(props) > 0 {
		o = append(o, jsonMember{"properties", props})
	}
	if len(required) > 0 {
		o = append(o, jsonMember{"required", required})
	}
	return o
}

// terminalValues are the terminal states of m, in the order the spec lists them.
func terminalValues(m *gen.Machine) []any {
	var out []any
	for _, t := range m.Terminal {
		out = append(out, t.Name)
	}
	return out
}

// typeSchema describes the JSON encoding/json writes for a wire type.
func typeSchema(t *gen.Type) jsonObject {
	switch t.Kind {
	case gen.TypeNamed:
		return ref(t.Name)
	case gen.TypePointer:
		return typeSchema(t.Elem)
	case gen.TypeSlice:
		if t.IsBytes() {
			return jsonObject{{"type", []any{"string", "null"}}, {"contentEncoding", "base64"}}
		}
		return jsonObject{{"type", []any{"array", "null"}}, {"items", typeSchema(t.Elem)}}
	case gen.TypeMap:
		o := jsonObject{{"type", []any{"object", "null"}}}
		if t.Key.Declared() {
			o = append(o, jsonMember{"propertyNames", typeSchema(t.Key)})
		}
		return append(o, jsonMember{"additionalProperties", typeSchema(t.Elem)})
	case gen.TypeQualified:
		if im := t.Import(); im != nil && im.Foreign() {
			return jsonObject{{"$ref", foreignSchema(im) + "#/$defs/" + t.Name}}
		} else if im != nil {
			return jsonObject{{"$ref", im.Imported.Spec().Package.Name + ".schema.json#/$defs/" + t.Name}}
		}
		switch t.Pkg + "." + t.Name {
		case "time.Time":
			return jsonObject{{"type", "string"}, {"format", "date-time"}}
		case "time.Duration":
			return jsonObject{{"type", "integer"}, {"$comment", "nanoseconds"}}
		}
		return jsonObject{{"$comment", "Go type " + t.Alias + "." + t.Name + ", encoded by its own JSON methods"}}
	case gen.TypeBuiltin:
		sc := t.Scalar()
		switch sc.Kind {
		case gen.ScalarString:
			return jsonObject{{"type", "string"}}
		case gen.ScalarBool:
			return jsonObject{{"type", "boolean"}}
		case gen.ScalarFloat:
			return jsonObject{{"type", "number"}}
		case gen.ScalarAny:
			return jsonObject{}
		}
		o := jsonObject{{"type", "integer"}}
		if lo, hi, ok := sc.Range(); ok {
			o = append(o, jsonMember{"minimum", lo}, jsonMember{"maximum", hi})
		} else if sc.Kind == gen.ScalarUint {
			o = append(o, jsonMember{"minimum", 0})
		}
		return o
	}
	return jsonObject{}
}

// A jsonObject is a JSON object whose members keep their order, so that the
// schema is written the same way every time and reads top-down.
type jsonObject []jsonMember

type jsonMember struct {
	key string
	val any
}

// writeJSON writes v indented by two spaces, without escaping <, > and &
// (type expressions such as <-chan read better as written).
func writeJSON(b *bytes.Buffer, v any, indent string) error {
	inner := indent + "  "
	switch v := v.(type) {
	case jsonObject:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, m := range v {
			b.WriteString(inner)
			if err := writeScalar(b, m.key); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := writeJSON(b, m.val, inner); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		// Short lists of scalars stay on one line: "required": ["a", "b"].
		flat := !slices.ContainsFunc(v, func(x any) bool { _, obj := x.(jsonObject); return obj })
		if flat {
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := writeScalar(b, x); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			return nil
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(inner)
			if err := writeJSON(b, x, inner); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		return writeScalar(b, v)
	}
	return nil
}

// writeScalar writes v as encoding/json does, without HTML escaping.
func writeScalar(b *bytes.Buffer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	return nil
}

// foreignSchema is the reference to the schema of another module's spec:
// the relative path <package.path>.schema.json, the Go import path of the
// spec's package with the extension. A schema of this module lies beside
// the schema that refers to it; another module's is expected below it at
// that path, where a consumer copies (or registers, for a validator that
// resolves references itself) that module's <package>.schema.json
// (decision 0090).
func foreignSchema(im *gen.Import) string { return im.Path + ".schema.json" }
