package gen

// The loader of a field's bounds (decision 0208): min, max and maxLength,
// each an integer, a default's name, or {default, unit}. What a name
// resolves to is checked by Validate (validate_bounds.go).

import "gopkg.in/yaml.v3"

// boundKeys are the keys of a field that bound its values.
var boundKeys = []string{"min", "max", "maxLength"}

// bounds reads the bounds of field f from its mapping m.
func (l *loader) bounds(m map[string]entry, f *Field, fwhat string) {
	for _, key := range boundKeys {
		e, ok := m[key]
		if !ok {
			continue
		}
		b := l.bound(e.val, fwhat+"."+key)
		switch key {
		case "min":
			f.Min = b
		case "max":
			f.Max = b
		default:
			f.MaxLength = b
		}
	}
}

// bound reads one bound: an integer, the name of a default, or a mapping
// naming a default and the unit it is read in. It returns nil for what is
// none of these, having reported it.
func (l *loader) bound(n *yaml.Node, what string) *Bound {
	n = resolve(n)
	b := &Bound{Pos: l.pos(n)}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int":
		v, ok := l.integer(n, what)
		if !ok {
			return nil
		}
		b.Value = v
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		b.Default = Ref{Name: n.Value, Pos: l.pos(n)}
	case n.Kind == yaml.MappingNode:
		m := l.object(n, what, "default", "unit")
		d, ok := l.need(m, "default", n, what, "the default the bound is")
		if !ok {
			return nil
		}
		b.Default = l.ref(d.val, what+".default")
		if u, ok := m["unit"]; ok {
			b.UnitPos = l.pos(resolve(u.val))
			if s, ok := l.str(u.val, what+".unit"); ok {
				if b.Unit = unitNamed(s); b.Unit == "" {
					l.add(u.val, "%s.unit: unknown unit %s; use one of %s%s", what, s, unitList(), didYouMean(s, unitNames()))
				}
			}
		}
	default:
		l.add(n, "%s: expected an integer, the name of a default, or {default: NAME, unit: UNIT}, found %s", what, describe(n))
		return nil
	}
	return b
}

// unitNamed is the unit spelt s, or "" for none.
func unitNamed(s string) Unit {
	for _, u := range Units() {
		if string(u) == s {
			return u
		}
	}
	return ""
}

// unitNames are the units' spellings, in the order Units gives them.
func unitNames() []string {
	names := make([]string, 0, len(Units()))
	for _, u := range Units() {
		names = append(names, string(u))
	}
	return names
}
