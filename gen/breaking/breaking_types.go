package breaking

import (
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// types reports declarations the new spec no longer has under the same name
// and kind.
func (c *comparer) types() {
	// Variants are compared by unions, which finds a renamed one by its tag.
	kinds := func(s *gen.Spec) []gen.Declaration {
		return slices.DeleteFunc(s.Declarations(), func(d gen.Declaration) bool { return d.Kind == gen.DeclVariant })
	}
	have := map[string]gen.DeclKind{}
	for _, d := range kinds(c.new) {
		have[d.Name] = d.Kind
	}
	for _, d := range kinds(c.old) {
		switch kind, ok := have[d.Name]; {
		case !ok:
			c.addNear(gen.RuleTypeDeleted, d.Path(), d.Pos, c.new.Package.Pos, append([]gen.Category{gen.GoAPI}, c.reachOf(d.Name)...), "%s %s was deleted or renamed; Go code naming it no longer compiles; keep it under its old name", d.Kind, d.Name)
		case kind != d.Kind:
			c.add(gen.RuleTypeDeleted, d.Path(), d.Pos, append([]gen.Category{gen.GoAPI}, c.reachOf(d.Name)...), "%s %s is now a %s; keep it a %s and give the %s another name", d.Kind, d.Name, kind, d.Kind, kind)
		}
	}
	for _, oi := range gen.SortedBy(c.old.IDs, func(d *gen.ID) string { return d.Name }) {
		ni := c.newx.IDs[oi.Name]
		if ni == nil || ni.Kind == oi.Kind {
			continue
		}
		cats := []gen.Category{gen.GoAPI}
		mode, why := Backward, "its Go type changed"
		switch ni.Kind {
		case gen.IDUUID:
			cats = append(cats, c.reachOf(oi.Name)...)
			why = "values written as free-form strings need not parse as UUIDs"
		case gen.IDString:
			cats = append(cats, c.reachOf(oi.Name)...)
			mode, why = Forward, "readers of the old spec refuse the free-form strings the new one may write, and its Go type changed"
		}
		c.addIn(mode, gen.RuleIDKindChanged, "ids."+oi.Name, ni.Pos, gen.Pos{}, cats, "kind changed from %s to %s; %s; keep kind: %s and declare a new id", oi.Kind, ni.Kind, why, oi.Kind)
	}
}

// records compares the fields of each record both specs declare.
func (c *comparer) records() {
	for _, or := range gen.SortedBy(c.old.Records, func(d *gen.Record) string { return d.Name }) {
		cats := c.reachOf(or.Name)
		nr := c.newx.Records[or.Name]
		if nr == nil {
			continue // TYPE_DELETED
		}
		path := "records." + or.Name + ".fields"
		c.fields(placed(or.Fields, path), placed(nr.Fields, path), nr.Pos, cats, nil, nil)
	}
}

// enums reports enum values the new spec no longer has (backward), and the
// values it added where a fact or union reaches the enum (forward).
func (c *comparer) enums() {
	for _, oe := range gen.SortedBy(c.old.Enums, func(d *gen.Enum) string { return d.Name }) {
		cats := append(c.reachOf(oe.Name), gen.GoAPI)
		ne := c.newx.Enums[oe.Name]
		if ne == nil {
			continue // TYPE_DELETED
		}
		for _, v := range ne.Values {
			if !slices.ContainsFunc(oe.Values, func(w *gen.EnumValue) bool { return w.Value == v.Value }) {
				c.add(gen.RuleEnumValueAdded, "enums."+oe.Name+".values."+v.Value, v.Pos, c.reachOf(oe.Name), "value %s was added; readers of the old spec refuse what holds it (a tolerant one keeps the fact unknown and salvages it without the field); upgrade the readers before the writers, or accept the break in allow_breaking", v.Value)
			}
		}
		for _, v := range oe.Values {
			if !slices.ContainsFunc(ne.Values, func(w *gen.EnumValue) bool { return w.Value == v.Value }) {
				why := "Go code naming " + v.GoName + " no longer compiles"
				if len(cats) > 1 {
					why = "JSON holding it no longer decodes, and " + why
				}
				c.addNear(gen.RuleEnumValueDeleted, "enums."+oe.Name+".values."+v.Value, v.Pos, ne.Pos, cats, "value %s was deleted or renamed; %s; keep the value (say in its doc that it is no longer used)", v.Value, why)
			}
		}
	}
}
