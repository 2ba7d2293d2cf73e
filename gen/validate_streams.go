package gen

// Validate's checks of a route's stream (decision 0167): its events, a
// union's variants as events, how it resumes and which events end it.

import "regexp"

// eventName is what an SSE event name may be: a word a client switches on.
var eventName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// byeEvent is the event the runtime writes when a server closes a stream;
// no route may name one so.
const byeEvent = "bye"

// stream checks r's stream, filling in a union stream's events.
func (v *validator) stream(r *Route, what string) {
	s := r.Stream
	if s.Union != nil {
		v.unionEvents(s, what+".union")
	}
	seen := map[string]bool{}
	for _, e := range s.Events {
		ewhat := what + ".events." + e.Name
		if e.Variant != nil {
			ewhat = what + ".union." + e.Variant.Name
		}
		switch {
		case !eventName.MatchString(e.Name):
			v.add(e.Pos, "%s: event name %q must be a letter followed by letters, digits or . _ -", ewhat, e.Name)
		case e.Name == byeEvent:
			v.add(e.Pos, "%s: the event name bye is the runtime's: it ends every stream a server closes", ewhat)
		case seen[e.Name]:
			v.add(e.Pos, "%s: two events are named %s", ewhat, e.Name)
		}
		seen[e.Name] = true
		if s.Union == nil {
			v.payload(&e.Payload, ewhat)
		}
	}
	v.resume(r, what+".resume")
	names := v.eventRefs(s)
	for _, end := range s.Ends {
		if !contains(names, end.Name) {
			v.add(end.Pos, "%s.ends: %s is not an event of the stream%s", what, end.Name, didYouMean(end.Name, names))
		}
	}
}

// eventRefs are the names that resume ids and ends use for s's events: a
// union's variant names, or the events' own names.
func (v *validator) eventRefs(s *Stream) []string {
	var names []string
	for _, e := range s.Events {
		if e.Variant != nil {
			names = append(names, e.Variant.Name)
		} else {
			names = append(names, e.Name)
		}
	}
	return names
}

// unionEvents makes s's events from its union's variants: each named by its
// tag, which must be a string, and carrying the variant.
func (v *validator) unionEvents(s *Stream, what string) {
	t := s.Union
	if t.unread() || (t.Kind == TypeNamed && t.decl == DeclNone) {
		return
	}
	x, name := v.spec.IndexOf(t)
	var u *Union
	if x != nil {
		u = x.Unions[name]
	}
	if u == nil {
		v.add(t.Pos, "%s: %s is %s; a stream's union is a union, whose variants are its events", what, t, declArticle(t))
		return
	}
	if !x.OnWire(name) {
		v.add(t.Pos, "%s: %s does not travel in JSON", what, t)
		return
	}
	for _, vr := range u.Variants {
		if vr.Tag.Kind != TagString {
			v.add(t.Pos, "%s: %s's variants are told apart by a boolean; a stream's event names are its tags, which must be strings", what, t)
			return
		}
	}
	for _, vr := range u.Variants {
		vt := &Type{Kind: t.Kind, Name: vr.Name, Alias: t.Alias, Pkg: t.Pkg, Pos: t.Pos, decl: DeclVariant, imp: t.imp}
		s.Events = append(s.Events, &StreamEvent{Name: vr.Tag.String, Payload: Payload{Type: vt, Pos: t.Pos}, Variant: vr})
	}
}

// resume checks how r's stream resumes: an optional query parameter of the
// route, and for each event that carries an id a field of that
// parameter's type.
func (v *validator) resume(r *Route, what string) {
	res := r.Stream.Resume
	if res == nil {
		return
	}
	var queryNames []string
	for _, p := range r.Query {
		queryNames = append(queryNames, p.Name)
	}
	q := r.QueryParam(res.Query.Name)
	switch {
	case res.Query.Name == "":
	case q == nil:
		v.add(res.Query.Pos, "%s.query: %s is not a query parameter of the route%s", what, res.Query.Name, didYouMean(res.Query.Name, queryNames))
	case !q.Optional:
		v.add(res.Query.Pos, "%s.query: %s must be optional: a first request has nothing to resume from", what, q.Name)
	}
	names := v.eventRefs(r.Stream)
	for i := range res.IDs {
		id := &res.IDs[i]
		var ev *StreamEvent
		for j, e := range r.Stream.Events {
			if names[j] == id.Event.Name {
				ev = e
			}
		}
		if ev == nil {
			v.add(id.Event.Pos, "%s.ids: %s is not an event of the stream%s", what, id.Event.Name, didYouMean(id.Event.Name, names))
			continue
		}
		x, name := v.spec.IndexOf(ev.Type)
		if x == nil {
			v.add(id.Event.Pos, "%s.ids.%s: the event carries %s, which has no fields to take an id from", what, id.Event.Name, ev.Type)
			continue
		}
		var fieldNames []string
		for _, f := range WireFields(x.WireFields(name)) {
			fieldNames = append(fieldNames, f.Name)
			if f.Name == id.Field.Name {
				id.Of = f
			}
		}
		if id.Of != nil {
			id.Text = x.spec.TextOf(id.Of.Type)
		}
		switch {
		case id.Of == nil:
			v.add(id.Field.Pos, "%s.ids.%s: %s has no field %s%s", what, id.Event.Name, ev.Type, id.Field.Name, didYouMean(id.Field.Name, fieldNames))
		case id.Text == NotText:
			v.add(id.Field.Pos, "%s.ids.%s: %s is %s, which an event id cannot hold as text", what, id.Event.Name, id.Field.Name, id.Of.Type)
		case q != nil && !sameTypeName(id.Of.Type, q.Type):
			v.add(id.Field.Pos, "%s.ids.%s: %s is %s, but the resume parameter %s is %s; a client sends the id back as it", what, id.Event.Name, id.Field.Name, id.Of.Type, q.Name, q.Type)
		}
	}
}

// sameTypeName reports whether a (a field's type, written in its own spec)
// and b (written in this one) name the same type: the same builtin, or the
// same declaration's name.
func sameTypeName(a, b *Type) bool {
	if a.Kind == TypeBuiltin || b.Kind == TypeBuiltin {
		return a.Kind == b.Kind && a.Name == b.Name
	}
	return a.Name == b.Name
}
