package httproute

import (
	"fmt"
	"slices"
	"strings"
)

// The range of generated route code this runtime supports, as
// codec.MinVersion and codec.MaxVersion are for the rest of a generated
// package: a runtime change that old generated code cannot use raises
// MinVersion, a generated feature that needs a newer runtime MaxVersion.
const (
	MinVersion = 1
	MaxVersion = 1
)

// EnforceVersion breaks the build of generated route code this runtime
// does not support, as codec.EnforceVersion does: each generated routes
// file declares
//
//	const _ = httproute.EnforceVersion(N - httproute.MinVersion)
//	const _ = httproute.EnforceVersion(httproute.MaxVersion - N)
type EnforceVersion uint

// A Table is the route table of one generated package: every route of its
// wire, and the record its refusals answer. The generated Routes function
// returns it; the adapter (Handler) serves from it and routetest walks it.
type Table struct {
	// Package names the generated package, for messages ("wire").
	Package string
	Routes  []Route
	// Refusal returns the refusal record holding message: what every
	// refusal answers, as JSON.
	Refusal func(message string) any
}

// Route returns the route named name, or nil.
func (t *Table) Route(name string) *Route {
	for i := range t.Routes {
		if t.Routes[i].Name == name {
			return &t.Routes[i]
		}
	}
	return nil
}

// An Answer is what a route answers with.
type Answer int

// The kinds of answer, as the spec's http section declares them.
const (
	AnswerJSON   Answer = iota + 1 // a JSON document
	AnswerStream                   // Server-Sent Events
	AnswerMedia                    // bytes of one media type
	AnswerFiles                    // the files of a directory
)

// A Route is one method and path of a wire, as the spec declares it.
type Route struct {
	Name   string // the Server method: "FollowJob"
	Method string // "GET"
	Path   string // "/api/jobs/{id}/follow"; a files route's ends in "/"
	Doc    string
	// Public reports that the route needs no caller: WithCaller is
	// not asked.
	Public bool
	Params []Param // the path's parameters
	Query  []Param
	Body   *Body // nil for none
	Answer Answer
	// Type is the answer's type as the spec writes it ("[]jobs.JobSnapshot"),
	// or its media type for a media answer; empty for a stream and files.
	Type   string
	Events *Events // for a stream
	// Refusals are the statuses the route's server may refuse with, beside
	// the adapter's own (see the package doc), in spec order.
	Refusals []int
}

// A Param is a path or query parameter: its name, how it is written as
// text, and whether it may be left out (query parameters only).
type Param struct {
	Name     string
	Text     Text
	Optional bool
	Type     string // as the spec writes it: "jobs.JobID"
	// NotFound is a path parameter's refusal message for a value that does
	// not parse; empty for the Handler's own.
	NotFound string
}

// Text says how a parameter's value is written.
type Text struct {
	Kind TextKind
	// Bits is an integer's width.
	Bits int
	// Values are an enum's values.
	Values []string
}

// A TextKind is how a parameter's type is written as text.
type TextKind int

// The kinds of text.
const (
	TextString   TextKind = iota + 1 // as it is
	TextBool                         // true or false
	TextInt                          // a signed integer in canonical decimal
	TextUint                         // an unsigned integer in canonical decimal
	TextUUID                         // a uuid id, canonical and not nil
	TextStringID                     // a string id, as it is
	TextEnum                         // one of Values
)

// A Body is a route's request body: a JSON object of Type, read up to
// MaxBytes.
type Body struct {
	Type     string
	Optional bool
	MaxBytes int64
}

// Events are what a stream route's events are.
type Events struct {
	// Names are the event names, in spec order.
	Names []string
	// Resume is the query parameter a client resumes with; the adapter
	// reads Last-Event-ID in its place. Empty when the stream does not
	// resume.
	Resume string
	// Ends are the events after which the stream is over.
	Ends []string
}

// A segment is one element of a route's path, parsed once.
type segment struct {
	literal string
	param   string // a parameter's name; literal is empty
	files   bool   // a files route's last segment: any one name, or none
}

// segments parses a route's path. The path was checked by the generator;
// one that is not a path is a bug in the generated table.
func (r *Route) segments() []segment {
	if !strings.HasPrefix(r.Path, "/") {
		panic(fmt.Sprintf("httproute: route %s: path %q does not start with /", r.Name, r.Path))
	}
	parts := strings.Split(r.Path[1:], "/")
	out := make([]segment, len(parts))
	for i, p := range parts {
		switch {
		case p == "" && i == len(parts)-1 && r.Answer == AnswerFiles:
			out[i] = segment{files: true}
		case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
			out[i] = segment{param: p[1 : len(p)-1]}
		default:
			out[i] = segment{literal: p}
		}
	}
	return out
}

// rank orders two routes that both match one path: the one whose first
// differing segment is a literal wins over a parameter, a parameter over
// a files slot (http.ServeMux's most specific pattern).
func rank(a, b []segment) int {
	weight := func(s segment) int {
		switch {
		case s.files:
			return 0
		case s.param != "":
			return 1
		}
		return 2
	}
	for i := range min(len(a), len(b)) {
		if d := weight(a[i]) - weight(b[i]); d != 0 {
			return d
		}
	}
	return 0
}

// A pathValue is one parameter's value in a request path.
type pathValue struct{ name, value string }

// valueOf is the value of the parameter name among values.
func valueOf(values []pathValue, name string) string {
	for _, v := range values {
		if v.name == name {
			return v.value
		}
	}
	return ""
}

// matches reports whether the request path's segments (unescaped) fit
// segs, and returns the parameters' values.
func matches(segs []segment, path []string) ([]pathValue, bool) {
	if len(segs) != len(path) {
		return nil, false
	}
	var values []pathValue
	for i, s := range segs {
		switch {
		case s.files:
			values = append(values, pathValue{filesParam, path[i]})
		case s.param != "":
			if path[i] == "" {
				return nil, false
			}
			values = append(values, pathValue{s.param, path[i]})
		case s.literal != path[i]:
			return nil, false
		}
	}
	return values, true
}

// filesParam is where matches puts a files route's file name, which no
// parameter name can be.
const filesParam = "/file"

// allowed lists the methods of routes, sorted as Allow headers write
// them, with HEAD wherever GET is.
func allowed(routes []*Route) string {
	var ms []string
	for _, r := range routes {
		ms = append(ms, r.Method)
		if r.Method == "GET" {
			ms = append(ms, "HEAD")
		}
	}
	slices.Sort(ms)
	return strings.Join(slices.Compact(ms), ", ")
}
