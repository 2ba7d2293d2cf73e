package python

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// This file writes the declarations of a module: ids, enums, records,
// unions and defaults.

// id writes an id as a subclass of the runtime's identifier of its kind.
func (w *pyWriter) id(d *gen.ID) {
	base := "StringIdentifier"
	if d.Kind == gen.IDUUID {
		base = "UUIDIdentifier"
	}
	w.blank()
	w.line("class %s(%s):", d.Name, w.runtimeName(base))
	w.docstring("    ", d.Doc, capArticle(d.Name)+" "+d.Name+" is an identifier.")
}

// enum writes an enum as a Literal type of its values and the tuple of them.
func (w *pyWriter) enum(d *gen.Enum) {
	w.typing["Literal"], w.typing["TypeAlias"], w.typing["Final"] = true, true, true
	var lits []string
	doc := d.Doc
	if doc == "" {
		doc = capArticle(d.Name) + " " + d.Name + " is one of a closed set of values."
	}
	for _, v := range d.Values {
		lits = append(lits, strconv.Quote(v.Value))
		if v.Doc != "" {
			doc += "\n" + fmt.Sprintf("- %q: %s", v.Value, v.Doc)
		}
	}
	doc = strings.Replace(doc, "\n- ", "\n\n- ", 1) // a blank line before the list
	w.blank()
	w.bracketed("", d.Name+": TypeAlias = Literal[", lits, "]", "")
	w.docstring("", doc, "")
	w.line("")
	values := upperSnake(d.Name) + "_VALUES"
	items := lits
	if len(items) == 1 {
		items = []string{items[0] + ","}
	}
	w.bracketed("", values+": Final[tuple["+d.Name+", ...]] = (", items, ")", "")
	w.docstring("", fmt.Sprintf("%s is every %s, in declaration order.", values, d.Name), "")
}

// record writes a record as a model.
func (w *pyWriter) record(r *gen.Record) {
	w.blank()
	w.line("class %s(%s):", r.Name, w.runtimeName("Model"))
	w.docstring("    ", r.Doc, capArticle(r.Name)+" "+r.Name+" is a record.")
	w.fields(wireFields(w.spec.Index(), r.Fields))
}

// fields writes a model's fields, each with its docstring.
func (w *pyWriter) fields(fields []*gen.Field) {
	for _, f := range fields {
		w.line("")
		w.field(f)
		if f.Doc != "" {
			w.docstring("    ", f.Doc, "")
		}
	}
}

// field writes one field: its Python name, its annotation and its default,
// which says how Go treats it: none when JSON must hold it, the zero value
// (or None) when it is optional, an empty list or map for a collection,
// which JSON may leave out.
func (w *pyWriter) field(f *gen.Field) {
	name := fieldName(f)
	typ := w.fieldType(f)
	t := f.Type
	var args []string
	def := ""
	switch {
	case f.Optional && t.Kind == gen.TypePointer:
		def = "None"
	case f.Optional && t.Collection():
		typ, def = typ+" | None", "None"
	case f.Optional:
		if z, ok := w.zero(t); ok {
			def = z
		} else if typ == "JsonValue" {
			def = "None"
		} else if t.Declared() && t.Decl() == gen.DeclRecord {
			// Go holds the record by value: its decoder reads null there
			// as an object without fields, not as the field left out.
			w.typing["Annotated"] = true
			typ, def = "Annotated["+typ+" | None, "+w.runtimeName("NULL_IS_EMPTY")+"]", "None"
		} else {
			typ, def = typ+" | None", "None"
		}
	case t.Collection():
		args = append(args, "default_factory="+map[bool]string{true: "list", false: "dict"}[t.Kind == gen.TypeSlice])
	case t.Kind == gen.TypePointer:
		typ = strings.TrimSuffix(typ, " | None")
	}
	if f.JSON != name {
		if def != "" {
			args = append(args, "default="+def)
		}
		args = append(args, "serialization_alias="+strconv.Quote(f.JSON))
	} else if def != "" && len(args) == 0 {
		w.line("    %s: %s = %s", name, typ, def)
		return
	}
	if len(args) == 0 {
		w.line("    %s: %s", name, typ)
		return
	}
	w.pydantic["Field"] = true
	w.bracketed("    ", name+": "+typ+" = Field(", args, ")", "")
}

