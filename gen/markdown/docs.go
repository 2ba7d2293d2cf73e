package markdown

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// Backend generates a spec's Markdown reference, <package.name>.md.
type Backend struct{}

// Name implements Backend.
func (Backend) Name() string { return "Markdown" }

// Marker implements Backend. Markdown has no line comments, so the marker
// is an HTML comment, invisible when rendered.
func (Backend) Marker() gen.Marker {
	return gen.Marker{Suffix: ".md", Format: "<!-- " + gen.MarkerText + " -->\n"}
}

// Check implements Backend: Markdown can say anything a valid spec says.
func (Backend) Check(*gen.Resolved) gen.ErrorList { return nil }

// Files implements Backend.
func (Backend) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	s := r.Spec()
	if s == nil {
		return nil, gen.ErrNotResolved
	}
	f, err := emitDocs(s, o)
	return []gen.File{f}, err
}

// Emit renders a valid spec as a Markdown reference, <package>.md: the
// routes of its wire, its tools, the facts with their versions and fields, the unions, records, enums, ids,
// faces, each machine as a transition table and a Mermaid state diagram, and
// the defaults. Declarations come sorted by name and members in spec order,
// so the output depends only on the spec. The marker names the spec as if
// the output root were the spec's directory.
func Emit(r *gen.Resolved) (gen.File, error) {
	s := r.Spec()
	if s == nil {
		return gen.File{}, gen.ErrNotResolved
	}
	return emitDocs(s, gen.BesideSpec(s))
}

// emitDocs writes s's reference: a heading, the contents, then a section
// per kind of declaration, in the order the contents list them.
func emitDocs(s *gen.Spec, o gen.Origin) (gen.File, error) {
	name := s.Package.Name + ".md"
	d := &docWriter{spec: s}
	d.b.WriteString(gen.Mark(Backend{}, o, name))
	d.line("")
	d.heading(1, "Package "+s.Package.Name, s.Package.Doc)
	if s.Package.Path != "" {
		d.line("Import path: `%s`", s.Package.Path)
		d.line("")
	}
	d.contents()
	d.routes()
	d.tools()
	d.facts()
	d.unions()
	d.records()
	d.enums()
	d.ids()
	d.faces()
	d.machines()
	d.defaults()
	out := strings.TrimRight(d.b.String(), "\n") + "\n"
	return gen.File{Path: name, Content: []byte(out)}, nil
}

// A docWriter writes one spec's Markdown reference.
type docWriter struct {
	spec *gen.Spec
	b    strings.Builder
}

// line writes one formatted line.
func (d *docWriter) line(format string, args ...any) {
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

// para writes a doc as a Markdown paragraph, keeping its line breaks.
func (d *docWriter) para(doc string) {
	if doc = strings.TrimSpace(doc); doc != "" {
		d.line("%s", doc)
		d.line("")
	}
}

// heading writes a Markdown heading of the level with the doc below it.
func (d *docWriter) heading(level int, title, doc string) {
	d.line("%s %s", strings.Repeat("#", level), title)
	d.line("")
	d.para(doc)
}

// section writes the heading of a top-level section listing n declarations,
// and reports whether there are any: a section of none is left out.
func (d *docWriter) section(title string, n int) bool {
	if n == 0 {
		return false
	}
	d.heading(2, title, "")
	return true
}

// tableHead writes the header row of a Markdown table and its separator.
func (d *docWriter) tableHead(columns ...string) {
	d.line("| %s |", strings.Join(columns, " | "))
	d.line("|%s", strings.Repeat("---|", len(columns)))
}

// anchor is the fragment GitHub gives a heading.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return "#" + b.String()
}

// specImport returns the spec import with the alias, or nil.
func (d *docWriter) specImport(alias string) *gen.Import {
	for _, im := range d.spec.Imports {
		if im.Alias == alias && im.Imported != nil {
			return im
		}
	}
	return nil
}

// cell makes text safe for one table cell.
func cell(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	return strings.ReplaceAll(text, "|", `\|`)
}

