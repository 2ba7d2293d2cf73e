package otelmetrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
)

// A SubagentObserver records a continuation manager's lifecycle; it
// implements [subagent.Observer]. It is safe for concurrent use, and an
// event allocates nothing of its own:
//
//	jobgen.subagents.resident          up-down    {child}    residencies open
//	jobgen.subagents.resumes           counter    {resume}   cold resumes
//	jobgen.subagents.redeliveries      counter    {message}  messages redelivered by a resume
//	jobgen.subagents.resume.duration   histogram  s          from the follow-up to the resumed residency
//
//	obs, err := otelmetrics.NewSubagentObserver(meter)
//	svc := subagent.New(subagent.WithObserver(obs), …)
type SubagentObserver struct {
	subagent.NopObserver
	resident     metric.Int64UpDownCounter
	resumes      metric.Int64Counter
	redeliveries metric.Int64Counter
	resume       metric.Float64Histogram
}

var _ subagent.Observer = (*SubagentObserver)(nil)

// resumeBuckets bound the resume histogram, in seconds: a resume reads the
// child's stream from its last checkpoint, from a millisecond on a local
// file to a second on a loaded remote database.
var resumeBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// NewSubagentObserver creates the manager's instruments on meter.
func NewSubagentObserver(meter metric.Meter) (*SubagentObserver, error) {
	in := instruments{meter: meter}
	resident, err := meter.Int64UpDownCounter("jobgen.subagents.resident", metric.WithUnit("{child}"),
		metric.WithDescription("Children with a live agent: residencies started and not yet ended."))
	in.errs = append(in.errs, err)
	o := &SubagentObserver{
		resident:     resident,
		resumes:      in.counter("jobgen.subagents.resumes", "{resume}", "Cold resumes of children from their streams."),
		redeliveries: in.counter("jobgen.subagents.redeliveries", "{message}", "Messages an earlier residency accepted and nobody claimed, delivered again by a resume."),
		resume:       in.histogram("jobgen.subagents.resume.duration", "s", "How long a cold resume took, from the follow-up to the residency's first delivery.", resumeBuckets),
	}
	if err := errors.Join(in.errs...); err != nil {
		return nil, fmt.Errorf("otelmetrics: subagent instruments: %w", err)
	}
	return o, nil
}

// ResidencyStarted counts a residency in.
func (o *SubagentObserver) ResidencyStarted(jobs.SessionID, subagents.RunID, bool) {
	o.resident.Add(context.Background(), 1)
}

// ResidencyEnded counts a residency out.
func (o *SubagentObserver) ResidencyEnded(jobs.SessionID, subagents.RunID, subagents.StopReason) {
	o.resident.Add(context.Background(), -1)
}

// Resumed counts a cold resume and records how long it took.
func (o *SubagentObserver) Resumed(_ jobs.SessionID, latency time.Duration, _ int) {
	ctx := context.Background()
	o.resumes.Add(ctx, 1)
	o.resume.Record(ctx, latency.Seconds())
}

// Redelivered counts a redelivered message.
func (o *SubagentObserver) Redelivered(jobs.SessionID, subagents.MessageID) {
	o.redeliveries.Add(context.Background(), 1)
}
