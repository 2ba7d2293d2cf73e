package breaking

// The rules of a spec's routes (decision 0169): a route is known by its
// name, the Server method, and compared with the route of that name.

import (
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// routeTypes are the types a route's body, answer and events carry, as
// fields, so that what they reach counts as wire.
func routeTypes(r *gen.Route) []*gen.Field {
	var out []*gen.Field
	add := func(ts ...*gen.Type) {
		for _, t := range ts {
			if t != nil {
				out = append(out, &gen.Field{Type: t})
			}
		}
	}
	if r.Body != nil {
		add(r.Body.Type)
	}
	if r.Response != nil {
		add(r.Response.Type, r.Response.With)
	}
	if r.Stream != nil {
		add(r.Stream.Union)
		for _, ev := range r.Stream.Events {
			add(ev.Type, ev.With)
		}
	}
	return out
}

// reachRoutes adds to c.wire what the old spec's routes carry.
func (c *comparer) reachRoutes() {
	if c.old.HTTP == nil {
		return
	}
	for _, r := range c.old.HTTP.Routes {
		c.oldx.Reach(routeTypes(r), c.wire)
	}
}

// routesOf are a spec's routes by name.
func routesOf(s *gen.Spec) map[string]*gen.Route {
	out := map[string]*gen.Route{}
	if s.HTTP != nil {
		for _, r := range s.HTTP.Routes {
			out[r.Name] = r
		}
	}
	return out
}

// shape is what requests a route's method and path match, whatever its
// parameters are named.
func shape(r *gen.Route) string {
	var b strings.Builder
	b.WriteString(r.Method + " ")
	for _, s := range r.Segments {
		b.WriteByte('/')
		if s.Param != "" {
			b.WriteString("{}")
		} else {
			b.WriteString(s.Literal)
		}
	}
	return b.String()
}

var (
	wireAndGo = []gen.Category{gen.Wire, gen.GoAPI}
	wireOnly  = []gen.Category{gen.Wire}
	goOnly    = []gen.Category{gen.GoAPI}
)

// routes compares the routes of both specs.
func (c *comparer) routes() {
	olds, news := routesOf(c.old), routesOf(c.new)
	near := c.new.Package.Pos
	if c.new.HTTP != nil {
		near = c.new.HTTP.Pos
	}
	renamed := map[string]bool{}
	for _, name := range gen.SortedKeys(olds) {
		or, path := olds[name], "http.routes."+name
		nr := news[name]
		if nr != nil {
			c.route(or, nr, path)
			continue
		}
		var to *gen.Route
		for _, r := range news {
			if olds[r.Name] == nil && shape(r) == shape(or) {
				to = r
			}
		}
		if to != nil {
			renamed[to.Name] = true
			c.add(gen.RuleRouteDeleted, path, to.Pos, goOnly, "route %s was renamed %s; its requests still answer, but Go code naming Server.%s no longer compiles; keep the name %s", name, to.Name, name, name)
			continue
		}
		c.addNear(gen.RuleRouteDeleted, path, or.Pos, near, wireAndGo, "route %s (%s %s) was deleted; clients built from the old spec ask where nothing answers; keep it, or decline it in the servers", name, or.Method, or.Path)
	}
	for _, name := range gen.SortedKeys(news) {
		if olds[name] == nil && !renamed[name] {
			r := news[name]
			c.add(gen.RuleRouteAdded, "http.routes."+name, r.Pos, goOnly, "route %s was added; every Go implementation of Server lacks %s until it serves or declines it (httproute.Decline); once each does, accept the break in allow_breaking", name, name)
		}
	}
}

// route compares one route both specs have.
func (c *comparer) route(or, nr *gen.Route, path string) {
	if shape(or) != shape(nr) {
		c.add(gen.RuleRouteMoved, path, nr.PathPos, wireOnly, "route %s moved from %s %s to %s %s; clients built from the old spec ask where nothing answers; keep the old method and path, and add a route for the new", nr.Name, or.Method, or.Path, nr.Method, nr.Path)
	} else {
		for i, s := range or.Segments {
			if s.Param == "" {
				continue
			}
			op, np := or.Param(s.Param), nr.Param(nr.Segments[i].Param)
			if op == nil || np == nil {
				continue
			}
			if op.GoName != np.GoName {
				c.add(gen.RuleRouteParamDeleted, path+".params."+op.Name, np.Pos, goOnly, "path parameter %s is named %s now; its requests still answer, but Go code reading the request's %s no longer compiles; keep the name %s", op.Name, np.Name, op.GoName, op.Name)
			}
			c.param(op, np, path+".params."+np.Name)
		}
	}
	for _, oq := range or.Query {
		qpath := path + ".query." + oq.Name
		nq := nr.QueryParam(oq.Name)
		switch {
		case nq == nil:
			c.addNear(gen.RuleRouteParamDeleted, qpath, oq.Pos, nr.Pos, goOnly, "query parameter %s was deleted; old clients' is ignored, but Go code reading the request's %s no longer compiles; keep it", oq.Name, oq.GoName)
		default:
			c.param(oq, nq, qpath)
			if oq.Optional && !nq.Optional {
				c.add(gen.RuleRouteQueryRequired, qpath, nq.Pos, wireOnly, "query parameter %s became required; old clients leave it out and are refused; keep it optional: true", nq.Name)
			}
		}
	}
	for _, nq := range nr.Query {
		if or.QueryParam(nq.Name) == nil && !nq.Optional {
			c.add(gen.RuleRouteQueryRequired, path+".query."+nq.Name, nq.Pos, wireOnly, "a required query parameter %s was added; old clients do not send it and are refused; make it optional: true", nq.Name)
		}
	}
	c.body(or, nr, path+".body")
	c.answer(or, nr, path)
}

// param compares a path or query parameter's type.
func (c *comparer) param(op, np *gen.RouteParam, path string) {
	switch {
	case !c.textCompatible(op.Type, np.Type):
		c.add(gen.RuleRouteParamTypeChanged, path, np.Type.Pos, wireAndGo, "type changed from %s to %s; a value old clients send as %s need not parse, and Go code using the request's %s no longer compiles; keep %s", op.Type, np.Type, op.Type, np.GoName, op.Type)
	case op.Type.String() != np.Type.String():
		c.add(gen.RuleRouteParamTypeChanged, path, np.Type.Pos, goOnly, "type changed from %s to %s; old clients' values still parse, but Go code using the request's %s as %s no longer compiles; keep %s, or accept the break", op.Type, np.Type, np.GoName, op.Type, op.Type)
	}
}

// body compares a route's request body.
func (c *comparer) body(or, nr *gen.Route, path string) {
	ob, nb := or.Body, nr.Body
	switch {
	case ob == nil && nb == nil:
	case ob == nil && !nb.Optional:
		c.add(gen.RuleRouteBodyChanged, path, nb.Pos, wireAndGo, "a required body was added; old clients send none and are refused; make it optional: true")
	case ob == nil:
		c.add(gen.RuleRouteBodyChanged, path, nb.Pos, goOnly, "a body was added; old clients still answer, but the request type gained a field Go code building it must fill")
	case nb == nil:
		c.addNear(gen.RuleRouteBodyChanged, path, ob.Pos, nr.Pos, goOnly, "the body was removed; Go code reading the request's Body no longer compiles; keep it")
	case ob.Type.String() != nb.Type.String():
		c.add(gen.RuleRouteBodyChanged, path, nb.Type.Pos, wireAndGo, "the body changed from %s to %s; what old clients send is another record; keep %s", ob.Type, nb.Type, ob.Type)
	case ob.Optional && !nb.Optional:
		c.add(gen.RuleRouteBodyChanged, path, nb.Pos, wireOnly, "the body became required; old clients that send none are refused; keep it optional: true")
	}
}

// answer compares what a route answers.
func (c *comparer) answer(or, nr *gen.Route, path string) {
	if or.Answer != nr.Answer {
		c.add(gen.RuleRouteResponseChanged, path, nr.Pos, wireAndGo, "the route answers %s now, not %s; old clients read the answer they knew; keep %s and add a route", nr.Answer, or.Answer, or.Answer)
		return
	}
	switch or.Answer {
	case gen.AnswerJSON:
		c.payload(or.Response, nr.Response, path+".response", gen.RuleRouteResponseChanged)
	case gen.AnswerMedia:
		c.media(or.Media, nr.Media, path+".media")
	case gen.AnswerStream:
		c.stream(or.Stream, nr.Stream, path+".stream")
	}
}

// payload compares a JSON answer or an event's data.
func (c *comparer) payload(op, np *gen.Payload, path string, rule gen.RuleID) {
	switch {
	case op.Type.String() != np.Type.String():
		c.add(rule, path, np.Pos, wireAndGo, "the type changed from %s to %s; old clients decode %s; keep it", op.Type, np.Type, op.Type)
	case op.With != nil && np.With == nil:
		c.add(rule, path, np.Pos, wireAndGo, "with %s was removed; old clients read its keys, and Go code handling httproute.With no longer compiles; keep with: %s", op.With, op.With)
	case op.With == nil && np.With != nil:
		c.add(rule, path, np.Pos, goOnly, "with %s was added; old clients ignore its keys, but the Go type is httproute.With now; accept the break, or add a route", np.With)
	case op.With != nil && op.With.String() != np.With.String():
		c.add(rule, path, np.With.Pos, wireAndGo, "with changed from %s to %s; old clients read the old keys; keep with: %s", op.With, np.With, op.With)
	}
}

// media compares a media answer's type and headers.
func (c *comparer) media(om, nm *gen.Media, path string) {
	if om.Type != nm.Type {
		c.add(gen.RuleRouteResponseChanged, path+".type", nm.TypePos, wireOnly, "the media type changed from %s to %s; old clients read %s; keep it", om.Type, nm.Type, om.Type)
	}
	for _, oh := range om.Headers {
		hpath := path + ".headers." + oh.Name
		var nh *gen.RouteParam
		for _, h := range nm.Headers {
			if h.Name == oh.Name {
				nh = h
			}
		}
		switch {
		case nh == nil:
			c.addNear(gen.RuleRouteResponseChanged, hpath, oh.Pos, nm.Pos, wireAndGo, "header %s was removed; old clients read it; keep it", oh.Name)
		case oh.Type.String() != nh.Type.String():
			c.add(gen.RuleRouteResponseChanged, hpath, nh.Type.Pos, wireAndGo, "header %s changed type from %s to %s; old clients parse %s; keep it", oh.Name, oh.Type, nh.Type, oh.Type)
		}
	}
}

// stream compares a stream's union or events and its resume.
func (c *comparer) stream(os, ns *gen.Stream, path string) {
	if (os.Union == nil) != (ns.Union == nil) || (os.Union != nil && os.Union.String() != ns.Union.String()) {
		c.add(gen.RuleRouteStreamChanged, path, ns.Pos, wireAndGo, "the stream's events changed from %s to %s; old clients decode the events they knew; keep them", streamText(os), streamText(ns))
		return
	}
	if os.Union == nil {
		for _, oe := range os.Events {
			epath := path + ".events." + oe.Name
			var ne *gen.StreamEvent
			for _, e := range ns.Events {
				if e.Name == oe.Name {
					ne = e
				}
			}
			if ne == nil {
				c.addNear(gen.RuleRouteStreamChanged, epath, oe.Pos, ns.Pos, wireAndGo, "event %s was deleted; old clients wait for it; keep it", oe.Name)
				continue
			}
			c.payload(&oe.Payload, &ne.Payload, epath, gen.RuleRouteStreamChanged)
		}
	}
	c.resume(os, ns, path+".resume")
}

// resume compares how a stream resumes: its parameter and each event's id.
func (c *comparer) resume(os, ns *gen.Stream, path string) {
	or, nr := os.Resume, ns.Resume
	switch {
	case or == nil:
		return
	case nr == nil:
		c.add(gen.RuleRouteStreamChanged, path, ns.Pos, wireOnly, "the stream no longer resumes; old clients reconnect with Last-Event-ID and start over; keep resume")
		return
	case or.Query.Name != nr.Query.Name:
		c.add(gen.RuleRouteStreamChanged, path+".query", nr.Query.Pos, wireOnly, "the resume parameter changed from %s to %s; old clients resume with %s; keep it", or.Query.Name, nr.Query.Name, or.Query.Name)
	}
	for _, oid := range or.IDs {
		found := false
		for _, nid := range nr.IDs {
			if nid.Event.Name == oid.Event.Name {
				found = true
				if nid.Field.Name != oid.Field.Name {
					c.add(gen.RuleRouteStreamChanged, path+".ids."+oid.Event.Name, nid.Field.Pos, wireOnly, "event %s's id is %s now, not %s; an id old clients kept means something else; keep %s", oid.Event.Name, nid.Field.Name, oid.Field.Name, oid.Field.Name)
				}
			}
		}
		if !found {
			c.add(gen.RuleRouteStreamChanged, path+".ids."+oid.Event.Name, nr.Pos, wireOnly, "event %s no longer carries an id; old clients resume from the one before; keep it", oid.Event.Name)
		}
	}
}

// streamText names a stream's events for a message.
func streamText(s *gen.Stream) string {
	if s.Union != nil {
		return "the variants of " + s.Union.String()
	}
	var names []string
	for _, e := range s.Events {
		names = append(names, e.Name)
	}
	return "events " + strings.Join(names, ", ")
}

// textCompatible reports whether every value of type o, written as text in
// a path or a query, parses as type n: any text is a string or a string
// id, and otherwise JSON's rules hold (integers widen, an enum reads as one
// holding all its values).
func (c *comparer) textCompatible(o, n *gen.Type) bool {
	if n.Scalar().Kind == gen.ScalarString || (n.Kind == gen.TypeNamed && c.newx.IDs[n.Name] != nil && c.newx.IDs[n.Name].Kind == gen.IDString) {
		return true
	}
	return c.compatible(o, n)
}
