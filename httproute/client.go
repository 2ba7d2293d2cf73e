package httproute

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The client side of the routes (decision 0205): what a generated Client
// calls, as the Handler is what a generated NewHandler serves. A request
// goes out as the Handler reads it, a refusal comes back as a *WireError
// with the refusal record's message, and a stream is read as Server-Sent
// Events that reconnect with Last-Event-ID within a retry budget.

// A ClientOption says how a Client calls its server. Without any, it sends
// with http.DefaultClient, no extra header, and a stream reconnects
// DefaultRetries times in a row without progress, waiting on a timer
// (decision 0229: every optional setting is an option whose absence is the
// default).
type ClientOption func(*clientConfig) error

// clientConfig is how a Client calls: its options applied to the defaults.
type clientConfig struct {
	HTTP    *http.Client
	Header  http.Header
	Retries int
	Sleep   func(ctx context.Context, d time.Duration) error
}

// WithHTTPClient sends the requests with c. Its timeout, if any, bounds a
// stream's connection as a whole: leave it zero for streams and bound calls
// with their contexts. Without it, or with nil, http.DefaultClient.
func WithHTTPClient(c *http.Client) ClientOption {
	return func(o *clientConfig) error {
		if c != nil {
			o.HTTP = c
		}
		return nil
	}
}

// WithHeader sends h with every request: the caller's credentials, which
// the server's caller hook reads. Two WithHeader send the values of both.
func WithHeader(h http.Header) ClientOption {
	return func(o *clientConfig) error {
		if o.Header == nil {
			o.Header = http.Header{}
		}
		for k, vs := range h {
			for _, v := range vs {
				o.Header.Add(k, v)
			}
		}
		return nil
	}
}

// WithRetries sets a stream's budget: how many reconnections in a row may
// make no progress before the last failure is the stream's error (decision
// 0158); 0 reconnects never. Without it, DefaultRetries.
func WithRetries(n int) ClientOption {
	return func(o *clientConfig) error {
		if n < 0 {
			return fmt.Errorf("WithRetries(%d): a budget cannot be negative (0 reconnects never)", n)
		}
		o.Retries = n
		return nil
	}
}

// WithSleep sets how the client waits d before a reconnection, or until ctx
// ends (its error). Without it, or with nil, on a timer.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) ClientOption {
	return func(o *clientConfig) error {
		if sleep != nil {
			o.Sleep = sleep
		}
		return nil
	}
}

// DefaultRetries is a stream's retry budget without WithRetries.
const DefaultRetries = 5

// A Client calls the routes of one server: the runtime of a generated
// package's Client, which knows its routes.
type Client struct {
	base    *url.URL
	opts    clientConfig
	refusal func(body []byte) (string, error)
}

// NewClient returns a Client of the server whose root is base (a route's
// path goes below it), reading each refusal's message with refusal, the
// generated decoder of the table's refusal record.
func NewClient(base string, refusal func(body []byte) (string, error), opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("httproute: client of %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("httproute: client of %q: want an http or https URL", base)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	cfg := clientConfig{HTTP: http.DefaultClient, Retries: DefaultRetries, Sleep: sleep}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, fmt.Errorf("httproute: client of %q: %w", base, err)
		}
	}
	return &Client{base: u, opts: cfg, refusal: refusal}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A WireError is a request the server refused: its status and the message
// of its refusal record (or the body's text, when it is none).
type WireError struct {
	Status  int
	Message string
	// RetryAfter is how long the server asks to wait (a 429 or 503 says);
	// zero when it does not.
	RetryAfter time.Duration
	// NotServed names the route the server declined (Jobgen-Not-Served);
	// empty for a refusal of a route it serves.
	NotServed string
}

// Error says the status and the message.
func (e *WireError) Error() string {
	return fmt.Sprintf("httproute: %d %s", e.Status, e.Message)
}

// Is reports a decline as ErrNotServed, as the server's own Decline is.
func (e *WireError) Is(target error) bool { return target == ErrNotServed && e.NotServed != "" }

// EncodeBody is a request's JSON body. An optional body that is its type's
// zero value is sent empty, which the Handler reads as that zero value
// (a zero record need not encode: an enum field's zero is no value).
func EncodeBody(v any, optional bool) ([]byte, error) {
	if optional && reflect.ValueOf(v).IsZero() {
		return []byte{}, nil
	}
	return json.Marshal(v)
}

// Escape is a path parameter's text as one segment of a path.
func Escape(text string) string { return url.PathEscape(text) }

