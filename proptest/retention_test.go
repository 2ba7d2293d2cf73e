package proptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/retention"
)

// TestRetentionMachine is the property of retention (its package doc;
// decisions 0127, 0147-0149 and 0151), against the test server. Each check
// writes a random history on streams of its own: sessions whose jobs
// settled or not, one long enough to take several of pgstore's read pages,
// subagent children (of a session, or of a parent with no stream) whose
// residencies ended or not and whose messages wait or not, some with a
// checkpoint pointer stream, a host's heartbeats with a lease run out or
// not, a stream of a vocabulary nobody knows. The model says which trees
// are over; retention.Choose must archive exactly those, whole, each stream
// judged through its last seq.
//
// Then some of the chosen streams get a late fact (a job registered, a
// message accepted, a heartbeat, a checkpoint), between the judgement and
// the move or while the archive runs (stalled in its file's sync): the
// judgement and the move must agree. Archive moves exactly what was
// judged, into a journal file that, in some checks, rots (reads one
// archived record back changed): then nothing of the store may change.
// Otherwise every archived stream's judged seqs are in the file byte for
// byte and read from the store as archived, naming the file; every late
// fact is in the store after them, live; every other stream is whole; no
// append waited for the archive; and Check finds the store gap-free. A
// reader that was part way through a chosen stream when the archive ran
// goes on with every seq in order, or an ArchivedError naming exactly the
// seqs it missed and the file; it never jumps or ends early.
//
// Where late facts came, they are closed (the job settles, the message is
// discarded, the lease runs out) and retention runs again: it chooses the
// streams that kept late facts, judged through their new last seq, and
// Archive moves them into a second file; a read of such a stream from any
// seq names each run it misses with the file that holds it.
func TestRetentionMachine(t *testing.T) {
	dsn := pgtest.DSN(t)
	setChecks(t, pgChecks(t))
	ctx := context.Background()
	schema := pgtest.Schema(t)
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	// Late facts go through a store of their own, whose sessions the
	// machine can see wait for a lock.
	lateApp := "rtm-late-" + schema[max(0, len(schema)-8):]
	late, err := pgstore.Open(ctx, dsn+"&application_name="+lateApp, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close(ctx)
	watch, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	dir := t.TempDir()
	checkNo := 0
	rapid.Check(t, func(rt *rapid.T) {
		checkNo++
		r := &rtRun{rt: rt, ctx: ctx, store: store, late: late, lateApp: lateApp, watch: watch,
			h: drawHistory(rt, fmt.Sprintf("c%d-", checkNo))}
		r.h.write(rt, store)
		judged := r.choose(r.h.over())
		r.drawLate(judged)
		r.startReader(judged)
		path := filepath.Join(dir, fmt.Sprintf("archive-%d.journal", checkNo))
		if rots := r.archive(judged, path); !rots {
			r.again(judged, path, filepath.Join(dir, fmt.Sprintf("archive-%d-again.journal", checkNo)))
		}
	})
	logStats(t)
}

// An rtStream is one stream of a check's history and what the model knows
// of it.
type rtStream struct {
	name     journal.Stream
	kind     string // session, child, pointer, host or unknown
	payloads [][]byte
	over     bool           // its own history is over
	link     journal.Stream // the stream it goes with: a child's parent, a pointer's child
	late     []any          // the late facts the check appends to it, once it was judged
	judged   uint64         // the seq the first archive moved it through; 0 when it stays
}

// An rtHistory is the streams of one check.
type rtHistory struct {
	prefix  string
	streams []*rtStream
}

func (h *rtHistory) add(name, kind string, over bool, link string, facts ...any) {
	st := &rtStream{name: journal.Stream(h.prefix + name), kind: kind, over: over}
	if link != "" {
		st.link = journal.Stream(h.prefix + link)
	}
	for _, f := range facts {
		st.payloads = append(st.payloads, encodeRT(f))
	}
	h.streams = append(h.streams, st)
}

func (h *rtHistory) byName(name journal.Stream) *rtStream {
	for _, st := range h.streams {
		if st.name == name {
			return st
		}
	}
	return nil
}

// encodeRT encodes a fact of either vocabulary, or takes a string as it is.
func encodeRT(f any) []byte {
	var p []byte
	var err error
	switch f := f.(type) {
	case jobs.Fact:
		p, err = jobs.EncodeFact(f)
	case subagents.Fact:
		p, err = subagents.EncodeFact(f)
	case string:
		p = []byte(f)
	}
	if err != nil {
		panic(err)
	}
	return p
}

// rtPage is how many records pgstore's ReadStream reads at once: a long
// stream takes more than one page.
const rtPage = 256

func settledRT(r jobs.JobRegistered) jobs.JobSettled {
	return jobs.JobSettled{JobID: r.JobID, At: 2, Status: jobs.JobStatusCompleted, ProducerReported: true,
		Cause: jobs.SettlementCauseProducer, Registration: jobs.JobRegistration{RegisteredAt: 1, Owner: r.Owner, Kind: r.Kind, Label: r.Label, Ordinal: r.Ordinal}}
}

// drawHistory draws the streams of one check.
func drawHistory(t *rapid.T, prefix string) *rtHistory {
	h := &rtHistory{prefix: prefix}
	for i := range rapid.IntRange(1, 3).Draw(t, "sessions") {
		session := fmt.Sprintf("s%d", i)
		var facts []any
		over := true
		for k := range rapid.IntRange(0, 3).Draw(t, session+".jobs") {
			r := jobs.JobRegistered{JobID: jobs.NewJobID(), At: 1, Owner: jobs.SessionID(prefix + session), Kind: "bash", Label: "l", Ordinal: k + 1}
			facts = append(facts, r)
			if rapid.Bool().Draw(t, fmt.Sprintf("%s.job%d.settled", session, k)) {
				facts = append(facts, settledRT(r))
			} else {
				over = false
			}
		}
		if len(facts) > 0 {
			h.add(session, "session", over, "", facts...)
		}
		parent := session
		if len(facts) == 0 && rapid.Bool().Draw(t, session+".parentless") {
			parent = "ghost" // a parent with no stream: its children are trees of their own
		}
		for c := range rapid.IntRange(0, 2).Draw(t, session+".children") {
			h.drawChild(t, fmt.Sprintf("%s-c%d", session, c), parent)
		}
	}
	if rapid.Bool().Draw(t, "long") {
		// A session whose settled jobs fill more than one read page.
		var facts []any
		for k := range rapid.IntRange(rtPage/2+1, rtPage).Draw(t, "long.jobs") {
			r := jobs.JobRegistered{JobID: jobs.NewJobID(), At: 1, Owner: jobs.SessionID(prefix + "long"), Kind: "bash", Label: "l", Ordinal: k + 1}
			facts = append(facts, r, settledRT(r))
		}
		h.add("long", "session", true, "", facts...)
	}
	if rapid.Bool().Draw(t, "host") {
		host := jobs.JobHost{Name: jobs.HostID(prefix + "web"), Incarnation: jobs.NewIncarnationID()}
		dead := rapid.Bool().Draw(t, "host.dead")
		lease := int64(2 * time.Hour / time.Millisecond)
		if dead {
			lease = 1000
		}
		name := strings.TrimPrefix(string(jobhistory.HostStream(host)), prefix)
		h.add(name, "host", dead, "", jobs.HostHeartbeat{Host: host, At: time.Now().Add(-time.Minute).UnixMilli(), LeaseMs: lease})
	}
	if rapid.Bool().Draw(t, "unknown") {
		h.add("billing", "unknown", false, "", fmt.Sprintf(`{"type":"billing/charged","v":1,"data":{"account":%q}}`, prefix+"billing"))
	}
	return h
}

// drawChild draws a child of parent, its residencies and messages, and
// maybe its checkpoint pointer stream.
func (h *rtHistory) drawChild(t *rapid.T, child, parent string) {
	id := jobs.SessionID(h.prefix + child)
	facts := []any{subagents.SubagentCreated{Child: id, At: 1,
		Header:     subagents.ChildHeader{ParentSession: jobs.SessionID(h.prefix + parent), Origin: subagents.OriginSubagent, DelegationDepth: 1},
		Descriptor: subagents.Descriptor{Version: 2, Mode: subagents.DescriptorModeContinuable, Provider: "p"}}}
	over := true
	for r := range rapid.IntRange(0, 2).Draw(t, child+".residencies") {
		run := subagents.NewRunID()
		facts = append(facts, subagents.SubagentResidencyStarted{Run: run, At: 1})
		if rapid.Bool().Draw(t, fmt.Sprintf("%s.residency%d.ended", child, r)) {
			facts = append(facts, subagents.SubagentResidencyEnded{Run: run, At: 2, StopReason: subagents.StopReasonCompleted})
		} else {
			over = false
		}
	}
	if rapid.Bool().Draw(t, child+".message") {
		msg := subagents.NewMessageID()
		facts = append(facts, subagents.SubagentMessageAccepted{Message: msg, At: 1, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}})
		switch rapid.IntRange(0, 2).Draw(t, child+".message.fate") {
		case 0:
			over = false // it waits
		case 1:
			facts = append(facts, subagents.SubagentMessageClaimed{Message: msg, At: 2, Run: subagents.NewRunID()})
		case 2:
			facts = append(facts, subagents.SubagentMessageDiscarded{Message: msg, At: 2, Why: "drained"})
		}
	}
	h.add(child, "child", over, parent, facts...)
	if rapid.Bool().Draw(t, child+".pointers") {
		h.add(child+"/checkpoint", "pointer", true, child, subagents.SubagentCheckpointed{Child: id, Index: 1, Seq: 1})
	}
}

