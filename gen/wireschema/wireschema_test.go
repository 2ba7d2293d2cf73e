package wireschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// load reads a case of the front end with the specs it imports.
func load(t *testing.T, dir string) *gen.Spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gen.LoadFS(os.DirFS(dir), "spec.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return r.Spec()
}

// decoded is v as encoding/json reads it back: maps, lists, float64s.
func decoded(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// documents are the definitions of s and of each spec it imports, by the
// file name the document's $refs use.
func documents(t *testing.T, s *gen.Spec) map[string]map[string]any {
	docs := map[string]map[string]any{}
	var add func(s *gen.Spec)
	add = func(s *gen.Spec) {
		defs := map[string]any{}
		for name, def := range Defs(s) {
			defs[name] = decoded(t, def)
		}
		docs[s.Package.Name+".schema.json"] = defs
		for _, im := range s.Imports {
			if im.Imported != nil {
				add(im.Imported.Spec())
			}
		}
	}
	add(s)
	return docs
}

// inlineRefs is how a consumer reads a document's definition as a schema
// of its own: each {"$ref": …} replaced by the definition it names, the
// members beside the $ref winning, every description refilled.
func inlineRefs(docs map[string]map[string]any, file string, v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if ref, ok := v["$ref"].(string); ok {
			target, frag, _ := strings.Cut(ref, "#/$defs/")
			if target != "" {
				file = target
			}
			def, ok := docs[file][frag]
			if !ok {
				return nil, fmt.Errorf("no definition %s", ref)
			}
			in, err := inlineRefs(docs, file, def)
			if err != nil {
				return nil, err
			}
			for k, x := range in.(map[string]any) {
				out[k] = x
			}
		}
		for k, x := range v {
			if k == "$ref" {
				continue
			}
			c, err := inlineRefs(docs, file, x)
			if err != nil {
				return nil, err
			}
			if d, ok := c.(string); ok && k == "description" {
				c = Refill(d)
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			c, err := inlineRefs(docs, file, x)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// A tool's schemas, inlined by the builder, are exactly the document's
// definitions with every $ref read in place: the schema a model is shown
// and the one schema/ holds say the same, across imported specs too.
func TestInlinedSchemasAreTheDocumentsRefsReadInPlace(t *testing.T) {
	s := load(t, "../testdata/cases/tools-table")
	docs := documents(t, s)
	own := s.Package.Name + ".schema.json"
	for _, tool := range s.Tools {
		want, err := inlineRefs(docs, own, decoded(t, Ref(tool.Input.Name)))
		if err != nil {
			t.Fatal(err)
		}
		want.(map[string]any)["additionalProperties"] = false
		delete(want.(map[string]any), "description")
		if got := decoded(t, ToolInput(s, tool)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: input\n got %v\nwant %v", tool.Name, got, want)
		}
		if tool.Result == nil {
			if ToolResult(s, tool) != nil {
				t.Errorf("%s: a result schema for a tool that returns none", tool.Name)
			}
			continue
		}
		want, err = inlineRefs(docs, own, decoded(t, Type(tool.Result)))
		if err != nil {
			t.Fatal(err)
		}
		if got := decoded(t, ToolResult(s, tool)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: result\n got %v\nwant %v", tool.Name, got, want)
		}
	}
}

// An Object writes as encoding/json writes a map, keys sorted, but leaves
// <, > and & as they are, so a type such as <-chan reads as written in a
// generated table (json.Marshal escapes them again, as it does any
// Marshaler's output).
func TestObjectsWriteSortedWithoutHTMLEscapes(t *testing.T) {
	o := Object{{"b", 1}, {"a", Object{{"z", "<-chan T & more"}, {"y", []any{Object{{"d", true}, {"c", nil}}}}}}}
	data, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"y":[{"c":null,"d":true}],"z":"<-chan T & more"},"b":1}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
}

// Refill joins a paragraph's lines and keeps the paragraphs apart.
func TestRefillJoinsLinesAndKeepsParagraphs(t *testing.T) {
	got := Refill("  One line\nand  the next.\n\nA second\n paragraph.\n")
	if want := "One line and the next.\n\nA second paragraph."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
