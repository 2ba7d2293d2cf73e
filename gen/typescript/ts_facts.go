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
			if tsEnveloped(f, v) {
				envelopes = append(envelopes, f.StructName(v)+"Envelope")
			}
		}
	}
	w.upcasts()
	w.factEnvelope(envelopes)
	w.decodeFact(facts)
	w.readFact()
	w.encodeFact(facts)
}

// readFact writes readFact, decodeFact's tolerant reading mode (decision
// 0174).
func (w *tsWriter) readFact() {
	doc := "readFact is decodeFact's tolerant reading mode: a fact this build does not know (an unknown type or version, a union variant or an enum value it does not know) is returned as an UnknownFact holding the JSON as read, to be kept, counted and read around; any other refusal is damage and thrown as decodeFact throws it. A build writes only what it decodes strictly."
	w.function(doc, true, "readFact", jsonParams, "FactEnvelope | UnknownFact", func() {
		w.line("  try {")
		w.line("    return decodeFact(json, path);")
		w.line("  } catch (e) {")
		w.line("    const u = _tolerate(json, e);")
		w.line("    if (u === undefined) throw e;")
		w.line("    return u;")
		w.line("  }")
	})
}

// tsEnveloped reports whether decodeFact can return version v of f: the
// newest, or an older one that only a hand-written Go upcaster reads as the
// newest (decision 0173), which it returns marked goUpcast.
func tsEnveloped(f *gen.Fact, v *gen.FactVersion) bool {
	return v == f.Latest() || v.Upcast.Name != ""
}

// factVersion writes the interface of a live fact version, its decoder and
// encoder, and its envelope.
func (w *tsWriter) factVersion(f *gen.Fact, v *gen.FactVersion) {
	name := f.StructName(v)
	doc := doctext.Named(f.Doc, f.Name, name)
	switch {
	case v == f.Latest():
	case v.Upcast.Name != "":
		doc = fmt.Sprintf("%s is version %d of %s, still decoded. Go's DecodeFact upcasts it to %s with its hand-written %s, which TypeScript cannot run: decodeFact returns it as it is, marked goUpcast, and a TypeScript reader converts it itself.", name, v.Number, f.Name, f.GoName, v.Upcast.Name)
	default:
		doc = fmt.Sprintf("%s is version %d of %s, still decoded: decodeFact reads it and upcasts it as the spec derives each version from the one before, as Go's DecodeFact does.", name, v.Number, f.Name)
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
	if !tsEnveloped(f, v) {
		return
	}
	w.typeOnly(func() {
		w.line("")
		doc := fmt.Sprintf("%s %sEnvelope is a %s v%d fact as the journal stores it.", capArticle(name), name, f.Name, v.Number)
		if v != f.Latest() {
			doc += fmt.Sprintf(" Its goUpcast marks a version only Go's hand-written %s reads as the newest.", v.Upcast.Name)
		}
		w.doc("", doc, "")
		w.line("export interface %sEnvelope {", name)
		w.line("  type: %q;", f.Name)
		w.line("  v: %d;", v.Number)
		w.line("  data: %s;", name)
		if v != f.Latest() {
			w.line("  goUpcast: true;")
		}
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
	doc := "decodeFact reads an envelope written by Go's EncodeFact with this or an earlier spec, as Go's DecodeFact reads it: an older version is upcast to the newest as the spec derives each version from the one before (one only a hand-written Go upcaster reads is returned as it is, marked goUpcast). Data that is absent or null is a DecodeError of kind missingField, a type this spec does not decode one of kind unknownFact, and a known type at a version it does not decode (newer, or retired) one of kind unknownVersion."
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
		for _, f := range facts {
			live := f.LiveVersions()
			if len(live) == 0 {
				continue
			}
			w.line("    case %q:", f.Name)
			w.line("      switch (v) {")
			for _, v := range live {
				w.line("        case %d:", v.Number)
				w.line("          return %s;", w.upcastRead(f, v))
			}
			w.line("      }")
			w.line("      throw new DecodeError(\"unknownVersion\", path + \".v\", `%s v${v} is not decoded by this build`);", f.Name)
		}
		w.line("  }")
		w.line("  throw new DecodeError(\"unknownFact\", path + \".type\", `unknown fact type ${JSON.stringify(type)}`);")
	})
}

// encodeFact writes encodeFact, which picks the version's encoder.
func (w *tsWriter) encodeFact(facts []*gen.Fact) {
	doc := "encodeFact writes an envelope as Go's EncodeFact does, {\"type\",\"v\",\"data\"}; Go's DecodeFact reads it."
	w.function(doc, true, "encodeFact", []tsParam{{name: "fact", typ: "FactEnvelope"}}, "JSONObject", func() {
		w.line("  switch (fact.type) {")
		for _, f := range facts {
			var enveloped []*gen.FactVersion
			for _, v := range f.LiveVersions() {
				if tsEnveloped(f, v) {
					enveloped = append(enveloped, v)
				}
			}
			if len(enveloped) == 0 {
				continue
			}
			w.line("    case %q:", f.Name)
			w.line("      switch (fact.v) {")
			for _, v := range enveloped {
				w.line("        case %d:", v.Number)
				w.line("          return { type: %q, v: %d, data: encode%s(fact.data) };", f.Name, v.Number, f.StructName(v))
			}
			w.line("      }")
			w.line("      break;")
		}
		w.line("  }")
		w.line("  const { type, v } = fact%s;", ty(" as { type: unknown; v: unknown }"))
		w.line("  throw new EncodeError(\"unknownFact\", \"FactEnvelope\", `unknown fact ${JSON.stringify(type)} v${String(v)}`);")
	})
}

// upcastRead is the envelope decodeFact returns for version v of f, read
// from data at at: the newest version read as it is; an older one read
// strictly, encoded as Go writes it, upcast step by step and read as the
// version the steps reach, marked goUpcast when a hand-written Go upcaster
// goes on from there.
func (w *tsWriter) upcastRead(f *gen.Fact, v *gen.FactVersion) string {
	path := f.UpcastPath(v)
	data := "decode" + f.StructName(v) + "(data, at)"
	if len(path.Steps) > 0 {
		data = "encode" + f.StructName(v) + "(" + data + ")"
		for _, step := range path.Steps {
			data = tsUpcastFunc(step) + "(" + data + ")"
		}
		data = "decode" + f.StructName(path.Reached) + "(" + data + ", at)"
	}
	marker := ""
	if path.Upcast.Name != "" {
		marker = ", goUpcast: true"
	}
	return fmt.Sprintf("{ type: %q, v: %d, data: %s%s }", f.Name, path.Reached.Number, data, marker)
}
