package registrytest

import (
	"strings"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// An Append is one call of [Job.Append], with the time it was made.
type Append struct {
	Text string
	Opts jobs.AppendOptions
	At   time.Time
}

// A Job is a jobs.RecordingJob that keeps its appends and ignores detail
// and settlement. The zero value is ready to use; it is safe for
// concurrent use.
type Job struct {
	mu      sync.Mutex
	appends []Append
}

var _ jobs.RecordingJob = (*Job)(nil)

// ID returns the one id every Job has.
func (j *Job) ID() jobs.JobID { return jobs.JobID{1} }

// UpdateDetail does nothing.
func (j *Job) UpdateDetail(string) {}

// Settle does nothing.
func (j *Job) Settle(jobs.JobOutcome, error) {}

// Append keeps the call.
func (j *Job) Append(text string, opts jobs.AppendOptions) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.appends = append(j.appends, Append{text, opts, time.Now()})
}

// Appends returns the calls of Append so far, in order.
func (j *Job) Appends() []Append {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Append(nil), j.appends...)
}

// Text returns the text appended on channel ch, in order.
func (j *Job) Text(ch jobs.Channel) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var b strings.Builder
	for _, a := range j.appends {
		if a.Opts.Channel == ch {
			b.WriteString(a.Text)
		}
	}
	return b.String()
}