var identToken = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?`)

// mdType renders a type as code, with each declared name a link to its
// section, and each name from an imported spec a link into that spec's page
// (for another module's spec, into its Go package's documentation).
func (d *docWriter) mdType(t *gen.Type) string {
	text := t.String()
	var b strings.Builder
	code := func(s string) {
		if s != "" {
			b.WriteString("`" + s + "`")
		}
	}
	last := 0
	for _, m := range identToken.FindAllStringIndex(text, -1) {
		name := text[m[0]:m[1]]
		var target string
		if alias, sel, qualified := strings.Cut(name, "."); qualified {
			im := d.specImport(alias)
			if im == nil {
				continue
			}
			target = im.Imported.Spec().Package.Name + ".md" + anchor(sel)
			if im.Foreign() {
				// Another module's reference is not beside this one; its Go
				// package's documentation is at a known place.
				target = "https://pkg.go.dev/" + im.Path + "#" + sel
			}
		} else if dc, ok := d.spec.Index().Decls[name]; ok && dc.Kind != gen.DeclMachine {
			target = anchor(name)
		} else {
			continue
		}
		code(text[last:m[0]])
		fmt.Fprintf(&b, "[`%s`](%s)", name, target)
		last = m[1]
	}
	code(text[last:])
	return b.String()
}

// link links to the section of a declared name.
func (d *docWriter) link(name string) string { return fmt.Sprintf("[%s](%s)", name, anchor(name)) }

// contents lists each section with a link to every declaration in it.
func (d *docWriter) contents() {
	s := d.spec
	d.heading(2, "Contents", "")
	item := func(title string, names []string) {
		if len(names) == 0 {
			return
		}
		var links []string
		for _, n := range names {
			links = append(links, d.link(n))
		}
		d.line("- [%s](%s): %s", title, anchor(title), strings.Join(links, ", "))
	}
	names := func(n int, name func(int) string) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, name(i))
		}
		return gen.SortedBy(out, func(s string) string { return s })
	}
	d.routesContents()
	d.toolsContents()
	item("Facts", names(len(s.Facts), func(i int) string { return s.Facts[i].Name }))
	item("Unions", names(len(s.Unions), func(i int) string { return s.Unions[i].Name }))
	item("Records", names(len(s.Records), func(i int) string { return s.Records[i].Name }))
	item("Enums", names(len(s.Enums), func(i int) string { return s.Enums[i].Name }))
	item("Identifiers", names(len(s.IDs), func(i int) string { return s.IDs[i].Name }))
	item("Faces", names(len(s.Faces), func(i int) string { return s.Faces[i].Name }))
	item("Machines", names(len(s.Machines), func(i int) string { return s.Machines[i].Name }))
	if len(s.Defaults) > 0 {
		d.line("- [Defaults](#defaults)")
	}
	d.line("")
}

// fieldTable writes a table of fields; withSince adds the fact-only column.
func (d *docWriter) fieldTable(fields []*gen.Field, withSince bool) {
	if len(fields) == 0 {
		d.line("No fields.")
		d.line("")
		return
	}
	columns := []string{"JSON", "Go", "Type", "Required"}
	if withSince {
		columns = append(columns, "Since")
	}
	d.tableHead(append(columns, "Description")...)
	for _, f := range fields {
		json, required := "`"+f.JSON+"`", "yes"
		switch {
		case !f.Wire():
			json, required = "—", "Go only"
		case f.Optional:
			required = "no"
		case f.Type.Collection():
			required = "no (absent is empty)"
		}
		typ := d.mdType(f.Type)
		if f.TerminalOf() != nil {
			typ += ", a terminal state of " + d.mdType(&gen.Type{Kind: gen.TypeNamed, Name: f.TerminalOf().Name})
		}
		if bounds := boundText(f); bounds != "" {
			typ += ", " + bounds
		}
		row := []string{json, "`" + f.GoName + "`", typ, required}
		if withSince {
			since := ""
			if f.Since > 0 {
				since = fmt.Sprintf("v%d", f.Since)
			}
			row = append(row, since)
		}
		row = append(row, cell(f.Doc))
		d.line("| %s |", strings.Join(row, " | "))
	}
	d.line("")
}

// facts writes each fact: its versions, how each decodes, and their fields.
func (d *docWriter) facts() {
	if !d.section("Facts", len(d.spec.Facts)) {
		return
	}
	d.line("A fact travels in an envelope `{\"type\", \"v\", \"data\"}`. `EncodeFact` writes the newest version; `DecodeFact` reads every version that is not retired and upcasts older ones to the newest.")
	d.line("")
	for _, f := range gen.SortedBy(d.spec.Facts, func(f *gen.Fact) string { return f.Name }) {
		d.heading(3, f.Name, f.Doc)
		d.line("Go type: `%s`.", f.GoName)
		if len(f.Reserved) > 0 {
			var names []string
			for _, r := range f.Reserved {
				names = append(names, "`"+r.Name+"`")
			}
			d.line("Reserved names, never to be used again: %s.", strings.Join(names, ", "))
		}
		d.line("")
		d.tableHead("Version", "Go", "Decoded as")
		for _, v := range f.Versions {
			switch {
			case v.Retired:
				d.line("| v%d | — | refused (`ErrUnknownFact`): retired |", v.Number)
			case v == f.Latest():
				d.line("| v%d | `%s` | itself; what `EncodeFact` writes |", v.Number, f.StructName(v))
			default:
				d.line("| v%d | `%s` | `%s`, through `%s` |", v.Number, f.StructName(v), f.GoName, v.Upcast.Name)
			}
		}
		d.line("")
		for i := len(f.Versions) - 1; i >= 0; i-- {
			v := f.Versions[i]
			if v.Retired {
				continue
			}
			d.heading(4, fmt.Sprintf("%s v%d", f.Name, v.Number), v.Doc)
			d.fieldTable(v.Fields, true)
		}
	}
}

