package gen

// The loader of the tools section (decision 0207): each tool's keys and
// the shape of their values. What the records resolve to, and what the
// hints say together, is checked by Validate (validate_tools.go).

import "strings"

// tool reads one tool.
func (l *loader) tool(e entry) *Tool {
	what := "tools." + e.key
	m := l.object(e.val, what, "title", "doc", "input", "result", "annotations", "taskSupport")
	t := &Tool{Name: e.key, GoName: GoName(e.key), Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	t.Hints.Pos = t.Pos
	if _, ok := l.need(m, "doc", e.keyNode, what, "the description a model reads, what the tool does and when to call it"); ok && t.Doc == "" {
		l.add(m["doc"].val, "%s.doc: a model chooses a tool by its description; say what the tool does", what)
	}
	if n, ok := m["title"]; ok {
		if s, ok := l.str(n.val, what+".title"); ok {
			if t.Title = strings.TrimSpace(s); t.Title == "" {
				l.add(n.val, "%s.title: a title must not be empty; leave the key out for none", what)
			}
		}
	}
	if n, ok := l.need(m, "input", e.keyNode, what, "the record of this spec whose object the tool takes"); ok {
		t.Input = l.typeOf(n.val, what+".input")
	}
	if n, ok := m["result"]; ok {
		t.Result = l.typeOf(n.val, what+".result")
	}
	if n, ok := m["annotations"]; ok {
		l.hints(n, &t.Hints, what+".annotations")
	}
	if n, ok := m["taskSupport"]; ok {
		t.TaskSupportPos = l.pos(resolve(n.val))
		if s, ok := l.str(n.val, what+".taskSupport"); ok {
			var names []string
			found := false
			for _, ts := range TaskSupports() {
				names = append(names, ts.String())
				if ts.String() == s {
					t.TaskSupport, found = ts, true
				}
			}
			if !found {
				l.add(n.val, "%s.taskSupport: unknown task support %s; use one of %s%s", what, s, strings.Join(names, ", "), didYouMean(s, names))
			}
		}
	}
	return t
}

// hints reads a tool's annotations: each of HintKeys true or false.
func (l *loader) hints(e entry, h *Hints, what string) {
	h.Pos = l.pos(e.keyNode)
	m := l.object(e.val, what, HintKeys...)
	for i, set := range []*bool{&h.ReadOnly, &h.Destructive, &h.Idempotent, &h.OpenWorld} {
		if n, ok := m[HintKeys[i]]; ok {
			*set, _ = l.boolean(n.val, what+"."+HintKeys[i])
		}
	}
	_, h.DestructiveSaid = m["destructiveHint"]
}