// union writes a union's common fields as a model the variants extend, each
// variant as a model whose first field is its tag, the union as a
// discriminated union of them, and the function that decodes it.
func (w *pyWriter) union(u *gen.Union) {
	x := w.spec.Index()
	base := w.runtimeName("Model")
	if len(u.Common) > 0 {
		base = u.CommonName()
		w.blank()
		w.line("class %s(%s):", base, w.runtimeName("Model"))
		w.docstring("    ", fmt.Sprintf("%s holds the fields every %s carries.", u.CommonName(), u.Name), "")
		w.fields(wireFields(x, u.Common))
	}
	var names []string
	for _, v := range u.Variants {
		names = append(names, v.Name)
		w.typing["Literal"] = true
		w.blank()
		w.line("class %s(%s):", v.Name, base)
		w.docstring("    ", v.Doc, capArticle(v.Name)+" "+v.Name+" is "+doctext.Article(u.Name)+" "+u.Name+".")
		w.line("")
		tag := tagLiteral(v.Tag)
		if disc := pyName(u.Discriminator); disc != u.Discriminator {
			w.pydantic["Field"] = true
			w.line("    %s: Literal[%s] = Field(default=%s, serialization_alias=%q)", disc, tag, tag, u.Discriminator)
		} else {
			w.line("    %s: Literal[%s] = %s", disc, tag, tag)
		}
		w.fields(wireFields(x, v.Fields))
	}
	w.typing["TypeAlias"] = true
	w.blank()
	if len(names) == 1 {
		w.line("%s: TypeAlias = %s", u.Name, names[0])
	} else {
		w.typing["Annotated"], w.pydantic["Field"] = true, true
		w.bracketed("", u.Name+": TypeAlias = Annotated[", []string{strings.Join(names, " | "), fmt.Sprintf("Field(discriminator=%q)", pyName(u.Discriminator))}, "]", "")
	}
	w.docstring("", u.Doc+fmt.Sprintf("\n\nIt is one of %s, told apart in JSON by %q.", strings.Join(names, ", "), u.Discriminator), "")
	w.blank()
	fn := "decode_" + snake(u.Name)
	w.line("def %s(data: str | bytes) -> %s:", fn, u.Name)
	w.docstring("    ", fmt.Sprintf("%s reads any %s as Go's Decode%s does, choosing the variant by %q: a missing tag is a DecodeError of kind missingField, an unknown one of kind unknownVariant.", fn, u.Name, u.Name, u.Discriminator), "")
	w.typing["Any"] = true
	var entries []string
	for _, v := range u.Variants {
		entries = append(entries, tagLiteral(v.Tag)+": "+v.Name)
	}
	w.bracketed("    ", "variants: dict[Any, type["+u.Name+"]] = {", entries, "}", "")
	w.line("    return %s(data, %q, %q, variants)", w.runtimeName("decode_union"), u.Name, u.Discriminator)
}

// tagLiteral is a variant's tag as a Python literal.
func tagLiteral(t gen.Tag) string {
	if t.Kind == gen.TagBool {
		if t.Bool {
			return "True"
		}
		return "False"
	}
	return strconv.Quote(t.String)
}

// defaults writes the defaults as constants: sizes in bytes, durations as
// timedeltas.
func (w *pyWriter) defaults() {
	w.typing["Final"] = true
	w.blank()
	for i, d := range gen.SortedBy(w.spec.Defaults, func(d *gen.Default) string { return d.GoName }) {
		if i > 0 {
			w.line("")
		}
		value, unit := strconv.FormatInt(d.Value, 10), ""
		switch d.Unit {
		case gen.UnitBytes:
			unit = "It is in bytes."
		case gen.UnitKiB:
			value, unit = value+" * 1024", "It is in bytes."
		case gen.UnitMiB:
			value, unit = value+" * 1024 * 1024", "It is in bytes."
		case gen.UnitMs:
			value = "timedelta(milliseconds=" + value + ")"
		case gen.UnitSeconds:
			value = "timedelta(seconds=" + value + ")"
		case gen.UnitMinutes:
			value = "timedelta(minutes=" + value + ")"
		}
		if d.Unit.Duration() {
			w.timedelta = true
		}
		name := upperSnake(d.GoName)
		w.line("%s: Final = %s", name, value)
		doc := doctext.Named(d.Doc, d.Name, name)
		if unit != "" {
			doc = strings.TrimSpace(doc + " " + unit)
		}
		w.docstring("", doc, name+" is a default.")
	}
}
