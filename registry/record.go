package registry

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// channels lists the declared channels; a chunk stores its channel as an index
// into it plus one (zero is unlabelled), which keeps chunk metadata small.
var channels = jobs.ChannelValues()

func channelCode(c jobs.Channel) (code uint8, known bool) {
	if c == "" {
		return 0, true
	}
	for i, v := range channels {
		if v == c {
			return uint8(i + 1), true
		}
	}
	return 0, false
}

func channelOf(code uint8) jobs.Channel {
	if code == 0 {
		return ""
	}
	return channels[code-1]
}

// minRingBytes is the first allocation of a ring's byte storage.
const minRingBytes = 64

// A chunkMeta describes one retained append of a record, as the ring and a
// recordBuffer hold it: the metadata of a [jobs.RecordChunk] without its
// text. Chunks are contiguous: each ends where the next begins.
type chunkMeta struct {
	off   int64  // absolute offset of the first retained byte
	at    int64  // append time, Unix ms
	n     uint32 // retained bytes; a ring's limit fits in an int32
	flags uint8  // channel code (see channelCode) | gapFlag
}

// Offset is the absolute byte offset of the chunk's first byte.
func (c chunkMeta) Offset() int64 { return c.off }

// End is the offset just past the chunk's last byte.
func (c chunkMeta) End() int64 { return c.off + int64(c.n) }

// At is the append time in Unix milliseconds.
func (c chunkMeta) At() int64 { return c.at }

// Len is the chunk's length in bytes.
func (c chunkMeta) Len() int { return int(c.n) }

// Channel labels the chunk's source.
func (c chunkMeta) Channel() jobs.Channel { return channelOf(c.flags &^ gapFlag) }

// GapBefore reports output lost immediately before the chunk.
func (c chunkMeta) GapBefore() bool { return c.flags&gapFlag != 0 }

const gapFlag = 0x80

func chunkFlags(code uint8, gap bool) uint8 {
	if gap {
		return code | gapFlag
	}
	return code
}

// A ring is a job's record: the retained tail of everything appended, as
// chunks. Text lives in one circular byte buffer that grows by doubling up to
// the retention limit (never preallocated to it); chunk metadata lives in a
// circular slice of chunkMeta. Appending copies the text, so a producer's
// buffer is never pinned, and once both circles have reached their working
// size an append allocates nothing.
//
// The retained bytes are the absolute offsets [start, total) (start is the
// earliest retained offset, total when nothing is retained); they end at
// buf[tail] and wrap around buf.
//
// A ring is not safe for concurrent use; its job's lock guards it.
type ring struct {
	limit int    // retention cap in bytes
	buf   []byte // circular; len(buf) is the circle's size
	tail  int    // index in buf where the next byte goes
	start int64  // absolute offset of the first retained byte
	total int64  // bytes ever appended
	meta  []chunkMeta
	// sizes repeats each chunk's n, indexed like meta, for dropHead: dropping
	// the head of a full ring then reads a small hot array rather than the
	// oldest, coldest line of meta (4,096 chunks of 64 B are 96 KiB of meta
	// but 16 KiB of sizes).
	sizes []uint32
	first int // index in meta of the first chunk
	count int // retained chunks
	// input is how a terminal job's terminal is written to, nil for every
	// other job. It is set before the job is shared and never changes; it
	// sits with the record, which every terminal job keeps, so that a job
	// stays 320 bytes.
	input *jobs.TerminalInput
}

func newRing(limit int) *ring {
	return &ring{limit: limit}
}

// used is the number of retained bytes.
func (r *ring) used() int { return int(r.total - r.start) }

// head is the index in buf of the first retained byte.
func (r *ring) head() int {
	h := r.tail - r.used()
	if h < 0 {
		h += len(r.buf)
	}
	return h
}

// chunk returns the i-th retained chunk's metadata (0 is the oldest).
func (r *ring) chunk(i int) *chunkMeta {
	k := r.first + i
	if k >= len(r.meta) {
		k -= len(r.meta)
	}
	return &r.meta[k]
}

// end returns the absolute offset just past the i-th chunk.
func (r *ring) end(i int) int64 {
	m := r.chunk(i)
	return m.off + int64(m.n)
}

// append adds one non-empty write. Whole head chunks are dropped while the
// retained bytes would exceed the limit and another chunk remains; a write
// larger than the limit on its own keeps only its UTF-8-safe tail, marked
// gapBefore.
//
// The common cases — room to spare, or room made by dropping the head chunk
// alone — run here without a call but the copy, so nothing is spilled;
// appendSlow does the rest.
func (r *ring) append(text string, at int64, code uint8, gap bool) {
	n := len(text)
	used := int(r.total - r.start)
	first, count := r.first, r.count
	if used+n > r.limit {
		if count < 2 || n > r.limit {
			r.appendSlow(text, at, code, gap)
			return
		}
		s := int(r.sizes[first])
		if used-s+n > r.limit {
			r.appendSlow(text, at, code, gap)
			return
		}
		used -= s
		if first++; first == len(r.sizes) {
			first = 0
		}
		count--
		r.start += int64(s)
		r.first, r.count = first, count
	}
	meta := r.meta
	if used+n > len(r.buf) || count == len(meta) {
		r.appendSlow(text, at, code, gap)
		return
	}
	k := first + count
	if k >= len(meta) {
		k -= len(meta)
	}
	total := r.total
	// Field by field: a composite literal is built on the stack with narrow
	// stores and copied with wide loads, which stalls store forwarding.
	m := &meta[k]
	m.off, m.at, m.n, m.flags = total, at, uint32(n), chunkFlags(code, gap)
	r.sizes[k] = uint32(n)
	r.count = count + 1
	r.total = total + int64(n)
	buf, tail := r.buf, r.tail
	next := tail + n
	if next >= len(buf) {
		next -= len(buf)
	}
	r.tail = next
	if c := copy(buf[tail:], text); c < n {
		copy(buf, text[c:])
	}
}

