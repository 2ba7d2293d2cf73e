package proptest

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// pgChecksEnv sets how many checks TestPgstoreMachine runs (default
// pgDefaultChecks): each costs a few hundred round trips to the server, so
// it has a budget of its own, apart from -rapid.checks.
const pgChecksEnv = "JOBGEN_PGSTORE_CHECKS"

// pgDefaultChecks is an eighth of the other properties' default: 25, or
// 12 under the race detector, about 10 s on 2 cores.
const pgDefaultChecks = defaultChecks / 8

// TestPgstoreMachine is the model-based state machine of journal/pgstore,
// against the test server (JOBGEN_TEST_POSTGRES). Each
// check opens two writing stores — A with one committer and a 4 KiB byte
// cap, B with three — and a reader that tails, all through a proxy the
// machine controls, on streams of the check's own. Actions: appends of one to
// three entries, small or larger than A's cap, without ids, with fresh ids,
// with ids the stream holds and with an id twice in one call; bursts of
// concurrent appends from both stores; connections cut or terminated as a
// server going down does, between appends or during a burst, after which
// every append with ids that failed is retried until it lands; a
// transaction held open at its COMMIT while another store's younger one
// commits; flushes; a store closed and reopened; reads of a stream and of
// the global order after a position. The model (pgstore_model_test.go)
// checks after every action every promise of journal/storetest: seqs 1 to n
// without a gap, an acknowledged entry present exactly once at the seq it
// was answered, a held id answering its first seq and storing nothing, the
// entries of one call consecutive, a later call after an earlier one, the
// global order agreeing with every stream's order; and pgstore's own: no
// transaction of several appends past its byte cap, a tail that goes on
// through every cut and delivers exactly what ReadAll holds, in its order.
func TestPgstoreMachine(t *testing.T) {
	dsn := pgtest.DSN(t)
	setChecks(t, pgChecks(t))
	// A later property counts the goroutines the whole process creates
	// (TestPumpResources). pgxpool schedules a health check 500ms after it
	// destroys a connection (time.AfterFunc, not stopped by Close), and a
	// cut destroys many: let those timers fire before the next test.
	t.Cleanup(func() { time.Sleep(600 * time.Millisecond) })
	schema := pgtest.Schema(t)
	proxy := pgtest.NewProxy(t, dsn)
	// The machine watches the server on connections of its own, past the
	// proxy, which its cuts do not reach.
	watch, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(watch.Close)
	checkNo := 0
	rapid.Check(t, func(rt *rapid.T) {
		checkNo++
		m := newPgMachine(rt, proxy, watch, schema, fmt.Sprintf("c%d-", checkNo))
		defer m.close()
		rt.Repeat(m.actions())
		m.finish()
	})
	logStats(t)
}

// pgChecks returns the check budget of TestPgstoreMachine.
func pgChecks(t *testing.T) int {
	v := os.Getenv(pgChecksEnv)
	if v == "" {
		return pgDefaultChecks
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", pgChecksEnv, v)
	}
	return n
}

// setChecks makes rapid run n checks of about pgSteps actions until t ends.
func setChecks(t *testing.T, n int) {
	for name, v := range map[string]int{"rapid.checks": n, "rapid.steps": pgSteps} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, strconv.Itoa(v)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
}

// pgSteps is how many actions a check of TestPgstoreMachine runs on
// average: enough for a burst, a cut and a hold to meet, few enough that a
// check costs a fraction of a second.
const pgSteps = 10

// The stores of a check: A groups appends in one transaction at a time under
// a small byte cap, B runs three transactions at once.
const (
	storeA, storeB = 0, 1
	capA           = 4 << 10
	pgStreams      = 3
)

// A pgMachine is one check: its stores, its model, its tail.
type pgMachine struct {
	rt     *rapid.T
	ctx    context.Context
	proxy  *pgtest.Proxy
	watch  *pgxpool.Pool // to the server directly
	schema string
	prefix string // of the check's stream names
	stores [2]*pgstore.Store
	reader *pgstore.Store
	model  *pgModel
	clock  atomic.Int64 // orders the calls' beginnings and returns
	batch  int          // the last AppendBatch's number
	tags   atomic.Int64
	cut    bool             // connections were cut: an append may fail
	dirty  atomic.Bool      // an append was made since the last check
	start  journal.Position // the global order's end when the check began
	tail   *pgtest.Tail
}

