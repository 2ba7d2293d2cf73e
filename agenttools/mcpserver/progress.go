package mcpserver

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
)

// progressEvery bounds the rate of progress notifications: a job's
// progress line is looked at this often, and told when it changed.
const progressEvery = 250 * time.Millisecond

// progress tells the progress line of the job a job_wait call waits for,
// as notifications/progress, while the call runs and when the client gave
// a progress token; the returned func stops it.
func (srv *server) progress(ctx context.Context, ts *agenttools.Toolset, req *sdk.CallToolRequest, tool string) (stop func()) {
	if tool != "job_wait" {
		return func() {}
	}
	var in tools.JobWait
	if decodeJSON(req.Params.Arguments, &in) != nil {
		return func() {}
	}
	ss, _ := req.GetSession().(*sdk.ServerSession)
	return srv.progressOf(ctx, ss, ts, in.JobID, req.Params.GetProgressToken())
}

// progressOf sends id's progress line to ss under token, at most every
// progressEvery, until stop is called; with no token or session it does
// nothing.
func (srv *server) progressOf(ctx context.Context, ss *sdk.ServerSession, ts *agenttools.Toolset, id jobs.JobID, token any) (stop func()) {
	if token == nil || ss == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		last, n := "", 0
		for {
			st, err := ts.Job(ctx, id)
			if err != nil || st.Snapshot.Status.Terminal() {
				return
			}
			if d := st.Snapshot.Detail; d != "" && d != last {
				last, n = d, n+1
				if err := ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: d}); err != nil {
					srv.log.Debug("mcpserver: progress not sent", "job", id, "err", err)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
