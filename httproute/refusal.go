package httproute

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// A Refusal is a request refused: the status, the message the refusal
// record carries, and headers to send with it (Retry-After). A route's
// method returns one as its error; the adapter answers it as the refusal
// record's JSON.
type Refusal struct {
	Status  int
	Message string
	Header  http.Header
	// notServed marks a route its server declines (Decline).
	notServed bool
}

// Refuse returns the refusal of status with message.
func Refuse(status int, message string) *Refusal {
	return &Refusal{Status: status, Message: message}
}

// Refusef is Refuse with a formatted message.
func Refusef(status int, format string, args ...any) *Refusal {
	return Refuse(status, fmt.Sprintf(format, args...))
}

// WithHeader returns r with a header set, for Retry-After and the like.
func (r *Refusal) WithHeader(name, value string) *Refusal {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set(name, value)
	return r
}

func (r *Refusal) Error() string { return fmt.Sprintf("%d %s", r.Status, r.Message) }

// Is makes errors.Is(err, ErrNotServed) true for a declined route.
func (r *Refusal) Is(target error) bool { return target == ErrNotServed && r.notServed }

// ErrNotServed is what errors.Is finds in the error of a route its server
// declines.
var ErrNotServed = errors.New("httproute: the route is not served here")

// Decline is what a route's method returns when its server does not serve
// the route, with the reason a client reads: a 404 whose response header
// NotServedHeader names the route, so that a client tells "not served
// here" from "no such thing". Every server implements every method, so a
// route a spec adds does not compile until each server serves or declines
// it.
func Decline(reason string) error {
	return &Refusal{Status: http.StatusNotFound, Message: reason, notServed: true}
}

// NotServedHeader is the response header of a declined route's refusal;
// its value is the route's name.
const NotServedHeader = "Jobgen-Not-Served"

// A handoff is the error of a method that answers with a handler of its own.
type handoff struct{ h http.Handler }

func (h *handoff) Error() string { return "httproute: the request was handed to another handler" }

// Handoff is what a route's method returns to answer the request with h
// instead of a typed answer: h serves the request as it came (its body
// restored if the adapter read it), as a proxy forwarding it does. It must
// be returned before a stream's first event.
func Handoff(h http.Handler) error { return &handoff{h} }

// refuse writes the refusal record of status and message, with header.
func (h *Handler) refuse(w http.ResponseWriter, status int, message string, header http.Header) {
	hd := w.Header()
	for k, vs := range header {
		hd[k] = vs
	}
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// An Encoder, as jobhttp wrote its refusals: the same bytes, newline
	// included.
	json.NewEncoder(w).Encode(h.table.Refusal(message))
}
