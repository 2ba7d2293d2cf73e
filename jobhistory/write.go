package jobhistory

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// WriteIntervals projects job facts with [Intervals] and writes the intervals
// to w: as a table, or as JSON lines (one [Interval] per line) when asJSON is
// set. An error from the projection is returned after the intervals projected
// before it were written.
//
// To read a file: WriteIntervals(w, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), asJSON);
// a store: journal.Facts(store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact).
func WriteIntervals(w io.Writer, facts iter.Seq2[jobs.Fact, error], asJSON bool) error {
	ivs, perr := Intervals(facts)
	var err error
	if asJSON {
		err = writeIntervalsJSON(w, ivs)
	} else {
		err = writeIntervalsTable(w, ivs)
	}
	if err != nil {
		return err
	}
	return perr
}

func writeIntervalsJSON(w io.Writer, ivs []Interval) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, iv := range ivs {
		if err := enc.Encode(iv); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeIntervalsTable(w io.Writer, ivs []Interval) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	io.WriteString(tw, "JOB\tNAME\tOWNER\tLABEL\tTOOL CALL\tREGISTERED\tSETTLED\tDURATION\tSTATUS\tCAUSE\tREPORTED\n")
	for _, iv := range ivs {
		settled, duration, status, cause, reported := "-", "-", "incomplete", "-", "-"
		if iv.Complete {
			settled = stamp(iv.SettledAt)
			duration = (time.Duration(iv.SettledAt-iv.RegisteredAt) * time.Millisecond).String()
			status = string(iv.Status)
			cause = cell(string(iv.Cause))
			reported = strconv.FormatBool(iv.ProducerReported)
		}
		cells := []string{
			iv.JobID.String(), cell(iv.Name()), cell(string(iv.Owner)), cell(iv.Label),
			cell(string(iv.ToolCall)), stamp(iv.RegisteredAt), settled, duration, status, cause, reported,
		}
		io.WriteString(tw, strings.Join(cells, "\t")+"\n")
	}
	return tw.Flush()
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
