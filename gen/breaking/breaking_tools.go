package breaking

// The rules of a spec's tools and of its fields' bounds (decision 0209): a
// tool is known by its name, and its caller holds no copy of the spec but
// reads the list the server gives it, so what breaks is an old call
// reaching a new server: wire, backward.

import (
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// reachTools adds to c.wire what the old spec's tools take and return.
func (c *comparer) reachTools() {
	for _, t := range c.old.Tools {
		for _, typ := range []*gen.Type{t.Input, t.Result} {
			if typ != nil {
				c.oldx.Reach([]*gen.Field{{Type: typ}}, c.wire)
			}
		}
	}
}

// toolsOf are a spec's tools by name.
func toolsOf(s *gen.Spec) map[string]*gen.Tool {
	out := map[string]*gen.Tool{}
	for _, t := range s.Tools {
		out[t.Name] = t
	}
	return out
}

// tools compares the tools of both specs.
func (c *comparer) tools() {
	olds, news := toolsOf(c.old), toolsOf(c.new)
	for _, name := range gen.SortedKeys(olds) {
		ot, nt, path := olds[name], news[name], "tools."+name
		if nt == nil {
			c.addNear(gen.RuleToolDeleted, path, ot.Pos, c.new.Package.Pos, wireAndGo, "tool %s was deleted or renamed; callers ask for a tool the server no longer offers, and Go code calling %s() no longer compiles; keep it", name, ot.FuncName())
			continue
		}
		c.toolRecords(ot, nt, path)
		if widened := effectsWidened(ot.Hints, nt.Hints); len(widened) > 0 {
			c.add(gen.RuleToolEffectsWidened, path+".annotations", nt.Hints.Pos, wireOnly, "tool %s is %s; a client that ran it unasked or retried it on its old hints now does what it never agreed to; keep the hints, and give the new behaviour a tool of its own", name, strings.Join(widened, ", "))
		}
		if nt.TaskSupport == gen.TaskRequired && ot.TaskSupport != gen.TaskRequired {
			c.add(gen.RuleToolTaskRequired, path+".taskSupport", nt.TaskSupportPos, wireOnly, "tool %s now requires a task; the calls without one it answered (taskSupport %s) are refused; keep taskSupport %s", name, ot.TaskSupport, ot.TaskSupport)
		}
	}
}

// toolRecords reports a tool whose input, or result, is another record.
// What changed inside a record is the field rules', since the tool's
// records count as wire.
func (c *comparer) toolRecords(ot, nt *gen.Tool, path string) {
	if ot.Input.String() != nt.Input.String() {
		c.add(gen.RuleToolRecordChanged, path+".input", nt.Input.Pos, wireOnly, "tool %s takes a %s, not a %s; its callers were shown the old record's schema; keep %s, and change its fields compatibly", nt.Name, nt.Input, ot.Input, ot.Input)
	}
	switch {
	case ot.Result == nil:
	case nt.Result == nil:
		c.add(gen.RuleToolRecordChanged, path+".result", nt.Pos, wireOnly, "tool %s no longer returns a %s; its callers read one; keep the result", nt.Name, ot.Result)
	case ot.Result.String() != nt.Result.String():
		c.add(gen.RuleToolRecordChanged, path+".result", nt.Result.Pos, wireOnly, "tool %s returns a %s, not a %s; its callers read the old record; keep %s, and change its fields compatibly", nt.Name, nt.Result, ot.Result, ot.Result)
	}
}

// effectsWidened names what new promises less than old: "no longer
// read-only", "now destructive", "no longer idempotent", "now reaching an
// open world".
func effectsWidened(old, new gen.Hints) []string {
	var out []string
	if old.ReadOnly && !new.ReadOnly {
		out = append(out, "no longer read-only")
	}
	if !old.Destructive && new.Destructive {
		out = append(out, "now destructive")
	}
	if old.Idempotent && !new.Idempotent {
		out = append(out, "no longer idempotent")
	}
	if !old.OpenWorld && new.OpenWorld {
		out = append(out, "now reaching an open world")
	}
	return out
}

// bounds compares the bounds of a field both shapes have: tightened, they
// refuse what old writers wrote (backward); loosened, readers of the old
// spec refuse what new writers may write (forward).
func (c *comparer) bounds(of *gen.Field, nf placedField, cats []gen.Category) {
	if why := gen.TighterBound(nf.Field, of); why != "" {
		c.add(gen.RuleFieldBoundTightened, nf.path, nf.Pos, cats, "field %s: %s than the old spec took; JSON written with such a value no longer decodes; keep the old bound", nf.JSON, why)
	}
	if why := gen.TighterBound(of, nf.Field); why != "" {
		c.add(gen.RuleFieldBoundLoosened, nf.path, nf.Pos, cats, "field %s was loosened: the old spec's %s than the new one may write, which its readers refuse; upgrade the readers before the writers, or accept the break in allow_breaking", nf.JSON, why)
	}
}
