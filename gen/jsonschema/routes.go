package jsonschema

// The schemas of a spec's routes (decision 0167): each route's JSON body,
// JSON answer and stream events, under names no type can have (a type's
// name has no dot): "<Route>.body", "<Route>.response", "<Route>.<event>".

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// routeSchemas adds to defs the schemas of s's routes.
func routeSchemas(s *gen.Spec, defs map[string]jsonObject) {
	if s.HTTP == nil {
		return
	}
	for _, r := range s.HTTP.Routes {
		where := r.Method + " " + r.Path
		if b := r.Body; b != nil {
			defs[r.Name+".body"] = described(strings.TrimSpace(fmt.Sprintf("The body of %s (%s), application/json. %s", r.Name, where, b.Doc)), typeSchema(b.Type))
		}
		switch r.Answer {
		case gen.AnswerJSON:
			defs[r.Name+".response"] = described(strings.TrimSpace(fmt.Sprintf("What %s (%s) answers. %s", r.Name, where, r.Response.Doc)), payloadSchema(r.Response))
		case gen.AnswerStream:
			for _, ev := range r.Stream.Events {
				doc := ev.Doc
				if ev.Variant != nil {
					doc = ev.Variant.Doc
				}
				defs[r.Name+"."+ev.Name] = described(strings.TrimSpace(fmt.Sprintf("The data of %s's %s event (%s). %s", r.Name, ev.Name, where, doc)), payloadSchema(&ev.Payload))
			}
		}
	}
}

// payloadSchema is a payload's schema: its type's, with a with record's
// keys allowed beside each object's own.
func payloadSchema(p *gen.Payload) jsonObject {
	if p.With == nil {
		return typeSchema(p.Type)
	}
	item := p.Type
	if item.Kind == gen.TypeSlice {
		item = item.Elem
	}
	both := jsonObject{{"allOf", []any{typeSchema(item), typeSchema(p.With)}}}
	if p.Type.Kind == gen.TypeSlice {
		return jsonObject{{"type", []any{"array", "null"}}, {"items", both}}
	}
	return both
}