// appendSlow is append when the write is larger than the limit, when it
// must drop more than the head chunk, or when the storage must grow.
func (r *ring) appendSlow(text string, at int64, code uint8, gap bool) {
	n := len(text)
	if n > r.limit {
		r.appendOversized(text, at, code)
		return
	}
	used := int(r.total - r.start)
	if used+n > r.limit {
		used -= r.dropHeads(used + n - r.limit)
	}
	if used+n > len(r.buf) {
		r.grow(used + n)
	}
	if r.count == len(r.meta) {
		r.growMeta()
	}
	r.append(text, at, code, gap) // there is room now: no drop, no growth
}

// dropHeads drops whole head chunks until they free at least over bytes or
// none is left, and returns the bytes freed.
func (r *ring) dropHeads(over int) int {
	sizes := r.sizes
	first, count, freed := r.first, r.count, 0
	for count > 0 && freed < over {
		freed += int(sizes[first])
		if first++; first == len(sizes) {
			first = 0
		}
		count--
	}
	r.first, r.count, r.start = first, count, r.start+int64(freed)
	return freed
}

func (r *ring) appendOversized(text string, at int64, code uint8) {
	cut := utf8Cut(len(text)-r.limit, len(text), func(i int) byte { return text[i] })
	kept := text[cut:]
	r.start, r.first, r.count = r.total, 0, 0
	if len(kept) > len(r.buf) {
		r.grow(len(kept))
	}
	r.tail = copy(r.buf, kept)
	if r.tail == len(r.buf) {
		r.tail = 0
	}
	if len(r.meta) == 0 {
		r.growMeta()
	}
	m := &r.meta[0]
	m.off, m.at, m.n, m.flags = r.total+int64(cut), at, uint32(len(kept)), chunkFlags(code, true)
	r.sizes[0] = m.n
	r.count = 1
	r.start = m.off
	r.total += int64(len(text))
}

// utf8Cut moves a cut point forward past UTF-8 continuation bytes, at most
// utf8.UTFMax-1 of them, so the kept tail starts on a rune. Invalid text
// (longer runs of continuation bytes) is cut where the limit says.
func utf8Cut(cut, n int, at func(int) byte) int {
	for i := cut; i < cut+utf8.UTFMax; i++ {
		if i >= n {
			return n
		}
		if utf8.RuneStart(at(i)) {
			return i
		}
	}
	return cut
}

func (r *ring) dropHead() {
	r.start += int64(r.sizes[r.first])
	r.first++
	if r.first == len(r.meta) {
		r.first = 0
	}
	r.count--
}

// grow reallocates the byte circle to hold need bytes, linearising it.
func (r *ring) grow(need int) {
	size := max(2*len(r.buf), need, minRingBytes)
	size = min(size, max(r.limit, need))
	buf := make([]byte, size)
	used := r.used()
	r.copyOut(buf, 0, used)
	r.buf, r.tail = buf, used
}

// copyOut copies n retained bytes starting at logical position from.
func (r *ring) copyOut(dst []byte, from, n int) {
	if n == 0 {
		return
	}
	p := r.head() + from
	if p >= len(r.buf) {
		p -= len(r.buf)
	}
	c := copy(dst[:n], r.buf[p:])
	copy(dst[c:n], r.buf)
}

// writeTo appends n retained bytes starting at logical position from to b.
func (r *ring) writeTo(b *strings.Builder, from, n int) {
	if n == 0 {
		return
	}
	p := r.head() + from
	if p >= len(r.buf) {
		p -= len(r.buf)
	}
	if p+n <= len(r.buf) {
		b.Write(r.buf[p : p+n])
		return
	}
	b.Write(r.buf[p:])
	b.Write(r.buf[:n-(len(r.buf)-p)])
}

// growMeta doubles the metadata circle, linearising it.
func (r *ring) growMeta() {
	size := max(2*len(r.meta), 8)
	meta, sizes := make([]chunkMeta, size), make([]uint32, size)
	for i := range r.count {
		meta[i] = *r.chunk(i)
		sizes[i] = meta[i].n
	}
	r.meta, r.sizes, r.first = meta, sizes, 0
}

// byteAt returns the retained byte at logical position i.
func (r *ring) byteAt(i int) byte {
	p := r.head() + i
	if p >= len(r.buf) {
		p -= len(r.buf)
	}
	return r.buf[p]
}

