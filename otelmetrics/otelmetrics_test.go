package otelmetrics_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/otelmetrics"
	"github.com/jobgen/jobgen/registry"
)

// collected is one collection from the SDK's in-memory reader.
type collected map[string]metricdata.Metrics

func collect(t *testing.T, reader *sdkmetric.ManualReader) collected {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := collected{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// sum returns the value of the int64 sum name at the point whose attributes
// are attrs (no attrs: the point without attributes); absent is zero.
func (c collected) sum(t *testing.T, name string, attrs ...attribute.KeyValue) int64 {
	t.Helper()
	m, ok := c[name]
	if !ok {
		return 0
	}
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T; want an int64 sum", name, m.Data)
	}
	want := attribute.NewSet(attrs...)
	for _, p := range s.DataPoints {
		if p.Attributes.Equals(&want) {
			return p.Value
		}
	}
	return 0
}

func (c collected) histogram(t *testing.T, name string, attrs ...attribute.KeyValue) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	h, ok := c[name].Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T; want a float64 histogram", name, c[name].Data)
	}
	want := attribute.NewSet(attrs...)
	for _, p := range h.DataPoints {
		if p.Attributes.Equals(&want) {
			return p
		}
	}
	t.Fatalf("%s has no point with %v", name, attrs)
	return metricdata.HistogramDataPoint[float64]{}
}

func newMeter(t *testing.T) (*sdkmetric.ManualReader, *sdkmetric.MeterProvider) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { provider.Shutdown(context.Background()) })
	return reader, provider
}

// faceStart starts a job whose producer settles through the face it hands
// to *face and ends as killed when cancelled.
func faceStart(kind string, face *jobs.RunningJob, timeout time.Duration) jobs.PlainJobStart {
	return jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: kind, Label: kind, Owner: "s", Timeout: timeout},
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			*face = job
			return jobs.Hooks{Cancel: func(string) error {
				go job.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil)
				return nil
			}}, nil
		},
	}
}

type failingRecorder struct{}

func (failingRecorder) Record(jobs.Fact) error { return errors.New("disk full") }

func TestRegistryMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader, provider := newMeter(t)
		obs, err := otelmetrics.NewRegistryObserver(provider.Meter("test"))
		if err != nil {
			t.Fatal(err)
		}
		r := registry.New(registry.WithObserver(obs), registry.WithRecorder(failingRecorder{}),
			registry.WithLimits(registry.Limits{MaxPerOwner: 3}))
		gauges, err := obs.ObserveLoad(r)
		if err != nil {
			t.Fatal(err)
		}
		defer gauges.Unregister()
		ctx := t.Context()

		var a, b, c, d jobs.RunningJob
		start := func(kind string, face *jobs.RunningJob, timeout time.Duration) jobs.JobSnapshot {
			snap, err := r.Start(ctx, faceStart(kind, face, timeout))
			if err != nil {
				t.Fatal(err)
			}
			return snap
		}
		start("bash", &a, 0)
		sb := start("bash", &b, 0)
		start("grep", &c, time.Second)
		waiter := make(chan error, 1)
		go func() {
			_, err := r.StartWait(ctx, faceStart("bash", &d, 0))
			waiter <- err
		}()
		synctest.Wait()

		m := collect(t, reader)
		if got := m.sum(t, "jobgen.jobs.started", otelmetrics.KindKey.String("bash")); got != 2 {
			t.Errorf("bash jobs started = %d; want 2", got)
		}
		if got := m.sum(t, "jobgen.jobs.started", otelmetrics.KindKey.String("grep")); got != 1 {
			t.Errorf("grep jobs started = %d; want 1", got)
		}
		if r, w := m.sum(t, "jobgen.jobs.running"), m.sum(t, "jobgen.jobs.waiting"); r != 3 || w != 1 {
			t.Errorf("running %d, waiting %d; want 3 and 1", r, w)
		}

		a.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
		if err := <-waiter; err != nil {
			t.Fatal(err)
		}
		if _, err := r.Kill("s", sb.ID, "enough"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // grep's deadline
		synctest.Wait()

		m = collect(t, reader)
		settled := func(kind string, status jobs.JobStatus, cause jobs.SettlementCause) int64 {
			return m.sum(t, "jobgen.jobs.settled", otelmetrics.KindKey.String(kind),
				otelmetrics.StatusKey.String(string(status)), otelmetrics.CauseKey.String(string(cause)))
		}
		if got := settled("bash", jobs.JobStatusCompleted, jobs.SettlementCauseProducer); got != 1 {
			t.Errorf("bash completed by its producer = %d; want 1", got)
		}
		if got := settled("bash", jobs.JobStatusKilled, jobs.SettlementCauseKill); got != 1 {
			t.Errorf("bash killed = %d; want 1", got)
		}
		if got := settled("grep", jobs.JobStatusKilled, jobs.SettlementCauseTimeout); got != 1 {
			t.Errorf("grep timed out = %d; want 1", got)
		}
		if r, s, w := m.sum(t, "jobgen.jobs.running"), m.sum(t, "jobgen.jobs.stopping"), m.sum(t, "jobgen.jobs.waiting"); r != 1 || s != 0 || w != 0 {
			t.Errorf("running %d, stopping %d, waiting %d; want the waiter's job alone running", r, s, w)
		}
		if got := m.sum(t, "jobgen.facts.record_failures", otelmetrics.FactTypeKey.String("job/registered")); got != 4 {
			t.Errorf("refused job/registered facts = %d; want 4", got)
		}
		if got := m.sum(t, "jobgen.facts.record_failures", otelmetrics.FactTypeKey.String("job/settled")); got != 3 {
			t.Errorf("refused job/settled facts = %d; want 3", got)
		}
		d.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	})
}

