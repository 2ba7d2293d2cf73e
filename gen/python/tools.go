package python

// The tool table of a spec's tools section as data (decision 0207): TOOLS,
// a tuple of the runtime's ToolDefinition, with the schemas gen/wireschema
// inlines for every backend, so a runtime in Python lists what the Go
// package's Tools lists.

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen/wireschema"
)

// tools writes TOOLS, one ToolDefinition a tool, as ruff formats it: every
// argument on a line of its own, and the schemas as their JSON text, which
// the definition reads when asked.
func (w *pyWriter) tools() {
	w.typing["Final"] = true
	def, annotations := w.runtimeName("ToolDefinition"), w.runtimeName("ToolAnnotations")
	w.blank()
	w.line("TOOLS: Final[tuple[%s, ...]] = (", def)
	for _, t := range w.spec.Tools {
		result, output := "", ""
		if t.Result != nil {
			result, output = t.Result.String(), schemaText(wireschema.ToolResult(w.spec, t))
		}
		w.line("    %s(", def)
		w.stringArg("name", t.Name)
		w.optionalArg("title", t.Title)
		w.stringArg("description", wireschema.ToolDescription(t))
		w.stringArg("input", t.Input.String())
		w.optionalArg("result", result)
		w.stringArg("input_schema_json", schemaText(wireschema.ToolInput(w.spec, t)))
		w.optionalArg("output_schema_json", output)
		w.line("        annotations=%s(", annotations)
		for _, h := range []struct {
			name string
			set  bool
		}{{"read_only_hint", t.Hints.ReadOnly}, {"destructive_hint", t.Hints.Destructive}, {"idempotent_hint", t.Hints.Idempotent}, {"open_world_hint", t.Hints.OpenWorld}} {
			w.line("            %s=%s,", h.name, map[bool]string{true: "True", false: "False"}[h.set])
		}
		w.line("        ),")
		w.line("        task_support=%s,", pyString(t.TaskSupport.String()))
		w.line("    ),")
	}
	w.line(")")
	w.docstring("", fmt.Sprintf("TOOLS are package %s's tools, in the order the spec declares them: what each says of itself, its schemas inlined, as the Go package's Tools lists them.", w.spec.Package.Name), "")
}

// argIndent is where a ToolDefinition's arguments start.
const argIndent = "        "

// stringArg writes the argument name=s of a ToolDefinition: on one line
// when it fits in 88 columns, else as strings of at most that width that
// Python joins, in parentheses, as ruff leaves them.
func (w *pyWriter) stringArg(name, s string) {
	if one := argIndent + name + "=" + pyString(s) + ","; len(one) <= 88 {
		w.line("%s", one)
		return
	}
	w.line("%s%s=(", argIndent, name)
	for _, piece := range pyPieces(s, 88-len(argIndent)-4) {
		w.line("%s    %s", argIndent, piece)
	}
	w.line("%s),", argIndent)
}

// optionalArg is stringArg, with None for an empty s.
func (w *pyWriter) optionalArg(name, s string) {
	if s == "" {
		w.line("%s%s=None,", argIndent, name)
		return
	}
	w.stringArg(name, s)
}

// pyPieces cuts s into string literals of at most width bytes each,
// quotes included, that join to s: each cut after the last space or comma
// that keeps its piece within width, or where the width ends.
func pyPieces(s string, width int) []string {
	var out []string
	for s != "" {
		end, cut := 0, 0
		for i, r := range s {
			if len(pyString(s[:i+len(string(r))])) > width {
				break
			}
			end = i + len(string(r))
			if r == ' ' || r == ',' {
				cut = end
			}
		}
		if cut == 0 || end == len(s) {
			cut = end
		}
		out = append(out, pyString(s[:cut]))
		s = s[cut:]
	}
	return out
}

// schemaText is a schema's compact JSON.
func schemaText(o wireschema.Object) string {
	data, err := o.MarshalJSON()
	if err != nil { // strings, numbers, bools and lists always encode
		panic(fmt.Sprintf("python: a schema does not encode: %v", err))
	}
	return string(data)
}

// pyString is s as a Python string literal as ruff writes it: in double
// quotes, unless s holds more of them than single quotes, each escaped.
func pyString(s string) string {
	quote := `"`
	if strings.Count(s, `"`) > strings.Count(s, `'`) {
		quote = `'`
	}
	var b strings.Builder
	b.WriteString(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == quote:
			b.WriteString(`\` + quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(quote)
	return b.String()
}
