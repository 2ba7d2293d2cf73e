package jobhistory

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The table is byte for byte what the plain formatter below writes — a cell
// a string, widths counted with utf8.RuneCountInString, control characters
// mapped with strings.Map — across blocks, for cells with control
// characters, bytes that are not UTF-8, wide runes, empty and long strings,
// and times and durations of any sign.
func TestTableMatchesThePlainFormatter(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 140))
	var ivs []Interval
	for n := range 2*tableRows + 300 {
		ivs = append(ivs, randomInterval(r, n))
	}
	for _, k := range []int{0, 1, 3, tableRows - 1, tableRows, tableRows + 1, len(ivs)} {
		var got bytes.Buffer
		bw := bufio.NewWriter(&got)
		tw := &tableWriter{w: bw}
		for _, iv := range ivs[:k] {
			if err := tw.write(iv); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.flush(); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		want := plainTable(ivs[:k])
		if got.String() != want {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want, "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%d intervals: line %d:\n got %q\nwant %q", k, i, g[i], w[i])
				}
			}
			t.Fatalf("%d intervals: %d lines, want %d", k, len(g), len(w))
		}
	}
}

var tableStrings = []string{"", "bash", "job number 7", "tab\there", "nl\nx\r", "\x00\x1f\x7f", "bad \xff utf8", "\xc3",
	"é日本語", "\uFFFD", "real \uFFFD and bad \xe2\x82", "   ", strings.Repeat("long label ", 30)}

func randomInterval(r *rand.Rand, n int) Interval {
	pick := func() string { return tableStrings[r.IntN(len(tableStrings))] }
	var id jobs.JobID
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	iv := Interval{
		JobID: id, Owner: jobs.SessionID(pick()), Kind: pick(), Label: pick(), Ordinal: r.IntN(1<<20) - 1000,
		ToolCall: jobs.ToolCallID(pick()), Record: r.IntN(2) == 0, RegisteredAt: r.Int64N(4e12) - 1e12,
	}
	if n%7 != 0 {
		iv.Complete, iv.ProducerReported = true, r.IntN(2) == 0
		iv.SettledAt = iv.RegisteredAt + r.Int64N(1e10) - 1e9
		iv.Status = []jobs.JobStatus{jobs.JobStatusCompleted, jobs.JobStatusFailed, jobs.JobStatusKilled, ""}[r.IntN(4)]
		iv.Cause = jobs.SettlementCause(pick())
		iv.Detail = pick()
	}
	if n%997 == 0 {
		iv.RegisteredAt, iv.SettledAt = 0, -1
	}
	return iv
}

// plainTable is the table formatter that allocated a string a cell: the
// reference the block formatter must match.
func plainTable(ivs []Interval) string {
	var out strings.Builder
	var widths []int
	rows := [][]string{tableHeader}
	write := func() {
		if widths == nil {
			widths = make([]int, len(tableHeader))
		}
		for _, row := range rows {
			for i, c := range row[:len(row)-1] {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
		for _, row := range rows {
			for i, c := range row {
				out.WriteString(c)
				if i < len(row)-1 {
					out.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
				}
			}
			out.WriteByte('\n')
		}
		rows = rows[:0]
	}
	for _, iv := range ivs {
		rows = append(rows, plainRow(iv))
		if len(rows) >= tableRows {
			write()
		}
	}
	if len(rows) > 0 || len(ivs) == 0 {
		write()
	}
	return out.String()
}

func plainRow(iv Interval) []string {
	stamp := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	cell := func(s string) string {
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
	settled, duration, status, cause, reported := "-", "-", "incomplete", "-", "-"
	if iv.Complete {
		settled = stamp(iv.SettledAt)
		duration = (time.Duration(iv.SettledAt-iv.RegisteredAt) * time.Millisecond).String()
		status = string(iv.Status)
		cause = cell(string(iv.Cause))
		reported = strconv.FormatBool(iv.ProducerReported)
	}
	return []string{
		iv.JobID.String(), cell(fmt.Sprintf("%s-%d", iv.Kind, iv.Ordinal)), cell(string(iv.Owner)), cell(iv.Label),
		cell(string(iv.ToolCall)), stamp(iv.RegisteredAt), settled, duration, status, cause, reported,
	}
}

// A row of the table costs no allocation once the block's buffers have grown.
func TestTableRowAllocatesNothing(t *testing.T) {
	iv := Interval{JobID: jobs.JobID{1, 2}, Owner: "session-a", Kind: "bash", Label: "job number 1", Ordinal: 1,
		RegisteredAt: 1_700_000_000_000, SettledAt: 1_700_000_001_500, Status: jobs.JobStatusCompleted, ProducerReported: true, Complete: true}
	tw := &tableWriter{w: bufio.NewWriter(new(bytes.Buffer))}
	for range tableRows {
		tw.row(iv)
	}
	tw.text, tw.cells, tw.mark = tw.text[:0], tw.cells[:0], 0
	if n := testing.AllocsPerRun(100, func() { tw.row(iv) }); n != 0 {
		t.Fatalf("a row costs %v allocations, want 0", n)
	}
}

// appendStamp writes what time.Time.Format writes, for times across the
// years its fast path covers, its edges, and times outside it.
func TestAppendStampMatchesTimeFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 142))
	check := func(ms int64) {
		want := time.UnixMilli(ms).UTC().Format(stampLayout)
		if got := string(appendStamp(nil, ms)); got != want {
			t.Fatalf("appendStamp(%d) = %s, want %s", ms, got, want)
		}
	}
	for _, ms := range []int64{0, 1, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000,
		year10000 - 1, year10000, -1, -86_400_001, 1 << 62, -1 << 62} {
		check(ms)
	}
	for day := range int64(84_000) { // every day from 1970 to 2199, 2000's and 2100's Februaries among them
		check(day*86_400_000 + r.Int64N(86_400_000))
	}
	for range 100_000 {
		check(r.Int64N(year10000))
	}
	for range 1000 {
		check(r.Int64() - r.Int64())
	}
}
