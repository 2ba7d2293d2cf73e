package jsonschema

// The schemas of a spec's tools (decision 0207): each tool's arguments,
// the input record's object closed to other keys, and its result, under
// names no type can have: "<tool>.input", "<tool>.result".

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
	"github.com/jobgen/jobgen/gen/wireschema"
)

// toolSchemas adds to defs the schemas of s's tools.
func toolSchemas(s *gen.Spec, defs map[string]wireschema.Object) {
	for _, t := range s.Tools {
		doc := strings.TrimSpace(fmt.Sprintf("The arguments of the tool %s: %s %s, with no other key.\n\n%s", t.Name, doctext.Article(t.Input.Name), t.Input, t.Doc))
		defs[t.Name+".input"] = wireschema.ToolInputDef(s, t, doc)
		if t.Result != nil {
			defs[t.Name+".result"] = wireschema.Described(fmt.Sprintf("What the tool %s returns: %s %s.", t.Name, doctext.Article(t.Result.Name), t.Result), wireschema.Type(t.Result))
		}
	}
}
