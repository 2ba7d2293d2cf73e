package jobhistory

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// WriteIntervals projects job facts and writes the intervals to w, as
// they complete: as a table, or as JSON lines (one [Interval] per line) when
// asJSON is set. It streams: a complete interval is written as soon as its
// settlement is read, and only the jobs still open are held, so memory goes
// with the jobs running at once, not with the journal. Intervals come in the
// order their jobs settled, then the incomplete ones in the order they were
// registered. The table is aligned in blocks of rows, a column never
// narrower than in the blocks before it. An error from the projection is
// returned after the intervals projected before it (the incomplete ones
// included) were written.
//
// To read a file: WriteIntervals(w, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), asJSON);
// a store: journal.Facts(store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact).
func WriteIntervals(w io.Writer, facts iter.Seq2[jobs.Fact, error], asJSON bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var out intervalWriter = &tableWriter{w: bw}
	if asJSON {
		out = &jsonWriter{w: bw}
	}
	f := startFormatter(out)
	var perr error
	batch := make([]Interval, 0, formatBatch)
	for iv, err := range StreamIntervals(facts) {
		if err != nil {
			perr = err
			break
		}
		if batch = append(batch, iv); len(batch) == formatBatch {
			if !f.send(batch) {
				break
			}
			batch = make([]Interval, 0, formatBatch)
		}
	}
	if len(batch) > 0 {
		f.send(batch)
	}
	if err := f.wait(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return perr
}

// formatBatch is how many intervals the projection hands the formatter at
// once.
const formatBatch = 256

// A formatter writes intervals in a goroutine of its own, so that
// formatting them takes another core than projecting them.
type formatter struct {
	batches chan []Interval
	failed  chan struct{} // closed when writing failed
	done    chan error
}

func startFormatter(out intervalWriter) *formatter {
	f := &formatter{batches: make(chan []Interval, 4), failed: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		var err error
		for batch := range f.batches {
			for _, iv := range batch {
				if err == nil {
					err = out.write(iv)
				}
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			err = out.flush()
		} else {
			close(f.failed)
			for range f.batches { // let the projection finish sending
			}
		}
		f.done <- err
	}()
	return f
}

// send hands a batch to the formatter and reports whether it still writes.
func (f *formatter) send(batch []Interval) bool {
	select {
	case f.batches <- batch:
		return true
	case <-f.failed:
		return false
	}
}

// wait ends the formatter and returns its error.
func (f *formatter) wait() error {
	close(f.batches)
	return <-f.done
}

type intervalWriter interface {
	write(Interval) error
	flush() error
}

type jsonWriter struct {
	w *bufio.Writer
}

func (j *jsonWriter) write(iv Interval) error {
	b, err := json.Marshal(iv)
	if err != nil {
		return err
	}
	j.w.Write(b)
	return j.w.WriteByte('\n')
}

func (j *jsonWriter) flush() error { return nil }

// tableRows is how many rows the table aligns at once.
const tableRows = 4096

// A tableWriter writes intervals as an aligned table, a block of rows at a
// time: each cell padded to its column's width so far plus two spaces, as
// text/tabwriter would align the whole table, without holding it.
type tableWriter struct {
	w      *bufio.Writer
	rows   [][]string
	widths []int
	header bool
}

var tableHeader = []string{"JOB", "NAME", "OWNER", "LABEL", "TOOL CALL", "REGISTERED", "SETTLED", "DURATION", "STATUS", "CAUSE", "REPORTED"}

func (t *tableWriter) write(iv Interval) error {
	if !t.header {
		t.rows, t.header = append(t.rows, tableHeader), true
	}
	t.rows = append(t.rows, tableRow(iv))
	if len(t.rows) >= tableRows {
		return t.flush()
	}
	return nil
}

func (t *tableWriter) flush() error {
	if !t.header {
		t.rows, t.header = append(t.rows, tableHeader), true
	}
	if t.widths == nil {
		t.widths = make([]int, len(tableHeader))
	}
	for _, row := range t.rows {
		for i, c := range row[:len(row)-1] {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range t.rows {
		for i, c := range row {
			t.w.WriteString(c)
			if i == len(row)-1 {
				break
			}
			for range t.widths[i] - utf8.RuneCountInString(c) + 2 {
				t.w.WriteByte(' ')
			}
		}
		if err := t.w.WriteByte('\n'); err != nil {
			return err
		}
	}
	t.rows = t.rows[:0]
	return nil
}

func tableRow(iv Interval) []string {
	settled, duration, status, cause, reported := "-", "-", "incomplete", "-", "-"
	if iv.Complete {
		settled = stamp(iv.SettledAt)
		duration = (time.Duration(iv.SettledAt-iv.RegisteredAt) * time.Millisecond).String()
		status = string(iv.Status)
		cause = cell(string(iv.Cause))
		reported = strconv.FormatBool(iv.ProducerReported)
	}
	return []string{
		iv.JobID.String(), cell(iv.Name()), cell(string(iv.Owner)), cell(iv.Label),
		cell(string(iv.ToolCall)), stamp(iv.RegisteredAt), settled, duration, status, cause, reported,
	}
}

// stamp formats Unix milliseconds as a UTC time.
func stamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// cell makes s fit in one table cell: "-" when empty, control characters
// shown as spaces.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