func TestJournalMetrics(t *testing.T) {
	reader, provider := newMeter(t)
	obs, err := otelmetrics.NewJournalObserver(provider.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "j")
	s, err := journal.Open(path, journal.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	payload := []byte(`{"type":"x","v":1,"data":{}}`)
	if _, err := s.Append(ctx, "a", journal.Entry{Payload: payload}, journal.Entry{Payload: payload}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "", journal.Entry{Payload: payload}); !errors.Is(err, journal.ErrInvalid) {
		t.Fatalf("append to an empty stream = %v; want ErrInvalid", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Append(cancelled, "a", journal.Entry{Payload: payload}); !errors.Is(err, context.Canceled) {
		t.Fatalf("append with an ended context = %v", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	size := s.LastPos() // two records
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}

	m := collect(t, reader)
	if got := m.sum(t, "jobgen.journal.append.records"); got != 2 || size.Minor != 2 {
		t.Errorf("records appended = %d (store at %s); want 2", got, size)
	}
	if got, grew := m.sum(t, "jobgen.journal.append.bytes"), fileSize(t, path)-before; got != grew {
		t.Errorf("bytes appended = %d; the journal grew by %d", got, grew)
	}
	if got := m.sum(t, "jobgen.journal.append.errors", otelmetrics.ErrorType.String("invalid")); got != 1 {
		t.Errorf("invalid appends = %d; want 1", got)
	}
	if got := m.sum(t, "jobgen.journal.append.errors", otelmetrics.ErrorType.String("canceled")); got != 1 {
		t.Errorf("cancelled appends = %d; want 1", got)
	}
	// Close flushes through its own path, not Flush: two observed flushes.
	if p := m.histogram(t, "jobgen.journal.flush.duration"); p.Count != 2 || p.Sum <= 0 {
		t.Errorf("flush histogram count %d sum %g; want two flushes of some time", p.Count, p.Sum)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestJournalFlushErrorsCarryTheirType(t *testing.T) {
	reader, provider := newMeter(t)
	obs, err := otelmetrics.NewJournalObserver(provider.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	obs.Flushed(3*time.Millisecond, nil)
	obs.Flushed(250*time.Millisecond, fmt.Errorf("journal j: sync failed: %w: EIO", journal.ErrFailed))
	m := collect(t, reader)
	if p := m.histogram(t, "jobgen.journal.flush.duration"); p.Count != 1 || p.Sum != 0.003 {
		t.Errorf("good flushes: count %d sum %g; want one of 3ms", p.Count, p.Sum)
	}
	if p := m.histogram(t, "jobgen.journal.flush.duration", otelmetrics.ErrorType.String("failed")); p.Count != 1 || p.Sum != 0.25 {
		t.Errorf("failed flushes: count %d sum %g; want one of 250ms", p.Count, p.Sum)
	}
}
