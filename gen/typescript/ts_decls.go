package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// This file writes the declarations of a TypeScript module: ids, enums,
// records, unions and defaults, each with its codec.

// id writes an id as a branded string type and its decoder.
func (w *tsWriter) id(d *gen.ID) {
	w.typeOnly(func() {
		w.line("")
		w.doc("", d.Doc, capArticle(d.Name)+" "+d.Name+" is an identifier.")
		w.line("export type %s = string & { readonly __brand: %q };", d.Name, d.Name)
	})
	what := "any string"
	if d.Kind == gen.IDUUID {
		what = "a UUID in canonical form (8-4-4-4-12 lower-case hex digits), not the nil UUID"
	}
	doc := fmt.Sprintf("decode%s reads %s %s from JSON: %s. Null is the zero %s, as in Go.", d.Name, doctext.Article(d.Name), d.Name, what, d.Name)
	w.function(doc, true, "decode"+d.Name, jsonParams, d.Name, func() {
		w.line("  return %s;", w.element(gen.DeclaredType(d.Name, gen.DeclID), "json", "path", `""`))
	})
}

// enum writes an enum as a union of string literals, the list of its
// values, a type guard and a decoder.
func (w *tsWriter) enum(d *gen.Enum) {
	var lits []string
	for _, v := range d.Values {
		lits = append(lits, strconv.Quote(v.Value))
	}
	w.typeOnly(func() {
		w.line("")
		w.doc("", d.Doc, capArticle(d.Name)+" "+d.Name+" is one of a closed set of values.")
		if len(d.Values) == 1 {
			w.line("export type %s = %s;", d.Name, lits[0])
			return
		}
		w.line("export type %s =", d.Name)
		for i, v := range d.Values {
			end := ""
			if i == len(d.Values)-1 {
				end = ";"
			}
			if v.Doc != "" {
				w.doc("  ", v.Doc, "")
			}
			w.line("  | %s%s", strconv.Quote(v.Value), end)
		}
	})
	w.constant(fmt.Sprintf("%sValues is every %s, in declaration order.", d.Name, d.Name), d.Name+"Values", "readonly "+d.Name+"[]", "["+strings.Join(lits, ", ")+"]")
	w.function(fmt.Sprintf("is%s reports whether v is one of the declared %s values.", d.Name, d.Name), true, "is"+d.Name, []tsParam{{name: "v", typ: "unknown"}}, "v is "+d.Name, func() {
		w.line("  switch (v) {")
		for _, l := range lits {
			w.line("    case %s:", l)
		}
		w.line("      return true;")
		w.line("  }")
		w.line("  return false;")
	})
	doc := fmt.Sprintf("decode%s reads %s %s from JSON, refusing a value outside it. Null is the empty string, as in Go, although it is no %s.", d.Name, doctext.Article(d.Name), d.Name, d.Name)
	w.function(doc, true, "decode"+d.Name, jsonParams, d.Name, func() {
		w.line("  return %s;", w.element(gen.DeclaredType(d.Name, gen.DeclEnum), "json", "path", `""`))
	})
}

// fieldsInterface writes the members of an interface, one per wire field.
func (w *tsWriter) fieldsInterface(fields []*gen.Field) {
	for _, f := range gen.WireFields(fields) {
		if f.Doc != "" {
			w.doc("  ", f.Doc, "")
		}
		opt := ""
		if f.Optional {
			opt = "?"
		}
		w.line("  %s%s: %s;", f.JSON, opt, w.fieldType(f))
	}
}

// record writes a record as an interface, with its decoder and encoder.
func (w *tsWriter) record(r *gen.Record) {
	w.typeOnly(func() {
		w.line("")
		w.doc("", r.Doc, capArticle(r.Name)+" "+r.Name+" is a record.")
		if len(gen.WireFields(r.Fields)) == 0 {
			w.b.WriteString(comment("// No field of " + r.Name + " travels in JSON.\n"))
		}
		w.line("export interface %s {", r.Name)
		w.fieldsInterface(r.Fields)
		w.line("}")
	})
	w.decoder(r.Name, nil, gen.WireFields(r.Fields))
	w.encoder(r.Name, nil, gen.WireFields(r.Fields))
}

// fieldType is a field's TypeScript type: an enum field restricted to a
// machine's terminal states (terminal: true) holds only those.
func (w *tsWriter) fieldType(f *gen.Field) string {
	if f.TerminalOf() == nil {
		return w.tsType(f.Type)
	}
	var states []string
	for _, st := range f.TerminalOf().Terminal {
		states = append(states, strconv.Quote(st.Name))
	}
	return strings.Join(states, " | ")
}

// A tsDisc is the discriminator a variant's decoder checks and its encoder
// writes.
type tsDisc struct {
	json string
	lit  string // the tag as a TypeScript literal: "opened", true
	kind gen.TagKind
}

// tsTagLit is a variant's tag as a TypeScript literal.
func tsTagLit(t gen.Tag) string {
	if t.Kind == gen.TagBool {
		return strconv.FormatBool(t.Bool)
	}
	return strconv.Quote(t.String)
}

