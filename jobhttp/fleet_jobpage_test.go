package jobhttp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
)

// TestAFleetServesAJobsPageFromTheSharedHistory: with WithJobFacts over the
// history its hosts record into, a fleet answers JobHistory for a job of
// whichever host ran it, the caller's own alone: another session's job is
// the one 404, as on a host.
func TestAFleetServesAJobsPageFromTheSharedHistory(t *testing.T) {
	fleet, job := newWalkedFleetWith(t, func(store journal.Store) []jobhttp.FleetOption {
		return []jobhttp.FleetOption{jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store))}
	})
	c, _ := coveredClient(t, fleet)
	page, err := c.JobHistory(t.Context(), wire.JobHistoryRequest{ID: job})
	if err != nil {
		t.Fatalf("JobHistory of alice's job through the fleet: %v", err)
	}
	if len(page.Facts) == 0 || page.Facts[0].Type != "job/registered" {
		t.Fatalf("the page's facts = %+v; want the job's, job/registered first", page.Facts)
	}
	if page.Interval.JobID != job || page.Interval.Owner != "alice" {
		t.Errorf("the page's interval = %+v; want alice's job's", page.Interval)
	}

	bob := clientAs(t, fleet, "bob")
	_, err = bob.JobHistory(t.Context(), wire.JobHistoryRequest{ID: job})
	var refused *httproute.WireError
	if !errors.As(err, &refused) || refused.Status != http.StatusNotFound {
		t.Errorf("JobHistory of alice's job as bob = %v; want a 404", err)
	}
}

// clientAs is a generated client of h that calls as session.
func clientAs(t *testing.T, h http.Handler, session string) *wire.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := wire.NewClient(srv.URL, httproute.WithHeader(http.Header{sessionHeader: {session}}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
