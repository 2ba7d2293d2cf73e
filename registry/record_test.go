package registry

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A recordModel is the record rules of registry/doc.go written as plainly as
// possible: append, then drop whole head chunks while over the limit and
// more than one chunk remains, then cut a lone oversized chunk to its
// UTF-8-safe tail with gapBefore.
type recordModel struct {
	limit  int
	chunks []jobs.RecordChunk
	total  int64
}

func (m *recordModel) size() int {
	n := 0
	for _, c := range m.chunks {
		n += len(c.Text)
	}
	return n
}

func (m *recordModel) append(text string, gap bool) {
	m.chunks = append(m.chunks, jobs.RecordChunk{Offset: m.total, Text: text, GapBefore: gap})
	m.total += int64(len(text))
	m.trim(m.limit)
}

func (m *recordModel) trim(limit int) {
	for len(m.chunks) > 1 && m.size() > limit {
		m.chunks = m.chunks[1:]
	}
	if len(m.chunks) == 1 && m.size() > limit {
		c := &m.chunks[0]
		i := len(c.Text) - limit
		for i < len(c.Text) && !utf8.RuneStart(c.Text[i]) {
			i++
		}
		c.Offset += int64(i)
		c.Text = c.Text[i:]
		c.GapBefore = true
	}
}

func (m *recordModel) read(from int64) jobs.RecordRead {
	earliest := m.total
	if len(m.chunks) > 0 {
		earliest = m.chunks[0].Offset
	}
	out := jobs.RecordRead{Chunks: []jobs.RecordChunk{}, Earliest: earliest, Next: m.total, Lossy: from < earliest}
	for _, c := range m.chunks {
		if c.Offset+int64(len(c.Text)) > from {
			out.Chunks = append(out.Chunks, c)
		}
	}
	return out
}

func sameRead(a, b jobs.RecordRead) bool {
	if a.Earliest != b.Earliest || a.Next != b.Next || a.Lossy != b.Lossy || len(a.Chunks) != len(b.Chunks) {
		return false
	}
	for i := range a.Chunks {
		x, y := a.Chunks[i], b.Chunks[i]
		if x.Offset != y.Offset || x.Text != y.Text || x.GapBefore != y.GapBefore {
			return false
		}
	}
	return true
}

var alphabet = []string{"a", "b", "é", "好", "😀", "\n"}

func randomText(rng *rand.Rand, maxRunes int) string {
	var b strings.Builder
	for range rng.IntN(maxRunes + 1) {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// TestRingMatchesModel drives the ring and the model with the same random
// appends (wrapping the circle many times) and compares every read,
// before and after settlement.
func TestRingMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		limit := 1 + rng.IntN(64)
		r, m := newRing(limit), &recordModel{limit: limit}
		for step := range 60 {
			text := randomText(rng, 1+rng.IntN(limit))
			if text == "" {
				continue // the face drops empty appends before the ring
			}
			gap := rng.IntN(8) == 0
			r.append(text, int64(step), 0, gap)
			m.append(text, gap)
			from := rng.Int64N(m.total + 2)
			if got, want := r.read(from), m.read(from); !sameRead(got, want) {
				t.Fatalf("trial %d step %d (limit %d) read(%d):\n got %+v\nwant %+v", trial, step, limit, from, got, want)
			}
			if r.used() > limit || len(r.buf) > limit {
				t.Fatalf("trial %d: retains %d bytes in a %d-byte buffer over the limit %d", trial, r.used(), len(r.buf), limit)
			}
		}
		settled := 1 + rng.IntN(limit)
		r.settle(settled)
		m.trim(settled)
		for from := int64(0); from <= m.total; from++ {
			if got, want := r.read(from), m.read(from); !sameRead(got, want) {
				t.Fatalf("trial %d after settle(%d) read(%d):\n got %+v\nwant %+v", trial, settled, from, got, want)
			}
		}
		if len(r.buf) != r.used() || len(r.meta) != r.count {
			t.Fatalf("settled ring keeps %d buffer bytes for %d retained, %d metadata slots for %d chunks",
				len(r.buf), r.used(), len(r.meta), r.count)
		}
	}
}

