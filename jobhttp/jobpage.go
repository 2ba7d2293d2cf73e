package jobhttp

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// JobHistory implements wire.Server: a job's page, its facts from the
// caller's history (WithJobFacts) and the interval they project to. A
// job of which the caller's history holds no fact is the one 404, unknown
// and foreign alike.
func (h *Handler) JobHistory(ctx context.Context, req wire.JobHistoryRequest) (wire.JobHistory, error) {
	return jobHistory(ctx, h.opts.JobFacts, h.log, req)
}

// jobHistory answers JobHistory for a Handler and a Fleet alike, from the
// facts function they were configured with.
func jobHistory(ctx context.Context, jobFacts JobFactsFunc, log *slog.Logger, req wire.JobHistoryRequest) (wire.JobHistory, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.JobHistory{}, err
	}
	if jobFacts == nil {
		return wire.JobHistory{}, httproute.Decline("no history is kept")
	}
	facts, err := jobFacts(ctx, session, req.ID)
	if err != nil {
		log.Error("jobhttp: a job's facts", "job", req.ID, "err", err)
		return wire.JobHistory{}, httproute.Refuse(http.StatusInternalServerError, "history unavailable")
	}
	if len(facts) == 0 {
		return wire.JobHistory{}, noSuchJob()
	}
	ivs, err := jobhistory.Intervals(func(yield func(jobs.Fact, error) bool) {
		for _, f := range facts {
			fact, err := jobs.ReadFact([]byte(`{"type":` + quote(f.Type) + `,"v":` + itoa(f.Version) + `,"data":` + f.Data + `}`))
			if !yield(fact, err) {
				return
			}
		}
	})
	if err != nil || len(ivs) != 1 {
		return wire.JobHistory{Facts: facts}, nil // facts that project to no one interval: shown as they are
	}
	return wire.JobHistory{Interval: wire.Interval(ivs[0]), Facts: facts}, nil
}

// StoreJobFacts answers JobHistory from a journal: the job facts of id in
// the session's stream (where the registry records an owned job's facts),
// in journal order.
func StoreJobFacts(store journal.Store) JobFactsFunc {
	return func(ctx context.Context, session jobs.SessionID, id jobs.JobID) ([]wire.JobFact, error) {
		return jobFactsOf(store.ReadStream(ctx, journal.Stream(session), 0), id)
	}
}

// StoreAllJobFacts is StoreJobFacts over every stream, for a reader
// allowed to see every session (jobgen console).
func StoreAllJobFacts(store journal.Store) JobFactsFunc {
	return func(ctx context.Context, _ jobs.SessionID, id jobs.JobID) ([]wire.JobFact, error) {
		return jobFactsOf(store.ReadAll(ctx, journal.Position{}), id)
	}
}

// jobFactsOf picks the facts of job id out of records: those whose data
// names it as its jobId. A record that is not a fact envelope is skipped.
func jobFactsOf(records iter.Seq2[journal.Record, error], id jobs.JobID) ([]wire.JobFact, error) {
	var archived *journal.ArchivedError
	var out []wire.JobFact
	want := id.String()
	for rec, err := range untilArchived(records, &archived) {
		if err != nil {
			return out, err
		}
		var env struct {
			Type string          `json:"type"`
			V    int             `json:"v"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(rec.Payload, &env) != nil {
			continue
		}
		var head struct {
			JobID string `json:"jobId"`
			At    int64  `json:"at"`
		}
		if json.Unmarshal(env.Data, &head) != nil || head.JobID != want {
			continue
		}
		out = append(out, wire.JobFact{Type: env.Type, Version: env.V, At: head.At, Data: string(env.Data)})
	}
	return out, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
