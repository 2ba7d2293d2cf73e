package python

import (
	"fmt"
	"strconv"
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
	var table []pyFactTable
	for _, f := range facts {
		var envelopes, versions []string
		for _, v := range f.LiveVersions() {
			w.factVersion(x, f, v)
			env := f.StructName(v) + "Envelope"
			if pyEnveloped(f, v) {
				envelopes = append(envelopes, env)
			}
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
		table = append(table, pyFactTable{strconv.Quote(f.Name), versions})
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
	w.upcasts()
	w.decodeFact(facts, table)
	w.readFact()
}

// decodeFact writes decode_fact over table, the envelope of each version of
// each fact, upcasting through _newest when some older version is upcast.
func (w *pyWriter) decodeFact(facts []*gen.Fact, table []pyFactTable) {
	upcast := w.hasUpcasts(facts)
	w.blank()
	w.line("def decode_fact(data: str | bytes) -> FactEnvelope:")
	w.docstring("    ", "decode_fact reads an envelope written by Go's EncodeFact with this or an earlier spec, as Go's DecodeFact reads it: an older version is upcast to the newest as the spec derives each version from the one before (one only a hand-written Go upcaster reads is returned as it is, a runtime.GoUpcast). Data that is absent or null is a DecodeError of kind missingField, a type this spec does not decode one of kind unknownFact, and a known type at a version it does not decode (newer, or retired) one of kind unknownVersion.", "")
	w.typing["Any"] = true
	envelope := "FactEnvelope"
	if upcast {
		envelope = w.runtimeName("Envelope")
	}
	w.line("    facts: dict[str, dict[Any, type[%s]]] = {", envelope)
	for _, t := range table {
		if one := "        " + t.name + ": {" + strings.Join(t.versions, ", ") + "},"; len(one) <= 88 {
			w.line("%s", one)
			continue
		}
		w.line("        %s: {", t.name) // a dict display black splits: one entry a line
		for _, v := range t.versions {
			w.line("            %s,", v)
		}
		w.line("        },")
	}
	w.line("    }")
	if !upcast {
		w.line("    return %s(data, facts)", w.runtimeName("decode_envelope"))
	} else {
		w.line("    return _newest(%s(data, facts))", w.runtimeName("decode_envelope"))
		w.newest(facts)
	}
}

// readFact writes read_fact, decode_fact's tolerant reading mode (decision
// 0174).
func (w *pyWriter) readFact() {
	unknown := w.runtimeName("UnknownFact")
	w.blank()
	w.line("def read_fact(data: str | bytes) -> FactEnvelope | %s:", unknown)
	w.docstring("    ", "read_fact is decode_fact's tolerant reading mode: a fact this build does not know (an unknown type or version, a union variant or an enum value it does not know) is returned as a runtime.UnknownFact holding its bytes as read, to be kept, counted and read around; any other refusal is damage and raised as decode_fact raises it. A build writes only what it decodes strictly.", "")
	w.line("    try:")
	w.line("        return decode_fact(data)")
	w.line("    except %s as e:", w.runtimeName("DecodeError"))
	w.line("        u = %s(data, e)", w.runtimeName("tolerate"))
	w.line("        if u is None:")
	w.line("            raise")
	w.line("        return u")
}

// A pyFactTable is one fact's entry in decode_fact's table: its type, and
// "N: Envelope" for each version.
type pyFactTable struct {
	name     string
	versions []string
}

// pyEnveloped reports whether decode_fact can return version v of f: the
// newest, or an older one that only a hand-written Go upcaster reads as the
// newest (decision 0173), whose envelope is a runtime.GoUpcast.
func pyEnveloped(f *gen.Fact, v *gen.FactVersion) bool {
	return v == f.Latest() || v.Upcast.Name != ""
}

// hasUpcasts reports whether an older version of any fact is upcast in
// Python: one whose upcast path has a declared step.
func (w *pyWriter) hasUpcasts(facts []*gen.Fact) bool {
	for _, f := range facts {
		for _, v := range f.LiveVersions() {
			if len(f.UpcastPath(v).Steps) > 0 {
				return true
			}
		}
	}
	return false
}

// newest writes _newest, which upcasts the envelope decode_envelope read to
// the newest version (or the version a hand-written Go upcaster goes on
// from), each older version through the steps of its upcast path.
func (w *pyWriter) newest(facts []*gen.Fact) {
	env := w.runtimeName("Envelope")
	w.blank()
	w.line("def _newest(fact: %s) -> FactEnvelope:", env)
	w.docstring("    ", "Return fact, read at any version decode_fact reads, as the version decode_fact returns.", "")
	for _, f := range facts {
		for _, v := range f.LiveVersions() {
			path := f.UpcastPath(v)
			if len(path.Steps) == 0 {
				continue
			}
			w.line("    if isinstance(fact, %sEnvelope):", f.StructName(v))
			w.line("        tree = %s(fact.data)", w.runtimeName("json_tree"))
			for _, st := range path.Steps {
				w.line("        tree = %s(tree)", pyUpcastFunc(st))
			}
			w.line("        return %s(%sEnvelope, tree)", w.runtimeName("upcast"), f.StructName(path.Reached))
		}
	}
	w.typing["cast"] = true
	w.line("    return cast(FactEnvelope, fact)")
}

// factVersion writes the model of a live fact version and its envelope.
func (w *pyWriter) factVersion(x *gen.Index, f *gen.Fact, v *gen.FactVersion) {
	name := f.StructName(v)
	doc := doctext.Named(f.Doc, f.Name, name)
	switch {
	case v == f.Latest():
	case v.Upcast.Name != "":
		doc = fmt.Sprintf("%s is version %d of %s, still decoded. Go's DecodeFact upcasts it to %s with its hand-written %s, which Python cannot run: decode_fact returns it as it is, in a runtime.GoUpcast envelope, and a Python reader converts it itself.", name, v.Number, f.Name, f.GoName, v.Upcast.Name)
	default:
		doc = fmt.Sprintf("%s is version %d of %s, still decoded: decode_fact reads it and upcasts it as the spec derives each version from the one before, as Go's DecodeFact does.", name, v.Number, f.Name)
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
	if v != f.Latest() && v.Upcast.Name != "" {
		w.line("class %sEnvelope(%s, %s):", name, w.runtimeName("Envelope"), w.runtimeName("GoUpcast"))
	} else {
		w.line("class %sEnvelope(%s):", name, w.runtimeName("Envelope"))
	}
	w.docstring("    ", fmt.Sprintf("%s %sEnvelope is a %s v%d fact as the journal stores it.", capArticle(name), name, f.Name, v.Number), "")
	w.line("")
	w.line("    type: Literal[%q] = %q", f.Name, f.Name)
	w.line("    v: Literal[%d] = %d", v.Number, v.Number)
	w.line("    data: %s", name)
}