func TestRingGrowsWithWhatWasWritten(t *testing.T) {
	r := newRing(jobs.DefaultRetainBytes)
	if len(r.buf) != 0 || len(r.meta) != 0 {
		t.Fatalf("a new ring preallocated %d bytes and %d chunk slots", len(r.buf), len(r.meta))
	}
	r.append("hello", 0, 0, false)
	if len(r.buf) > minRingBytes || len(r.meta) > 8 {
		t.Fatalf("5 bytes took a %d-byte buffer and %d chunk slots", len(r.buf), len(r.meta))
	}
	for range 1000 {
		r.append(strings.Repeat("x", 100), 0, 0, false)
	}
	if len(r.buf) > 2*int(r.total) {
		t.Fatalf("%d bytes written took a %d-byte buffer", r.total, len(r.buf))
	}
}

// TestRingNeverPinsProducerBuffer appends small slices of a big string and
// checks that no retained text points into it.
func TestRingNeverPinsProducerBuffer(t *testing.T) {
	big := strings.Repeat("0123456789", 100_000)
	lo := uintptr(unsafe.Pointer(unsafe.StringData(big)))
	hi := lo + uintptr(len(big))
	r := newRing(64)
	for i := range 100 {
		r.append(big[i*10:i*10+10], 0, 0, false)
	}
	r.append(big, 0, 0, false) // oversized: only its tail is kept, copied
	if len(r.buf) > 64 {
		t.Fatalf("retains a %d-byte buffer for a 64-byte limit", len(r.buf))
	}
	for _, c := range r.read(0).Chunks {
		p := uintptr(unsafe.Pointer(unsafe.StringData(c.Text)))
		if p >= lo && p < hi {
			t.Fatal("a retained chunk points into the producer's buffer")
		}
	}
}

func TestRingBoundsChunkMetadata(t *testing.T) {
	r := newRing(1024)
	for range 100_000 {
		r.append("x", 0, 0, false)
	}
	if r.count != 1024 || len(r.meta) > 2048 {
		t.Fatalf("%d chunks in %d metadata slots; want 1024 chunks in at most 2048", r.count, len(r.meta))
	}
}

func TestRingFullAppendAllocatesNothing(t *testing.T) {
	for _, size := range []int{1, 64, 4096} {
		r := newRing(jobs.DefaultRetainBytes)
		text := strings.Repeat("y", size)
		for range 2 * jobs.DefaultRetainBytes / size {
			r.append(text, 0, 0, false)
		}
		if n := testing.AllocsPerRun(1000, func() { r.append(text, 0, 0, false) }); n != 0 {
			t.Errorf("%d-byte append into a full ring allocates %v times; want 0", size, n)
		}
	}
}

func TestUTF8CutOnInvalidText(t *testing.T) {
	// Four continuation bytes in a row is not UTF-8: the cut stays where the
	// limit puts it instead of eating the text.
	text := "ab\x80\x80\x80\x80cd"
	if got := utf8Cut(2, len(text), func(i int) byte { return text[i] }); got != 2 {
		t.Fatalf("cut moved to %d; want 2", got)
	}
	if got := utf8Cut(2, len("ab好"), func(i int) byte { return "ab好"[i] }); got != 2 {
		t.Fatalf("cut at a rune start moved to %d", got)
	}
}

func TestChannelCodesRoundTrip(t *testing.T) {
	for _, c := range append(jobs.ChannelValues(), "") {
		code, ok := channelCode(c)
		if !ok || channelOf(code) != c {
			t.Errorf("channel %q → %d → %q", c, code, channelOf(code))
		}
	}
	if _, ok := channelCode("bogus"); ok {
		t.Error("an undeclared channel got a code")
	}
}

// TestFollowReadIsAtomic checks the snapshot-and-record read a follow stream
// makes each round: the two agree on the byte count even while a producer
// writes.
func TestFollowReadIsAtomic(t *testing.T) {
	r := New(WithLimits(Limits{RetainBytes: 64}))
	var face jobs.RecordingJob
	snap, err := r.Start(t.Context(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "bash", Label: "observe"},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			face = job
			return jobs.Hooks{Cancel: func(string) error { return nil },
				Done: func() (jobs.JobOutcome, error) { select {} }}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				face.Append("0123456789", jobs.AppendOptions{})
			}
		}
	}()
	defer close(stop)
	j := r.ids.get(snap.ID)
	for range 1000 {
		s, rec, _ := r.followRead(j, 0)
		if s.OutputBytes != rec.Next {
			t.Fatalf("snapshot says %d bytes, record says %d", s.OutputBytes, rec.Next)
		}
	}
}
