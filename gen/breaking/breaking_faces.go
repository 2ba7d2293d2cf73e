package breaking

import "github.com/jobgen/jobgen/gen"

// signature renders a func type without parameter names, which callers
// never see.
func signature(t *gen.Type) string {
	u := *t
	strip := func(ps []*gen.Param) []*gen.Param {
		var out []*gen.Param
		for _, p := range ps {
			out = append(out, &gen.Param{Type: p.Type})
		}
		return out
	}
	u.Params, u.Results = strip(t.Params), strip(t.Results)
	return u.String()
}

// faces compares the method sets of each face both specs declare.
func (c *comparer) faces() {
	goapi := []gen.Category{gen.GoAPI}
	for _, of := range gen.SortedBy(c.old.Faces, func(d *gen.Face) string { return d.Name }) {
		nf := c.newx.Faces[of.Name]
		if nf == nil {
			continue // TYPE_DELETED
		}
		oldSet, newSet := c.oldx.Methods(of.Name, map[string]bool{}), c.newx.Methods(of.Name, map[string]bool{})
		for _, name := range gen.SortedKeys(oldSet) {
			om, nm := oldSet[name], newSet[name]
			path := "faces." + of.Name + ".methods." + name
			switch {
			case nm == nil:
				c.add(gen.RuleFaceMethodRemoved, path, nf.Pos, goapi, "method %s was removed; callers of %s.%s no longer compile; keep it, or accept the break in allow_breaking", name, of.Name, name)
			case signature(om.Type) != signature(nm.Type):
				c.add(gen.RuleFaceMethodChanged, path, nm.Type.Pos, goapi, "method %s changed from %s to %s; keep the old method and add one with the new signature under another name", name, signature(om.Type), signature(nm.Type))
			}
		}
		// A face is an interface: code outside the generated package that
		// implements it (a test fake, a wrapper) stops compiling when it
		// gains a method, as Go's apidiff reports too.
		for _, name := range gen.SortedKeys(newSet) {
			if oldSet[name] == nil {
				c.add(gen.RuleFaceMethodAdded, "faces."+of.Name+".methods."+name, newSet[name].Type.Pos, goapi, "method %s was added; types outside the package that implement %s (test fakes, wrappers) no longer compile until they add it; add it to a new face that embeds %s instead, or accept the break in allow_breaking", name, of.Name, of.Name)
			}
		}
	}
}
