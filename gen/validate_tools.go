package gen

// Validate's checks of the tools section (decision 0207; emit_tools.go in
// gen/golang emits it): each tool's name, its records, and what its hints
// say together.

import "regexp"

// toolName is what a tool may be called: what MCP, the Anthropic Messages
// API and OpenAI's function calling all accept.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// eachToolType calls fn for the records each tool is declared with, so
// that typeRefs and importedTypes resolve them with the rest.
func (v *validator) eachToolType(fn func(*Type)) {
	for _, t := range v.spec.Tools {
		for _, typ := range []*Type{t.Input, t.Result} {
			if typ != nil {
				fn(typ)
			}
		}
	}
}

// tools checks every tool.
func (v *validator) tools() {
	routes := map[string]bool{}
	if v.spec.HTTP != nil {
		for _, r := range v.spec.HTTP.Routes {
			routes[r.Name] = true
		}
	}
	recursive := map[*Spec]map[string]bool{}
	for _, t := range v.spec.Tools {
		what := "tools." + t.Name
		switch {
		case !toolName.MatchString(t.Name):
			v.add(t.Pos, "%s: a tool's name is 1 to 64 letters, digits, _ and -, which MCP and the model APIs all accept", what)
		case routes[t.Name]:
			v.add(t.Pos, "%s: a route is named %s too; the JSON Schema names a tool's and a route's schemas by their names, so name them apart", what, t.Name)
		default:
			v.claim(t.FuncName(), what, t.Name, t.Pos)
		}
		if v.toolRecord(t.Input, what+".input", true) {
			v.toolInlines(t.Input, what+".input", recursive)
		}
		if t.Result != nil && v.toolRecord(t.Result, what+".result", false) {
			v.toolInlines(t.Result, what+".result", recursive)
		}
		h := t.Hints
		switch {
		case h.ReadOnly && h.Destructive:
			v.add(h.Pos, "%s: a read-only tool destroys nothing; drop destructiveHint, or readOnlyHint", what)
		case !h.ReadOnly && !h.DestructiveSaid:
			v.add(h.Pos, "%s: say destructiveHint: true or false; MCP reads a tool that is not read-only and says nothing as destructive, and jobgen writes every hint out", what)
		}
	}
}

// toolRecord reports whether t, a tool's input (own) or result, is a
// record that travels in JSON, of this spec when own is set.
func (v *validator) toolRecord(t *Type, what string, own bool) bool {
	if t == nil || t.unread() || (t.Kind == TypeNamed && t.decl == DeclNone) {
		return false // undeclared: typeRefs says so
	}
	x, name := v.spec.IndexOf(t)
	switch {
	case x == nil || x.Records[name] == nil:
		v.add(t.Pos, "%s: %s is not a record; a tool takes and returns a JSON object, a record's", what, t)
		return false
	case own && t.Kind != TypeNamed:
		v.add(t.Pos, "%s: %s is another spec's record; a tool's input is a record of this spec, whose object is the tool's input schema", what, t)
		return false
	case !x.OnWire(name):
		v.add(t.Pos, "%s: %s holds what cannot travel in JSON (a func, a channel, a face)", what, t)
		return false
	}
	return true
}

// toolInlines reports a record that holds itself among what t reaches: a
// tool's schemas are inlined, and such a record's schema never ends.
// recursive caches each spec's RecursiveRecords.
func (v *validator) toolInlines(t *Type, what string, recursive map[*Spec]map[string]bool) {
	seen := map[*Record]bool{}
	var walk func(s *Spec, t *Type) string
	walk = func(s *Spec, t *Type) string {
		var held string
		t.Walk(func(u *Type) {
			x, name := s.IndexOf(u)
			if held != "" || x == nil || x.Records[name] == nil || seen[x.Records[name]] {
				return
			}
			rs := x.spec
			if recursive[rs] == nil {
				recursive[rs] = RecursiveRecords(rs)
			}
			if recursive[rs][name] {
				held = u.String()
				return
			}
			seen[x.Records[name]] = true
			for _, f := range WireFields(x.Records[name].Fields) {
				if held = walk(rs, f.Type); held != "" {
					return
				}
			}
		})
		return held
	}
	if held := walk(v.spec, t); held != "" {
		v.add(t.Pos, "%s: %s holds itself, and a tool's schemas are inlined, so its schema would never end", what, held)
	}
}