// unions writes each union: its variants and tags, its common fields and
// each variant's fields.
func (d *docWriter) unions() {
	if !d.section("Unions", len(d.spec.Unions)) {
		return
	}
	for _, u := range gen.SortedBy(d.spec.Unions, func(u *gen.Union) string { return u.Name }) {
		d.heading(3, u.Name, u.Doc)
		d.line("The JSON field `%s` names the variant.", u.Discriminator)
		d.line("")
		d.tableHead("Variant", "`"+u.Discriminator+"`", "Description")
		for _, v := range u.Variants {
			d.line("| %s | `%s` | %s |", d.link(v.Name), v.Tag.Text(), cell(v.Doc))
		}
		d.line("")
		if len(u.Common) > 0 {
			d.line("Every variant carries these common fields (Go: `%s`):", u.CommonName())
			d.line("")
			d.fieldTable(u.Common, false)
		}
		for _, v := range u.Variants {
			d.heading(4, v.Name, v.Doc)
			d.line("`\"%s\": %s`", u.Discriminator, tagJSON(v.Tag))
			d.line("")
			d.fieldTable(v.Fields, false)
		}
	}
}

// tagJSON is a variant's tag as JSON writes it.
func tagJSON(t gen.Tag) string {
	if t.Kind == gen.TagBool {
		return t.Text()
	}
	return fmt.Sprintf("%q", t.String)
}

// records writes each record's fields.
func (d *docWriter) records() {
	if !d.section("Records", len(d.spec.Records)) {
		return
	}
	for _, r := range gen.SortedBy(d.spec.Records, func(r *gen.Record) string { return r.Name }) {
		d.heading(3, r.Name, r.Doc)
		d.fieldTable(r.Fields, false)
	}
}

// enums writes each enum's values with their Go constants.
func (d *docWriter) enums() {
	if !d.section("Enums", len(d.spec.Enums)) {
		return
	}
	for _, e := range gen.SortedBy(d.spec.Enums, func(e *gen.Enum) string { return e.Name }) {
		d.heading(3, e.Name, e.Doc)
		d.tableHead("Value", "Go", "Description")
		for _, v := range e.Values {
			d.line("| `%s` | `%s` | %s |", v.Value, v.GoName, cell(v.Doc))
		}
		d.line("")
	}
}