// appendRT appends payloads to a stream as records with ids r<index>,
// the index counting from first.
func appendRT(t *rapid.T, s *pgstore.Store, stream journal.Stream, first int, payloads ...[]byte) {
	es := make([]journal.Entry, len(payloads))
	for i, p := range payloads {
		es[i] = journal.Entry{ID: fmt.Sprintf("r%d", first+i), Payload: p}
	}
	if _, err := s.Append(context.Background(), stream, es...); err != nil {
		t.Fatal(err)
	}
}

// write appends the history, one Append per stream.
func (h *rtHistory) write(t *rapid.T, store *pgstore.Store) {
	for _, st := range h.streams {
		appendRT(t, store, st.name, 0, st.payloads...)
	}
}

// over is the model's answer: the streams of the trees all of whose
// streams are over, by name.
func (h *rtHistory) over() []journal.Stream {
	byName := map[journal.Stream]*rtStream{}
	for _, st := range h.streams {
		byName[st.name] = st
	}
	root := func(st *rtStream) *rtStream {
		for {
			up, ok := byName[st.link]
			if !ok || st.link == "" {
				return st
			}
			st = up
		}
	}
	blocked := map[*rtStream]bool{}
	for _, st := range h.streams {
		if !st.over {
			blocked[root(st)] = true
		}
	}
	var out []journal.Stream
	for _, st := range h.streams {
		if !blocked[root(st)] {
			out = append(out, st.name)
		}
	}
	slices.Sort(out)
	return out
}

