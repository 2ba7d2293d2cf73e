package jobhttp

import (
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// Search pages: how many intervals a page holds unless the request says,
// and at most.
const (
	searchLimit    = 100
	maxSearchLimit = 1000
)

// SearchHistory implements wire.Server: a page of the caller's history,
// newest registration first, filtered; with all, every session's, for a
// session WithOperator allows. The filter runs over the whole
// projection, so Total and the cursor (an index into the filtered, newest
// first list) are exact for the history as this request read it (decision
// 0213).
func (h *Handler) SearchHistory(ctx context.Context, req wire.SearchHistoryRequest) (wire.HistoryPage, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.HistoryPage{}, err
	}
	if req.Host != nil {
		return wire.HistoryPage{}, httproute.Refuse(http.StatusBadRequest, "this is one host's history: the host filter is a fleet view's")
	}
	q, err := newHistorySearch(req)
	if err != nil {
		return wire.HistoryPage{}, err
	}
	var ivs []wire.Interval
	if req.All != nil && *req.All {
		if h.opts.Operator == nil || !h.opts.Operator(session) {
			return wire.HistoryPage{}, httproute.Refuse(http.StatusForbidden, "this session may not search every session's history")
		}
		if h.opts.AllHistory == nil {
			return wire.HistoryPage{}, httproute.Decline("no history of every session is kept")
		}
		if ivs, err = h.opts.AllHistory(ctx); err != nil {
			h.log.Error("jobhttp: history of every session", "err", err)
			return wire.HistoryPage{}, httproute.Refuse(http.StatusInternalServerError, "history unavailable")
		}
	} else {
		hist, err := h.history(ctx)
		if err != nil {
			return wire.HistoryPage{}, err
		}
		ivs = hist.Intervals
	}
	return q.page(ivs), nil
}

// A historySearch is a SearchHistory request read once: its filter, page
// size and cursor, the same for one host's history and a fleet view's.
type historySearch struct {
	keep          func(*wire.Interval) bool
	limit, cursor int
}

// newHistorySearch reads req, refusing a label that is not key=value and a
// page size or cursor out of range.
func newHistorySearch(req wire.SearchHistoryRequest) (historySearch, error) {
	keep, err := searchFilter(req)
	if err != nil {
		return historySearch{}, err
	}
	limit, cursor, err := searchBounds(req)
	if err != nil {
		return historySearch{}, err
	}
	return historySearch{keep: keep, limit: limit, cursor: cursor}, nil
}

// searchBounds reads a search's page size and cursor, refusing what is out
// of range.
func searchBounds(req wire.SearchHistoryRequest) (limit, cursor int, err error) {
	limit = searchLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	if req.Cursor != nil {
		cursor = *req.Cursor
	}
	if limit < 1 || limit > maxSearchLimit || cursor < 0 {
		return 0, 0, httproute.Refusef(http.StatusBadRequest, "limit must be 1 to %d and cursor not negative", maxSearchLimit)
	}
	return limit, cursor, nil
}

// page filters ivs (oldest first) and cuts the page at the cursor of the
// newest-first list.
func (q historySearch) page(ivs []wire.Interval) wire.HistoryPage {
	keep, cursor, limit := q.keep, q.cursor, q.limit
	page := wire.HistoryPage{Intervals: []wire.Interval{}}
	for i := len(ivs) - 1; i >= 0; i-- {
		if !keep(&ivs[i]) {
			continue
		}
		if page.Total >= cursor && len(page.Intervals) < limit {
			page.Intervals = append(page.Intervals, ivs[i])
		}
		page.Total++
	}
	if end := cursor + len(page.Intervals); end < page.Total {
		page.Next = end
	}
	return page
}

// searchFilter is the filter a search's query asks for.
func searchFilter(req wire.SearchHistoryRequest) (func(*wire.Interval) bool, error) {
	var labelKey, labelValue string
	if req.Label != nil {
		k, v, ok := strings.Cut(*req.Label, "=")
		if !ok || k == "" {
			return nil, httproute.Refusef(http.StatusBadRequest, "label %q is not key=value", *req.Label)
		}
		labelKey, labelValue = k, v
	}
	return func(iv *wire.Interval) bool {
		switch {
		case req.Since != nil && iv.RegisteredAt < *req.Since,
			req.Until != nil && iv.RegisteredAt >= *req.Until,
			req.Kind != nil && iv.Kind != *req.Kind,
			req.Status != nil && !statusIs(iv, *req.Status),
			req.Label != nil && (iv.Labels == nil || iv.Labels[labelKey] != labelValue):
			return false
		}
		if req.Label != nil {
			if _, ok := iv.Labels[labelKey]; !ok {
				return false
			}
		}
		return true
	}, nil
}

// statusIs reports whether iv has status: a settled status, or running for
// an interval not complete.
func statusIs(iv *wire.Interval, status jobs.JobStatus) bool {
	if !iv.Complete {
		return status == jobs.JobStatusRunning
	}
	return iv.Status == status
}

// StoreAllHistory answers SearchHistory's all=true from a journal: the
// intervals of every session's stream, read tolerantly as StoreHistory
// reads one session's. An archived part of the history is not read: what
// the store holds is what it answers (jobgen console reads an archive file
// as the journal it is).
func StoreAllHistory(store journal.Store) AllHistoryFunc {
	return func(ctx context.Context) ([]wire.Interval, error) {
		ivs, err := jobhistory.Intervals(journal.Facts(skipArchived(store.ReadAll(ctx, journal.Position{})), jobs.ReadFact))
		if err != nil {
			return nil, err
		}
		out := make([]wire.Interval, len(ivs))
		for i, iv := range ivs {
			out[i] = wire.Interval(iv)
		}
		return out, nil
	}
}

// skipArchived ends records at an archived error, as the part it names is
// not in the store to read.
func skipArchived(records iter.Seq2[journal.Record, error]) iter.Seq2[journal.Record, error] {
	var archived *journal.ArchivedError
	return untilArchived(records, &archived)
}
