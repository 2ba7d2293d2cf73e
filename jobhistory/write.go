package jobhistory

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A WriteOption says how WriteIntervals writes. Without any, it writes
// every interval as a table.
type WriteOption func(*writeConfig)

// writeConfig is how WriteIntervals writes: its options applied.
type writeConfig struct {
	json bool
	keep func(Interval) bool
}

// WithJSON writes JSON lines, one [Interval] a line, instead of a table.
func WithJSON() WriteOption {
	return func(c *writeConfig) { c.json = true }
}

// WithKeep writes only the intervals keep accepts (jobgen journal intervals
// --label); the projection still reads every fact. Without it, or with nil,
// every interval is written.
func WithKeep(keep func(Interval) bool) WriteOption {
	return func(c *writeConfig) { c.keep = keep }
}

// WriteIntervals projects job facts and writes the intervals to w, as
// they complete: as a table, or as JSON lines (one [Interval] per line) with
// WithJSON; WithKeep writes only the intervals it accepts. It streams: a complete interval is written as soon as its
// settlement is read, and only the jobs still open are held, so memory goes
// with the jobs running at once, not with the journal. Intervals come in the
// order their jobs settled, then the incomplete ones in the order they were
// registered. The table is aligned in blocks of rows, a column never
// narrower than in the blocks before it. An error from the projection is
// returned after the intervals projected before it (the incomplete ones
// included) were written.
//
// Reading and decoding the facts, projecting them and formatting the
// intervals each take a goroutine, so a long journal is projected on more
// than one core: facts is ranged over in a goroutine of its own, a few
// batches ahead, and WriteIntervals returns once that goroutine is done
// with it.
//
// To read a file: WriteIntervals(w, journal.FileFacts(path, jobs.DecodeFact));
// a store: journal.Facts(store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact).
func WriteIntervals(w io.Writer, facts iter.Seq2[jobs.Fact, error], opts ...WriteOption) error {
	var o writeConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	asJSON := o.json
	bw := bufio.NewWriterSize(w, 64<<10)
	var out intervalWriter = &tableWriter{w: bw}
	if asJSON {
		out = &jsonWriter{w: bw}
	}
	f := startFormatter(out)
	var perr error
	batch := f.batch()
	for iv, err := range StreamIntervals(ahead(facts)) {
		if err != nil {
			perr = err
			break
		}
		if o.keep != nil && !o.keep(iv) {
			continue
		}
		if batch = append(batch, iv); len(batch) == formatBatch {
			if !f.send(batch) {
				break
			}
			batch = f.batch()
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
const formatBatch = 64

// A formatter writes intervals in a goroutine of its own, so that
// formatting them takes another core than projecting them.
type formatter struct {
	batches chan []Interval
	free    chan []Interval // batches written, for the projection to fill again
	failed  chan struct{}   // closed when writing failed
	done    chan error
}

func startFormatter(out intervalWriter) *formatter {
	f := &formatter{batches: make(chan []Interval, 4), free: make(chan []Interval, 6), failed: make(chan struct{}), done: make(chan error, 1)}
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
			select {
			case f.free <- batch:
			default:
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

// batch returns an empty batch to fill: one the formatter is done with, or
// a new one.
func (f *formatter) batch() []Interval {
	select {
	case b := <-f.free:
		return b[:0]
	default:
		return make([]Interval, 0, formatBatch)
	}
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
// text/tabwriter would align the whole table, without holding it. A block's
// cells are appended to one buffer, reused from block to block, so a row
// costs no allocation.
type tableWriter struct {
	w      *bufio.Writer
	text   []byte   // the block's cells, one after another
	cells  []uint32 // the block's cells, row after row: how many bytes of text each takes, and nonASCII
	mark   int      // where in text the cell being appended starts
	widths []int    // the columns' widths, in runes, so far
	header bool
}

// nonASCII marks a cell with a byte that is not ASCII, whose width is not
// its length; a cell is at most a few records long, far below this bit.
const nonASCII = 1 << 31

var tableHeader = []string{"JOB", "NAME", "OWNER", "LABEL", "TOOL CALL", "REGISTERED", "SETTLED", "DURATION", "STATUS", "CAUSE", "REPORTED"}

// tableColumns is how many cells a row has.
const tableColumns = 11

func (t *tableWriter) write(iv Interval) error {
	t.startBlock()
	t.row(iv)
	if len(t.cells) >= tableRows*tableColumns {
		return t.flush()
	}
	return nil
}

// startBlock puts the header in the first block.
func (t *tableWriter) startBlock() {
	if t.header {
		return
	}
	t.header = true
	for _, h := range tableHeader {
		t.text = append(t.text, h...)
		t.end()
	}
}

// end ends the cell appended to text since the last one ended, widening
// its column to it.
func (t *tableWriter) end() {
	cell := t.text[t.mark:]
	n, runes := uint32(len(cell)), width(cell)
	if runes != len(cell) {
		n |= nonASCII
	}
	if t.widths == nil {
		t.widths = make([]int, tableColumns)
	}
	if col := len(t.cells) % tableColumns; col < tableColumns-1 {
		t.widths[col] = max(t.widths[col], runes)
	}
	t.cells = append(t.cells, n)
	t.mark = len(t.text)
}

// width returns how many runes cell has.
func width(cell []byte) int {
	for _, c := range cell {
		if c >= utf8.RuneSelf {
			return utf8.RuneCount(cell)
		}
	}
	return len(cell)
}

func (t *tableWriter) flush() error {
	t.startBlock()
	text := t.text
	for i, c := range t.cells {
		cell := text[:c&^nonASCII]
		text = text[len(cell):]
		t.w.Write(cell)
		col := i % tableColumns
		if col == tableColumns-1 {
			if err := t.w.WriteByte('\n'); err != nil {
				return err
			}
			continue
		}
		runes := len(cell)
		if c&nonASCII != 0 {
			runes = utf8.RuneCount(cell)
		}
		for pad := t.widths[col] - runes + 2; pad > 0; pad -= len(spaces) {
			t.w.WriteString(spaces[:min(pad, len(spaces))])
		}
	}
	t.text, t.cells, t.mark = t.text[:0], t.cells[:0], 0
	return nil
}

const spaces = "                                                                "

// row appends the cells of iv's row.
func (t *tableWriter) row(iv Interval) {
	t.text = appendUUID(t.text, [16]byte(iv.JobID))
	t.end()
	t.text = strconv.AppendInt(append(appendCell(t.text, iv.Kind), '-'), int64(iv.Ordinal), 10)
	t.end()
	for _, s := range []string{string(iv.Owner), iv.Label, string(iv.ToolCall)} {
		t.text = appendCellOrDash(t.text, s)
		t.end()
	}
	t.text = appendStamp(t.text, iv.RegisteredAt)
	t.end()
	if !iv.Complete {
		for _, s := range []string{"-", "-", "incomplete", "-", "-"} {
			t.text = append(t.text, s...)
			t.end()
		}
		return
	}
	t.text = appendStamp(t.text, iv.SettledAt)
	t.end()
	t.text = append(t.text, (time.Duration(iv.SettledAt-iv.RegisteredAt) * time.Millisecond).String()...)
	t.end()
	t.text = append(t.text, iv.Status...)
	t.end()
	t.text = appendCellOrDash(t.text, string(iv.Cause))
	t.end()
	t.text = strconv.AppendBool(t.text, iv.ProducerReported)
	t.end()
}

// stampLayout is how the table writes a time: UTC, to the millisecond.
const stampLayout = "2006-01-02T15:04:05.000Z"

// appendStamp appends Unix milliseconds as a UTC time in stampLayout, as
// time.Time.AppendFormat writes it. Times from 1970 to 9999, which a
// registry's clock gives, are written from the civil date directly, a
// fifth of the cost; the rest through AppendFormat.
func appendStamp(b []byte, ms int64) []byte {
	if ms < 0 || ms >= year10000 {
		return time.UnixMilli(ms).UTC().AppendFormat(b, stampLayout)
	}
	days, rest := ms/86_400_000, ms%86_400_000
	y, m, d := civil(days)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	h, mi, sec, milli := rest/3_600_000, rest/60_000%60, rest/1000%60, rest%1000
	b = append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':')
	b = append(b, byte('0'+sec/10), byte('0'+sec%10), '.')
	return append(b, byte('0'+milli/100), byte('0'+milli/10%10), byte('0'+milli%10), 'Z')
}

// year10000 is the first Unix millisecond of the year 10000.
const year10000 = 253_402_300_800_000

// civil returns the proleptic Gregorian date of the day days after
// 1970-01-01, for days ≥ 0 (Howard Hinnant's civil_from_days).
func civil(days int64) (year, month, day int64) {
	z := days + 719_468
	era := z / 146_097
	doe := z - era*146_097
	yoe := (doe - doe/1460 + doe/36_524 - doe/146_096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// appendUUID appends id in the canonical text form of a UUID, as
// uuid.UUID.String writes it.
func appendUUID(b []byte, id [16]byte) []byte {
	const hex = "0123456789abcdef"
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return b
}

// appendCellOrDash appends s as one table cell: "-" when empty, else as
// appendCell does.
func appendCellOrDash(b []byte, s string) []byte {
	if s == "" {
		return append(b, '-')
	}
	return appendCell(b, s)
}

// appendCell appends s made to fit in one table cell: control characters
// shown as spaces and bytes that are not UTF-8 as U+FFFD, as strings.Map
// writes them.
func appendCell(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				c = ' '
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r)
		i += n
	}
	return b
}
