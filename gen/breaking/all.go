package breaking

import (
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// A Pair is a spec as released (Old) and as proposed (New). Old is nil for a
// spec that was not released, New nil for one that was deleted: a deleted
// spec is compared with one that declares nothing, so every fact and type it
// had is a finding.
type Pair struct {
	Old, New *gen.Spec
}

// CompareAll compares each pair as Compare does, and reports, for a spec
// that other specs import, the changes their facts and unions reach through
// the import: a change to jobs.SessionID is durable when a fact of a spec
// importing jobs holds one, even if no fact of jobs itself does. The reports
// are in the order of pairs; a pair without Old has an empty one.
func CompareAll(pairs []Pair, opts ...Option) []Report {
	o := newOptions(opts)
	reports := make([]Report, len(pairs))
	for i, p := range pairs {
		if p.Old == nil {
			continue
		}
		newSpec := p.New
		if newSpec == nil {
			newSpec = &gen.Spec{File: p.Old.File, Package: gen.Package{Name: p.Old.Package.Name, Path: p.Old.Package.Path}}
		}
		c := newComparer(p.Old, newSpec)
		for j, q := range pairs {
			if j != i && q.Old != nil {
				c.reachFrom(q.Old)
			}
		}
		reports[i] = compare(c, o)
	}
	return reports
}

// reachFrom adds to c's reach the types of c's old spec that the facts
// (durable) and unions (wire) of other, an old spec importing it, reach.
func (c *comparer) reachFrom(other *gen.Spec) {
	path := c.old.Package.Path
	if path == "" || path == other.Package.Path {
		return
	}
	durable, wire := map[string]bool{}, map[string]bool{}
	for _, f := range other.Facts {
		for _, v := range f.LiveVersions() {
			importedReach(other, v.Fields, path, durable, map[string]bool{})
		}
	}
	for _, u := range other.Unions {
		for _, v := range u.Variants {
			importedReach(other, append(slices.Clone(u.Common), v.Fields...), path, wire, map[string]bool{})
		}
	}
	if other.HTTP != nil {
		for _, r := range other.HTTP.Routes {
			importedReach(other, routeTypes(r), path, wire, map[string]bool{})
		}
	}
	for name := range durable {
		if !c.durable[name] {
			c.durable[name] = true
			c.oldx.Reach(c.oldx.WireFields(name), c.durable)
		}
	}
	for name := range wire {
		if !c.wire[name] {
			c.wire[name] = true
			c.oldx.Reach(c.oldx.WireFields(name), c.wire)
		}
	}
}

// importedReach adds to out the names of the spec generating the package at
// path that fields of s reach, through the records and variants of s and of
// the specs it imports in turn.
func importedReach(s *gen.Spec, fields []*gen.Field, path string, out, seen map[string]bool) {
	for _, f := range fields {
		if f.Type == nil || !f.Wire() {
			continue
		}
		f.Type.Walk(func(t *gen.Type) {
			in := s
			if t.Kind == gen.TypeQualified {
				im := t.Import()
				if im == nil || im.Imported == nil {
					return
				}
				if im.Path == path {
					out[t.Name] = true
					return
				}
				in = im.Imported.Spec()
			} else if t.Kind != gen.TypeNamed {
				return
			}
			if key := in.Package.Path + "." + t.Name; !seen[key] {
				seen[key] = true
				importedReach(in, in.Index().WireFields(t.Name), path, out, seen)
			}
		})
	}
}
