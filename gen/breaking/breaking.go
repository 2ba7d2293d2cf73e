package breaking

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// A Finding is one breaking change.
type Finding struct {
	Rule       gen.RuleID
	Path       string  // where in the spec, as allow_breaking names it: "facts.job/settled.versions.v1.fields.at"
	Pos        gen.Pos // in the new spec, or in the old one for something deleted
	Near       gen.Pos // for something deleted, the declaration in the new spec that held it (zero if none)
	Msg        string
	Categories []gen.Category // empty only for ALLOWANCE_UNUSED, which is always reported
	// Breaks is the mode the finding breaks its durable and wire categories
	// in; its goapi category, if any, is always broken backward.
	Breaks Mode
}

// String formats the finding the way jobgen breaking prints it: the
// bracket names each category with the mode it breaks.
func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s: %s", f.Pos, f.Rule, f.Path, f.Msg)
	if len(f.Categories) > 0 {
		s += " " + f.categoriesText()
	}
	return s
}

// A Report is the outcome of comparing two specs.
type Report struct {
	Findings []Finding // what remains after allowances and the category filter, sorted
	Allowed  []Finding // findings the new spec's allow_breaking accepted
}

// Compare compares old with new and reports the changes that break any
// category (WithOnly narrows them), each checked in its default mode
// (WithMode names another). Findings new accepts in allow_breaking are set
// apart; an allowance matching no finding of any category or mode is itself
// a finding.
func Compare(old, new *gen.Spec, opts ...Option) Report {
	return compare(newComparer(old, new), newOptions(opts))
}

// compare runs every rule of c and sorts out what its findings are.
func compare(c *comparer, opts options) Report {
	new := c.new
	c.facts()
	c.types()
	c.records()
	c.enums()
	c.unions()
	c.faces()
	c.routes()
	c.tools()
	all := c.found
	slices.SortStableFunc(all, compareFindings)
	all = slices.CompactFunc(all, func(a, b Finding) bool { return a.Rule == b.Rule && a.Path == b.Path })

	var report Report
	used := make([]bool, len(new.AllowBreaking))
	for _, f := range all {
		allowed := false
		for i, a := range new.AllowBreaking {
			if a.RuleID() == f.Rule && a.Path == f.Path {
				used[i], allowed = true, true
			}
		}
		switch {
		case allowed:
			report.Allowed = append(report.Allowed, f)
		case opts.reported(f):
			report.Findings = append(report.Findings, f)
		}
	}
	for i, a := range new.AllowBreaking {
		if !used[i] {
			report.Findings = append(report.Findings, Finding{Rule: gen.RuleAllowanceUnused, Path: a.Path, Pos: a.Pos,
				Msg: fmt.Sprintf("no %s finding has this path; the change was released or undone, so delete the allowance", a.Rule.Name)})
		}
	}
	slices.SortStableFunc(report.Findings, compareFindings)
	return report
}

// compareFindings orders findings by position, then rule, path and message.
func compareFindings(a, b Finding) int {
	return cmp.Or(gen.ComparePos(a.Pos, b.Pos), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
}

// A comparer holds the two specs Breaking compares, which old types their
// facts and unions reach, and the findings so far.
type comparer struct {
	old, new   *gen.Spec
	oldx, newx *gen.Index      // their indexes
	durable    map[string]bool // type names the old spec's facts reach
	wire       map[string]bool // type names the old spec's unions, routes and tools reach
	found      []Finding
}

// newComparer prepares to compare old with new: it finds the type names
// the old spec's live facts reach (durable) and its unions reach (wire).
func newComparer(old, new *gen.Spec) *comparer {
	c := &comparer{old: old, new: new, oldx: old.Index(), newx: new.Index(), durable: map[string]bool{}, wire: map[string]bool{}}
	for _, f := range old.Facts {
		for _, v := range f.Versions {
			if !v.Retired {
				c.oldx.Reach(v.Fields, c.durable)
			}
		}
	}
	for _, u := range old.Unions {
		c.wire[u.Name] = true
		for _, v := range u.Variants {
			c.wire[v.Name] = true
			c.oldx.Reach(append(slices.Clone(u.Common), v.Fields...), c.wire)
		}
	}
	c.reachRoutes()
	c.reachTools()
	return c
}

// reachOf returns the categories a change to the old spec's type name breaks.
func (c *comparer) reachOf(name string) []gen.Category {
	var out []gen.Category
	if c.durable[name] {
		out = append(out, gen.Durable)
	}
	if c.wire[name] {
		out = append(out, gen.Wire)
	}
	return out
}

// add adds a finding at pos in the new spec, breaking its rule's mode.
func (c *comparer) add(rule gen.RuleID, path string, pos gen.Pos, cats []gen.Category, format string, args ...any) {
	c.addNear(rule, path, pos, gen.Pos{}, cats, format, args...)
}

// addNear adds a finding about something deleted, at pos in the old spec,
// with near the place in the new spec that held it.
func (c *comparer) addNear(rule gen.RuleID, path string, pos, near gen.Pos, cats []gen.Category, format string, args ...any) {
	c.addIn(ruleModes[rule], rule, path, pos, near, cats, format, args...)
}

// addIn adds a finding that breaks durable and wire in mode.
func (c *comparer) addIn(mode Mode, rule gen.RuleID, path string, pos, near gen.Pos, cats []gen.Category, format string, args ...any) {
	if len(cats) == 0 {
		return // a change no category cares about: JSON rules on a type nothing sends
	}
	order := gen.Categories()
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b gen.Category) int { return cmp.Compare(slices.Index(order, a), slices.Index(order, b)) })
	cats = slices.Compact(cats)
	c.found = append(c.found, Finding{Rule: rule, Path: path, Pos: pos, Near: near, Msg: fmt.Sprintf(format, args...), Categories: cats, Breaks: mode})
}
