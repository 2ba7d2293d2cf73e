package python

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// facts writes the facts' part of a module: a model and an envelope per live
// fact version, FactEnvelope (discriminated on type, then on v) and
// decode_fact.
func (w *pyWriter) facts() {
	x := w.spec.Index()
	facts := gen.SortedBy(w.spec.Facts, func(f *gen.Fact) string { return f.Name })
	var members []string
	var table []string
	for _, f := range facts {
		var envelopes, versions []string
		for _, v := range f.LiveVersions() {
			w.factVersion(x, f, v)
			env := f.StructName(v) + "Envelope"
			envelopes = append(envelopes, env)
			versions = append(versions, fmt.Sprintf("%d: %s", v.Number, env))
		}
		switch len(envelopes) {
		case 0:
			continue
		case 1:
			members = append(members, envelopes[0])
		default:
			w.typing["Annotated"], w.pydantic["Field"] = true, true
			members = append(members, "Annotated["+strings.Join(envelopes, " | ")+`, Field(discriminator="v")]`)
		}
		table = append(table, fmt.Sprintf("%q: {%s}", f.Name, strings.Join(versions, ", ")))
	}
	if len(members) == 0 {
		return
	}
	w.typing["TypeAlias"] = true
	w.blank()
	if len(members) == 1 {
		w.line("FactEnvelope: TypeAlias = %s", members[0])
	} else {
		w.typing["Annotated"], w.pydantic["Field"] = true, true
		w.line("FactEnvelope: TypeAlias = Annotated[")
		if one := strings.Join(members, " | "); len(one)+5 <= 88 {
			w.line("    %s,", one)
		} else {
			for i, m := range members {
				lead, end := "    ", ""
				if i > 0 {
					lead = "    | "
				}
				if i == len(members)-1 {
					end = ","
				}
				if inner, ok := strings.CutPrefix(m, "Annotated["); ok && len(lead+m+end) > 88 {
					w.line("%sAnnotated[", lead)
					w.line("        %s", strings.TrimSuffix(inner, "]"))
					w.line("    ]%s", end)
					continue
				}
				w.line("%s%s%s", lead, m, end)
			}
		}
		w.line(`    Field(discriminator="type"),`)
		w.line("]")
	}
	w.docstring("", "A FactEnvelope is a fact as the journal stores it: its type, its version and its data. It is one of the versions the spec still decodes, told apart by type and then by v; retired versions and unknown types are refused.", "")
	w.blank()
	w.line("def decode_fact(data: str | bytes) -> FactEnvelope:")
	w.docstring("    ", "decode_fact reads an envelope written by Go's EncodeFact with this or an earlier spec, as Go's DecodeFact reads it, but keeps the version it read: Go upcasts an older one. Data that is absent or null is a DecodeError of kind missingField, a type this spec does not decode one of kind unknownFact, and a known type at a version it does not decode (newer, or retired) one of kind unknownVersion.", "")
	w.typing["Any"] = true
	w.line("    facts: dict[str, dict[Any, type[FactEnvelope]]] = {")
	for _, t := range table {
		w.line("        %s,", t)
	}
	w.line("    }")
	w.line("    return %s(data, facts)", w.runtimeName("decode_envelope"))
}

// factVersion writes the model of a live fact version and its envelope.
func (w *pyWriter) factVersion(x *gen.Index, f *gen.Fact, v *gen.FactVersion) {
	name := f.StructName(v)
	doc := doctext.Named(f.Doc, f.Name, name)
	if v != f.Latest() {
		doc = fmt.Sprintf("%s is version %d of %s, still decoded. Go's DecodeFact upcasts it to %s with %s; decode_fact returns it as it is, and a Python reader converts it itself.", name, v.Number, f.Name, f.GoName, v.Upcast.Name)
	}
	if v.Doc != "" {
		doc += "\n\n" + v.Doc
	}
	w.blank()
	w.line("class %s(%s):", name, w.runtimeName("Model"))
	w.docstring("    ", doc, capArticle(name)+" "+name+" is a fact.")
	w.fields(wireFields(x, v.Fields))
	w.typing["Literal"] = true
	w.blank()
	w.line("class %sEnvelope(%s):", name, w.runtimeName("Envelope"))
	w.docstring("    ", fmt.Sprintf("%s %sEnvelope is a %s v%d fact as the journal stores it.", capArticle(name), name, f.Name, v.Number), "")
	w.line("")
	w.line("    type: Literal[%q] = %q", f.Name, f.Name)
	w.line("    v: Literal[%d] = %d", v.Number, v.Number)
	w.line("    data: %s", name)
}
