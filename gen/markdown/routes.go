package markdown

// The reference of a spec's http section (decision 0167): the route table,
// then each route with its parameters, body, answer and refusals, and the
// refusals every route may answer from the adapter itself.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// routeHeading is the heading of a route's own section.
func routeHeading(r *gen.Route) string { return "Route " + r.Name }

// routesContents is the Contents line of the routes.
func (d *docWriter) routesContents() {
	h := d.spec.HTTP
	if h == nil {
		return
	}
	var links []string
	for _, r := range h.Routes {
		links = append(links, fmt.Sprintf("[%s](%s)", r.Name, anchor(routeHeading(r))))
	}
	d.line("- [Routes](#routes): %s", strings.Join(links, ", "))
}

// routes writes the Routes section.
func (d *docWriter) routes() {
	h := d.spec.HTTP
	if h == nil {
		return
	}
	d.heading(2, "Routes", h.Doc)
	d.tableHead("Method", "Path", "Route", "Answers")
	for _, r := range h.Routes {
		d.line("| %s | `%s` | [%s](%s) | %s |", r.Method, r.Path, r.Name, anchor(routeHeading(r)), cell(d.answerSummary(r)))
	}
	d.line("")
	d.para(fmt.Sprintf("Every refusal answers %s as JSON with its status. Beside the refusals each route lists, the adapter "+
		"refuses on its own: 404 for a path no route has, a path parameter that does not parse, or a route the server declines "+
		"(the header `Jobgen-Not-Served` names it); 405 for a method the path's routes do not take (`Allow` lists those they do); "+
		"401 for a route that is not public when the server's caller hook refuses the caller; for a method other than GET, 415 "+
		"for a body that is not `application/json` and 403 for a request from another site; 400 for a query parameter that does "+
		"not parse, is sent twice or is missing, and for a body that does not decode; 413 for a body over its limit; 500 when the "+
		"server fails. A stream's events are Server-Sent Events; a server that closes a stream ends it with the event `bye`.",
		d.mdType(h.Refusal)))
	for _, r := range h.Routes {
		d.route(r)
	}
}

// answerSummary is what a route answers, for the table.
func (d *docWriter) answerSummary(r *gen.Route) string {
	switch r.Answer {
	case gen.AnswerJSON:
		return d.payloadText(r.Response)
	case gen.AnswerStream:
		if r.Stream.Union != nil {
			return "events of " + d.mdType(r.Stream.Union)
		}
		var names []string
		for _, ev := range r.Stream.Events {
			names = append(names, "`"+ev.Name+"`")
		}
		return "events " + strings.Join(names, ", ")
	case gen.AnswerMedia:
		return "`" + r.Media.Type + "`"
	case gen.AnswerFiles:
		return "files"
	}
	return ""
}

// payloadText is a payload's type, with its with record.
func (d *docWriter) payloadText(p *gen.Payload) string {
	switch {
	case p.With != nil && p.Type.Kind == gen.TypeSlice:
		return d.mdType(p.Type) + ", each with the keys of " + d.mdType(p.With)
	case p.With != nil:
		return d.mdType(p.Type) + ", with the keys of " + d.mdType(p.With)
	}
	return d.mdType(p.Type)
}

// route writes one route's section.
func (d *docWriter) route(r *gen.Route) {
	d.heading(3, routeHeading(r), r.Doc)
	d.line("```")
	d.line("%s %s", r.Method, r.Path)
	d.line("```")
	d.line("")
	if r.Public {
		d.para("Public: the server's caller hook is not asked.")
	}
	d.paramTable("Path parameters", r.Params, false)
	d.paramTable("Query parameters", r.Query, true)
	if b := r.Body; b != nil {
		req := "required"
		if b.Optional {
			req = "optional: an empty body is the zero value"
		}
		d.para(fmt.Sprintf("Body: %s, as `application/json`, at most %s bytes (%s). %s", d.mdType(b.Type), strconv.FormatInt(b.MaxBytes, 10), req, b.Doc))
	}
	switch r.Answer {
	case gen.AnswerJSON:
		d.para(strings.TrimSpace("Answer: " + d.payloadText(r.Response) + ". " + r.Response.Doc))
	case gen.AnswerStream:
		d.streamDoc(r.Stream)
	case gen.AnswerMedia:
		d.para(strings.TrimSpace(fmt.Sprintf("Answer: bytes of `%s`. %s", r.Media.Type, r.Media.Doc)))
		d.paramTable("Response headers", r.Media.Headers, false)
	case gen.AnswerFiles:
		d.para(strings.TrimSpace("Answer: a directory's files: its `index.html` at the path, each file directly below it. " + r.Files.Doc))
	}
	if len(r.Refusals) > 0 {
		d.tableHead("Refusal", "When")
		for _, f := range r.Refusals {
			d.line("| %d | %s |", f.Status, cell(f.Doc))
		}
		d.line("")
	}
}

// paramTable writes parameters (or headers) as a table, when there are any.
func (d *docWriter) paramTable(title string, ps []*gen.RouteParam, optional bool) {
	if len(ps) == 0 {
		return
	}
	d.para(title + ":")
	columns := []string{"Name", "Type"}
	if optional {
		columns = append(columns, "Required")
	}
	d.tableHead(append(columns, "Description")...)
	for _, p := range ps {
		row := []string{"`" + p.Name + "`", d.mdType(p.Type)}
		if optional {
			row = append(row, map[bool]string{true: "no", false: "yes"}[p.Optional])
		}
		doc := p.Doc
		if p.NotFound != "" {
			doc = strings.TrimSpace(doc + fmt.Sprintf(" A value that does not parse is a 404 %q.", p.NotFound))
		}
		d.line("| %s | %s |", strings.Join(row, " | "), cell(doc))
	}
	d.line("")
}

// streamDoc writes a stream's events, resume and end.
func (d *docWriter) streamDoc(s *gen.Stream) {
	d.para(strings.TrimSpace("Answer: a stream of Server-Sent Events. " + s.Doc))
	ids := map[*gen.StreamEvent]string{}
	if s.Resume != nil {
		for _, id := range s.Resume.IDs {
			for _, ev := range s.Events {
				if (ev.Variant != nil && ev.Variant.Name == id.Event.Name) || (ev.Variant == nil && ev.Name == id.Event.Name) {
					ids[ev] = "`" + id.Field.Name + "`"
				}
			}
		}
	}
	d.tableHead("Event", "Data", "id", "Description")
	for _, ev := range s.Events {
		doc := ev.Doc
		if ev.Variant != nil {
			doc = ev.Variant.Doc
		}
		id := ids[ev]
		if id == "" {
			id = "—"
		}
		d.line("| `%s` | %s | %s | %s |", ev.Name, d.payloadText(&ev.Payload), id, cell(doc))
	}
	d.line("")
	if s.Resume != nil {
		d.para(strings.TrimSpace(fmt.Sprintf("Resume: send the last event's id as `Last-Event-ID` (as EventSource does), or as the query parameter `%s`. %s", s.Resume.Query.Name, s.Resume.Doc)))
	}
	if len(s.Ends) > 0 {
		var names []string
		for _, e := range s.Ends {
			names = append(names, "`"+e.Name+"`")
		}
		d.para("The stream ends after " + strings.Join(names, ", ") + ".")
	}
}