// EscapeFile is the name of a file below a files route, each of its
// segments escaped.
func EscapeFile(name string) string {
	segs := strings.Split(strings.TrimPrefix(name, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// request builds a request to path (below the base) with query and body.
func (c *Client) request(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Request, error) {
	ref, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("httproute: path %q: %w", path, err)
	}
	u := c.base.ResolveReference(ref)
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.opts.Header {
		req.Header[k] = slices.Clone(vs)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Do sends one request and reads its answer: the response, whose body is
// read and closed, and the body's bytes; a status other than 2xx is a
// *WireError. A nil body sends none.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Response, []byte, error) {
	req, err := c.request(ctx, method, path, query, body)
	if err != nil {
		return nil, nil, err
	}
	res, err := c.opts.HTTP.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("httproute: %s %s: reading the answer: %w", method, path, err)
	}
	if res.StatusCode/100 != 2 {
		return nil, nil, c.refused(res, data)
	}
	return res, data, nil
}

// refused is the *WireError of a refused request.
func (c *Client) refused(res *http.Response, data []byte) *WireError {
	e := &WireError{Status: res.StatusCode, NotServed: res.Header.Get(NotServedHeader)}
	if msg, err := c.refusal(data); err == nil {
		e.Message = msg
	} else if e.Message = strings.TrimSpace(string(data)); e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	if n, ok := digits(res.Header.Get("Retry-After")); ok {
		e.RetryAfter = time.Duration(n) * time.Second
	}
	return e
}

// digits reads 1 to 9 ASCII digits, as every client of the wire reads a
// number of a header or a stream's field.
func digits(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

// A ClientEvent is one event of a stream as a client reads it.
type ClientEvent struct {
	Name string
	ID   string // the stream's last event id once this event arrived
	Data []byte // the data lines, joined with "\n"
}

// errStreamEnded is a stream the server closed before its end, or said bye
// on: for the budget, a dropped connection.
var errStreamEnded = errors.New("httproute: the server closed the stream")

// Stream reads the events named names of the stream route at path, across
// its connections, until the caller stops or ctx ends. A refusal is its
// error at once; a dropped connection, or the server's bye, reconnects
// with Last-Event-ID after a wait (the server's retry field, else a
// backoff), up to the budget of reconnections in a row without progress:
// an event after a connection's first that, for a resumable stream, moved
// the resume point past where the connection resumed.
func (c *Client) Stream(ctx context.Context, path string, query url.Values, names []string, resumable bool) iter.Seq2[ClientEvent, error] {
	return func(yield func(ClientEvent, error) bool) {
		st := &streamState{}
		for {
			err := c.connect(ctx, path, query, names, resumable, st, yield)
			var refused *WireError
			var final permanent
			switch {
			case err == nil: // the caller stopped
				return
			case ctx.Err() != nil:
				yield(ClientEvent{}, ctx.Err())
				return
			case errors.As(err, &refused), errors.As(err, &final):
				yield(ClientEvent{}, err)
				return
			}
			st.failures++
			if st.failures > c.opts.Retries {
				yield(ClientEvent{}, err)
				return
			}
			wait := min(50*time.Millisecond<<st.failures, 2*time.Second)
			if st.retry > 0 {
				wait = st.retry
			}
			if err := c.opts.Sleep(ctx, wait); err != nil {
				yield(ClientEvent{}, err)
				return
			}
		}
	}
}

// A permanent error ends a stream at once: no connection would change it.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// streamState is what a stream keeps across its connections.
type streamState struct {
	lastID   string
	hasID    bool
	retry    time.Duration
	failures int
}

// connect reads one connection of a stream; nil means the caller stopped.
func (c *Client) connect(ctx context.Context, path string, query url.Values, names []string, resumable bool, st *streamState, yield func(ClientEvent, error) bool) error {
	req, err := c.request(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		return permanent{err}
	}
	req.Header.Set("Accept", "text/event-stream")
	if st.hasID {
		req.Header.Set("Last-Event-ID", st.lastID)
	}
	res, err := c.opts.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return c.refused(res, data)
	}
	from, seen := st.lastID, 0
	rd := bufio.NewReader(res.Body)
	var name string
	var data []string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				return errStreamEnded
			}
			return err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line != "" {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "": // a comment: the keep-alive
			case "event":
				name = value
			case "data":
				data = append(data, value)
			case "id":
				if printable(value) {
					st.lastID, st.hasID = value, true
				}
			case "retry":
				if ms, ok := digits(value); ok {
					st.retry = time.Duration(ms) * time.Millisecond
				}
			}
			continue
		}
		ev := ClientEvent{Name: name, ID: st.lastID, Data: []byte(strings.Join(data, "\n"))}
		if ev.Name == "" {
			ev.Name = "message"
		}
		dispatch := len(data) > 0
		name, data = "", nil
		switch {
		case !dispatch:
			continue
		case ev.Name == "bye":
			return errStreamEnded
		case !slices.Contains(names, ev.Name):
			continue
		}
		if seen++; seen > 1 && (!resumable || st.lastID != from) {
			st.failures = 0
		}
		if !yield(ev, nil) {
			return nil
		}
	}
}

// printable reports an id a header can carry as it came: printable ASCII.
func printable(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
