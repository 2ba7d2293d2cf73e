package markdown

// The reference of a spec's tools section (decision 0207): the tool table,
// then each tool with its description, its records, its hints and its
// task support.

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// toolHeading is the heading of a tool's own section.
func toolHeading(t *gen.Tool) string { return "Tool " + t.Name }

// toolsContents is the Contents line of the tools.
func (d *docWriter) toolsContents() {
	var links []string
	for _, t := range d.spec.Tools {
		links = append(links, fmt.Sprintf("[%s](%s)", t.Name, anchor(toolHeading(t))))
	}
	if len(links) > 0 {
		d.line("- [Tools](#tools): %s", strings.Join(links, ", "))
	}
}

// tools writes the Tools section.
func (d *docWriter) tools() {
	if !d.section("Tools", len(d.spec.Tools)) {
		return
	}
	d.tableHead("Tool", "Title", "Takes", "Returns", "Hints", "Task")
	for _, t := range d.spec.Tools {
		result := "—"
		if t.Result != nil {
			result = d.mdType(t.Result)
		}
		d.line("| [`%s`](%s) | %s | %s | %s | %s | %s |", t.Name, anchor(toolHeading(t)), cell(t.Title), d.mdType(t.Input), result, hintText(t.Hints), t.TaskSupport)
	}
	d.line("")
	d.para("A tool's input schema is its input record's object, closed to keys the record does not name, and each argument " +
		"is bounded as its field is. A hint the table leaves out is false: a client is told each one.")
	for _, t := range d.spec.Tools {
		d.heading(3, toolHeading(t), t.Doc)
		if t.Title != "" {
			d.line("Title: %s.", t.Title)
			d.line("")
		}
		takes := "Takes " + d.mdType(t.Input)
		if t.Result != nil {
			takes += " and returns " + d.mdType(t.Result)
		}
		d.line("%s. Go: `%s()`.", takes, t.FuncName())
		d.line("")
		d.line("Hints: %s. Task support: %s.", hintText(t.Hints), taskText(t.TaskSupport))
		d.line("")
	}
}

// hintText names the hints that hold, or says there are none.
func hintText(h gen.Hints) string {
	if said := h.Said(); len(said) > 0 {
		return strings.Join(said, ", ")
	}
	return "none"
}

// taskText says what a task support lets a client do.
func taskText(t gen.TaskSupport) string {
	switch t {
	case gen.TaskOptional:
		return "optional (a client may call it as a task)"
	case gen.TaskRequired:
		return "required (a client must call it as a task)"
	}
	return "forbidden (never as a task)"
}

// boundText says a field's bounds, each with the default it names and
// the unit it is read in: "at most 600 (maxWaitTimeout in s)".
func boundText(f *gen.Field) string {
	var parts []string
	say := func(what string, b *gen.Bound, unit string) {
		if b == nil {
			return
		}
		s := fmt.Sprintf("%s %d%s", what, b.Value, unit)
		switch {
		case b.Named() && b.Unit != "":
			s += fmt.Sprintf(" ([`%s`](#defaults) in %s)", b.Default.Name, b.Unit)
		case b.Named():
			s += fmt.Sprintf(" ([`%s`](#defaults))", b.Default.Name)
		}
		parts = append(parts, s)
	}
	say("at least", f.Min, "")
	say("at most", f.Max, "")
	say("at most", f.MaxLength, " characters")
	return strings.Join(parts, ", ")
}
