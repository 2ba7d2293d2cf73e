package jobhistory

import (
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/jobgen/jobgen/generated/jobs"
)

// An Interval is one job's execution interval, projected from its
// job/registered and job/settled facts.
type Interval struct {
	JobID    jobs.JobID      `json:"jobId"`
	Owner    jobs.SessionID  `json:"owner"`
	Kind     string          `json:"kind"`
	Label    string          `json:"label"`
	Ordinal  int             `json:"ordinal"`
	ToolCall jobs.ToolCallID `json:"toolCall,omitzero"`
	Record   bool            `json:"record"`
	// RegisteredAt is the registration time in Unix milliseconds.
	RegisteredAt int64 `json:"registeredAt"`
	// SettledAt is the settlement time in Unix milliseconds; zero when the
	// interval is not complete.
	SettledAt int64 `json:"settledAt,omitzero"`
	// Status is the terminal status; empty when the interval is not complete.
	Status jobs.JobStatus `json:"status,omitzero"`
	// Detail is the settlement detail.
	Detail string `json:"detail,omitzero"`
	// ProducerReported is false when the settlement was forced; it means
	// nothing when the interval is not complete.
	ProducerReported bool `json:"producerReported"`
	// Cause names the source that settled the job; empty when the interval
	// is not complete, or when history from before causes were recorded
	// cannot tell (a forced v1 settlement).
	Cause jobs.SettlementCause `json:"cause,omitzero"`
	// Complete reports that a settled fact was read. An interval without one
	// stays incomplete: the job may still run, or its settlement was lost,
	// and the projection does not guess which.
	Complete bool `json:"complete"`
	// Partial reports that a fact of the interval was written by a newer
	// build and read only in part (see Readable): the fields this build
	// could not read are empty.
	Partial bool `json:"partial,omitzero"`
	// Labels are the job's key=value pairs from its job/registered fact;
	// none when only its settled fact was read, which does not repeat them.
	Labels map[string]string `json:"labels,omitzero"`
}

