package typescript

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// decoder writes decodeNAME, which reads a record, variant or fact version
// as Go's UnmarshalJSON does: a local per field, a pass over the object's
// keys, the checks Go makes after it, and the value built from the locals.
// disc is the discriminator a variant's decoder checks, nil for the others.
func (w *tsWriter) decoder(name string, disc *tsDisc, fields []*gen.Field) {
	what := "refusing input that lacks a required field"
	if disc != nil {
		what = fmt.Sprintf("refusing another variant's %s or a missing required field", disc.json)
	}
	doc := fmt.Sprintf("decode%s reads %s %s from JSON as Go's decoder does, %s.", name, doctext.Article(name), name, what)
	w.function(doc, true, "decode"+name, jsonParams, name, func() {
		if len(fields) == 0 && disc == nil {
			w.line("  _obj(json, path, %q);", name)
			w.line("  return {};")
			return
		}
		w.line("  const o = _obj(json, path, %q);", name)
		w.decoderLocals(disc, fields)
		w.decoderKeys(name, disc, fields)
		w.decoderChecks(name, disc, fields)
		w.decoderResult(name, disc, fields)
	})
}

// tsDiscTypes are the TypeScript types of a discriminator's values, and
// tsDiscReaders the runtime functions that read them.
var (
	tsDiscTypes   = map[gen.TagKind]string{gen.TagString: "string", gen.TagBool: "boolean"}
	tsDiscReaders = map[gen.TagKind]string{gen.TagString: "_str", gen.TagBool: "_bool"}
)

// decoderLocals declares the decoder's variable for the discriminator and
// each field; a required field's holds its element, undefined until read.
func (w *tsWriter) decoderLocals(disc *tsDisc, fields []*gen.Field) {
	if disc != nil {
		w.line("  let f_%s%s;", disc.json, ty(": "+tsDiscTypes[disc.kind]+" | undefined"))
	}
	for _, f := range fields {
		t := f.Type
		if gen.WireRequired(f) && t.Kind == gen.TypePointer {
			t = t.Elem
		}
		w.line("  let %s%s;", local(f), ty(": "+w.tsType(t)+" | undefined"))
	}
}

// decoderKeys writes the pass over the object's keys. A key is a field's
// name exactly; one that folds to a field's name without being it is
// refused, as Go's codec.CheckKeys refuses a key that differs from a
// field's name only in case.
func (w *tsWriter) decoderKeys(name string, disc *tsDisc, fields []*gen.Field) {
	w.line("  for (const k of Object.keys(o)) {")
	w.line("    const v = o[k];")
	w.line("    switch (k) {")
	var names []string
	if disc != nil {
		w.line("      case %q:", disc.json)
		w.line("        f_%s = v === null ? undefined : %s(v, path, %q);", disc.json, tsDiscReaders[disc.kind], disc.json)
		w.line("        continue;")
		names = append(names, disc.json)
	}
	for _, f := range fields {
		w.line("      case %q:", f.JSON)
		w.line("        %s", w.slot(f))
		w.line("        continue;")
		names = append(names, f.JSON)
	}
	w.line("    }")
	w.line("    switch (_fold(k)) {")
	seen := map[string]bool{}
	for _, n := range names {
		if seen[tsFold(n)] {
			continue
		}
		seen[tsFold(n)] = true
		w.line("      case %q:", tsFold(n))
		w.line("        throw _ambiguous(path, %q, k, %q);", name, n)
	}
	w.line("    }")
	w.line("  }")
}

// decoderChecks writes what Go checks once every key is read: the
// discriminator present and this variant's, the required fields present,
// a terminal-state field holding a terminal state, and a bounded field
// within its bounds.
func (w *tsWriter) decoderChecks(name string, disc *tsDisc, fields []*gen.Field) {
	if disc != nil {
		w.line("  if (f_%s === undefined) throw _missing(path, %q, %q);", disc.json, name, disc.json)
		w.line("  if (f_%s !== %s) {", disc.json, disc.lit)
		w.line("    throw new DecodeError(\"invalidValue\", path + %q, %q + JSON.stringify(f_%s) + %q);", "."+disc.json, name+": "+disc.json+" is ", disc.json, ", want "+disc.lit)
		w.line("  }")
	}
	for _, f := range fields {
		if gen.WireRequired(f) {
			w.line("  if (%s === undefined) throw _missing(path, %q, %q);", local(f), name, f.JSON)
		}
	}
	for _, f := range fields {
		if f.TerminalOf() == nil {
			continue
		}
		var conds, states []string
		for _, st := range f.TerminalOf().Terminal {
			conds = append(conds, fmt.Sprintf("%s !== %q", local(f), st.Name))
			states = append(states, st.Name)
		}
		w.line("  if (%s !== undefined && %s) {", local(f), strings.Join(conds, " && "))
		w.line("    throw new DecodeError(\"invalidEnum\", path + %q, %q + JSON.stringify(%s) + %q);", "."+f.JSON, name+": "+f.JSON+" ", local(f), " is not a terminal state of "+f.TerminalOf().Name+" ("+strings.Join(states, ", ")+")")
		w.line("  }")
	}
	for _, f := range fields {
		w.boundChecks(name, f)
	}
}

// boundChecks writes what Go checks of a bounded field (decision 0208): a
// number within its min and max, a string of at most maxLength characters
// (code points, as Go counts runes). A bound the field's type keeps by
// itself is not checked, as Go does not check it.
func (w *tsWriter) boundChecks(name string, f *gen.Field) {
	check := func(cond, why string) {
		w.line("  if (%s !== undefined && %s) {", local(f), cond)
		w.line("    throw new DecodeError(\"invalidValue\", path + %q, %q + %s + %q);", "."+f.JSON, name+": "+f.JSON+" ", local(f), why)
		w.line("  }")
	}
	if b := f.CheckedMin(); b != nil {
		check(fmt.Sprintf("%s < %d", local(f), b.Value), fmt.Sprintf(" is below its minimum %d", b.Value))
	}
	if b := f.CheckedMax(); b != nil {
		check(fmt.Sprintf("%s > %d", local(f), b.Value), fmt.Sprintf(" is above its maximum %d", b.Value))
	}
	if b := f.MaxLength; b != nil {
		w.line("  if (%s !== undefined && [...%s].length > %d) {", local(f), local(f), b.Value)
		w.line("    throw new DecodeError(\"invalidValue\", path + %q, %q + [...%s].length + %q);", "."+f.JSON, name+": "+f.JSON+" has ", local(f), fmt.Sprintf(" characters, more than its maximum %d", b.Value))
		w.line("  }")
	}
}

// decoderResult writes the value built from the locals: a collection Go
// leaves nil is empty, and an optional field is set only when present.
func (w *tsWriter) decoderResult(name string, disc *tsDisc, fields []*gen.Field) {
	var members []string
	if disc != nil {
		members = append(members, disc.json+": "+disc.lit)
	}
	for _, f := range fields {
		switch {
		case gen.WireRequired(f):
			members = append(members, f.JSON+": "+local(f))
		case !f.Optional && f.Type.Kind == gen.TypeMap:
			members = append(members, f.JSON+": "+local(f)+" ?? {}")
		case !f.Optional:
			members = append(members, f.JSON+": "+local(f)+" ?? []")
		}
	}
	w.line("  const out%s = { %s };", ty(": "+name), strings.Join(members, ", "))
	for _, f := range fields {
		if f.Optional {
			w.line("  if (%s) out.%s = %s;", w.present(f.Type, local(f)), f.JSON, local(f))
		}
	}
	w.line("  return out;")
}
