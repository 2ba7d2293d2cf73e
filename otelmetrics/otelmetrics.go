// Package otelmetrics reports the metrics of a jobgen registry, journal and
// continuation manager to OpenTelemetry. It adapts [registry.Observer],
// [journal.Observer] and [subagent.Observer] (see [SubagentObserver]) to
// instruments of a [metric.Meter], and a registry's [registry.Registry.Load]
// to observable counts. Only a program that imports this package depends on
// OpenTelemetry; a registry or journal without an Observer makes no metric
// call at all.
//
//	obs, err := otelmetrics.NewRegistryObserver(meter)
//	reg := registry.New(registry.WithObserver(obs))
//	gauges, err := obs.ObserveLoad(reg) // gauges.Unregister() when done
//	jobs, err := otelmetrics.NewJournalObserver(meter)
//	store, err := journal.Open(path, journal.WithObserver(jobs))
//
// The instruments:
//
//	jobgen.jobs.started             counter      {job}     jobgen.job.kind
//	jobgen.jobs.settled             counter      {job}     jobgen.job.kind, jobgen.job.status, jobgen.job.cause
//	jobgen.jobs.running             up-down      {job}     (observed from Load)
//	jobgen.jobs.stopping            up-down      {job}     (observed from Load)
//	jobgen.jobs.waiting             up-down      {start}   (observed from Load)
//	jobgen.facts.record_failures    counter      {fact}    jobgen.fact.type
//	jobgen.journal.append.records   counter      {record}
//	jobgen.journal.append.bytes     counter      By
//	jobgen.journal.append.errors    counter      {error}   error.type
//	jobgen.journal.flush.duration   histogram    s         error.type (failed flushes only)
//
// A journal on PostgreSQL (journal/pgstore) reports more through the same
// JournalObserver, which implements pgstore.Observer:
//
//	jobgen.journal.commit.duration  histogram    s         error.type (failed transactions only)
//	jobgen.journal.commit.entries   histogram    {entry}   (the batch size of a transaction)
//	jobgen.journal.append.duration  histogram    s         (queue and transaction, appends that committed)
//	jobgen.journal.tail.lag         histogram    s         (a delivered record's age)
//	jobgen.journal.reconnects       counter      {reconnect} jobgen.journal.connection (listen, tail)
//
// Live counts are observable up-down counters rather than gauges, as
// OpenTelemetry's conventions have it for counts that add up across
// instances (http.server.active_requests): the running jobs of two
// registries sum to the running jobs of both. error.type is the sentinel an
// error wraps (invalid, too_large, full, failed, closed, canceled,
// deadline_exceeded) or _OTHER.
package otelmetrics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// Attribute keys.
const (
	KindKey     = attribute.Key("jobgen.job.kind")
	StatusKey   = attribute.Key("jobgen.job.status")
	CauseKey    = attribute.Key("jobgen.job.cause")
	FactTypeKey = attribute.Key("jobgen.fact.type")
	// ConnectionKey names the connection a journal lost: listen or tail.
	ConnectionKey = attribute.Key("jobgen.journal.connection")
	ErrorType     = attribute.Key("error.type")
)

// A RegistryObserver records a registry's events; it implements
// [registry.Observer]. It is safe for concurrent use.
type RegistryObserver struct {
	meter          metric.Meter
	started        metric.Int64Counter
	settled        metric.Int64Counter
	recordFailures metric.Int64Counter
	running        metric.Int64ObservableUpDownCounter
	stopping       metric.Int64ObservableUpDownCounter
	waiting        metric.Int64ObservableUpDownCounter

	// opts caches one attribute set per (kind, status, cause) or fact type,
	// so an event allocates only the first time its attributes occur.
	opts sync.Map // attrKey → metric.MeasurementOption
}

type attrKey struct {
	kind, status, cause, fact string
}

var _ registry.Observer = (*RegistryObserver)(nil)

// NewRegistryObserver creates the registry's instruments on meter.
func NewRegistryObserver(meter metric.Meter) (*RegistryObserver, error) {
	o := &RegistryObserver{meter: meter}
	in := instruments{meter: meter}
	o.started = in.counter("jobgen.jobs.started", "{job}", "Jobs registered, by kind.")
	o.settled = in.counter("jobgen.jobs.settled", "{job}", "Jobs settled, by kind, terminal status and the source that settled them.")
	o.recordFailures = in.counter("jobgen.facts.record_failures", "{fact}", "Lifecycle facts the Recorder refused; the registry went ahead without them.")
	o.running = in.upDown("jobgen.jobs.running", "{job}", "Registered jobs that are running.")
	o.stopping = in.upDown("jobgen.jobs.stopping", "{job}", "Jobs asked to stop that have not settled; each holds its owner's slot.")
	o.waiting = in.upDown("jobgen.jobs.waiting", "{start}", "StartWait callers queued for an owner's admission slot.")
	if err := errors.Join(in.errs...); err != nil {
		return nil, fmt.Errorf("otelmetrics: registry instruments: %w", err)
	}
	return o, nil
}

