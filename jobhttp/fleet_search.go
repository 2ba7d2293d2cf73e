package jobhttp

import (
	"context"

	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// SearchHistory implements wire.Server: a page of the caller's jobs of
// every host, as the fleet view holds them (what runs and a window of what
// is over, decision 0155), newest registration first, filtered as one
// host's search filters and by the host that registered each job. A fleet
// keeps no operator: every session's history (all) is declined, for a
// host's own page to answer.
func (f *Fleet) SearchHistory(ctx context.Context, req wire.SearchHistoryRequest) (wire.HistoryPage, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return wire.HistoryPage{}, err
	}
	if req.All != nil && *req.All {
		return wire.HistoryPage{}, httproute.Decline("the fleet view searches the caller's own history: every session's is a host's page's")
	}
	q, err := newHistorySearch(req)
	if err != nil {
		return wire.HistoryPage{}, err
	}
	entries := f.view.entries(session)
	ivs := make([]wire.Interval, 0, len(entries))
	for _, e := range entries {
		if req.Host != nil && e.place.Host.Name != *req.Host {
			continue
		}
		ivs = append(ivs, e.iv)
	}
	return q.page(ivs), nil
}
