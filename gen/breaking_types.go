package gen

import "slices"

// types reports declarations the new spec no longer has under the same name
// and kind.
func (c *comparer) types() {
	// Variants are compared by unions, which finds a renamed one by its tag.
	kinds := func(s *Spec) []declaration {
		return slices.DeleteFunc(s.declarations(), func(d declaration) bool { return d.kind == declVariant })
	}
	have := map[string]declKind{}
	for _, d := range kinds(c.new) {
		have[d.name] = d.kind
	}
	for _, d := range kinds(c.old) {
		switch kind, ok := have[d.name]; {
		case !ok:
			c.addNear(RuleTypeDeleted, d.path(), d.pos, c.new.Package.Pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s was deleted or renamed; Go code naming it no longer compiles; keep it under its old name", d.kind, d.name)
		case kind != d.kind:
			c.add(RuleTypeDeleted, d.path(), d.pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s is now a %s; keep it a %s and give the %s another name", d.kind, d.name, kind, d.kind, kind)
		}
	}
	for _, oi := range sortedBy(c.old.IDs, func(d *ID) string { return d.Name }) {
		ni := c.newx.ids[oi.Name]
		if ni == nil || ni.Kind == oi.Kind {
			continue
		}
		cats := []Category{GoAPI}
		why := "its Go type changed"
		if ni.Kind == IDUUID {
			cats = append(cats, c.reachOf(oi.Name)...)
			why = "values written as free-form strings need not parse as UUIDs"
		}
		c.add(RuleIDKindChanged, "ids."+oi.Name, ni.Pos, cats, "kind changed from %s to %s; %s; keep kind: %s and declare a new id", oi.Kind, ni.Kind, why, oi.Kind)
	}
}

// records compares the fields of each record both specs declare.
func (c *comparer) records() {
	for _, or := range sortedBy(c.old.Records, func(d *Record) string { return d.Name }) {
		cats := c.reachOf(or.Name)
		nr := c.newx.records[or.Name]
		if nr == nil {
			continue // TYPE_DELETED
		}
		path := "records." + or.Name + ".fields"
		c.fields(placed(or.Fields, path), placed(nr.Fields, path), nr.Pos, cats, nil, nil)
	}
}

// enums reports enum values the new spec no longer has.
func (c *comparer) enums() {
	for _, oe := range sortedBy(c.old.Enums, func(d *Enum) string { return d.Name }) {
		cats := append(c.reachOf(oe.Name), GoAPI)
		ne := c.newx.enums[oe.Name]
		if ne == nil {
			continue // TYPE_DELETED
		}
		for _, v := range oe.Values {
			if !slices.ContainsFunc(ne.Values, func(w *EnumValue) bool { return w.Value == v.Value }) {
				why := "Go code naming " + v.GoName + " no longer compiles"
				if len(cats) > 1 {
					why = "JSON holding it no longer decodes, and " + why
				}
				c.addNear(RuleEnumValueDeleted, "enums."+oe.Name+".values."+v.Value, v.Pos, ne.Pos, cats, "value %s was deleted or renamed; %s; keep the value (say in its doc that it is no longer used)", v.Value, why)
			}
		}
	}
}