// HasLabels reports whether iv carries every key=value of want.
func (iv Interval) HasLabels(want map[string]string) bool {
	for k, v := range want {
		if got, ok := iv.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Name returns the job's display name, such as bash-3.
func (iv Interval) Name() string {
	return fmt.Sprintf("%s-%d", iv.Kind, iv.Ordinal)
}

// Intervals projects job facts, in journal order, to one interval per job, in
// the order each job first appears. A job/settled fact completes the interval
// its job/registered fact opened; one without a registration before it (the
// registration lies in an earlier file) yields a complete interval from the
// registration fields it carries.
//
// Facts this build does not know are read as the tolerant reading rule
// says (decision 0174; see Readable): an unknown job fact of a newer build,
// from [jobs.ReadFact], is projected with what this build can read of it and
// its interval marked Partial; any other unknown (an UnknownFact, or an
// error wrapping [jobs.ErrUnknownFact] from [jobs.DecodeFact]) is skipped, so
// a journal shared with another vocabulary or a newer build still projects;
// the caller counts them (codec.CountUnknown). A fact twice for one job, or
// a registration after its settlement, is an error, as is any other error
// from facts; the error comes with the intervals projected until then.
func Intervals(facts iter.Seq2[jobs.Fact, error]) ([]Interval, error) {
	var out []Interval
	index := make(map[jobs.JobID]int)
	for f, err := range facts {
		if errors.Is(err, jobs.ErrUnknownFact) {
			continue
		}
		if err != nil {
			return out, err
		}
		f, partial := Readable(f)
		switch f := f.(type) {
		case jobs.JobRegistered:
			if i, ok := index[f.JobID]; ok {
				return out, registeredAgain(f.JobID, out[i].Complete)
			}
			index[f.JobID] = len(out)
			iv := OpenInterval(f)
			iv.Partial = partial
			out = append(out, iv)
		case jobs.JobSettled:
			i, ok := index[f.JobID]
			if !ok {
				i = len(out)
				index[f.JobID] = i
				out = append(out, CarriedInterval(f))
			} else if out[i].Complete {
				return out, settledAgain(f.JobID)
			}
			out[i].Settle(f)
			out[i].Partial = out[i].Partial || partial
		}
	}
	return out, nil
}

// OpenInterval returns the open interval a job/registered fact begins: for
// a reader that projects facts one at a time, as they arrive.
func OpenInterval(f jobs.JobRegistered) Interval {
	return Interval{
		JobID: f.JobID, Owner: f.Owner, Kind: f.Kind, Label: f.Label,
		Ordinal: f.Ordinal, ToolCall: f.ToolCall, Record: f.Record,
		RegisteredAt: f.At, Labels: f.Labels,
	}
}

// CarriedInterval returns the open interval of a job/settled fact whose
// registration was not read, from the registration fields the fact carries;
// Settle completes it with the fact.
func CarriedInterval(f jobs.JobSettled) Interval {
	r := f.Registration
	return Interval{
		JobID: f.JobID, Owner: r.Owner, Kind: r.Kind, Label: r.Label,
		Ordinal: r.Ordinal, ToolCall: r.ToolCall, Record: r.Record,
		RegisteredAt: r.RegisteredAt,
	}
}

// Settle completes iv with the settlement f.
func (iv *Interval) Settle(f jobs.JobSettled) {
	iv.SettledAt, iv.Status, iv.Detail = f.At, f.Status, f.Detail
	iv.ProducerReported, iv.Cause, iv.Complete = f.ProducerReported, f.Cause, true
}

// registeredAgain is the error of a second job/registered fact for id, read
// after id settled or not.
func registeredAgain(id jobs.JobID, settled bool) error {
	what := "registered twice"
	if settled {
		what = "registered after its settlement"
	}
	return fmt.Errorf("jobhistory: job %s: %s", id, what)
}

// settledAgain is the error of a second job/settled fact for id.
func settledAgain(id jobs.JobID) error {
	return fmt.Errorf("jobhistory: job %s: settled twice", id)
}

// StreamIntervals projects job facts, in journal order, to execution
// intervals as [Intervals] does, yielding each interval as soon as it is
// complete (in the order the jobs settled) and, once the facts end, the
// incomplete ones in the order they were registered. It holds only the
// intervals still open and the ids of the jobs it has seen, so a journal of
// any length streams through it. Facts this build does not know are read as
// Intervals reads them; an impossible history or another error ends the sequence after the
// incomplete intervals projected until then.
func StreamIntervals(facts iter.Seq2[jobs.Fact, error]) iter.Seq2[Interval, error] {
	return func(yield func(Interval, error) bool) {
		var p intervalStream
		defer p.settled.free()
		for f, err := range facts {
			if errors.Is(err, jobs.ErrUnknownFact) {
				continue
			}
			var iv Interval
			var complete bool
			if err == nil {
				iv, complete, err = p.add(Readable(f))
			}
			if err != nil {
				if p.yieldOpen(yield) {
					yield(Interval{}, err)
				}
				return
			}
			if complete && !yield(iv, nil) {
				return
			}
		}
		p.yieldOpen(yield)
	}
}

// An intervalStream is what StreamIntervals holds while the facts stream
// through: the intervals still open and the jobs already settled, the one
// part that grows with the journal, at about 17.5 bytes an id (idSet).
type intervalStream struct {
	open       openJobs
	settled    idSet
	registered int // how many intervals were opened
}

// An openInterval is a job registered and not yet settled, with its place
// in registration order.
type openInterval struct {
	reg     jobs.JobRegistered
	ord     int
	partial bool // the registration was read in part (Readable)
}

// openJobs holds the open intervals by job id, in slots used again as jobs
// settle: a map holds a value larger than 128 bytes, as an openInterval is,
// out of line, allocating it at every registration.
type openJobs struct {
	slot  map[jobs.JobID]int32
	slots []openInterval
	free  []int32 // slots no job holds
}

func (o *openJobs) has(id jobs.JobID) bool {
	_, ok := o.slot[id]
	return ok
}

// put holds v, the open interval of a job not held yet.
func (o *openJobs) put(v openInterval) {
	if o.slot == nil {
		o.slot = make(map[jobs.JobID]int32)
	}
	if n := len(o.free); n > 0 {
		i := o.free[n-1]
		o.free = o.free[:n-1]
		o.slots[i] = v
		o.slot[v.reg.JobID] = i
		return
	}
	o.slot[v.reg.JobID] = int32(len(o.slots))
	o.slots = append(o.slots, v)
}

// take returns the open interval of id and no longer holds it.
func (o *openJobs) take(id jobs.JobID) (openInterval, bool) {
	i, ok := o.slot[id]
	if !ok {
		return openInterval{}, false
	}
	v := o.slots[i]
	o.slots[i] = openInterval{}
	delete(o.slot, id)
	o.free = append(o.free, i)
	return v, true
}

// values returns the open intervals held, in no order.
func (o *openJobs) values() []openInterval {
	out := make([]openInterval, 0, len(o.slot))
	for _, i := range o.slot {
		out = append(out, o.slots[i])
	}
	return out
}

// interval is the interval o opens.
func (o openInterval) interval() Interval {
	iv := OpenInterval(o.reg)
	iv.Partial = o.partial
	return iv
}

// add projects the fact f, read in part when partial says so: a
// registration opens an interval, a settlement returns its interval complete
// (complete true), and an impossible history is an error. Other facts
// change nothing.
func (p *intervalStream) add(f jobs.Fact, partial bool) (iv Interval, complete bool, err error) {
	switch f := f.(type) {
	case jobs.JobRegistered:
		isOpen := p.open.has(f.JobID)
		isSettled := p.settled.has(f.JobID)
		if isOpen || isSettled {
			return Interval{}, false, registeredAgain(f.JobID, isSettled)
		}
		p.registered++
		p.open.put(openInterval{reg: f, ord: p.registered, partial: partial})
	case jobs.JobSettled:
		if !p.settled.add(f.JobID) {
			return Interval{}, false, settledAgain(f.JobID)
		}
		if o, ok := p.open.take(f.JobID); ok {
			iv = o.interval()
		} else {
			iv = CarriedInterval(f)
		}
		iv.Settle(f)
		iv.Partial = iv.Partial || partial
		return iv, true, nil
	}
	return Interval{}, false, nil
}

// yieldOpen yields the open intervals in registration order and reports
// whether yield asked for more.
func (p *intervalStream) yieldOpen(yield func(Interval, error) bool) bool {
	rest := p.open.values()
	slices.SortFunc(rest, func(a, b openInterval) int { return a.ord - b.ord })
	for _, o := range rest {
		if !yield(o.interval(), nil) {
			return false
		}
	}
	return true
}
