package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/wireschema"
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
	s := r.Spec()
	if s == nil {
		return gen.File{}, gen.ErrNotResolved
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
	s := r.Spec()
	if s == nil {
		return nil, gen.ErrNotResolved
	}
	f, err := emitSchema(s, o)
	return []gen.File{f}, err
}

// emitSchema writes s as one JSON Schema document: a definition per id,
// enum, record, union and variant, and the fact envelopes, under a root
// that carries the marker first.
func emitSchema(s *gen.Spec, o gen.Origin) (gen.File, error) {
	name := s.Package.Name + ".schema.json"
	defs := wireschema.Defs(s)
	routeSchemas(s, defs)
	toolSchemas(s, defs)
	if envelopes := factSchemas(s, defs); len(envelopes) > 0 {
		defs["FactEnvelope"] = wireschema.Object{
			{Key: "description", Val: "A fact as the journal stores it: its type, its version and its data. Every version listed here is still decoded."},
			{Key: "oneOf", Val: envelopes},
		}
	}
	root := wireschema.Object{
		// The marker comes first, where jobgen looks for it before it removes
		// a file the specs no longer yield.
		{Key: "$comment", Val: fmt.Sprintf(gen.MarkerText, o.Of(name))},
		{Key: "$schema", Val: SchemaDialect},
		{Key: "title", Val: s.Package.Name},
	}
	if s.Package.Doc != "" {
		root = append(root, wireschema.Member{Key: "description", Val: s.Package.Doc})
	}
	var sorted wireschema.Object
	for _, name := range gen.SortedKeys(defs) {
		sorted = append(sorted, wireschema.Member{Key: name, Val: defs[name]})
	}
	root = append(root, wireschema.Member{Key: "$defs", Val: sorted})
	var b bytes.Buffer
	if err := writeJSON(&b, root, ""); err != nil {
		return gen.File{}, err
	}
	b.WriteByte('\n')
	return gen.File{Path: name, Content: b.Bytes()}, nil
}

// factSchemas adds to defs a definition per live fact version of s, under
// its Go struct name, and returns the envelope schema of each, facts sorted
// by name.
func factSchemas(s *gen.Spec, defs map[string]wireschema.Object) []any {
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
			defs[name] = wireschema.Fields(doc, v.Fields)
			envelopes = append(envelopes, wireschema.Object{
				{Key: "type", Val: "object"},
				{Key: "properties", Val: wireschema.Object{
					{Key: "type", Val: wireschema.Object{{Key: "const", Val: f.Name}}},
					{Key: "v", Val: wireschema.Object{{Key: "const", Val: v.Number}}},
					{Key: "data", Val: wireschema.Ref(name)},
				}},
				{Key: "required", Val: []any{"type", "v", "data"}},
			})
		}
	}
	return envelopes
}

// writeJSON writes v indented by two spaces, without escaping <, > and &
// (type expressions such as <-chan read better as written).
func writeJSON(b *bytes.Buffer, v any, indent string) error {
	inner := indent + "  "
	switch v := v.(type) {
	case wireschema.Object:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, m := range v {
			b.WriteString(inner)
			if err := writeScalar(b, m.Key); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := writeJSON(b, m.Val, inner); err != nil {
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
		flat := !slices.ContainsFunc(v, func(x any) bool { _, obj := x.(wireschema.Object); return obj })
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
