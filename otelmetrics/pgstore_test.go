package otelmetrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/otelmetrics"
)

var _ pgstore.Observer = (*otelmetrics.JournalObserver)(nil)

// A journal on PostgreSQL reports through the file store's JournalObserver,
// and adds what only it has: transactions and their batch size, how long
// appends waited, tail lag, reconnects.
func TestJournalMetricsOfPostgres(t *testing.T) {
	reader, provider := newMeter(t)
	obs, err := otelmetrics.NewJournalObserver(provider.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(pgtest.Schema(t)), pgstore.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	payload := []byte(`{"type":"x","v":1,"data":{}}`)
	if _, err := s.Append(ctx, "a", journal.Entry{ID: "1", Payload: payload}, journal.Entry{ID: "2", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a", journal.Entry{ID: "1", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	tailCtx, cancel := context.WithCancel(ctx)
	n := 0
	for _, err := range s.Tail(tailCtx, journal.Position{}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			cancel()
		}
	}
	obs.Reconnected("listen", errors.New("connection reset"))

	m := collect(t, reader)
	if got := m.sum(t, "jobgen.journal.append.records"); got != 2 {
		t.Errorf("records appended = %d; want 2 (the held id adds none)", got)
	}
	if p := m.histogram(t, "jobgen.journal.commit.duration"); p.Count != 2 {
		t.Errorf("transactions = %d; want 2", p.Count)
	}
	entries, ok := m["jobgen.journal.commit.entries"].Data.(metricdata.Histogram[int64])
	if !ok || len(entries.DataPoints) != 1 || entries.DataPoints[0].Sum != 3 {
		t.Errorf("commit.entries = %+v; want 3 entries over the transactions", m["jobgen.journal.commit.entries"].Data)
	}
	if p := m.histogram(t, "jobgen.journal.append.duration"); p.Count != 2 {
		t.Errorf("append waits = %d; want 2", p.Count)
	}
	if p := m.histogram(t, "jobgen.journal.tail.lag"); p.Count == 0 || p.Sum < 0 || p.Sum > float64(time.Minute/time.Second) {
		t.Errorf("tail lag: count %d sum %g s; want a lag under a minute", p.Count, p.Sum)
	}
	if got := m.sum(t, "jobgen.journal.reconnects", otelmetrics.ConnectionKey.String("listen")); got != 1 {
		t.Errorf("listen reconnects = %d; want 1", got)
	}
}
