package gen

// The loader's readers of each declaration: one method a section entry
// (an id, an enum, a record …), built on the YAML helpers in load.go.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// need returns m's entry under key. When there is none it reports, at the
// node at, that what is missing the key, with hint (when given) saying what
// the key holds.
func (l *loader) need(m map[string]entry, key string, at *yaml.Node, what, hint string) (entry, bool) {
	e, ok := m[key]
	if !ok {
		if hint != "" {
			hint = " (" + hint + ")"
		}
		l.add(at, "%s: missing key %s%s", what, key, hint)
	}
	return e, ok
}

// pkg reads the package section.
func (l *loader) pkg(e entry) Package {
	m := l.object(e.val, "package", "name", "path", "doc", "sources")
	p := Package{Pos: l.pos(e.keyNode), Doc: l.doc(m, "package")}
	if n, ok := l.need(m, "name", e.keyNode, "package", ""); ok {
		p.Name, _ = l.str(n.val, "package.name")
		p.Pos = l.pos(n.val)
	}
	if n, ok := m["path"]; ok {
		p.Path, _ = l.str(n.val, "package.path")
	}
	if n, ok := m["sources"]; ok {
		p.Sources = l.refs(n.val, "package.sources")
	}
	return p
}

// allowances reads allow_breaking: a list of {rule, path, reason}.
func (l *loader) allowances(n *yaml.Node) []*Allowance {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.add(n, "allow_breaking: expected a list of {rule, path, reason}, found %s", kindName(n))
		return nil
	}
	var out []*Allowance
	for _, item := range n.Content {
		item = resolve(item)
		const what = "allow_breaking"
		m := l.object(item, what, "rule", "path", "reason")
		a := &Allowance{Pos: l.pos(item)}
		for _, key := range []string{"rule", "path", "reason"} {
			if item.Kind == yaml.MappingNode {
				l.need(m, key, item, what, "")
			}
		}
		if e, ok := m["rule"]; ok {
			a.Rule = l.ref(e.val, what+".rule")
		}
		if e, ok := m["path"]; ok {
			a.Path, _ = l.str(e.val, what+".path")
			a.PathPos = l.pos(e.val)
		}
		if e, ok := m["reason"]; ok {
			if s, ok := l.str(e.val, what+".reason"); ok {
				a.Reason = strings.TrimSpace(s)
				if a.Reason == "" {
					l.add(e.val, "%s.reason: say why the break is intended; a reason must not be empty", what)
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// id reads one id: its kind, uuid or string.
func (l *loader) id(e entry) *ID {
	what := "ids." + e.key
	m := l.object(e.val, what, "kind", "doc")
	id := &ID{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	k, ok := l.need(m, "kind", e.keyNode, what, "uuid or string")
	if !ok {
		return id
	}
	if s, ok := l.str(k.val, what+".kind"); ok {
		switch IDKind(s) {
		case IDUUID, IDString:
			id.Kind = IDKind(s)
		default:
			l.add(k.val, "%s.kind: unknown kind %s; use uuid or string%s", what, s, didYouMean(s, []string{"uuid", "string"}))
		}
	}
	return id
}

// enum reads one enum and its values, each with its Go constant name.
func (l *loader) enum(e entry) *Enum {
	what := "enums." + e.key
	m := l.object(e.val, what, "values", "doc")
	en := &Enum{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	vals, ok := l.need(m, "values", e.keyNode, what, "")
	if !ok {
		return en
	}
	for _, v := range l.entries(vals.val, what+".values") {
		vwhat := what + ".values." + v.key
		ev := &EnumValue{Value: v.key, Pos: l.pos(v.keyNode)}
		if v.keyNode.Tag != "!!str" {
			l.add(v.keyNode, "%s: enum value %s is read as %s; quote it", what, v.key, strings.TrimPrefix(v.keyNode.Tag, "!!"))
		}
		vm := l.object(v.val, vwhat, "doc", "go")
		ev.Doc = l.doc(vm, vwhat)
		ev.GoName = e.key + GoName(v.key)
		if g, ok := vm["go"]; ok {
			if s, ok := l.str(g.val, vwhat+".go"); ok {
				ev.GoName = s
			}
		}
		en.Values = append(en.Values, ev)
	}
	return en
}

// fields reads a field list: each key is a field, each value either a type
// expression or a mapping with type, optional, doc, json, go, terminal, the
// derivation keys from, default and map, the bounds min, max and maxLength
// (and since, in facts).
func (l *loader) fields(n *yaml.Node, what string, inFact bool) []*Field {
	var out []*Field
	keys := append(append([]string{"type", "optional", "doc", "json", "go", "terminal"}, derivationKeys...), boundKeys...)
	if inFact {
		keys = append(keys, "since")
	}
	for _, e := range l.entries(n, what) {
		fwhat := what + "." + e.key
		f := &Field{Name: e.key, JSON: e.key, GoName: GoName(e.key), Pos: l.pos(e.keyNode)}
		val := resolve(e.val)
		switch {
		case val.Kind == yaml.ScalarNode && val.Tag == "!!str":
			if f.Type = parseType(val, l.file, l.types, &l.errs); f.Type != nil {
				out = append(out, f)
			}
			continue
		case val.Kind == yaml.SequenceNode:
			l.add(val, "%s: a list type must be quoted: write \"[]%s\"", fwhat, seqHint(val))
			continue
		case val.Kind != yaml.MappingNode:
			l.add(val, "%s: expected a type such as string, or a mapping with a type key, found %s", fwhat, describe(val))
			continue
		}
		m := l.object(val, fwhat, keys...)
		f.Doc = l.doc(m, fwhat)
		if t, ok := l.need(m, "type", e.keyNode, fwhat, ""); ok {
			tv := resolve(t.val)
			if tv.Kind == yaml.SequenceNode {
				l.add(tv, "%s.type: a list type must be quoted: write \"[]%s\"", fwhat, seqHint(tv))
			} else if _, ok := l.str(tv, fwhat+".type"); ok {
				f.Type = parseType(tv, l.file, l.types, &l.errs)
			}
		}
		if o, ok := m["optional"]; ok {
			f.Optional, _ = l.boolean(o.val, fwhat+".optional")
		}
		if t, ok := m["terminal"]; ok {
			f.Terminal, _ = l.boolean(t.val, fwhat+".terminal")
			f.TerminalPos = l.pos(resolve(t.val))
		}
		if j, ok := m["json"]; ok {
			if s, ok := l.str(j.val, fwhat+".json"); ok {
				f.JSON = s
			}
		}
		if g, ok := m["go"]; ok {
			if s, ok := l.str(g.val, fwhat+".go"); ok {
				f.GoName = s
			}
		}
		l.derivation(m, f, fwhat)
		l.bounds(m, f, fwhat)
		if s, ok := m["since"]; ok {
			f.SincePos = l.pos(s.val)
			sv := resolve(s.val)
			if v, ok := versionNumber(sv.Value); ok && sv.Kind == yaml.ScalarNode {
				f.Since = v
			} else if n, err := strconv.Atoi(sv.Value); err == nil && n > 0 && sv.Tag == "!!int" {
				f.Since = n
			} else {
				l.add(sv, "%s.since: %s is not a version; write v1, v2 …", fwhat, describe(sv))
			}
		}
		if f.Type != nil {
			out = append(out, f)
		}
	}
	return out
}

// seqHint is the element type a YAML list written as a type holds, or T,
// for the fix that quotes it.
func seqHint(n *yaml.Node) string {
	if len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode {
		return n.Content[0].Value
	}
	return "T"
}

// versionNumber reads a fact version key, v1, v2 …, as its number.
func versionNumber(s string) (int, bool) {
	if !strings.HasPrefix(s, "v") {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 1 || "v"+strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// record reads one record and its fields.
func (l *loader) record(e entry) *Record {
	what := "records." + e.key
	m := l.object(e.val, what, "fields", "doc", "from", "drop")
	r := &Record{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what), Drop: l.drops(m, what)}
	if f, ok := m["from"]; ok {
		r.From = l.ref(f.val, what+".from")
	}
	if f, ok := m["fields"]; ok {
		r.Fields = l.fields(f.val, what+".fields", false)
	}
	return r
}

// union reads one union: its discriminator, common fields and variants.
func (l *loader) union(e entry) *Union {
	what := "unions." + e.key
	m := l.object(e.val, what, "discriminator", "common", "variants", "doc", "from")
	u := &Union{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if f, ok := m["from"]; ok {
		u.From = l.ref(f.val, what+".from")
	}
	if d, ok := l.need(m, "discriminator", e.keyNode, what, "the JSON field that tells variants apart"); ok {
		u.Discriminator, _ = l.str(d.val, what+".discriminator")
		u.DiscPos = l.pos(d.val)
	}
	if c, ok := m["common"]; ok {
		u.Common = l.fields(c.val, what+".common", false)
	}
	vs, ok := l.need(m, "variants", e.keyNode, what, "")
	if !ok {
		return u
	}
	for _, v := range l.entries(vs.val, what+".variants") {
		vwhat := what + ".variants." + v.key
		vm := l.object(v.val, vwhat, "tag", "fields", "doc", "added", "drop")
		variant := &Variant{Name: v.key, Pos: l.pos(v.keyNode), Doc: l.doc(vm, vwhat), Drop: l.drops(vm, vwhat)}
		if a, ok := vm["added"]; ok {
			variant.Added, _ = l.boolean(a.val, vwhat+".added")
			variant.AddedPos = l.pos(resolve(a.val))
		}
		if t, ok := l.need(vm, "tag", v.keyNode, vwhat, "the variant's discriminator value"); ok {
			tn := resolve(t.val)
			variant.Tag.Pos = l.pos(tn)
			switch {
			case tn.Kind == yaml.ScalarNode && tn.Tag == "!!str":
				variant.Tag.Kind, variant.Tag.String = TagString, tn.Value
			case tn.Kind == yaml.ScalarNode && tn.Tag == "!!bool":
				variant.Tag.Kind, variant.Tag.Bool = TagBool, tn.Value == "true"
			default:
				l.add(tn, "%s.tag: expected a string or true/false, found %s", vwhat, describe(tn))
			}
		}
		if f, ok := vm["fields"]; ok {
			variant.Fields = l.fields(f.val, vwhat+".fields", false)
		}
		u.Variants = append(u.Variants, variant)
	}
	return u
}

// face reads one face: its embeds and its methods, each a func type.
func (l *loader) face(e entry) *Face {
	what := "faces." + e.key
	m := l.object(e.val, what, "embeds", "methods", "doc")
	f := &Face{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if em, ok := m["embeds"]; ok {
		f.Embeds = l.refs(em.val, what+".embeds")
	}
	if ms, ok := m["methods"]; ok {
		for _, me := range l.entries(ms.val, what+".methods") {
			mwhat := what + ".methods." + me.key
			method := &Method{Name: me.key, Pos: l.pos(me.keyNode)}
			val := resolve(me.val)
			var typeNode *yaml.Node
			if val.Kind != yaml.MappingNode {
				typeNode = val
			} else {
				mm := l.object(val, mwhat, "type", "doc")
				method.Doc = l.doc(mm, mwhat)
				if t, ok := l.need(mm, "type", me.keyNode, mwhat, "a func type such as \"func(detail string)\""); ok {
					typeNode = resolve(t.val)
				}
			}
			if typeNode != nil {
				if _, ok := l.str(typeNode, mwhat+".type"); ok {
					method.Type = parseType(typeNode, l.file, l.types, &l.errs)
					if method.Type != nil && method.Type.Kind != TypeFunc {
						l.add(typeNode, "%s.type: a method needs a func type, found %s", mwhat, method.Type)
						method.Type = nil
					}
				}
			}
			if method.Type != nil {
				f.Methods = append(f.Methods, method)
			}
		}
	}
	return f
}

// machine reads one machine: its states enum, initial and terminal states
// and transitions.
func (l *loader) machine(e entry) *Machine {
	what := "machines." + e.key
	m := l.object(e.val, what, "states", "initial", "terminal", "transitions", "doc")
	mc := &Machine{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	for _, key := range []string{"states", "initial", "terminal", "transitions"} {
		l.need(m, key, e.keyNode, what, "")
	}
	if s, ok := m["states"]; ok {
		mc.States = l.ref(s.val, what+".states")
	}
	if s, ok := m["initial"]; ok {
		mc.Initial = l.ref(s.val, what+".initial")
	}
	if s, ok := m["terminal"]; ok {
		mc.Terminal = l.refs(s.val, what+".terminal")
	}
	if s, ok := m["transitions"]; ok {
		for _, t := range l.entries(s.val, what+".transitions") {
			mc.Transitions = append(mc.Transitions, &Transition{
				From: Ref{Name: t.key, Pos: l.pos(t.keyNode)},
				To:   l.refs(t.val, what+".transitions."+t.key),
			})
		}
	}
	return mc
}

// fact reads one fact: its reserved names and versions, sorted by number.
func (l *loader) fact(e entry) *Fact {
	what := "facts." + e.key
	m := l.object(e.val, what, "versions", "reserved", "doc")
	f := &Fact{Name: e.key, GoName: GoName(e.key), Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if r, ok := m["reserved"]; ok {
		f.Reserved = l.refs(r.val, what+".reserved")
	}
	vs, ok := l.need(m, "versions", e.keyNode, what, "write versions: {v1: {fields: …}}")
	if !ok {
		return f
	}
	for _, v := range l.entries(vs.val, what+".versions") {
		vwhat := what + ".versions." + v.key
		n, ok := versionNumber(v.key)
		if !ok {
			l.add(v.keyNode, "%s: version %s must be written v1, v2 …", what+".versions", v.key)
			continue
		}
		vm := l.object(v.val, vwhat, "fields", "retired", "upcast", "doc", "drop")
		fv := &FactVersion{Number: n, Pos: l.pos(v.keyNode), Doc: l.doc(vm, vwhat), Drop: l.drops(vm, vwhat)}
		if u, ok := vm["upcast"]; ok {
			fv.Upcast = l.ref(u.val, vwhat+".upcast")
		}
		if r, ok := vm["retired"]; ok {
			fv.Retired, _ = l.boolean(r.val, vwhat+".retired")
		}
		if fs, ok := vm["fields"]; ok {
			fv.Fields = l.fields(fs.val, vwhat+".fields", true)
		} else if !fv.Retired {
			l.add(v.keyNode, "%s: missing key fields", vwhat)
		}
		f.Versions = append(f.Versions, fv)
	}
	// Versions are kept sorted by number; Validate reports a spec that lists
	// them out of order, comparing positions.
	slices.SortStableFunc(f.Versions, func(a, b *FactVersion) int { return cmp.Compare(a.Number, b.Number) })
	return f
}

// def reads one default: its value and unit.
func (l *loader) def(e entry) *Default {
	what := "defaults." + e.key
	m := l.object(e.val, what, "value", "unit", "doc")
	d := &Default{Name: e.key, GoName: "Default" + GoName(e.key), Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if v, ok := l.need(m, "value", e.keyNode, what, ""); ok {
		d.Value, _ = l.integer(v.val, what+".value")
		if d.Value < 0 {
			l.add(v.val, "%s.value: %d is negative; a default measures a size, count or duration", what, d.Value)
		}
	}
	u, ok := l.need(m, "unit", e.keyNode, what, "one of "+unitList())
	if !ok {
		return d
	}
	d.UnitPos = l.pos(u.val)
	if s, ok := l.str(u.val, what+".unit"); ok {
		if d.Unit = unitNamed(s); d.Unit == "" {
			l.add(u.val, "%s.unit: unknown unit %s; use one of %s%s", what, s, unitList(), didYouMean(s, unitNames()))
		}
	}
	return d
}

// unitList names the units a default may have, for messages.
func unitList() string { return strings.Join(unitNames(), ", ") }