func newPgMachine(rt *rapid.T, proxy *pgtest.Proxy, watch *pgxpool.Pool, schema, prefix string) *pgMachine {
	m := &pgMachine{rt: rt, ctx: context.Background(), proxy: proxy, watch: watch, schema: schema, prefix: prefix, model: newPgModel()}
	m.reader = m.open(pgstore.WithPollInterval(20*time.Millisecond), pgstore.WithReadYourWritesWait(10*time.Second))
	if all := m.collect(func() iter.Seq2[journal.Record, error] { return m.reader.ReadAll(m.ctx, journal.Position{}) }, ""); len(all) > 0 {
		m.start = all[len(all)-1].Pos
	}
	m.tail = pgtest.StartTail(m.ctx, m.reader, m.start)
	m.stores[storeA] = m.openStore(storeA)
	m.stores[storeB] = m.openStore(storeB)
	return m
}

// open opens a store on the check's schema through the proxy.
func (m *pgMachine) open(opts ...pgstore.Option) *pgstore.Store {
	s, err := pgstore.Open(m.ctx, m.proxy.DSN(), append([]pgstore.Option{pgstore.WithSchema(m.schema)}, opts...)...)
	if err != nil {
		m.rt.Fatalf("Open: %v", err)
	}
	return s
}

func (m *pgMachine) openStore(i int) *pgstore.Store {
	if i == storeA {
		return m.openAs(m.appName(storeA), pgstore.WithCommitters(1), pgstore.WithMaxBatchBytes(capA))
	}
	return m.openAs(m.appName(storeB), pgstore.WithCommitters(3))
}

// appName names the sessions of a writing store, so that the machine can
// see them wait for a lock.
func (m *pgMachine) appName(i int) string {
	return fmt.Sprintf("pgm-%s-%s%d", m.schema[max(0, len(m.schema)-8):], m.prefix, i)
}

// openAs opens a store whose sessions are named app.
func (m *pgMachine) openAs(app string, opts ...pgstore.Option) *pgstore.Store {
	dsn := m.proxy.DSN() + "&application_name=" + app
	s, err := pgstore.Open(m.ctx, dsn, append([]pgstore.Option{pgstore.WithSchema(m.schema)}, opts...)...)
	if err != nil {
		m.rt.Fatalf("Open: %v", err)
	}
	return s
}

func capOf(store int) int {
	if store == storeA {
		return capA
	}
	return pgstore.DefaultMaxBatchBytes
}

func (m *pgMachine) close() {
	m.tail.Stop()
	for _, s := range m.stores {
		if s != nil {
			s.Close(m.ctx)
		}
	}
	m.reader.Close(m.ctx)
}

func (m *pgMachine) stream(k int) journal.Stream {
	return journal.Stream(fmt.Sprintf("%ss%d", m.prefix, k))
}

func (m *pgMachine) streams() []journal.Stream {
	out := make([]journal.Stream, pgStreams)
	for k := range out {
		out[k] = m.stream(k)
	}
	return out
}

func (m *pgMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"append":    m.appendOne,
		"batch":     m.appendBatch,
		"burst":     m.burst,
		"cut":       m.cutBetween,
		"hold":      m.holdCommit,
		"contend":   m.contend,
		"reopen":    m.reopen,
		"flush":     m.flush,
		"readAfter": m.readAfter,
		"":          m.check,
	}
}

// A pgDraw is one append the machine is about to make.
type pgDraw struct {
	store   int
	stream  journal.Stream
	entries []journal.Entry
	tags    []string
}

// drawAppend draws an append: its store, stream and one to three entries,
// small or larger than A's cap, with ids none, fresh, held or repeated, as
// the mode drawn says; held draws a held id for the first entry and held or
// fresh ones after it, so that one transaction both answers held ids and
// inserts. Bursts pass fresh=true: ids another call of the
// burst could take first would make the answers depend on the race.
func (m *pgMachine) drawAppend(rt *rapid.T, label string, freshOnly bool) pgDraw {
	d := pgDraw{
		store:  rapid.IntRange(storeA, storeB).Draw(rt, label+"store"),
		stream: m.stream(rapid.IntRange(0, pgStreams-1).Draw(rt, label+"stream")),
	}
	m.drawEntries(rt, label, freshOnly, &d)
	return d
}

