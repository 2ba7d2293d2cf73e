package jobhttp

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/registry"
)

// maxKillIDs is the most ids one bulk stop names (spec/wire.yaml says it).
const maxKillIDs = 1000

// KillJobs implements wire.Server: a bulk stop through Registry.KillAll,
// fenced by the caller's session as one kill is. A job the caller may not
// see answers "no such job" whether it exists or not, so that a bulk stop
// probes no other session's ids. The adapter has refused it unless it is a
// JSON POST from this site, as it refuses a kill.
func (h *Handler) KillJobs(ctx context.Context, req wire.KillJobsRequest) (wire.KillAllResponse, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.KillAllResponse{}, err
	}
	sel, err := killSelection(req.Body)
	if err != nil {
		return wire.KillAllResponse{}, err
	}
	reason := strings.TrimSpace(req.Body.Reason)
	if reason == "" {
		reason = "killed from the jobs page"
	}
	each := h.reg.KillAll(session, sel, reason)
	out := wire.KillAllResponse{Results: make([]wire.KillEach, len(each))}
	for i, k := range each {
		e := wire.KillEach{ID: k.ID}
		switch {
		case errors.Is(k.Err, registry.ErrUnknownJob), errors.Is(k.Err, registry.ErrForeignJob):
			e.Error = "no such job"
			out.Results[i] = e
			continue
		case k.Err != nil:
			h.log.Error("jobhttp: bulk kill", "job", k.ID, "session", session, "err", k.Err)
			e.Error = "the job could not be asked to stop"
		default:
			e.Result = killResult(k.Result)
		}
		if snap, err := h.reg.Get(session, k.ID); err == nil {
			e.Job = snap
		}
		out.Results[i] = e
	}
	return out, nil
}

// killSelection turns a bulk stop's body into the registry's Selection,
// refusing a body that names no jobs or too many.
func killSelection(body wire.KillAllRequest) (registry.Selection, error) {
	switch {
	case len(body.IDs) > maxKillIDs:
		return registry.Selection{}, httproute.Refusef(http.StatusBadRequest, "%d ids; a bulk stop names at most %d", len(body.IDs), maxKillIDs)
	case len(body.IDs) > 0:
		return registry.Selection{IDs: body.IDs}, nil
	case body.Match == (wire.KillMatch{}) && !body.All:
		return registry.Selection{}, httproute.Refuse(http.StatusBadRequest, "name the jobs to stop: ids, a match, or all")
	}
	m := body.Match
	text := strings.ToLower(m.Text)
	return registry.Selection{Match: func(s jobs.JobSnapshot) bool {
		return (m.Kind == "" || s.Kind == m.Kind) &&
			(m.Status == "" || s.Status == m.Status) &&
			(text == "" || strings.Contains(strings.ToLower(s.Name+"\n"+s.Kind+"\n"+s.Label+"\n"+s.Detail), text))
	}}, nil
}

// ListWaiting implements wire.Server: the caller's StartWaits queued for a
// slot (Registry.Waiting), which the roster cannot show, having no id yet.
func (h *Handler) ListWaiting(ctx context.Context, req wire.ListWaitingRequest) ([]wire.WaitingStart, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	ws := h.reg.Waiting(session)
	out := make([]wire.WaitingStart, len(ws))
	for i, w := range ws {
		out[i] = wire.WaitingStart{Owner: w.Owner, Kind: w.Kind, Label: w.Label, Since: w.Since, Place: w.Place}
	}
	return out, nil
}
