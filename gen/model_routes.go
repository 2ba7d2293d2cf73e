package gen

// The model of a spec's http section: the routes of the wire its
// vocabulary travels on (decision 0167). Like the rest of the model it is
// plain data in spec order; Validate resolves its types and fills in what
// a backend derives from the declarations (the path's segments, a union
// stream's events, the refusal record's message field).

// An HTTP is a spec's http section: the routes one server interface serves.
type HTTP struct {
	Doc string
	Pos Pos
	// Refusal is the record every refusal answers, by type expression
	// (ErrorBody, or wire.ErrorBody from an imported spec).
	Refusal *Type
	Routes  []*Route

	refusalField *Field // the refusal record's message field, once validated
}

// RefusalField is the refusal record's one required string field, which
// holds a refusal's message; nil before Validate.
func (h *HTTP) RefusalField() *Field { return h.refusalField }

// An AnswerKind is what a route answers with.
type AnswerKind int

// The kinds of answer.
const (
	AnswerNone   AnswerKind = iota // not declared (reported by Validate)
	AnswerJSON                     // a JSON document: Response
	AnswerStream                   // Server-Sent Events: Stream
	AnswerMedia                    // bytes of a media type: Media
	AnswerFiles                    // static files below the route's path: Files
)

// String names the kind as the spec's key does.
func (k AnswerKind) String() string {
	return [...]string{"nothing", "response", "stream", "media", "files"}[k]
}

// A Route is one method and path of the wire, and the Server method that
// serves it.
type Route struct {
	Name      string // the spec key, an exported Go name: the Server method
	Doc       string
	Pos       Pos
	Method    string // GET, POST, PUT, PATCH or DELETE
	MethodPos Pos
	Path      string // as written: "/api/jobs/{id}/follow"
	PathPos   Pos
	Segments  []Segment // the path split at "/", parameters resolved; set by Parse
	// Public reports that the route needs no caller: the server's caller
	// hook is not asked.
	Public bool
	Params []*RouteParam // the path's parameters, as declared
	Query  []*RouteParam // the query parameters, as declared
	Body   *Body         // the request body; nil for none
	Answer AnswerKind
	// Exactly one of these is set, by Answer.
	Response *Payload
	Stream   *Stream
	Media    *Media
	Files    *Files
	Refusals []*Refusal // in spec order
}

