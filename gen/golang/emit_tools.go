package golang

// The Go of a spec's tools section (decision 0207): tools.gen.go holds the
// tool table (Tools) and a function per tool returning its definition, a
// tooldef.Tool, whose schemas are gen/wireschema's inlined ones. Tools are
// members of the section, so they are emitted in spec order. The bound
// checks every decoder makes (decision 0208) are here too.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
	"github.com/jobgen/jobgen/gen/wireschema"
)

const (
	tooldefPkg = "github.com/jobgen/jobgen/tooldef"
	utf8Pkg    = "unicode/utf8"
)

// tools emits the tools file.
func (e *emitter) tools(f *jen.File) {
	s := e.spec
	f.Comment(toolsComment(s))
	f.Func().Id("Tools").Params().Index().Qual(tooldefPkg, "Tool").Block(
		jen.Return(jen.Index().Qual(tooldefPkg, "Tool").ValuesFunc(func(g *jen.Group) {
			for _, t := range s.Tools {
				g.Id(t.FuncName()).Call()
			}
		})),
	)
	for _, t := range s.Tools {
		f.Line()
		e.tool(f, t)
	}
}

// toolsComment is Tools' doc: a sentence, then one line per tool.
func toolsComment(s *gen.Spec) string {
	var nameW, titleW, recordsW int
	for _, t := range s.Tools {
		nameW, titleW, recordsW = max(nameW, len(t.Name)), max(titleW, len(t.Title)), max(recordsW, len(toolRecords(t)))
	}
	var b strings.Builder
	b.WriteString(doctext.Lines("Tools returns package "+doctext.Possessive(s.Package.Name)+" tool table, in the order the spec declares the tools: "+
		"each tool's name, title, description, input and result with their JSON Schemas, annotations and task support "+
		"(the function of each tool says more).", ""))
	b.WriteString("\n//")
	for _, t := range s.Tools {
		fmt.Fprintf(&b, "\n//\t%-*s  %-*s  %-*s  %s", nameW, t.Name, titleW, t.Title, recordsW, toolRecords(t), toolTraits(t))
	}
	return b.String()
}

// toolRecords says what t takes and returns: "JobList → JobListResult".
func toolRecords(t *gen.Tool) string {
	if t.Result == nil {
		return t.Input.String()
	}
	return t.Input.String() + " → " + t.Result.String()
}

// toolTraits names t's hints that hold, and its task support unless it is
// forbidden: "read-only, idempotent", "destructive; tasks optional".
func toolTraits(t *gen.Tool) string {
	traits := strings.Join(t.Hints.Said(), ", ")
	if t.TaskSupport != gen.TaskForbidden {
		if traits != "" {
			traits += "; "
		}
		traits += "tasks " + t.TaskSupport.String()
	}
	return traits
}

// tool emits t's function.
func (e *emitter) tool(f *jen.File, t *gen.Tool) {
	s := e.spec
	d := jen.Dict{
		jen.Id("Name"):        jen.Lit(t.Name),
		jen.Id("Description"): jen.Lit(wireschema.ToolDescription(t)),
		jen.Id("Input"):       jen.Lit(t.Input.String()),
		jen.Id("InputSchema"): rawJSON(wireschema.ToolInput(s, t)),
		jen.Id("Annotations"): jen.Op("&").Qual(tooldefPkg, "Annotations").Values(hintValues(t.Hints)),
	}
	if t.Title != "" {
		d[jen.Id("Title")] = jen.Lit(t.Title)
	}
	if t.Result != nil {
		d[jen.Id("Result")] = jen.Lit(t.Result.String())
		d[jen.Id("OutputSchema")] = rawJSON(wireschema.ToolResult(s, t))
	}
	if t.TaskSupport != gen.TaskForbidden {
		d[jen.Id("TaskSupport")] = jen.Qual(tooldefPkg, "Task"+gen.GoName(t.TaskSupport.String()))
	}
	doc := fmt.Sprintf("%s is the tool %s", t.FuncName(), t.Name)
	if t.Title != "" {
		doc += fmt.Sprintf(" (%q)", t.Title)
	}
	doc += fmt.Sprintf(": it takes %s %s", doctext.Article(t.Input.Name), t.Input)
	if t.Result != nil {
		doc += fmt.Sprintf(" and returns %s %s", doctext.Article(t.Result.Name), t.Result)
	}
	if traits := toolTraits(t); traits != "" {
		doc += "; " + traits
	}
	f.Comment(doctext.Lines(doc+".", ""))
	f.Func().Id(t.FuncName()).Params().Qual(tooldefPkg, "Tool").Block(jen.Return(jen.Qual(tooldefPkg, "Tool").Values(d)))
}

// hintValues are the hints of h that hold, as tooldef.Annotations' fields.
func hintValues(h gen.Hints) jen.Dict {
	d := jen.Dict{}
	for _, hint := range []struct {
		field string
		set   bool
	}{{"ReadOnly", h.ReadOnly}, {"Destructive", h.Destructive}, {"Idempotent", h.Idempotent}, {"OpenWorld", h.OpenWorld}} {
		if hint.set {
			d[jen.Id(hint.field)] = jen.True()
		}
	}
	return d
}

// rawJSON is a schema as a json.RawMessage of its compact JSON.
func rawJSON(o wireschema.Object) *jen.Statement {
	data, err := o.MarshalJSON()
	if err != nil { // an Object of strings, numbers, bools and lists always encodes
		panic(fmt.Sprintf("golang: a schema does not encode: %v", err))
	}
	text := jen.Lit(string(data))
	if !strings.Contains(string(data), "`") {
		text = jen.Op("`" + string(data) + "`") // a raw string: the JSON reads as it is
	}
	return jen.Qual(jsonPkg, "RawMessage").Call(text)
}

// boundChecks are the statements refusing a value of fd, at val, beyond
// its bounds (decision 0208); deref says val is a pointer, as a required
// field's is in UnmarshalJSON's shadow struct. A bound the field's type
// keeps by itself (min 0 on an unsigned field) is not checked. An optional
// field's zero value, which absent decodes as, is within its bounds, as
// Validate makes sure.
func (e *emitter) boundChecks(typeName string, fd *gen.Field, val *jen.Statement, deref bool) []jen.Code {
	if deref {
		val = jen.Op("*").Add(val)
	}
	var out []jen.Code
	if b := fd.CheckedMin(); b != nil {
		out = append(out, jen.If(val.Clone().Op("<").Op(strconv.FormatInt(b.Value, 10))).Block(
			jen.Return(e.errorf(typeName+": "+fd.JSON+" %v is below its minimum "+strconv.FormatInt(b.Value, 10), val.Clone())),
		))
	}
	if b := fd.CheckedMax(); b != nil {
		out = append(out, jen.If(val.Clone().Op(">").Op(strconv.FormatInt(b.Value, 10))).Block(
			jen.Return(e.errorf(typeName+": "+fd.JSON+" %v is above its maximum "+strconv.FormatInt(b.Value, 10), val.Clone())),
		))
	}
	if b := fd.MaxLength; b != nil {
		n := jen.Qual(utf8Pkg, "RuneCountInString").Call(val.Clone())
		out = append(out, jen.If(jen.Id("n").Op(":=").Add(n), jen.Id("n").Op(">").Op(strconv.FormatInt(b.Value, 10))).Block(
			jen.Return(e.errorf(typeName+": "+fd.JSON+" has %d characters, more than its maximum "+strconv.FormatInt(b.Value, 10), jen.Id("n"))),
		))
	}
	return out
}