// settle trims the record to limit, by the append rules, and compacts its
// storage to exactly what is kept. The ring takes no appends afterwards.
func (r *ring) settle(limit int) {
	for r.count > 1 && r.used() > limit {
		r.dropHead()
	}
	if used := r.used(); r.count == 1 && used > limit {
		cut := utf8Cut(used-limit, used, r.byteAt)
		r.start += int64(cut)
		c := r.chunk(0)
		c.off += int64(cut)
		c.n -= uint32(cut)
		c.flags |= gapFlag
	}
	r.limit = limit
	var buf []byte
	if used := r.used(); used > 0 {
		buf = make([]byte, used)
		r.copyOut(buf, 0, used)
	}
	var meta []chunkMeta
	var sizes []uint32
	if r.count > 0 {
		meta, sizes = make([]chunkMeta, r.count), make([]uint32, r.count)
		for i := range r.count {
			meta[i] = *r.chunk(i)
			sizes[i] = meta[i].n
		}
	}
	r.buf, r.tail, r.meta, r.sizes, r.first = buf, 0, meta, sizes, 0
}

// firstEndingAfter returns the index of the first chunk whose end is after
// from (count if none); ends never decrease. Chunks are contiguous, so the
// chunk holding from is guessed from the average chunk size, which finds it
// at once when appends are alike; the guess only narrows a binary search.
func (r *ring) firstEndingAfter(from int64) int {
	lo, hi := 0, r.count
	switch {
	case hi == 0 || from < r.start:
		return 0
	case from >= r.total:
		return hi
	}
	// start <= from < total, so 0 <= g < count; the product is below 2^62.
	g := int((from - r.start) * int64(r.count) / (r.total - r.start))
	if r.end(g) > from {
		if g == 0 || r.end(g-1) <= from {
			return g
		}
		hi = g
	} else {
		lo = g + 1
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r.end(mid) > from {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// read returns every retained chunk ending after from. All chunk texts share
// one fresh allocation.
func (r *ring) read(from int64) jobs.RecordRead {
	earliest := r.start
	out := jobs.RecordRead{Earliest: earliest, Next: r.total, Lossy: from < earliest}
	lo := r.firstEndingAfter(from)
	out.Chunks = make([]jobs.RecordChunk, r.count-lo)
	if lo == r.count {
		return out
	}
	start := r.chunk(lo).off
	var b strings.Builder
	b.Grow(int(r.total - start))
	r.writeTo(&b, int(start-earliest), int(r.total-start))
	text := b.String()
	for i := range out.Chunks {
		m := r.chunk(lo + i)
		out.Chunks[i] = jobs.RecordChunk{
			Offset:    m.off,
			At:        m.at,
			Text:      text[m.off-start : m.off-start+int64(m.n)],
			Channel:   channelOf(m.flags &^ gapFlag),
			GapBefore: m.flags&gapFlag != 0,
		}
	}
	return out
}

// A recordBuffer receives a record read made by [Registry.readRecordInto]
// into storage it keeps: reused, it reads without allocating once it has
// grown to the size of the reads. Its chunks and text are valid until the
// next read into it. It remembers the job it last read, so the next read of
// that job need not look it up (the fence is checked all the same).
//
// It is the floor the record's read is measured against (the scoreboard's
// read goals, decision 0081), not a read a user makes: ReadRecord is.
type recordBuffer struct {
	// Earliest is the offset of the first retained byte.
	Earliest int64
	// Next is the total number of bytes ever appended; resume from here.
	Next int64
	// Lossy reports that the requested offset lies below the retained window.
	Lossy bool
	// Chunks are the retained chunks that end after the requested offset.
	Chunks []chunkMeta
	text   []byte // the chunks' bytes, contiguous
	job    *job   // the job of the last successful read
}

// Text returns chunk i's bytes. They alias the buffer: copy them to keep them.
func (b *recordBuffer) Text(i int) []byte {
	c := b.Chunks[i]
	from := c.off - b.Chunks[0].off
	return b.text[from : from+int64(c.n) : from+int64(c.n)]
}

// Bytes returns the text of every chunk, contiguous.
func (b *recordBuffer) Bytes() []byte { return b.text }

// readInto is read into a caller's buffer: the chunk metadata and the text
// are copied in at most two moves each.
func (r *ring) readInto(from int64, b *recordBuffer) {
	b.Earliest, b.Next, b.Lossy = r.start, r.total, from < r.start
	lo := r.firstEndingAfter(from)
	n := r.count - lo
	b.Chunks = slices.Grow(b.Chunks[:0], n)[:n]
	if n == 0 {
		b.text = b.text[:0]
		return
	}
	k := r.first + lo
	if k >= len(r.meta) {
		k -= len(r.meta)
	}
	if c := copy(b.Chunks, r.meta[k:]); c < n {
		copy(b.Chunks[c:], r.meta)
	}
	start := b.Chunks[0].off
	size := int(r.total - start)
	b.text = slices.Grow(b.text[:0], size)[:size]
	r.copyOut(b.text, int(start-r.start), size)
}