// drawEntries draws the entries of d, an append to d.stream; see drawAppend.
func (m *pgMachine) drawEntries(rt *rapid.T, label string, freshOnly bool, d *pgDraw) {
	modes := []string{"none", "fresh", "held", "twice"}
	if freshOnly {
		modes = modes[:2]
	}
	mode := rapid.SampledFrom(modes).Draw(rt, label+"ids")
	held := m.model.known(d.stream)
	n := rapid.IntRange(1, 3).Draw(rt, label+"entries")
	for i := range n {
		tag := fmt.Sprintf("%st%d", m.prefix, m.tags.Add(1))
		size := rapid.SampledFrom([]int{80, 1800}).Draw(rt, label+"size")
		e := journal.Entry{Payload: pgPayload(tag, size)}
		switch {
		case mode == "fresh", mode == "twice" && i == 0:
			e.ID = "id-" + tag
		case mode == "twice":
			e.ID = d.entries[0].ID
		case mode == "held" && len(held) > 0 && (i == 0 || rapid.Bool().Draw(rt, label+"heldAgain")):
			e.ID = rapid.SampledFrom(slices.Sorted(maps.Keys(held))).Draw(rt, label+"heldID")
		case mode == "held":
			e.ID = "id-" + tag
		}
		d.entries, d.tags = append(d.entries, e), append(d.tags, tag)
	}
}

// do makes the append d and notes it in the model; a failure is allowed
// once a connection was cut, and never as the server's refusal.
func (m *pgMachine) do(d pgDraw) *pgCall {
	known := m.model.known(d.stream)
	c := &pgCall{store: d.store, stream: d.stream, entries: d.entries, tags: d.tags, start: m.clock.Add(1)}
	c.seqs, c.err = m.stores[d.store].Append(m.ctx, d.stream, d.entries...)
	c.end = m.clock.Add(1)
	m.dirty.Store(true)
	m.model.note(m.rt, c, known)
	return c
}

// judge fails the check for an append error no cut explains.
func (m *pgMachine) judge(c *pgCall) {
	if c.err == nil {
		return
	}
	if !m.cut || refusal(c.err) {
		m.rt.Fatalf("append to %s through store %d failed (cut %v): %v", c.stream, c.store, m.cut, c.err)
	}
	note("pgstore: append failed after a cut")
}

func (m *pgMachine) appendOne(rt *rapid.T) {
	m.judge(m.do(m.drawAppend(rt, "", false)))
	m.settle()
}

// appendBatch appends two or three parts, each to a stream of its own
// drawn as an Append's, in one AppendBatch: every part answers as an
// Append would, all together or none, and checkGlobal finds the parts in
// one transaction, in the call's order.
func (m *pgMachine) appendBatch(rt *rapid.T) {
	m.batch++
	store := rapid.IntRange(storeA, storeB).Draw(rt, "batchStore")
	order := rapid.Permutation([]int{0, 1, 2}).Draw(rt, "batchStreams")[:rapid.IntRange(2, pgStreams).Draw(rt, "parts")]
	var parts []journal.Batch
	var calls []*pgCall
	var known []map[string]uint64
	start := m.clock.Add(1)
	for i, k := range order {
		d := pgDraw{store: store, stream: m.stream(k)}
		m.drawEntries(rt, fmt.Sprintf("p%d.", i), false, &d)
		parts = append(parts, journal.Batch{Stream: d.stream, Entries: d.entries})
		calls = append(calls, &pgCall{store: store, stream: d.stream, entries: d.entries, tags: d.tags, start: start, batch: m.batch, part: i})
		known = append(known, m.model.known(d.stream))
	}
	seqs, err := m.stores[store].AppendBatch(m.ctx, parts...)
	end := m.clock.Add(1)
	m.dirty.Store(true)
	if err == nil && len(seqs) != len(parts) {
		rt.Fatalf("AppendBatch of %d parts answered %d", len(parts), len(seqs))
	}
	for i, c := range calls {
		c.end, c.err = end, err
		if err == nil {
			c.seqs = seqs[i]
		}
		m.model.note(rt, c, known[i])
		m.judge(c)
	}
	m.settle()
}

// burst runs two to five goroutines of one to three appends each, from
// both stores at once; and maybe cuts every connection while they run.
func (m *pgMachine) burst(rt *rapid.T) {
	var plans [][]pgDraw
	for g := range rapid.IntRange(2, 5).Draw(rt, "goroutines") {
		var plan []pgDraw
		for i := range rapid.IntRange(1, 3).Draw(rt, "appends") {
			plan = append(plan, m.drawAppend(rt, fmt.Sprintf("g%d.%d.", g, i), true))
		}
		plans = append(plans, plan)
	}
	cutAfter := -1
	if rapid.IntRange(0, 3).Draw(rt, "cutDuringBurst") == 0 {
		cutAfter = rapid.IntRange(0, 10).Draw(rt, "cutAfterMs")
	}
	var wg sync.WaitGroup
	calls := make([][]*pgCall, len(plans))
	for g, plan := range plans {
		wg.Go(func() {
			for _, d := range plan {
				calls[g] = append(calls[g], m.do(d))
			}
		})
	}
	if cutAfter >= 0 {
		time.Sleep(time.Duration(cutAfter) * time.Millisecond)
		m.cut = true
		m.proxy.Cut()
		note("pgstore: cut during a burst")
	}
	wg.Wait()
	for _, cs := range calls {
		for _, c := range cs {
			m.judge(c)
		}
	}
	m.settle()
}

