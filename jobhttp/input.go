package jobhttp

import (
	"context"
	"errors"
	"net/http"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/registry"
)

// SendInput implements wire.Server: text typed into a terminal job's
// terminal. It is fenced as kill is: the adapter has let through only a
// JSON POST from this site (a cross-site form cannot send one; see the
// package doc) for a Host the handler answers for, by the caller's
// session, of at most 16 KiB (413 over it; spec/wire.yaml's maxBytes). A
// job that is not the caller's is a 404, a job without a terminal or one
// that has settled a 409, an empty text a 400, and a terminal that did not
// take the text (its program stopped reading) a 502.
func (h *Handler) SendInput(ctx context.Context, req wire.SendInputRequest) (wire.InputResponse, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.InputResponse{}, err
	}
	if req.Body.Text == "" {
		return wire.InputResponse{}, httproute.Refuse(http.StatusBadRequest, "body: want {\"text\": \"...\"} with text to type")
	}
	if err := h.reg.Send(session, req.ID, req.Body.Text); err != nil {
		return wire.InputResponse{}, h.inputError(req.ID, session, err)
	}
	snap, err := h.reg.Get(session, req.ID)
	if err != nil {
		return wire.InputResponse{}, lookupError(err)
	}
	return wire.InputResponse{Job: snap}, nil
}

// inputError is the refusal of a refused Send.
func (h *Handler) inputError(id jobs.JobID, session jobs.SessionID, err error) error {
	switch {
	case errors.Is(err, registry.ErrUnknownJob), errors.Is(err, registry.ErrForeignJob):
		return lookupError(err)
	case errors.Is(err, registry.ErrNoTerminal):
		return httproute.Refuse(http.StatusConflict, "the job has no terminal: it takes no input")
	case errors.Is(err, registry.ErrSettled):
		return httproute.Refuse(http.StatusConflict, "the job has settled: its terminal takes no more input")
	}
	// The producer's terminal refused the text: the client learns no more
	// than that; the operator learns why.
	h.log.Error("jobhttp: input", "job", id, "session", session, "err", err)
	return httproute.Refuse(http.StatusBadGateway, "the job's terminal did not take the input")
}