// Param returns the path parameter declared under name, or nil.
func (r *Route) Param(name string) *RouteParam {
	for _, p := range r.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// QueryParam returns the query parameter declared under name, or nil.
func (r *Route) QueryParam(name string) *RouteParam {
	for _, p := range r.Query {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// ChangesState reports whether the route's method changes state on the
// server, so that the adapter guards it against other sites' pages.
func (r *Route) ChangesState() bool { return r.Method != "GET" }

// A Segment is one element of a route's path: a literal, or a parameter
// (Param set, Literal empty). A files route's path ends in an empty
// segment, where the file's name goes.
type Segment struct {
	Literal string
	Param   string
	Pos     Pos
}

// A RouteParam is a path or query parameter, or a response header: a name
// and a type written as text (string, bool, an integer, an id, an enum).
type RouteParam struct {
	Name     string // as on the wire: the path's {name}, the query key, the header
	GoName   string // the request's field, or the response's
	Type     *Type
	Optional bool // query parameters only
	// NotFound is a path parameter's refusal message for a value that does
	// not parse (a 404: the path names nothing), so that it reads as the
	// server's own answer for a value that names nothing; empty for the
	// adapter's own message.
	NotFound string
	Doc      string
	Pos      Pos
}

// A Payload is a JSON document a route carries: a body, a response, a
// stream event's data. With, when set, is a record whose keys a server may
// add to the object (to each element of a list) beside the type's own.
type Payload struct {
	Type *Type
	With *Type
	Doc  string
	Pos  Pos
}

// A Body is a route's request body: a JSON object of a record or variant.
type Body struct {
	Payload
	Optional bool  // an empty body decodes as the zero value
	MaxBytes int64 // the most the adapter reads; DefaultMaxBodyBytes when not declared
}

// DefaultMaxBodyBytes is the limit of a body that declares no maxBytes.
const DefaultMaxBodyBytes = 1 << 20

// A Stream is a route's Server-Sent Events: the events it carries, how a
// client resumes it, and which events end it.
type Stream struct {
	Doc string
	Pos Pos
	// Union, when set, is the union whose variants are the events, each
	// named by its tag; otherwise the events are declared by name.
	Union  *Type
	Events []*StreamEvent // declared, or the union's variants once validated
	Resume *Resume
	Ends   []Ref // events (variants, for a union stream) after which the stream is over
}

// A StreamEvent is one kind of event of a stream: its SSE event name and
// the payload its data carries.
type StreamEvent struct {
	Name string // the SSE event name
	Payload
	// Variant is the union variant the event is, for a union stream.
	Variant *Variant
}

// A Resume says how a client resumes a stream: the value of the last
// event id it saw goes in the query parameter Query (the adapter reads
// Last-Event-ID in its place), and IDs say which field of each event is
// that id.
type Resume struct {
	Query Ref
	IDs   []ResumeID
	Doc   string
	Pos   Pos
}

// A ResumeID names the field of one event (a union variant, or a named
// event's record) whose value is the event's SSE id.
type ResumeID struct {
	Event Ref
	Field Ref
	// Of is the field, once validated, and Text how its value is written
	// (as its own spec says: the field may be an imported variant's).
	Of   *Field
	Text TextKind
}

// A Media answer is bytes of one media type, with typed response headers.
type Media struct {
	Type    string // "text/plain; charset=utf-8"
	TypePos Pos
	Headers []*RouteParam
	Doc     string
	Pos     Pos
}

// A Files answer serves the files of a directory the server supplies: the
// route's path (which ends in "/") answers the directory's index, and each
// name directly below it a file.
type Files struct {
	Doc string
	Pos Pos
}

// A Refusal is one status a route's server may refuse with, and when.
type Refusal struct {
	Status int
	Doc    string
	Pos    Pos
}

// IndexOf returns the index of the spec that declares the type t names, s's
// own or that of the spec it imports t from, with the name there; nil for
// a type that names no declaration (a builtin, a Go package's type, a name
// of an import that was not read).
func (s *Spec) IndexOf(t *Type) (*Index, string) {
	switch {
	case t == nil:
		return nil, ""
	case t.Kind == TypeNamed:
		return s.Index(), t.Name
	case t.Kind == TypeQualified && t.imp != nil && t.imp.Imported != nil:
		return t.imp.Imported.Spec().Index(), t.Name
	}
	return nil, ""
}

// A TextKind is how a type that a path, query or header value holds is
// written as text.
type TextKind int

// The kinds of text a parameter may be.
const (
	NotText      TextKind = iota
	TextString            // as it is
	TextBool              // true or false
	TextInt               // a signed integer in canonical decimal
	TextUint              // an unsigned integer in canonical decimal
	TextUUID              // a uuid id, canonical
	TextStringID          // a string id, as it is
	TextEnum              // one of an enum's values
)

// TextOf says how values of t are written in a path, a query or a header:
// NotText for a type that cannot be (a record, a list, a float).
func (s *Spec) TextOf(t *Type) TextKind {
	if t == nil {
		return NotText
	}
	if t.Kind == TypeBuiltin {
		switch sc := t.Scalar(); sc.Kind {
		case ScalarString:
			return TextString
		case ScalarBool:
			return TextBool
		case ScalarInt:
			return TextInt
		case ScalarUint:
			return TextUint
		}
		return NotText
	}
	x, name := s.IndexOf(t)
	switch {
	case x == nil:
		return NotText
	case x.IDs[name] != nil && x.IDs[name].Kind == IDUUID:
		return TextUUID
	case x.IDs[name] != nil:
		return TextStringID
	case x.Enums[name] != nil:
		return TextEnum
	}
	return NotText
}