// cutBetween drops every connection, or ends each as a server going down
// does, while nothing is in flight.
func (m *pgMachine) cutBetween(rt *rapid.T) {
	m.cut = true
	switch rapid.IntRange(0, 2).Draw(rt, "how") {
	case 0:
		m.proxy.Cut()
	case 1:
		m.proxy.Terminate("57P01", "terminating connection due to administrator command")
	case 2:
		m.proxy.Terminate("57P02", "terminating connection because of crash of another server process")
	}
	note("pgstore: cut between appends")
}

// settle retries every failed append with ids until it lands: the caller's
// half of the contract after an outcome it does not know.
func (m *pgMachine) settle() {
	for range 100 {
		pending := m.model.unacknowledged()
		if len(pending) == 0 {
			return
		}
		for _, c := range pending {
			r := m.do(pgDraw{store: c.store, stream: c.stream, entries: c.entries, tags: c.tags})
			if r.err != nil && refusal(r.err) {
				m.rt.Fatalf("retry of an append to %s refused: %v", c.stream, r.err)
			}
			if r.err == nil {
				note("pgstore: retried with ids after a failure")
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.rt.Fatalf("appends with ids still fail after 100 retries")
}

// holdCommit holds a transaction of store A open at its COMMIT (it holds
// its locks and the older xid) while store B appends to another stream and
// commits, and the tail polls; then lets it commit. The tail must not have
// handed out B's record past A's, or it never delivers A's.
func (m *pgMachine) holdCommit(rt *rapid.T) {
	first := rapid.IntRange(0, pgStreams-1).Draw(rt, "heldStream")
	other := (first + rapid.IntRange(1, pgStreams-1).Draw(rt, "otherStream")) % pgStreams
	held := pgDraw{store: storeA, stream: m.stream(first)}
	younger := pgDraw{store: storeB, stream: m.stream(other)}
	for _, d := range []*pgDraw{&held, &younger} {
		tag := fmt.Sprintf("%st%d", m.prefix, m.tags.Add(1))
		d.entries, d.tags = []journal.Entry{{ID: "id-" + tag, Payload: pgPayload(tag, 80)}}, []string{tag}
	}
	// After a cut the held append may fail before its COMMIT, on a
	// connection the cut closed: then it is tried again.
	var h *pgtest.Hold
	var done chan *pgCall
	for attempt := 0; ; attempt++ {
		h, done = m.proxy.HoldNextCommit(), make(chan *pgCall, 1)
		defer h.Release() // if the check fails before it lets go
		go func() { done <- m.do(held) }()
		var failed *pgCall
		select {
		case <-h.Engaged():
		case failed = <-done:
		case <-time.After(10 * time.Second):
			h.Release()
			rt.Fatalf("no transaction reached its COMMIT")
		}
		if failed == nil {
			break
		}
		h.Release()
		m.judge(failed)
		if failed.err == nil || attempt == 20 {
			rt.Fatalf("the held append returned before its COMMIT was held: %v", failed.err)
		}
		m.settle() // it had an id: it lands now, and the hold takes a new one
		tag := fmt.Sprintf("%st%d", m.prefix, m.tags.Add(1))
		held.entries, held.tags = []journal.Entry{{ID: "id-" + tag, Payload: pgPayload(tag, 80)}}, []string{tag}
	}
	ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
	err := h.Ran(ctx, m.watch) // it holds its xid before the younger begins
	cancel()
	if err != nil {
		h.Release()
		rt.Fatalf("the held append's statements did not run: %v", err)
	}
	m.judge(m.do(younger))
	time.Sleep(50 * time.Millisecond) // two polls of the tail, and its notification
	h.Release()
	m.judge(<-done)
	note("pgstore: a commit held while a younger one committed")
	m.settle()
}

// contend makes one transaction wait for a stream lock while another
// commits on a stream it appends to next, the interleaving where an xid
// taken before the locks puts a stream's later record first in the global
// order. Store B's append to X is held open at its COMMIT (it holds X);
// store A's one committer is held on an append to W while appends to X
// and Y queue behind it, so that they share A's next transaction, which
// then waits for X; store B appends to Y meanwhile; then everything goes.
func (m *pgMachine) contend(rt *rapid.T) {
	if m.cut {
		// Fresh pools: a connection the cut closed would fail an append
		// before its COMMIT could be held.
		for i := range m.stores {
			m.stores[i].Close(m.ctx)
			m.stores[i] = m.openStore(i)
		}
	}
	perm := rapid.Permutation([]int{0, 1, 2}).Draw(rt, "streams") // X, Y, W
	x, y, w := m.stream(perm[0]), m.stream(perm[1]), m.stream(perm[2])
	one := func(store int, stream journal.Stream) pgDraw {
		tag := fmt.Sprintf("%st%d", m.prefix, m.tags.Add(1))
		return pgDraw{store: store, stream: stream, tags: []string{tag},
			entries: []journal.Entry{{ID: "id-" + tag, Payload: pgPayload(tag, 80)}}}
	}
	var wg sync.WaitGroup
	var calls []*pgCall
	var mu sync.Mutex
	async := func(d pgDraw) {
		wg.Go(func() {
			c := m.do(d)
			mu.Lock()
			calls = append(calls, c)
			mu.Unlock()
		})
	}
	holdX := m.proxy.HoldNextCommit()
	defer holdX.Release() // if the check fails before it lets go
	async(one(storeB, x))
	m.engaged(holdX)
	holdW := m.proxy.HoldNextCommit()
	defer holdW.Release()
	async(one(storeA, w))
	m.engaged(holdW)
	async(one(storeA, x))
	async(one(storeA, y))
	time.Sleep(10 * time.Millisecond) // they queue behind A's held transaction
	holdW.Release()
	m.waitLock(m.appName(storeA))
	younger := make(chan struct{})
	go func() {
		defer close(younger)
		c := m.do(one(storeB, y))
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
	}()
	// B's append to Y commits, or waits for A's transaction, which holds Y.
	for done := false; !done; {
		select {
		case <-younger:
			done = true
		case <-time.After(2 * time.Millisecond):
			done = m.waiting(m.appName(storeB))
		}
	}
	holdX.Release()
	wg.Wait()
	<-younger
	for _, c := range calls {
		m.judge(c)
	}
	note("pgstore: a transaction waited for a lock while a younger one committed")
	m.settle()
}

// engaged waits until h holds a transaction and the server ran its
// statements: it holds its locks.
func (m *pgMachine) engaged(h *pgtest.Hold) {
	select {
	case <-h.Engaged():
	case <-time.After(10 * time.Second):
		h.Release()
		m.rt.Fatalf("no transaction reached its COMMIT")
	}
	ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
	defer cancel()
	if err := h.Ran(ctx, m.watch); err != nil {
		h.Release()
		m.rt.Fatalf("the held transaction's statements did not run: %v", err)
	}
}

// waitLock waits until a session named app waits for a lock. Its deadline
// is long because a loaded 2-core machine once took over 10 s to get the
// queued appends into their transaction; a lock that is never waited for
// still fails the check.
func (m *pgMachine) waitLock(app string) {
	deadline := time.Now().Add(30 * time.Second)
	for !m.waiting(app) {
		if time.Now().After(deadline) {
			m.rt.Fatalf("no session of %s waits for a lock", app)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waiting reports whether a session named app waits for a lock.
func (m *pgMachine) waiting(app string) bool {
	var n int
	if err := m.watch.QueryRow(m.ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND application_name = $1`, app).Scan(&n); err != nil {
		m.rt.Fatalf("pg_stat_activity: %v", err)
	}
	return n > 0
}

// reopen closes a writing store, which must commit what it holds, and
// opens it again.
func (m *pgMachine) reopen(rt *rapid.T) {
	i := rapid.IntRange(storeA, storeB).Draw(rt, "which")
	if err := m.stores[i].Close(m.ctx); err != nil {
		rt.Fatalf("Close of store %d: %v", i, err)
	}
	m.stores[i] = m.openStore(i)
}

func (m *pgMachine) flush(rt *rapid.T) {
	for i, s := range m.stores {
		if err := s.Flush(m.ctx); err != nil {
			rt.Fatalf("Flush of store %d: %v", i, err)
		}
	}
}

// readAfter reads a stream after a seq and the global order after a
// position, each a suffix of the whole.
func (m *pgMachine) readAfter(rt *rapid.T) {
	streams, all := m.read()
	s := m.stream(rapid.IntRange(0, pgStreams-1).Draw(rt, "stream"))
	after := rapid.IntRange(0, len(streams[s])+1).Draw(rt, "afterSeq")
	got := m.collect(func() iter.Seq2[journal.Record, error] { return m.stores[storeB].ReadStream(m.ctx, s, uint64(after)) }, "")
	if want := streams[s][min(after, len(streams[s])):]; !sameRecords(got, want) {
		rt.Fatalf("ReadStream(%s, %d): %d records, want the %d after it", s, after, len(got), len(want))
	}
	if len(all) == 0 {
		return
	}
	k := rapid.IntRange(0, len(all)-1).Draw(rt, "afterPos")
	got = m.collect(func() iter.Seq2[journal.Record, error] { return m.stores[storeA].ReadAll(m.ctx, all[k].Pos) }, m.prefix)
	if !sameRecords(got, all[k+1:]) {
		rt.Fatalf("ReadAll(%s): %d records, want the %d after it", all[k].Pos, len(got), len(all)-k-1)
	}
}

// read returns the check's streams and its part of the global order.
func (m *pgMachine) read() (map[journal.Stream][]journal.Record, []journal.Record) {
	streams := m.model.checkStreams(m.rt, m.streams(), func(s journal.Stream) []journal.Record {
		return m.collect(func() iter.Seq2[journal.Record, error] { return m.reader.ReadStream(m.ctx, s, 0) }, "")
	})
	return streams, m.collect(func() iter.Seq2[journal.Record, error] { return m.reader.ReadAll(m.ctx, m.start) }, m.prefix)
}

// check compares the store with the model after an action that appended.
func (m *pgMachine) check(rt *rapid.T) {
	if !m.dirty.Swap(false) {
		return
	}
	streams, all := m.read()
	m.model.checkGlobal(rt, all, streams, capOf)
}

// finish checks once more, closes the writers, which must return nil, and
// checks that the tail, through every cut, delivered what ReadAll holds.
func (m *pgMachine) finish() {
	m.settle()
	m.check(m.rt)
	for i, s := range m.stores {
		if err := s.Close(m.ctx); err != nil {
			m.rt.Fatalf("Close of store %d: %v", i, err)
		}
		m.stores[i] = nil
	}
	_, all := m.read()
	got := waitTail(m.rt, m.tail, len(all), m.prefix)
	if !sameRecords(got, all) {
		m.rt.Fatalf("the tail delivered %d records, ReadAll holds %d (or another order)", len(got), len(all))
	}
}

// collect reads records, those of streams named with prefix. A read may
// fail once a connection was cut (a pooled connection the cut closed); it
// is read again then, never after a refusal.
func (m *pgMachine) collect(read func() iter.Seq2[journal.Record, error], prefix string) []journal.Record {
	for attempt := 0; ; attempt++ {
		var out []journal.Record
		var failed error
		for rec, err := range read() {
			if err != nil {
				failed = err
				break
			}
			if strings.HasPrefix(string(rec.Stream), prefix) {
				out = append(out, rec)
			}
		}
		if failed == nil {
			return out
		}
		if !m.cut || refusal(failed) || attempt == 20 {
			m.rt.Fatalf("read (cut %v, attempt %d): %v", m.cut, attempt, failed)
		}
		note("pgstore: read again after a cut")
		time.Sleep(10 * time.Millisecond)
	}
}

func sameRecords(a, b []journal.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Stream != b[i].Stream || a[i].Seq != b[i].Seq || a[i].Pos != b[i].Pos || a[i].ID != b[i].ID || string(a[i].Payload) != string(b[i].Payload) {
			return false
		}
	}
	return true
}

// waitTail waits up to 10s for n records of prefix's streams, then stops
// the tail and returns them.
func waitTail(rt *rapid.T, tail *pgtest.Tail, n int, prefix string) []journal.Record {
	of := func(recs []journal.Record) []journal.Record {
		var got []journal.Record
		for _, rec := range recs {
			if strings.HasPrefix(string(rec.Stream), prefix) {
				got = append(got, rec)
			}
		}
		return got
	}
	recs, err := tail.WaitFor(10*time.Second, func(recs []journal.Record) bool { return len(of(recs)) >= n })
	if err != nil {
		rt.Fatalf("the tail ended: %v", err)
	}
	return of(recs)
}