// union writes a union as the union of its variants' interfaces, the
// interface of its common fields, each variant with its codec, and the
// decoder and encoder that pick the variant by its discriminator.
func (w *tsWriter) union(u *gen.Union) {
	var names []string
	for _, v := range u.Variants {
		names = append(names, v.Name)
	}
	extends := ""
	if len(u.Common) > 0 {
		extends = " extends " + u.CommonName()
	}
	w.typeOnly(func() {
		w.line("")
		w.doc("", u.Doc+fmt.Sprintf("\n\nIt is one of %s, told apart in JSON by %q.", strings.Join(names, ", "), u.Discriminator), "")
		w.line("export type %s = %s;", u.Name, strings.Join(names, " | "))
		if len(u.Common) > 0 {
			w.line("")
			w.doc("", fmt.Sprintf("%s holds the fields every %s carries.", u.CommonName(), u.Name), "")
			w.line("export interface %s {", u.CommonName())
			w.fieldsInterface(u.Common)
			w.line("}")
		}
	})
	for _, v := range u.Variants {
		w.typeOnly(func() {
			w.line("")
			w.doc("", v.Doc, capArticle(v.Name)+" "+v.Name+" is "+doctext.Article(u.Name)+" "+u.Name+".")
			w.line("export interface %s%s {", v.Name, extends)
			w.line("  %s: %s;", u.Discriminator, tsTagLit(v.Tag))
			w.fieldsInterface(v.Fields)
			w.line("}")
		})
		disc := &tsDisc{json: u.Discriminator, lit: tsTagLit(v.Tag), kind: v.Tag.Kind}
		w.decoder(v.Name, disc, gen.WireFields(u.Common, v.Fields))
		w.encoder(v.Name, disc, gen.WireFields(u.Common, v.Fields))
	}
	w.unionDecoder(u)
	w.unionEncoder(u)
}

// unionDecoder writes decode<Union>, which probes the discriminator alone
// first, as DecodeX does, and hands the object to its variant's decoder.
func (w *tsWriter) unionDecoder(u *gen.Union) {
	disc := u.Discriminator
	doc := fmt.Sprintf("decode%s reads any %s, choosing the variant by %q; an unknown value is a DecodeError of kind unknownVariant.", u.Name, u.Name, disc)
	w.function(doc, true, "decode"+u.Name, jsonParams, u.Name, func() {
		w.line("  const o = _obj(json, path, %q, false);", u.Name)
		w.line("  let tag%s = undefined;", ty(": unknown"))
		w.line("  for (const k of Object.keys(o)) {")
		w.line("    if (k.length === %d && k !== %q && _fold(k) === %q) throw _ambiguous(path, %q, k, %q);", len(disc), disc, tsFold(disc), u.Name, disc)
		w.line("    if (k === %q) {", disc)
		w.line("      const v = o[k];")
		w.line("      tag = v === null ? undefined : %s(v, path, %q);", tsDiscReaders[u.Variants[0].Tag.Kind], disc)
		w.line("    }")
		w.line("  }")
		w.line("  switch (tag) {")
		for _, v := range u.Variants {
			w.line("    case %s:", tsTagLit(v.Tag))
			w.line("      return decode%s(json, path);", v.Name)
		}
		w.line("  }")
		w.line("  if (path === \"$\") _nesting(o);")
		w.line("  if (tag === undefined) throw _missing(path, %q, %q);", u.Name, disc)
		w.line("  throw new DecodeError(\"unknownVariant\", _at(path, %q), `%s: unknown %s ${JSON.stringify(tag)}`);", disc, u.Name, disc)
	})
}

// unionEncoder writes encode<Union>, which hands the value to its
// variant's encoder.
func (w *tsWriter) unionEncoder(u *gen.Union) {
	disc := u.Discriminator
	doc := fmt.Sprintf("encode%s writes any %s as JSON, with %q naming its variant.", u.Name, u.Name, disc)
	w.function(doc, true, "encode"+u.Name, []tsParam{{name: "value", typ: u.Name}}, "JSONObject", func() {
		w.line("  switch (value.%s) {", disc)
		for _, v := range u.Variants {
			w.line("    case %s:", tsTagLit(v.Tag))
			w.line("      return encode%s(value);", v.Name)
		}
		w.line("  }")
		w.line("  throw new EncodeError(\"unknownVariant\", %q, `unknown %s ${JSON.stringify((value%s).%s)}`);", u.Name+"."+disc, disc, ty(" as { "+disc+": unknown }"), disc)
	})
}

// defaults writes the defaults as number constants, sizes in bytes and
// durations in milliseconds.
func (w *tsWriter) defaults() {
	for _, d := range gen.SortedBy(w.spec.Defaults, func(d *gen.Default) string { return d.GoName }) {
		value, unit := d.Value, ""
		switch d.Unit {
		case gen.UnitKiB:
			value, unit = d.Value*1024, "It is in bytes."
		case gen.UnitMiB:
			value, unit = d.Value*1024*1024, "It is in bytes."
		case gen.UnitMs:
			unit = "It is in milliseconds."
		case gen.UnitSeconds:
			value, unit = d.Value*1000, "It is in milliseconds."
		case gen.UnitMinutes:
			value, unit = d.Value*60000, "It is in milliseconds."
		}
		doc := doctext.Named(d.Doc, d.Name, d.GoName)
		if unit != "" {
			doc = strings.TrimSpace(doc + " " + unit)
		}
		if strings.TrimSpace(doc) == "" {
			doc = d.GoName + " is a default."
		}
		w.constant(doc, d.GoName, "", strconv.FormatInt(value, 10))
	}
}
