package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// facts compares the old spec's facts with the new one's: a fact or a live
// version must not vanish, a reserved name must stay reserved and unused,
// and each live version's fields are compared as durable.
func (c *comparer) facts() {
	durable := []gen.Category{gen.Durable}
	for _, of := range gen.SortedBy(c.old.Facts, func(f *gen.Fact) string { return f.Name }) {
		path := "facts." + of.Name
		nf := c.newx.Facts[of.Name]
		if nf == nil {
			c.addNear(gen.RuleFactDeleted, path, of.Pos, c.new.Package.Pos, durable, "fact %s was deleted; its history would no longer decode (retire its versions instead)", of.Name)
			continue
		}
		reserved := map[string]bool{}
		for _, r := range nf.Reserved {
			reserved[r.Name] = true
		}
		for _, r := range of.Reserved {
			if !reserved[r.Name] {
				c.add(gen.RuleReservedNameDeleted, path+".reserved."+r.Name, nf.Pos, durable, "%s is no longer reserved, so a field could reuse it with another meaning; list it under reserved: again", r.Name)
			}
		}
		c.versionAdded(of, nf, path)
		oldLive := map[int]bool{}
		for _, ov := range of.Versions {
			oldLive[ov.Number] = !ov.Retired
		}
		for _, nv := range nf.Versions {
			if nv.Retired || (oldLive[nv.Number] && nv != nf.Latest()) {
				continue // an old version keeps the names it always had
			}
			for _, fd := range nv.Fields {
				for _, r := range of.Reserved {
					if fd.Name == r.Name || fd.JSON == r.Name {
						c.add(gen.RuleReservedNameReused, fmt.Sprintf("%s.versions.v%d.fields.%s", path, nv.Number, fd.Name), fd.Pos, durable,
							"%s was reserved (at %s); history may carry it with its old meaning; give the field another name and json: name", r.Name, r.Pos)
					}
				}
			}
		}
		for _, ov := range of.Versions {
			if ov.Retired {
				continue
			}
			vpath := fmt.Sprintf("%s.versions.v%d", path, ov.Number)
			var nv *gen.FactVersion
			for _, v := range nf.Versions {
				if v.Number == ov.Number {
					nv = v
				}
			}
			switch {
			case nv == nil:
				c.addNear(gen.RuleFactVersionDeleted, vpath, ov.Pos, nf.Pos, durable, "version %d of %s was deleted; mark it retired: true to stop decoding its history on purpose", ov.Number, of.Name)
				continue
			case nv.Retired:
				continue
			}
			c.fields(placed(ov.Fields, vpath+".fields"), placed(nv.Fields, vpath+".fields"), nv.Pos, durable, func(f *gen.Field) bool {
				return reserved[f.Name] || reserved[f.JSON]
			}, nil)
		}
	}
}

// versionAdded reports a newest version the old spec does not read
// (forward): builds of the old spec refuse it, and a tolerant one keeps it
// unknown and salvages the fields of the old newest version it finds in it,
// which the finding names.
func (c *comparer) versionAdded(of, nf *gen.Fact, path string) {
	ol, nl := of.Latest(), nf.Latest()
	if nl.Number <= ol.Number || ol.Retired || nl.Retired {
		return
	}
	var missed []string
	for _, f := range gen.WireFields(ol.Fields) {
		if !gen.WireRequired(f) {
			continue
		}
		i := slices.IndexFunc(nl.Fields, func(g *gen.Field) bool { return g.JSON == f.JSON && g.Wire() })
		switch {
		case i >= 0 && c.readsBack(nl.Fields[i].Type, f.Type):
		case i >= 0:
			missed = append(missed, f.JSON+" (its type changed)")
		default:
			what := f.JSON
			for _, g := range nl.Fields {
				if g.Derive != nil && g.Derive.From.Name == f.Name {
					what += " (renamed " + g.JSON + ")"
				}
			}
			missed = append(missed, what)
		}
	}
	salvage := fmt.Sprintf("every field v%d has", ol.Number)
	if len(missed) > 0 {
		salvage = fmt.Sprintf("every field of v%d but %s", ol.Number, strings.Join(missed, ", "))
	}
	c.add(gen.RuleFactVersionAdded, fmt.Sprintf("%s.versions.v%d", path, nl.Number), nl.Pos, []gen.Category{gen.Durable},
		"v%d is newer than v%d, the newest a build of the old spec reads: such a build refuses v%d facts, and a tolerant one keeps them unknown and salvages %s; upgrade every reader of the history before the hosts that write v%d, or accept the break in allow_breaking", nl.Number, ol.Number, nl.Number, salvage, nl.Number)
}
