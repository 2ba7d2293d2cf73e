package httproute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
)

// A Call is one request to one route, as the generated Serve of the route
// sees it: its parameters as text, its body, and the ways to answer it.
// Its methods are for generated code.
type Call struct {
	h      *Handler
	route  *Route
	w      http.ResponseWriter
	r      *http.Request
	ctx    context.Context // r's, with what the caller hook put in it; a stream's own
	path   []pathValue
	stream *Stream
	body   []byte // the body as read, for a handoff
	read   bool   // the body was read
	// resumed reports that the resume parameter's value came from
	// Last-Event-ID.
	resumed bool
	// probe asks a files route only whether its directory has the file,
	// which Files says in found, writing nothing.
	probe, found bool
}

// Context is the context the route's method runs in: the request's, with
// what WithCaller put in it, ended by Close for a stream.
func (c *Call) Context() context.Context { return c.ctx }

// Path returns the value of the path parameter name, unescaped.
func (c *Call) Path(name string) string { return valueOf(c.path, name) }

// BadPath is the refusal of a path parameter that does not parse: the path
// names nothing, a 404, with the parameter's declared message when it has
// one (so that it reads as the server's answer for a value that names
// nothing).
func (c *Call) BadPath(name string, err error) error {
	for _, p := range c.route.Params {
		if p.Name == name && p.NotFound != "" {
			return Refuse(http.StatusNotFound, p.NotFound)
		}
	}
	return Refusef(http.StatusNotFound, "%s %s: {%s} %v", c.route.Method, c.r.URL.Path, name, err)
}

// Query returns the query parameter name and whether it was sent. The
// stream's resume parameter is read from Last-Event-ID when the request
// sends one, which is what EventSource does on reconnect. A parameter sent
// twice, or a required one missing, is a 400.
func (c *Call) Query(name string) (string, bool, error) {
	if c.route.Events != nil && c.route.Events.Resume == name {
		if id := c.r.Header.Get("Last-Event-ID"); id != "" {
			c.resumed = true
			return id, true, nil
		}
	}
	vs, sent := c.r.URL.Query()[name]
	switch {
	case len(vs) > 1:
		return "", false, Refusef(http.StatusBadRequest, "query parameter %s is given %d times; send it once", name, len(vs))
	case !sent && !c.optional(name):
		return "", false, Refusef(http.StatusBadRequest, "query parameter %s is missing", name)
	case !sent:
		return "", false, nil
	}
	return vs[0], true, nil
}

// optional reports whether the route's query parameter name may be left out.
func (c *Call) optional(name string) bool {
	for _, p := range c.route.Query {
		if p.Name == name {
			return p.Optional
		}
	}
	return true
}

// BadQuery is the refusal of a query parameter that does not parse, named
// as the client sent it (Last-Event-ID, for a resume read from it).
func (c *Call) BadQuery(name string, err error) error {
	if c.resumed && c.route.Events != nil && c.route.Events.Resume == name {
		name = "Last-Event-ID"
	}
	return Refusef(http.StatusBadRequest, "%s: %v", name, err)
}

// Body reads the request body, at most the route's limit, into v with the
// generated strict decoder (encoding/json calls it): a body over the limit
// is a 413, one that does not decode a 400, an empty one the zero value
// when the body is optional and a 400 otherwise.
func (c *Call) Body(v any) error {
	b := c.route.Body
	data, err := io.ReadAll(io.LimitReader(c.r.Body, b.MaxBytes+1))
	c.body, c.read = data, true
	switch {
	case err != nil:
		return Refuse(http.StatusBadRequest, "body: could not be read")
	case int64(len(data)) > b.MaxBytes:
		return Refusef(http.StatusRequestEntityTooLarge, "body over %s: send it in parts, or less", size(b.MaxBytes))
	case len(bytes.TrimSpace(data)) == 0 && b.Optional:
		return nil
	case len(bytes.TrimSpace(data)) == 0:
		return Refusef(http.StatusBadRequest, "body: want a JSON %s", b.Type)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return Refusef(http.StatusBadRequest, "body: want a JSON %s: %v", b.Type, err)
	}
	return nil
}

// size writes a byte count as a person reads it: 16 KiB, 1 MiB, 300 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// JSON answers v as a 200 JSON document; a nil list is written as [].
func (c *Call) JSON(v any) error {
	data, err := EncodeJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", c.route.Type, err)
	}
	hd := c.w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	c.w.Write(data)
	return nil
}

// Media answers body as the route's media type, with headers as name,
// value pairs (an empty value is left out). A download is sandboxed: it runs no script of its own.
func (c *Call) Media(body []byte, headers ...string) error {
	hd := c.w.Header()
	hd.Set("Content-Type", c.route.Type)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			hd.Set(headers[i], headers[i+1])
		}
	}
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	c.w.Write(body)
	return nil
}

// Files answers the file of fsys the request names, the directory's
// index.html for the route's own path, as http.FileServerFS does; a name
// fsys lacks is a 404 refusal. The page may load only its own origin's
// scripts, styles and connections, and may not be framed.
func (c *Call) Files(fsys fs.FS) error {
	name := valueOf(c.path, filesParam)
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) {
		return Refuse(http.StatusNotFound, "no such file")
	}
	if _, err := fs.Stat(fsys, name); err != nil {
		return Refuse(http.StatusNotFound, "no such file")
	}
	if c.probe {
		c.found = true
		return nil
	}
	hd := c.w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	if name == "." {
		name = ""
	}
	http.ServeFileFS(c.w, c.r, fsys, "/"+name)
	return nil
}

// Stream returns the stream of a stream route, which starts with its first
// event.
func (c *Call) Stream() *Stream { return c.stream }

// finish answers what the route's method returned: nothing for nil (it
// answered), the handler for a handoff, the refusal record for a refusal,
// and a logged 500 for any other error.
func (c *Call) finish(err error) {
	if err == nil {
		return
	}
	var ho *handoff
	if errors.As(err, &ho) {
		if c.read {
			c.r.Body = io.NopCloser(bytes.NewReader(c.body))
		}
		ho.h.ServeHTTP(c.w, c.r.WithContext(c.ctx))
		return
	}
	var ref *Refusal
	if !errors.As(err, &ref) {
		c.h.log.Error("httproute: a route failed", "route", c.route.Name, "err", err)
		ref = Refuse(http.StatusInternalServerError, "internal error")
	}
	header := ref.Header
	if ref.notServed {
		header = header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set(NotServedHeader, c.route.Name)
	}
	c.h.refuse(c.w, ref.Status, ref.Message, header)
}