// An rtRun is one check of the machine: its history, its stores, and the
// reader part way through a chosen stream.
type rtRun struct {
	rt      *rapid.T
	ctx     context.Context
	store   *pgstore.Store // writes, judges and archives
	late    *pgstore.Store // appends the late facts, as application lateApp
	lateApp string
	watch   *pgxpool.Pool // sees the late store's sessions wait
	h       *rtHistory

	lateDuring bool // the late facts come while the archive runs
	reader     *rtReader
}

// choose runs retention.Choose and checks it archives exactly the model's
// streams want of the check, each judged through its last seq.
func (r *rtRun) choose(want []journal.Stream) []pgstore.Judged {
	time.Sleep(2 * time.Millisecond) // the cutoff is after every record
	plan, err := retention.Choose(r.ctx, r.store, retention.Options{Before: time.Now()})
	if err != nil {
		r.rt.Fatal(err)
	}
	var chosen []journal.Stream
	var judged []pgstore.Judged
	for _, j := range plan.Archive {
		if strings.HasPrefix(string(j.Stream), r.h.prefix) {
			chosen = append(chosen, j.Stream)
			judged = append(judged, j)
		}
	}
	if fmt.Sprint(chosen) != fmt.Sprint(want) {
		r.rt.Fatalf("Choose archives %v; the model says %v are over", chosen, want)
	}
	for _, j := range judged {
		if st := r.h.byName(j.Stream); j.Through != uint64(len(st.payloads)) {
			r.rt.Fatalf("Choose judged %s through seq %d; it holds %d records", j.Stream, j.Through, len(st.payloads))
		}
	}
	return judged
}

