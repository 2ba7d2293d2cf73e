package agenttools

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jobgen/jobgen/schema"
)

// A schemaSet reads definitions out of the JSON Schema documents jobgen
// generated (package schema) and makes each a document of its own: every
// $ref inlined, so the schema a model is shown needs no other file and no
// $ref support, which several model APIs lack.
type schemaSet struct {
	docs map[string]map[string]any // file name → its $defs
}

// loadSchemas reads every document of fsys, keyed by base name.
func loadSchemas(fsys fs.FS) (*schemaSet, error) {
	names, err := fs.Glob(fsys, "*.schema.json")
	if err != nil {
		return nil, err
	}
	s := &schemaSet{docs: map[string]map[string]any{}}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Defs map[string]any `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("agenttools: schema %s: %w", name, err)
		}
		s.docs[name] = doc.Defs
	}
	return s, nil
}

// generatedSchemas is the set of this module's generated schemas.
func generatedSchemas() (*schemaSet, error) { return loadSchemas(schema.FS) }

// def returns the definition name of the document file, with every $ref
// inlined and every description refilled onto one line per paragraph.
func (s *schemaSet) def(file, name string) (map[string]any, error) {
	v, err := s.resolve(file, "#/$defs/"+name, nil)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// resolve returns the inlined copy of the definition ref points at, ref
// being relative to the document file. seen holds the refs being inlined
// above, so a cycle (which no jobgen vocabulary has on the wire) is refused
// instead of looping.
func (s *schemaSet) resolve(file, ref string, seen []string) (any, error) {
	target, frag, _ := strings.Cut(ref, "#")
	if target != "" {
		file = target
	}
	key := file + "#" + frag
	for _, k := range seen {
		if k == key {
			return nil, fmt.Errorf("agenttools: schema %s refers to itself", key)
		}
	}
	name, ok := strings.CutPrefix(frag, "/$defs/")
	defs, okFile := s.docs[file]
	if !ok || !okFile || defs[name] == nil {
		return nil, fmt.Errorf("agenttools: no schema %s", key)
	}
	return s.inline(file, defs[name], append(seen, key))
}

// inline copies v, replacing each {"$ref": …} by the definition it names
// merged under the members beside the $ref (a field's own description wins
// over its type's).
func (s *schemaSet) inline(file string, v any, seen []string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		if ref, ok := v["$ref"].(string); ok {
			target, err := s.resolve(file, ref, seen)
			if err != nil {
				return nil, err
			}
			for k, x := range target.(map[string]any) {
				out[k] = x
			}
		}
		for k, x := range v {
			if k == "$ref" {
				continue
			}
			c, err := s.inline(file, x, seen)
			if err != nil {
				return nil, err
			}
			if k == "description" {
				if d, ok := c.(string); ok {
					c = refill(d)
				}
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			c, err := s.inline(file, x, seen)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// refill joins the lines of each paragraph of a spec doc, which YAML keeps
// as the spec's author wrapped them: a model reads a sentence, not a
// column width.
func refill(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// mustJSON encodes a schema built from decoded JSON, which always encodes.
func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("agenttools: a decoded schema does not encode: %v", err))
	}
	return data
}
