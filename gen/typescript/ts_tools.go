package typescript

// The tool table of a spec's tools section as data (decision 0207): tools,
// each a ToolDefinition of the runtime, with the schemas gen/wireschema
// inlines for every backend, so a runtime in TypeScript lists what the Go
// package's Tools lists.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/wireschema"
)

// A tsTool is a tool as its ToolDefinition is written, member by member.
type tsTool struct {
	Name         string            `json:"name"`
	Title        string            `json:"title,omitempty"`
	Description  string            `json:"description"`
	Input        string            `json:"input"`
	Result       string            `json:"result,omitempty"`
	InputSchema  wireschema.Object `json:"inputSchema"`
	OutputSchema wireschema.Object `json:"outputSchema,omitempty"`
	Annotations  tsToolAnnotations `json:"annotations"`
	TaskSupport  string            `json:"taskSupport"`
}

type tsToolAnnotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// toolTable is the JSON of s's tool table, indented by two spaces: a
// JavaScript array literal.
func toolTable(s *gen.Spec) string {
	var list []tsTool
	for _, t := range s.Tools {
		tt := tsTool{
			Name: t.Name, Title: t.Title, Description: wireschema.ToolDescription(t), Input: t.Input.String(),
			InputSchema: wireschema.ToolInput(s, t), OutputSchema: wireschema.ToolResult(s, t),
			Annotations: tsToolAnnotations{t.Hints.ReadOnly, t.Hints.Destructive, t.Hints.Idempotent, t.Hints.OpenWorld},
			TaskSupport: t.TaskSupport.String(),
		}
		if t.Result != nil {
			tt.Result = t.Result.String()
		}
		list = append(list, tt)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil { // strings, numbers, bools and lists always encode
		panic(fmt.Sprintf("typescript: the tool table of %s does not encode: %v", s.Package.Name, err))
	}
	return strings.TrimRight(b.String(), "\n")
}

// tools writes the tool table.
func (w *tsWriter) tools() {
	w.constant(fmt.Sprintf("tools are package %s's tools, in the order the spec declares them: what each says of itself, "+
		"its schemas inlined, as the Go package's Tools lists them.", w.spec.Package.Name), "tools", "readonly ToolDefinition[]", toolTable(w.spec))
}