// drawLate draws which chosen streams get a late fact, which one, and
// whether it comes before the archive or while it runs.
func (r *rtRun) drawLate(judged []pgstore.Judged) {
	r.lateDuring = rapid.Bool().Draw(r.rt, "lateDuringTheArchive")
	for _, j := range judged {
		st := r.h.byName(j.Stream)
		if !rapid.Bool().Draw(r.rt, "late."+string(st.name)) {
			continue
		}
		switch st.kind {
		case "session":
			st.late = append(st.late, jobs.JobRegistered{JobID: jobs.NewJobID(), At: 3, Owner: jobs.SessionID(st.name), Kind: "bash", Label: "late", Ordinal: 999})
		case "child":
			st.late = append(st.late, subagents.SubagentMessageAccepted{Message: subagents.NewMessageID(), At: 3, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}})
		case "pointer":
			st.late = append(st.late, subagents.SubagentCheckpointed{Child: jobs.SessionID(st.link), Index: 2, Seq: 1})
		case "host":
			var hb jobs.HostHeartbeat
			f, err := jobs.DecodeFact(st.payloads[0])
			if err != nil {
				r.rt.Fatal(err)
			}
			hb = f.(jobs.HostHeartbeat)
			hb.At, hb.LeaseMs = time.Now().UnixMilli(), int64(2*time.Hour/time.Millisecond)
			st.late = append(st.late, hb)
		}
	}
}

// appendLate appends the late facts, through the late store, each stream's
// in one Append, and makes them part of the model's streams.
func (r *rtRun) appendLate() error {
	for _, st := range r.h.streams {
		if len(st.late) == 0 {
			continue
		}
		es := make([]journal.Entry, len(st.late))
		for i, f := range st.late {
			es[i] = journal.Entry{ID: fmt.Sprintf("r%d", len(st.payloads)+i), Payload: encodeRT(f)}
		}
		if _, err := r.late.Append(r.ctx, st.name, es...); err != nil {
			return fmt.Errorf("late facts for %s: %w", st.name, err)
		}
		for _, e := range es {
			st.payloads = append(st.payloads, e.Payload)
		}
		note("retention: a late fact for a %s", st.kind)
	}
	return nil
}

// anyLate reports whether some stream of the check gets a late fact.
func (r *rtRun) anyLate() bool {
	return slices.ContainsFunc(r.h.streams, func(st *rtStream) bool { return len(st.late) > 0 })
}