// ids writes each id and how it is written.
func (d *docWriter) ids() {
	if !d.section("Identifiers", len(d.spec.IDs)) {
		return
	}
	for _, id := range gen.SortedBy(d.spec.IDs, func(id *gen.ID) string { return id.Name }) {
		d.heading(3, id.Name, id.Doc)
		if id.Kind == gen.IDUUID {
			d.line("A UUID, written as its canonical text (`6ba7b810-9dad-11d1-80b4-00c04fd430c8`).")
		} else {
			d.line("A string.")
		}
		d.line("")
	}
}

// faces writes each face: what it embeds and its methods.
func (d *docWriter) faces() {
	if !d.section("Faces", len(d.spec.Faces)) {
		return
	}
	for _, f := range gen.SortedBy(d.spec.Faces, func(f *gen.Face) string { return f.Name }) {
		d.heading(3, f.Name, f.Doc)
		if len(f.Embeds) > 0 {
			var links []string
			for _, e := range f.Embeds {
				links = append(links, d.link(e.Name))
			}
			d.line("Embeds %s.", strings.Join(links, ", "))
			d.line("")
		}
		if len(f.Methods) == 0 {
			continue
		}
		d.tableHead("Method", "Signature", "Description")
		for _, m := range f.Methods {
			d.line("| `%s` | %s | %s |", m.Name, d.mdType(m.Type), cell(m.Doc))
		}
		d.line("")
	}
}

var mermaidID = regexp.MustCompile(`[^A-Za-z0-9_]`)

// machines writes each machine as a transition table and a Mermaid state
// diagram.
func (d *docWriter) machines() {
	if !d.section("Machines", len(d.spec.Machines)) {
		return
	}
	for _, m := range gen.SortedBy(d.spec.Machines, func(m *gen.Machine) string { return m.Name }) {
		d.heading(3, m.Name, m.Doc)
		var terminal []string
		for _, t := range m.Terminal {
			terminal = append(terminal, "`"+t.Name+"`")
		}
		d.line("States are the values of %s. It starts in `%s`; %s %s terminal.", d.link(m.States.Name), m.Initial.Name, strings.Join(terminal, ", "), map[bool]string{true: "is", false: "are"}[len(terminal) == 1])
		d.line("")
		d.tableHead("From", "To")
		for _, t := range m.Transitions {
			var to []string
			for _, r := range t.To {
				to = append(to, "`"+r.Name+"`")
			}
			d.line("| `%s` | %s |", t.From.Name, strings.Join(to, ", "))
		}
		d.line("")
		id := func(state string) string { return mermaidID.ReplaceAllString(state, "_") }
		d.line("```mermaid")
		d.line("stateDiagram-v2")
		if e := d.spec.Index().Enums[m.States.Name]; e != nil {
			for _, v := range e.Values {
				if id(v.Value) != v.Value {
					d.line("    state %q as %s", v.Value, id(v.Value))
				}
			}
		}
		d.line("    [*] --> %s", id(m.Initial.Name))
		for _, t := range m.Transitions {
			for _, to := range t.To {
				d.line("    %s --> %s", id(t.From.Name), id(to.Name))
			}
		}
		for _, t := range m.Terminal {
			d.line("    %s --> [*]", id(t.Name))
		}
		d.line("```")
		d.line("")
	}
}

// defaults writes the table of defaults.
func (d *docWriter) defaults() {
	if !d.section("Defaults", len(d.spec.Defaults)) {
		return
	}
	d.tableHead("Name", "Go", "Value", "Description")
	for _, x := range gen.SortedBy(d.spec.Defaults, func(x *gen.Default) string { return x.Name }) {
		d.line("| `%s` | `%s` | %d %s | %s |", x.Name, x.GoName, x.Value, x.Unit, cell(x.Doc))
	}
	d.line("")
}
