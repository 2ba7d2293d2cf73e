package jobhttp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/registry"
)

// maxInputBytes caps the body of one input: far more than a person types at
// once, and a bound on what one request makes the server read.
const maxInputBytes = 16 << 10

// input types text into a terminal job's terminal:
//
//	POST /api/jobs/{id}/input  a wire.InputRequest, Content-Type
//	                           application/json; answers a wire.InputResponse
//
// It is fenced as kill is: a JSON POST from this site (a cross-site form
// cannot send one; see the package doc) for a Host the handler answers
// for, by the caller's session. A job that is not the caller's is a 404, a
// job without a terminal or one that has settled a 409, an empty or
// malformed body a 400, one over 16 KiB a 413, and a terminal that did not
// take the text (its program stopped reading) a 502.
func (h *Handler) input(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if status, msg := h.crossSite(r); status != 0 {
		httpError(w, status, msg)
		return
	}
	id, ok := jobID(r)
	if !ok {
		httpError(w, http.StatusNotFound, "no such job")
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxInputBytes+1))
	switch {
	case err != nil:
		httpError(w, http.StatusBadRequest, "body: could not be read")
		return
	case len(data) > maxInputBytes:
		httpError(w, http.StatusRequestEntityTooLarge, "input over 16 KiB: send it in parts")
		return
	}
	var body wire.InputRequest
	if err := json.Unmarshal(data, &body); err != nil || body.Text == "" {
		httpError(w, http.StatusBadRequest, "body: want {\"text\": \"...\"} with text to type")
		return
	}
	if err := h.reg.Send(session, id, body.Text); err != nil {
		h.inputError(w, id, session, err)
		return
	}
	snap, err := h.reg.Get(session, id)
	if err != nil {
		lookupError(w, err)
		return
	}
	writeJSON(w, wire.InputResponse{Job: snap})
}

// inputError answers a refused Send.
func (h *Handler) inputError(w http.ResponseWriter, id jobs.JobID, session jobs.SessionID, err error) {
	switch {
	case errors.Is(err, registry.ErrUnknownJob), errors.Is(err, registry.ErrForeignJob):
		lookupError(w, err)
	case errors.Is(err, registry.ErrNoTerminal):
		httpError(w, http.StatusConflict, "the job has no terminal: it takes no input")
	case errors.Is(err, registry.ErrSettled):
		httpError(w, http.StatusConflict, "the job has settled: its terminal takes no more input")
	default:
		// The producer's terminal refused the text: the client learns no
		// more than that; the operator learns why.
		h.log.Error("jobhttp: input", "job", id, "session", session, "err", err)
		httpError(w, http.StatusBadGateway, "the job's terminal did not take the input")
	}
}