// appendLateDuring appends the late facts while the archive is stalled,
// and fails the check if one waits for a lock (the archive's) instead of
// committing.
func (r *rtRun) appendLateDuring() {
	done := make(chan error, 1)
	go func() { done <- r.appendLate() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			if err != nil {
				r.rt.Fatal(err)
			}
			note("retention: late facts committed while the archive ran")
			return
		case <-time.After(2 * time.Millisecond):
		}
		var n int
		if err := r.watch.QueryRow(r.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND application_name = $1`, r.lateApp).Scan(&n); err != nil {
			r.rt.Fatal(err)
		}
		if n > 0 || time.Now().After(deadline) {
			r.rt.Fatalf("a late fact waits for the archive (%d sessions wait for a lock) instead of committing while it runs", n)
		}
	}
}

// An rtReader is a ReadStream of a chosen stream that had read part of it
// when the archive ran.
type rtReader struct {
	stream journal.Stream
	held   int // records the stream held when the reader began
	next   func() (journal.Record, error, bool)
	stop   func()
	last   uint64 // the seq of the last record it yielded
}

// startReader starts a reader of a chosen stream, the long one when the
// check has it, and reads some of it.
func (r *rtRun) startReader(judged []pgstore.Judged) {
	if len(judged) == 0 {
		return
	}
	pick := rapid.SampledFrom(judged).Draw(r.rt, "reader").Stream
	if long := r.h.byName(journal.Stream(r.h.prefix + "long")); long != nil {
		pick = long.name
	}
	st := r.h.byName(pick)
	next, stop := iter.Pull2(r.store.ReadStream(r.ctx, pick, 0))
	rd := &rtReader{stream: pick, held: len(st.payloads), next: next, stop: stop}
	for range rapid.IntRange(0, len(st.payloads)).Draw(r.rt, "readBefore") {
		rec, err, ok := next()
		if !ok || err != nil {
			r.rt.Fatalf("reader of %s before the archive: seq %d, %v, %v", pick, rec.Seq, err, ok)
		}
		r.wantRecord(st, rec, rd.last+1)
		rd.last = rec.Seq
	}
	r.reader = rd
}

// wantRecord fails the check unless rec is the model's record seq of st.
func (r *rtRun) wantRecord(st *rtStream, rec journal.Record, seq uint64) {
	if rec.Seq != seq || seq == 0 || seq > uint64(len(st.payloads)) || rec.ID != fmt.Sprintf("r%d", seq-1) || !bytes.Equal(rec.Payload, st.payloads[seq-1]) {
		r.rt.Fatalf("%s: read seq %d id %q %s; want seq %d of %d", st.name, rec.Seq, rec.ID, rec.Payload, seq, len(st.payloads))
	}
}

// finishReader reads the rest of the reader: every seq in order, or an
// ArchivedError naming exactly what it missed, and then nothing.
func (r *rtRun) finishReader(path string) {
	rd := r.reader
	if rd == nil {
		return
	}
	defer rd.stop()
	st := r.h.byName(rd.stream)
	for {
		rec, err, ok := rd.next()
		var ae *journal.ArchivedError
		switch {
		case !ok:
			if rd.last < uint64(rd.held) {
				r.rt.Fatalf("the reader of %s ended after seq %d; the stream held %d records when it began, and it was told of no archive", rd.stream, rd.last, rd.held)
			}
			note("retention: a reader read on through the archive")
			return
		case err == nil:
			r.wantRecord(st, rec, rd.last+1)
			rd.last = rec.Seq
			continue
		case !errors.As(err, &ae):
			r.rt.Fatalf("the reader of %s after seq %d: %v", rd.stream, rd.last, err)
		}
		want := []journal.ArchivedRange{{First: rd.last + 1, Through: st.judged, Archive: path}}
		if st.judged == 0 || ae.After != rd.last || ae.Through != st.judged || fmt.Sprint(ae.Ranges) != fmt.Sprint(want) {
			r.rt.Fatalf("the reader of %s after seq %d: %v (after %d through %d, %v); want seqs %d to %d named with %s",
				rd.stream, rd.last, err, ae.After, ae.Through, ae.Ranges, rd.last+1, st.judged, path)
		}
		if _, _, ok := rd.next(); ok {
			r.rt.Fatalf("the reader of %s went on after its ArchivedError", rd.stream)
		}
		note("retention: a reader overtaken by the archive was told what it missed")
		return
	}
}

// An rtFile is the archive's file as the check makes it: it may rot (read
// a pattern back changed, as a disk that rots) and its first Sync may wait
// until released (an archive that runs as long as the check likes).
type rtFile struct {
	*os.File
	rot   []byte
	stall *rtStall
}

func (f rtFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	if f.rot != nil {
		if i := bytes.Index(b[:n], f.rot); i >= 0 {
			b[i] ^= 0x01
		}
	}
	return n, err
}

func (f rtFile) Sync() error {
	f.stall.wait()
	return f.File.Sync()
}

// An rtStall holds the first Sync once armed until release.
type rtStall struct {
	once, let sync.Once
	armed     bool
	entered   chan struct{}
	released  chan struct{}
}

func (s *rtStall) release() { s.let.Do(func() { close(s.released) }) }

func (s *rtStall) wait() {
	if s == nil || !s.armed {
		return
	}
	s.once.Do(func() {
		close(s.entered)
		<-s.released
	})
}

// archive moves judged into a new file at path, which may rot, appending
// the late facts before or while it runs, and checks what the store, the
// file and the reader hold afterwards. It reports whether the file rotted.
func (r *rtRun) archive(judged []pgstore.Judged, path string) (rots bool) {
	t := r.rt
	var chosen []journal.Stream
	for _, j := range judged {
		chosen = append(chosen, j.Stream)
	}
	var rot []byte
	rots = len(chosen) > 0 && rapid.Bool().Draw(t, "rots")
	if rots {
		victim := rapid.SampledFrom(chosen).Draw(t, "rotting")
		rot = []byte(fmt.Sprintf(`"stream":%q`, victim))
	}
	during := r.lateDuring && r.anyLate()
	var stall *rtStall
	if during {
		stall = &rtStall{entered: make(chan struct{}), released: make(chan struct{})}
	}
	file, err := journal.Open(path, journal.WithOpenFile(func(p string) (journal.File, error) {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		return rtFile{File: f, rot: rot, stall: stall}, err
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(r.ctx)
	if during {
		stall.armed = true    // after Open's own sync of the new file
		defer stall.release() // before Close: a check that fails lets the archive, and Close, go on
	} else if err := r.appendLate(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		moved []pgstore.Archived
		err   error
	}
	res := make(chan result, 1)
	go func() {
		moved, err := r.store.Archive(r.ctx, judged, file)
		res <- result{moved, err}
	}()
	if during {
		select {
		case <-stall.entered:
		case out := <-res:
			t.Fatalf("the archive ended before it synced its file: %v %v", out.moved, out.err)
		case <-time.After(30 * time.Second):
			t.Fatal("the archive never synced its file")
		}
		r.appendLateDuring()
		stall.release()
	}
	out := <-res
	moved, err := out.moved, out.err
	switch {
	case rots && (!errors.Is(err, pgstore.ErrArchiveMismatch) || len(moved) != 0):
		t.Fatalf("Archive into a rotting file: moved %v, %v; want ErrArchiveMismatch and nothing moved", moved, err)
	case !rots && (err != nil || len(moved) != len(judged)):
		t.Fatalf("Archive of %v: moved %v, %v", judged, moved, err)
	}
	for i, a := range moved {
		st := r.h.byName(a.Stream)
		if a.Stream != judged[i].Stream || a.First != 1 || a.Through != judged[i].Through {
			t.Fatalf("Archive moved %s seqs %d to %d; it was judged through %d", a.Stream, a.First, a.Through, judged[i].Through)
		}
		if !during && a.Later != uint64(len(st.late)) {
			t.Fatalf("Archive says %s holds %d records after the judged ones; %d came", a.Stream, a.Later, len(st.late))
		}
		st.judged = a.Through
	}
	r.finishReader(path)
	for _, st := range r.h.streams {
		r.wantStream(st, file, []journal.ArchivedRange{{First: 1, Through: st.judged, Archive: path}})
	}
	if _, err := r.store.Check(r.ctx); err != nil {
		t.Fatalf("Check after archiving: %v", err)
	}
	return rots
}

// wantStream checks what the store and the file hold of st: when it was
// archived through st.judged, a read from the start is an ArchivedError of
// runs, the file holds seqs 1 to st.judged and the store the rest; else
// the store holds it whole.
func (r *rtRun) wantStream(st *rtStream, file *journal.FileStore, runs []journal.ArchivedRange) {
	t := r.rt
	recs, readErr := readRT(r.store.ReadStream(r.ctx, st.name, 0))
	var ae *journal.ArchivedError
	switch {
	case st.judged == 0 && readErr != nil:
		t.Fatalf("%s stays; reading it: %v", st.name, readErr)
	case st.judged == 0:
		if len(recs) != len(st.payloads) {
			t.Fatalf("%s stays; it reads %d records, want %d", st.name, len(recs), len(st.payloads))
		}
		for i, rec := range recs {
			r.wantRecord(st, rec, uint64(i+1))
		}
		return
	case len(recs) != 0 || !errors.As(readErr, &ae) || ae.After != 0 || ae.Through != runs[len(runs)-1].Through || fmt.Sprint(ae.Ranges) != fmt.Sprint(runs):
		t.Fatalf("%s was archived (%v); reading it from the store gives %d records, %v", st.name, runs, len(recs), readErr)
	}
	through := ae.Through
	copied, err := readRT(file.ReadStream(r.ctx, st.name, runs[len(runs)-1].First-1))
	if err != nil || len(copied) != int(through-runs[len(runs)-1].First+1) {
		t.Fatalf("the archive's %s: %d records, %v; want seqs %d to %d", st.name, len(copied), err, runs[len(runs)-1].First, through)
	}
	for i, rec := range copied {
		r.wantRecord(st, rec, runs[len(runs)-1].First+uint64(i))
	}
	rest, err := readRT(r.store.ReadStream(r.ctx, st.name, through))
	if err != nil || len(rest) != len(st.payloads)-int(through) {
		t.Fatalf("%s after its archived seq %d: %d records, %v; want the %d that came since", st.name, through, len(rest), err, len(st.payloads)-int(through))
	}
	for i, rec := range rest {
		r.wantRecord(st, rec, through+uint64(i)+1) // a late fact, live
	}
}

// readRT collects a read until its first error.
func readRT(read iter.Seq2[journal.Record, error]) ([]journal.Record, error) {
	var recs []journal.Record
	for rec, err := range read {
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// again closes the late facts (the job settles, the message is discarded,
// the lease runs out), judges again and archives the streams that kept
// late facts into a second file: each then names both runs.
func (r *rtRun) again(judged []pgstore.Judged, first, path string) {
	t := r.rt
	var want []journal.Stream
	for _, st := range r.h.streams {
		if len(st.late) == 0 {
			continue
		}
		want = append(want, st.name)
		var closing []any
		for _, f := range st.late {
			switch f := f.(type) {
			case jobs.JobRegistered:
				closing = append(closing, settledRT(f))
			case subagents.SubagentMessageAccepted:
				closing = append(closing, subagents.SubagentMessageDiscarded{Message: f.Message, At: 4, Why: "drained"})
			case jobs.HostHeartbeat:
				f.At, f.LeaseMs = time.Now().Add(-time.Minute).UnixMilli(), 1000
				closing = append(closing, f)
			}
		}
		var ps [][]byte
		for _, f := range closing {
			ps = append(ps, encodeRT(f))
		}
		if len(ps) > 0 {
			appendRT(t, r.store, st.name, len(st.payloads), ps...)
			st.payloads = append(st.payloads, ps...)
		}
	}
	if len(want) == 0 {
		return
	}
	slices.Sort(want)
	again := r.choose(want)
	file, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(r.ctx)
	moved, err := r.store.Archive(r.ctx, again, file)
	if err != nil || len(moved) != len(again) {
		t.Fatalf("the second Archive of %v: moved %v, %v", again, moved, err)
	}
	for i, a := range moved {
		st := r.h.byName(a.Stream)
		if a.First != st.judged+1 || a.Through != again[i].Through {
			t.Fatalf("the second Archive moved %s seqs %d to %d; want %d to %d", a.Stream, a.First, a.Through, st.judged+1, again[i].Through)
		}
		runs := []journal.ArchivedRange{{First: 1, Through: st.judged, Archive: first}, {First: st.judged + 1, Through: a.Through, Archive: path}}
		r.wantStream(st, file, runs)
		// A read from inside the runs names only what it misses.
		after := rapid.Uint64Range(0, a.Through).Draw(t, "afterAgain."+string(a.Stream))
		_, err := readRT(r.store.ReadStream(r.ctx, a.Stream, after))
		var ae *journal.ArchivedError
		var clipped []journal.ArchivedRange
		for _, run := range runs {
			if run.Through > after {
				run.First = max(run.First, after+1)
				clipped = append(clipped, run)
			}
		}
		switch {
		case after == a.Through && err != nil:
			t.Fatalf("a read of %s after its last archived seq %d: %v", a.Stream, after, err)
		case after < a.Through && (!errors.As(err, &ae) || ae.After != after || ae.Through != a.Through || fmt.Sprint(ae.Ranges) != fmt.Sprint(clipped)):
			t.Fatalf("a read of %s after seq %d: %v; want the runs %v", a.Stream, after, err, clipped)
		}
		st.judged = a.Through
		note("retention: a stream archived into two files")
	}
	if _, err := r.store.Check(r.ctx); err != nil {
		t.Fatalf("Check after archiving again: %v", err)
	}
}
