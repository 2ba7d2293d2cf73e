package breaking

import (
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// unions compares each union both specs declare: its discriminator, and
// each variant's tag and fields, a variant found by name or else by tag.
func (c *comparer) unions() {
	for _, ou := range gen.SortedBy(c.old.Unions, func(d *gen.Union) string { return d.Name }) {
		nu := c.newx.Unions[ou.Name]
		if nu == nil {
			continue // TYPE_DELETED
		}
		path := "unions." + ou.Name
		cats := []gen.Category{gen.Wire}
		for _, v := range ou.Variants {
			if c.durable[v.Name] && !slices.Contains(cats, gen.Durable) {
				cats = []gen.Category{gen.Durable, gen.Wire}
			}
		}
		for _, nv := range nu.Variants {
			if !slices.ContainsFunc(ou.Variants, func(ov *gen.Variant) bool {
				return ov.Name == nv.Name || ov.Tag.Kind == nv.Tag.Kind && ov.Tag.Text() == nv.Tag.Text()
			}) {
				c.add(gen.RuleVariantAdded, path+".variants."+nv.Name, nv.Pos, cats, "variant %s (%s %s) was added; readers of the old spec refuse it as a variant they do not know (a tolerant one keeps it unknown); upgrade the readers before the writers, or accept the break in allow_breaking", nv.Name, nu.Discriminator, nv.Tag.Text())
			}
		}
		if nu.Discriminator != ou.Discriminator {
			c.add(gen.RuleDiscriminatorChanged, path+".discriminator", nu.DiscPos, cats, "discriminator changed from %s to %s; readers look for the variant in the old field; keep discriminator: %s", ou.Discriminator, nu.Discriminator, ou.Discriminator)
		}
		for _, ov := range ou.Variants {
			vpath := path + ".variants." + ov.Name
			var nv *gen.Variant
			for _, v := range nu.Variants {
				if v.Name == ov.Name {
					nv = v
				}
			}
			if nv == nil {
				for _, v := range nu.Variants {
					if v.Tag.Kind == ov.Tag.Kind && v.Tag.Text() == ov.Tag.Text() {
						nv = v
					}
				}
				if nv == nil {
					c.addNear(gen.RuleVariantDeleted, vpath, ov.Pos, nu.Pos, append(slices.Clone(cats), gen.GoAPI), "variant %s (%s %s) was deleted; its messages no longer decode; keep the variant", ov.Name, ou.Discriminator, ov.Tag.Text())
					continue
				}
				c.add(gen.RuleTypeDeleted, vpath, nv.Pos, []gen.Category{gen.GoAPI}, "variant %s was renamed %s; Go code naming %s no longer compiles; keep the name %s", ov.Name, nv.Name, ov.Name, ov.Name)
			}
			if nv.Tag.Kind != ov.Tag.Kind || nv.Tag.Text() != ov.Tag.Text() {
				c.add(gen.RuleDiscriminatorChanged, vpath+".tag", nv.Tag.Pos, cats, "tag changed from %s to %s; messages written with the old tag no longer decode as %s; keep tag: %s", ov.Tag.Text(), nv.Tag.Text(), nv.Name, ov.Tag.Text())
			}
			oldFields := append(placed(ou.Common, path+".common"), placed(ov.Fields, vpath+".fields")...)
			newFields := append(placed(nu.Common, path+".common"), placed(nv.Fields, path+".variants."+nv.Name+".fields")...)
			moved := func(f *gen.Field) (string, *gen.Field) {
				for _, other := range nu.Variants {
					for _, g := range other.Fields {
						if other != nv && g.JSON == f.JSON && g.Wire() {
							return other.Name, g
						}
					}
				}
				return "", nil
			}
			c.fields(oldFields, newFields, nv.Pos, cats, nil, moved)
		}
	}
}
