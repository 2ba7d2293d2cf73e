package wireschema

// The schemas of a spec's tools (decision 0207): what a model is shown of
// each tool's input and result, inlined, and the definitions the document
// holds of them.

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// inlined is the builder of the inlined form: a declared type is its
// definition, built in the spec that declares it (so an imported type
// brings its own names), and every description is refilled. Validate
// refuses a tool whose records hold themselves, so the inlining ends; a
// spec that got past it anyway panics rather than loop.
func inlined() builder {
	var b builder
	var path []string
	b.text = Refill
	b.named = func(s *gen.Spec, t *gen.Type) Object {
		x, name := s.IndexOf(t)
		key := x.Spec().Package.Path + "." + name
		for _, p := range path {
			if p == key {
				panic(fmt.Sprintf("wireschema: %s holds itself, which a tool's schema cannot inline; Validate refuses such a tool", name))
			}
		}
		path = append(path, key)
		defer func() { path = path[:len(path)-1] }()
		return b.def(x.Spec(), name)
	}
	return b
}

// ToolInput is the schema a model is shown of tool t's arguments, t being
// a tool of s: the input record's object, inlined, closed to keys it does
// not name, and without a description of its own, since the tool's
// description says it.
func ToolInput(s *gen.Spec, t *gen.Tool) Object {
	return inlined().typ(s, t.Input).Delete("description").Set("additionalProperties", false)
}

// ToolResult is the schema of what tool t of s returns, inlined; nil for a
// tool that declares no result.
func ToolResult(s *gen.Spec, t *gen.Tool) Object {
	if t.Result == nil {
		return nil
	}
	return inlined().typ(s, t.Result)
}

// ToolDescription is what a model reads of t: its doc, each paragraph on
// one line.
func ToolDescription(t *gen.Tool) string { return Refill(t.Doc) }

// ToolInputDef is the document's definition of t's arguments, described by
// doc: the input record's object, its types by $ref, closed to other keys.
func ToolInputDef(s *gen.Spec, t *gen.Tool, doc string) Object {
	r := s.Index().Records[t.Input.Name]
	return document.object(s, doc, nil, r.Fields).Set("additionalProperties", false)
}

// Refill joins the lines of each paragraph of a spec doc, which YAML keeps
// as the spec's author wrapped them: a model reads a sentence, not a
// column width.
func Refill(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}