// ObserveLoad reports r's running, stopping and waiting counts at each
// collection, until the returned registration is unregistered.
func (o *RegistryObserver) ObserveLoad(r *registry.Registry) (metric.Registration, error) {
	reg, err := o.meter.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		load := r.Load()
		ob.ObserveInt64(o.running, int64(load.Running))
		ob.ObserveInt64(o.stopping, int64(load.Stopping))
		ob.ObserveInt64(o.waiting, int64(load.Waiting))
		return nil
	}, o.running, o.stopping, o.waiting)
	if err != nil {
		return nil, fmt.Errorf("otelmetrics: observe registry load: %w", err)
	}
	return reg, nil
}

// option returns the cached attribute option for k, making it on first use.
func (o *RegistryObserver) option(k attrKey, attrs ...attribute.KeyValue) metric.MeasurementOption {
	if v, ok := o.opts.Load(k); ok {
		return v.(metric.MeasurementOption)
	}
	v, _ := o.opts.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return v.(metric.MeasurementOption)
}

// JobStarted counts a registered job.
func (o *RegistryObserver) JobStarted(kind string) {
	o.started.Add(context.Background(), 1, o.option(attrKey{kind: kind}, KindKey.String(kind)))
}

// JobSettled counts a settled job.
func (o *RegistryObserver) JobSettled(kind string, status jobs.JobStatus, cause jobs.SettlementCause) {
	k := attrKey{kind: kind, status: string(status), cause: string(cause)}
	o.settled.Add(context.Background(), 1, o.option(k,
		KindKey.String(kind), StatusKey.String(string(status)), CauseKey.String(string(cause))))
}

// FactRecordFailed counts a fact the Recorder refused.
func (o *RegistryObserver) FactRecordFailed(factType string) {
	o.recordFailures.Add(context.Background(), 1, o.option(attrKey{fact: factType}, FactTypeKey.String(factType)))
}

// A JournalObserver records a journal's events; it implements
// [journal.Observer], and pgstore.Observer for a journal on PostgreSQL. It
// is safe for concurrent use.
type JournalObserver struct {
	records metric.Int64Counter
	bytes   metric.Int64Counter
	errors  metric.Int64Counter
	flush   metric.Float64Histogram

	commit     metric.Float64Histogram
	batch      metric.Int64Histogram
	appendWait metric.Float64Histogram
	tailLag    metric.Float64Histogram
	reconnects metric.Int64Counter
	connOpts   sync.Map // connection name → metric.MeasurementOption
}

var _ journal.Observer = (*JournalObserver)(nil)

// flushBuckets bound the flush histogram, in seconds: a flush is a write and
// an fsync, from tens of microseconds (a page cache, a fast NVMe) to a
// second (a saturated disk).
var flushBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}

// NewJournalObserver creates the journal's instruments on meter.
func NewJournalObserver(meter metric.Meter) (*JournalObserver, error) {
	in := instruments{meter: meter}
	o := &JournalObserver{
		records: in.counter("jobgen.journal.append.records", "{record}", "Records appended (entries whose id the stream held add none)."),
		bytes:   in.counter("jobgen.journal.append.bytes", "By", "Bytes the appended records take in the journal, framing included."),
		errors:  in.counter("jobgen.journal.append.errors", "{error}", "Appends that returned an error, by the sentinel it wraps."),
		flush:   in.histogram("jobgen.journal.flush.duration", "s", "How long a Flush waited for durability.", flushBuckets),

		commit:     in.histogram("jobgen.journal.commit.duration", "s", "How long an append transaction took, from taking a connection to the end of COMMIT.", flushBuckets),
		batch:      in.intHistogram("jobgen.journal.commit.entries", "{entry}", "Entries an append transaction carried: the batch size of group commit.", batchBuckets),
		appendWait: in.histogram("jobgen.journal.append.duration", "s", "How long an Append that committed waited: its time queued and its transaction's.", flushBuckets),
		tailLag:    in.histogram("jobgen.journal.tail.lag", "s", "How old a record was when a tail delivered it, from its transaction's start.", lagBuckets),
		reconnects: in.counter("jobgen.journal.reconnects", "{reconnect}", "Connections lost and tried again, by connection: the listener's or a tail's."),
	}
	if err := errors.Join(in.errs...); err != nil {
		return nil, fmt.Errorf("otelmetrics: journal instruments: %w", err)
	}
	return o, nil
}

