package typescript

import (
	"fmt"
	"strconv"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// facts writes the facts' part of the module: the wire type constants, an
// interface with its codec and envelope per live fact version, the
// FactEnvelope union, and decodeFact and encodeFact.
func (w *tsWriter) facts() {
	facts := gen.SortedBy(w.spec.Facts, func(f *gen.Fact) string { return f.Name })
	for _, f := range facts {
		w.constant(fmt.Sprintf("%sType is the wire type of %s facts.", f.GoName, f.GoName), f.GoName+"Type", "", strconv.Quote(f.Name))
	}
	var envelopes []string
	for _, f := range facts {
		for _, v := range f.LiveVersions() {
			w.factVersion(f, v)
			envelopes = append(envelopes, f.StructName(v)+"Envelope")
		}
	}
	w.factEnvelope(envelopes)
	w.decodeFact(facts)
	w.encodeFact(facts)
}

// factVersion writes the interface of a live fact version, its decoder and
// encoder, and its envelope.
func (w *tsWriter) factVersion(f *gen.Fact, v *gen.FactVersion) {
	name := f.StructName(v)
	doc := doctext.Named(f.Doc, f.Name, name)
	if v != f.Latest() {
		doc = fmt.Sprintf("%s is version %d of %s, still decoded. Go's DecodeFact upcasts it to %s with %s; decodeFact returns it as it is, and a TypeScript reader converts it itself.", name, v.Number, f.Name, f.GoName, v.Upcast.Name)
	}
	if v.Doc != "" {
		doc += "\n\n" + v.Doc
	}
	w.typeOnly(func() {
		w.line("")
		w.doc("", doc, "")
		w.line("export interface %s {", name)
		w.fieldsInterface(v.Fields)
		w.line("}")
	})
	w.decoder(name, nil, gen.WireFields(v.Fields))
	w.encoder(name, nil, gen.WireFields(v.Fields))
	w.typeOnly(func() {
		w.line("")
		w.doc("", fmt.Sprintf("%s %sEnvelope is a %s v%d fact as the journal stores it.", capArticle(name), name, f.Name, v.Number), "")
		w.line("export interface %sEnvelope {", name)
		w.line("  type: %q;", f.Name)
		w.line("  v: %d;", v.Number)
		w.line("  data: %s;", name)
		w.line("}")
	})
}

// factEnvelope writes FactEnvelope, the union of the envelopes.
func (w *tsWriter) factEnvelope(envelopes []string) {
	w.typeOnly(func() {
		w.line("")
		w.doc("", "A FactEnvelope is a fact as the journal stores it: its type, its version and its data. It is one of the versions the spec still decodes; retired versions and unknown types are refused.", "")
		w.line("export type FactEnvelope =")
		for i, e := range envelopes {
			end := ""
			if i == len(envelopes)-1 {
				end = ";"
			}
			w.line("  | %s%s", e, end)
		}
		if len(envelopes) == 0 {
			w.line("  never;")
		}
	})
}

// decodeFact writes decodeFact, which reads the envelope's keys as Go's
// codec does and then picks the version's decoder.
func (w *tsWriter) decodeFact(facts []*gen.Fact) {
	doc := "decodeFact reads an envelope written by Go's EncodeFact with this or an earlier spec. Data that is absent or null is a DecodeError of kind missingField, a type this spec does not decode one of kind unknownFact, and a known type at a version it does not decode (newer, or retired) one of kind unknownVersion."
	w.function(doc, true, "decodeFact", jsonParams, "FactEnvelope", func() {
		w.line("  const o = _obj(json, path, \"FactEnvelope\");")
		w.line("  let type = \"\";")
		w.line("  let v = 0;")
		w.line("  let data%s = undefined;", ty(": unknown"))
		w.line("  for (const k of Object.keys(o)) {")
		w.line("    const x = o[k];")
		w.line("    switch (k) {")
		w.line("      case \"type\":")
		w.line("        if (x !== null) type = _str(x, path, \"type\");")
		w.line("        continue;")
		w.line("      case \"v\":")
		w.line("        if (x !== null) v = _int(x, path, \"v\");")
		w.line("        continue;")
		w.line("      case \"data\":")
		w.line("        data = x;")
		w.line("        continue;")
		w.line("    }")
		w.line("    switch (_fold(k)) {")
		w.line("      case \"TYPE\":")
		w.line("      case \"V\":")
		w.line("      case \"DATA\":")
		w.line("        throw _ambiguous(path, \"FactEnvelope\", k, _fold(k).toLowerCase());")
		w.line("    }")
		w.line("  }")
		w.line("  if (data === undefined || data === null) throw _missing(path, \"FactEnvelope\", \"data\");")
		w.line("  const at = path + \".data\";")
		w.line("  switch (type) {")
		w.factCases(facts, "v",
			func(f *gen.Fact, v *gen.FactVersion) string { return "decode" + f.StructName(v) + "(data, at)" },
			func(f *gen.Fact) string {
				return fmt.Sprintf("throw new DecodeError(\"unknownVersion\", path + \".v\", `%s v${v} is not decoded by this build`);", f.Name)
			})
		w.line("  }")
		w.line("  throw new DecodeError(\"unknownFact\", path + \".type\", `unknown fact type ${JSON.stringify(type)}`);")
	})
}

// encodeFact writes encodeFact, which picks the version's encoder.
func (w *tsWriter) encodeFact(facts []*gen.Fact) {
	doc := "encodeFact writes an envelope as Go's EncodeFact does, {\"type\",\"v\",\"data\"}; Go's DecodeFact reads it."
	w.function(doc, true, "encodeFact", []tsParam{{name: "fact", typ: "FactEnvelope"}}, "JSONObject", func() {
		w.line("  switch (fact.type) {")
		w.factCases(facts, "fact.v",
			func(f *gen.Fact, v *gen.FactVersion) string { return "encode" + f.StructName(v) + "(fact.data)" },
			func(*gen.Fact) string { return "break;" })
		w.line("  }")
		w.line("  const { type, v } = fact%s;", ty(" as { type: unknown; v: unknown }"))
		w.line("  throw new EncodeError(\"unknownFact\", \"FactEnvelope\", `unknown fact ${JSON.stringify(type)} v${String(v)}`);")
	})
}

// factCases writes the cases of a switch on the fact type: for each fact
// with a live version, a switch on version (the expression given) whose
// cases return the envelope with the data that data converts, followed by
// the statement after, for a version it does not know.
func (w *tsWriter) factCases(facts []*gen.Fact, version string, data func(*gen.Fact, *gen.FactVersion) string, after func(*gen.Fact) string) {
	for _, f := range facts {
		live := f.LiveVersions()
		if len(live) == 0 {
			continue
		}
		w.line("    case %q:", f.Name)
		w.line("      switch (%s) {", version)
		for _, v := range live {
			w.line("        case %d:", v.Number)
			w.line("          return { type: %q, v: %d, data: %s };", f.Name, v.Number, data(f, v))
		}
		w.line("      }")
		w.line("      %s", after(f))
	}
}
