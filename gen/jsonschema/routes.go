package jsonschema

// The schemas of a spec's routes (decision 0167): each route's JSON body,
// JSON answer and stream events, under names no type can have (a type's
// name has no dot): "<Route>.body", "<Route>.response", "<Route>.<event>".

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/wireschema"
)

// routeSchemas adds to defs the schemas of s's routes.
func routeSchemas(s *gen.Spec, defs map[string]wireschema.Object) {
	if s.HTTP == nil {
		return
	}
	for _, r := range s.HTTP.Routes {
		where := r.Method + " " + r.Path
		if b := r.Body; b != nil {
			defs[r.Name+".body"] = wireschema.Described(strings.TrimSpace(fmt.Sprintf("The body of %s (%s), application/json. %s", r.Name, where, b.Doc)), wireschema.Type(b.Type))
		}
		switch r.Answer {
		case gen.AnswerJSON:
			defs[r.Name+".response"] = wireschema.Described(strings.TrimSpace(fmt.Sprintf("What %s (%s) answers. %s", r.Name, where, r.Response.Doc)), payloadSchema(r.Response))
		case gen.AnswerStream:
			for _, ev := range r.Stream.Events {
				doc := ev.Doc
				if ev.Variant != nil {
					doc = ev.Variant.Doc
				}
				defs[r.Name+"."+ev.Name] = wireschema.Described(strings.TrimSpace(fmt.Sprintf("The data of %s's %s event (%s). %s", r.Name, ev.Name, where, doc)), payloadSchema(&ev.Payload))
			}
		}
	}
}

// payloadSchema is a payload's schema: its type's, with a with record's
// keys allowed beside each object's own.
func payloadSchema(p *gen.Payload) wireschema.Object {
	if p.With == nil {
		return wireschema.Type(p.Type)
	}
	item := p.Type
	if item.Kind == gen.TypeSlice {
		item = item.Elem
	}
	both := wireschema.Object{{Key: "allOf", Val: []any{wireschema.Type(item), wireschema.Type(p.With)}}}
	if p.Type.Kind == gen.TypeSlice {
		return wireschema.Object{{Key: "type", Val: []any{"array", "null"}}, {Key: "items", Val: both}}
	}
	return both
}