// Appended counts appended records and their bytes.
func (o *JournalObserver) Appended(records int, bytes int64) {
	ctx := context.Background()
	o.records.Add(ctx, int64(records))
	o.bytes.Add(ctx, bytes)
}

// AppendFailed counts a failed append by its error's type.
func (o *JournalObserver) AppendFailed(err error) {
	o.errors.Add(context.Background(), 1, errorTypeOption(err))
}

// Flushed records a flush's latency; a failed one carries its error's type.
func (o *JournalObserver) Flushed(d time.Duration, err error) {
	if err == nil {
		o.flush.Record(context.Background(), d.Seconds())
		return
	}
	o.flush.Record(context.Background(), d.Seconds(), errorTypeOption(err))
}

// batchBuckets bound the batch size histogram: powers of two up to
// pgstore's default cap of 4096 entries.
var batchBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}

// lagBuckets bound the tail lag histogram, in seconds: a notified tail
// delivers in milliseconds, a polling one within its interval, and one held
// back by a long transaction for as long as that runs.
var lagBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Committed records an append transaction's duration and batch size; a
// failed one carries its error's type.
func (o *JournalObserver) Committed(d time.Duration, appends, entries int, bytes int64, err error) {
	ctx := context.Background()
	if err != nil {
		o.commit.Record(ctx, d.Seconds(), errorTypeOption(err))
	} else {
		o.commit.Record(ctx, d.Seconds())
	}
	o.batch.Record(ctx, int64(entries))
}

// AppendWaited records how long a committed Append waited.
func (o *JournalObserver) AppendWaited(d time.Duration) {
	o.appendWait.Record(context.Background(), d.Seconds())
}

// TailLagged records how old a record was when a tail delivered it.
func (o *JournalObserver) TailLagged(d time.Duration) {
	o.tailLag.Record(context.Background(), d.Seconds())
}

// Reconnected counts a lost connection by its name.
func (o *JournalObserver) Reconnected(what string, err error) {
	opt, ok := o.connOpts.Load(what)
	if !ok {
		opt, _ = o.connOpts.LoadOrStore(what, metric.WithAttributeSet(attribute.NewSet(ConnectionKey.String(what))))
	}
	o.reconnects.Add(context.Background(), 1, opt.(metric.MeasurementOption))
}

// errorTypes are the error.type values, made once: each is a fixed set.
var errorTypes = func() map[string]metric.MeasurementOption {
	m := make(map[string]metric.MeasurementOption)
	for _, name := range []string{"invalid", "too_large", "full", "failed", "closed", "canceled", "deadline_exceeded", "_OTHER"} {
		m[name] = metric.WithAttributeSet(attribute.NewSet(ErrorType.String(name)))
	}
	return m
}()

// errorTypeOption names the sentinel err wraps. A failed store is checked
// before the context, since a sticky failure is the news.
func errorTypeOption(err error) metric.MeasurementOption {
	name := "_OTHER"
	switch {
	case errors.Is(err, journal.ErrFailed):
		name = "failed"
	case errors.Is(err, journal.ErrClosed):
		name = "closed"
	case errors.Is(err, journal.ErrInvalid):
		name = "invalid"
	case errors.Is(err, journal.ErrTooLarge):
		name = "too_large"
	case errors.Is(err, journal.ErrFull):
		name = "full"
	case errors.Is(err, context.Canceled):
		name = "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		name = "deadline_exceeded"
	}
	return errorTypes[name]
}

// instruments creates instruments on one meter and keeps the errors, so a
// constructor can create them all, then report every failure at once.
type instruments struct {
	meter metric.Meter
	errs  []error
}

// counter creates an int64 counter.
func (in *instruments) counter(name, unit, desc string) metric.Int64Counter {
	c, err := in.meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	in.errs = append(in.errs, err)
	return c
}

// upDown creates an observable int64 up-down counter.
func (in *instruments) upDown(name, unit, desc string) metric.Int64ObservableUpDownCounter {
	c, err := in.meter.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	in.errs = append(in.errs, err)
	return c
}

// intHistogram creates an int64 histogram with explicit bucket boundaries.
func (in *instruments) intHistogram(name, unit, desc string, buckets []float64) metric.Int64Histogram {
	h, err := in.meter.Int64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(buckets...))
	in.errs = append(in.errs, err)
	return h
}

// histogram creates a float64 histogram with explicit bucket boundaries.
func (in *instruments) histogram(name, unit, desc string, buckets []float64) metric.Float64Histogram {
	h, err := in.meter.Float64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(buckets...))
	in.errs = append(in.errs, err)
	return h
}
