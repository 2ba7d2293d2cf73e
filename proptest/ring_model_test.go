package proptest

import (
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A modelRing is the record of registry/doc.go written as plainly as
// possible: a list of chunks and the absolute offsets of the retained
// window. It knows nothing of the registry's circular buffers.
type modelRing struct {
	limit  int
	chunks []jobs.RecordChunk
	start  int64 // earliest retained offset
	total  int64 // bytes ever appended
}

func (r *modelRing) used() int64 { return r.total - r.start }

// append follows the retention rule: drop whole head chunks while the new
// text would not fit and a chunk remains; a text larger than the limit on
// its own keeps its tail, cut forward to a rune start, marked as a gap.
func (r *modelRing) append(text string, at int64, ch jobs.Channel, gap bool) {
	text = wellFormed(text)
	n := len(text)
	if n > r.limit {
		cut := runeCut(text, n-r.limit)
		r.chunks = []jobs.RecordChunk{{Offset: r.total + int64(cut), At: at, Text: text[cut:], Channel: ch, GapBefore: true}}
		r.start = r.total + int64(cut)
		r.total += int64(n)
		return
	}
	for len(r.chunks) > 0 && r.used()+int64(n) > int64(r.limit) {
		r.start += int64(len(r.chunks[0].Text))
		r.chunks = r.chunks[1:]
	}
	r.chunks = append(r.chunks, jobs.RecordChunk{Offset: r.total, At: at, Text: text, Channel: ch, GapBefore: gap})
	r.total += int64(n)
}

// settle trims to limit by the same rule.
func (r *modelRing) settle(limit int) {
	for len(r.chunks) > 1 && r.used() > int64(limit) {
		r.start += int64(len(r.chunks[0].Text))
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 1 && r.used() > int64(limit) {
		c := r.chunks[0]
		cut := runeCut(c.Text, len(c.Text)-limit)
		c.Offset += int64(cut)
		c.Text = c.Text[cut:]
		c.GapBefore = true
		r.chunks[0] = c
		r.start = c.Offset
	}
	r.limit = limit
}

// read returns every chunk that ends after from.
func (r *modelRing) read(from int64) jobs.RecordRead {
	out := jobs.RecordRead{Earliest: r.start, Next: r.total, Lossy: from < r.start, Chunks: []jobs.RecordChunk{}}
	for _, c := range r.chunks {
		if c.Offset+int64(len(c.Text)) > from {
			out.Chunks = append(out.Chunks, c)
		}
	}
	return out
}

// runeCut moves cut forward past at most three continuation bytes.
func runeCut(text string, cut int) int {
	for i := cut; i < cut+utf8.UTFMax; i++ {
		if i >= len(text) {
			return len(text)
		}
		if utf8.RuneStart(text[i]) {
			return i
		}
	}
	return cut
}

// wellFormed is the text the record keeps: a range loop reads each byte that
// belongs to no valid sequence as U+FFFD, which is what is stored.
func wellFormed(text string) string {
	var b []byte
	for _, r := range text {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}
