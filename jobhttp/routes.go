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

// ListJobs implements wire.Server: the caller's jobs, in registration order.
func (h *Handler) ListJobs(ctx context.Context, req wire.ListJobsRequest) ([]httproute.With[jobs.JobSnapshot, wire.FleetPlacement], error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	return plain(h.reg.List(session)), nil
}

// lookup finds the job id visible to session, or returns the refusal: the
// same 404 for an unknown and a foreign id.
func (h *Handler) lookup(ctx context.Context, id jobs.JobID) (jobs.SessionID, jobs.JobSnapshot, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return "", jobs.JobSnapshot{}, err
	}
	snap, err := h.reg.Get(session, id)
	if err != nil {
		return "", jobs.JobSnapshot{}, lookupError(err)
	}
	return session, snap, nil
}

// GetJob implements wire.Server: one of the caller's jobs.
func (h *Handler) GetJob(ctx context.Context, req wire.GetJobRequest) (httproute.With[jobs.JobSnapshot, wire.FleetPlacement], error) {
	_, snap, err := h.lookup(ctx, req.ID)
	return httproute.With[jobs.JobSnapshot, wire.FleetPlacement]{Item: snap}, err
}

// WatchJobs implements wire.Server: the roster as a stream, one "roster"
// event at once, then one after each lifecycle change. Changes that arrive
// while an event is being written are coalesced into the next one, so a
// burst of changes costs one frame and a slow client costs no memory.
func (h *Handler) WatchJobs(ctx context.Context, req wire.WatchJobsRequest, stream wire.WatchJobsStream) error {
	session, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	release, err := h.streams.open(session)
	if err != nil {
		return err
	}
	defer release()
	changed := make(chan struct{}, 1)
	changed <- struct{}{} // the first frame is the roster as it is now
	unsubscribe := h.reg.OnJobsChanged(func() {
		select {
		case changed <- struct{}{}:
		default: // a frame is already due; it will carry this change too
		}
	})
	defer unsubscribe()
	for {
		select {
		case <-changed:
			if stream.SendRoster(plain(h.reg.List(session))) != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// KillJob implements wire.Server: it asks a job to stop. The adapter has
// refused it unless it is a JSON POST from this site (see the package
// doc), so no cross-site form can trigger it.
func (h *Handler) KillJob(ctx context.Context, req wire.KillJobRequest) (wire.KillResponse, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.KillResponse{}, err
	}
	reason := strings.TrimSpace(req.Body.Reason)
	if reason == "" {
		reason = "killed from the jobs page"
	}
	res, err := h.reg.Kill(session, req.ID, reason)
	if err != nil {
		if errors.Is(err, registry.ErrUnknownJob) || errors.Is(err, registry.ErrForeignJob) {
			return wire.KillResponse{}, lookupError(err)
		}
		// The producer's Cancel failed: the job runs on, and the client
		// learns no more than that; the operator learns why.
		h.log.Error("jobhttp: kill", "job", req.ID, "session", session, "err", err)
		return wire.KillResponse{}, httproute.Refuse(http.StatusBadGateway, "the job could not be asked to stop")
	}
	snap, err := h.reg.Get(session, req.ID)
	if err != nil {
		return wire.KillResponse{}, lookupError(err)
	}
	return wire.KillResponse{Result: killResult(res), Job: snap}, nil
}

func killResult(k registry.KillResult) wire.KillResult {
	if k == registry.KillAlreadyFinished {
		return wire.KillResultAlreadyFinished
	}
	return wire.KillResultRequested
}

// ListHistory implements wire.Server: the session's history from
// WithHistory, declined without one.
func (h *Handler) ListHistory(ctx context.Context, req wire.ListHistoryRequest) ([]httproute.With[wire.Interval, wire.FleetPlacement], error) {
	hist, err := h.history(ctx)
	if err != nil {
		return nil, err
	}
	return plain(hist.Intervals), nil
}

// ArchivedHistory implements wire.Server: the session's history from
// WithHistory with the runs of it retention archived, declined without
// one.
func (h *Handler) ArchivedHistory(ctx context.Context, req wire.ArchivedHistoryRequest) (wire.History, error) {
	hist, err := h.history(ctx)
	if err != nil {
		return wire.History{}, err
	}
	if hist.Intervals == nil {
		hist.Intervals = []wire.Interval{}
	}
	return hist, nil
}

// history reads the caller's history from the function WithHistory gave, for the two
// routes that answer it.
func (h *Handler) history(ctx context.Context) (wire.History, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.History{}, err
	}
	if h.opts.History == nil {
		return wire.History{}, httproute.Decline("no history is kept")
	}
	hist, err := h.opts.History(ctx, session)
	if err != nil {
		h.log.Error("jobhttp: history", "err", err)
		return wire.History{}, httproute.Refuse(http.StatusInternalServerError, "history unavailable")
	}
	return hist, nil
}
