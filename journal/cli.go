package journal

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

// Cat writes the records of the journal at path to w as JSON lines,
// {"seq":N,"fact":FACT}, FACT being the payload byte for byte. It reads
// through the fact union generically, so it prints facts of any vocabulary.
// Damage ends the output with an error naming its offset, after the valid
// records before it were written.
func Cat(w io.Writer, path string) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for rec, err := range ReadFile(path) {
		if err != nil {
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
			return err
		}
		line = append(line[:0], `{"seq":`...)
		line = strconv.AppendUint(line, rec.Seq, 10)
		line = append(line, `,"fact":`...)
		line = append(line, rec.Payload...)
		line = append(line, "}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteIntervals projects job facts with [Intervals] and writes the intervals
// to w: as a table, or as JSON lines (one [Interval] per line) when asJSON is
// set. An error from the projection is returned after the intervals projected
// before it were written.
//
// To read a file: WriteIntervals(w, Facts(ReadFile(path), jobs.DecodeFact), asJSON).
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
