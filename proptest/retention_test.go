package proptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/retention"
)

// TestRetentionMachine is the property of retention (issue 28 item 2,
// decisions 0127 and 0128), against the test server. Each check writes a
// random history on streams of its own: sessions whose jobs settled or
// not, subagent children (of a session, or of a parent with no stream)
// whose residencies ended or not and whose messages wait or not, some with
// a checkpoint pointer stream, a host's heartbeats with a lease run out or
// not, a stream of a vocabulary nobody knows. The model says which trees
// are over; retention.Choose must archive exactly those, whole. Then
// pgstore's Archive moves them into a journal file that, in some checks,
// rots (reads one archived record back changed): then nothing of the store
// may change; otherwise every archived stream is in the file byte for byte
// and reads from the store as archived, every other stream of the check is
// whole, and Check finds the store gap-free.
func TestRetentionMachine(t *testing.T) {
	dsn := pgtest.DSN(t)
	setChecks(t, pgChecks(t))
	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(pgtest.Schema(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	dir := t.TempDir()
	checkNo := 0
	rapid.Check(t, func(rt *rapid.T) {
		checkNo++
		h := drawHistory(rt, fmt.Sprintf("c%d-", checkNo))
		h.write(rt, store)
		time.Sleep(2 * time.Millisecond) // the cutoff is after every record
		plan, err := retention.Choose(ctx, store, retention.Options{Before: time.Now()})
		if err != nil {
			rt.Fatal(err)
		}
		var chosen []journal.Stream
		var judged []pgstore.Judged
		for _, j := range plan.Archive {
			if strings.HasPrefix(string(j.Stream), h.prefix) {
				chosen = append(chosen, j.Stream)
				judged = append(judged, j)
			}
		}
		if want := h.over(); fmt.Sprint(chosen) != fmt.Sprint(want) {
			rt.Fatalf("Choose archives %v; the model says %v are over", chosen, want)
		}
		h.archive(rt, store, judged, chosen, filepath.Join(dir, fmt.Sprintf("archive-%d.journal", checkNo)))
	})
}

// An rtStream is one stream of a check's history and what the model knows
// of it.
type rtStream struct {
	name     journal.Stream
	payloads [][]byte
	over     bool           // its own history is over
	link     journal.Stream // the stream it goes with: a child's parent, a pointer's child
}

// An rtHistory is the streams of one check.
type rtHistory struct {
	prefix  string
	streams []*rtStream
}

func (h *rtHistory) add(name string, over bool, link string, facts ...any) {
	st := &rtStream{name: journal.Stream(h.prefix + name), over: over}
	if link != "" {
		st.link = journal.Stream(h.prefix + link)
	}
	for _, f := range facts {
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
		st.payloads = append(st.payloads, p)
	}
	h.streams = append(h.streams, st)
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
				facts = append(facts, jobs.JobSettled{JobID: r.JobID, At: 2, Status: jobs.JobStatusCompleted, ProducerReported: true,
					Cause: jobs.SettlementCauseProducer, Registration: jobs.JobRegistration{RegisteredAt: 1, Owner: r.Owner, Kind: "bash", Label: "l", Ordinal: k + 1}})
			} else {
				over = false
			}
		}
		if len(facts) > 0 {
			h.add(session, over, "", facts...)
		}
		parent := session
		if len(facts) == 0 && rapid.Bool().Draw(t, session+".parentless") {
			parent = "ghost" // a parent with no stream: its children are trees of their own
		}
		for c := range rapid.IntRange(0, 2).Draw(t, session+".children") {
			h.drawChild(t, fmt.Sprintf("%s-c%d", session, c), parent)
		}
	}
	if rapid.Bool().Draw(t, "host") {
		host := jobs.JobHost{Name: jobs.HostID(prefix + "web"), Incarnation: jobs.NewIncarnationID()}
		dead := rapid.Bool().Draw(t, "host.dead")
		lease := int64(2 * time.Hour / time.Millisecond)
		if dead {
			lease = 1000
		}
		name := strings.TrimPrefix(string(jobhistory.HostStream(host)), prefix)
		h.add(name, dead, "", jobs.HostHeartbeat{Host: host, At: time.Now().Add(-time.Minute).UnixMilli(), LeaseMs: lease})
	}
	if rapid.Bool().Draw(t, "unknown") {
		h.add("billing", false, "", fmt.Sprintf(`{"type":"billing/charged","v":1,"data":{"account":%q}}`, prefix+"billing"))
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
	h.add(child, over, parent, facts...)
	if rapid.Bool().Draw(t, child+".pointers") {
		h.add(child+"/checkpoint", true, child, subagents.SubagentCheckpointed{Child: id, Index: 1, Seq: 1})
	}
}

// write appends the history, one Append per stream.
func (h *rtHistory) write(t *rapid.T, store *pgstore.Store) {
	for _, st := range h.streams {
		es := make([]journal.Entry, len(st.payloads))
		for i, p := range st.payloads {
			es[i] = journal.Entry{ID: fmt.Sprintf("r%d", i), Payload: p}
		}
		if _, err := store.Append(context.Background(), st.name, es...); err != nil {
			t.Fatal(err)
		}
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

// A rtRottingFile reads one pattern back changed, as a disk that rots.
type rtRottingFile struct {
	*os.File
	rot []byte
}

func (f rtRottingFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	if i := bytes.Index(b[:n], f.rot); i >= 0 {
		b[i] ^= 0x01
	}
	return n, err
}

// archive moves chosen into a new file at path, which may rot, and checks
// what the store and the file hold afterwards.
func (h *rtHistory) archive(t *rapid.T, store *pgstore.Store, judged []pgstore.Judged, chosen []journal.Stream, path string) {
	ctx := context.Background()
	var opts []journal.Option
	rots := len(chosen) > 0 && rapid.Bool().Draw(t, "rots")
	if rots {
		victim := rapid.SampledFrom(chosen).Draw(t, "rotting")
		opts = append(opts, journal.WithOpenFile(func(p string) (journal.File, error) {
			f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
			return rtRottingFile{File: f, rot: []byte(fmt.Sprintf(`"stream":%q`, victim))}, err
		}))
	}
	file, err := journal.Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(ctx)
	moved, err := store.Archive(ctx, judged, file)
	switch {
	case rots && (!errors.Is(err, pgstore.ErrArchiveMismatch) || len(moved) != 0):
		t.Fatalf("Archive into a rotting file: moved %v, %v; want ErrArchiveMismatch and nothing moved", moved, err)
	case !rots && (err != nil || len(moved) != len(chosen)):
		t.Fatalf("Archive of %v: moved %d, %v", chosen, len(moved), err)
	}
	for _, st := range h.streams {
		archived := !rots && slices.Contains(chosen, st.name)
		var recs []journal.Record
		var readErr error
		for rec, err := range store.ReadStream(ctx, st.name, 0) {
			if err != nil {
				readErr = err
				break
			}
			recs = append(recs, rec)
		}
		switch {
		case archived && !errors.Is(readErr, journal.ErrArchived):
			t.Fatalf("%s was archived; reading it from the store gives %d records, %v", st.name, len(recs), readErr)
		case archived:
			recs, readErr = nil, nil
			for rec, err := range file.ReadStream(ctx, st.name, 0) {
				if err != nil {
					t.Fatalf("the archive's %s: %v", st.name, err)
				}
				recs = append(recs, rec)
			}
		case readErr != nil:
			t.Fatalf("%s stays; reading it: %v", st.name, readErr)
		}
		if len(recs) != len(st.payloads) {
			t.Fatalf("%s (archived %v) reads %d records, want %d", st.name, archived, len(recs), len(st.payloads))
		}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) || rec.ID != fmt.Sprintf("r%d", i) || !bytes.Equal(rec.Payload, st.payloads[i]) {
				t.Fatalf("%s (archived %v) record %d: seq %d id %q %s; want seq %d %s", st.name, archived, i, rec.Seq, rec.ID, rec.Payload, i+1, st.payloads[i])
			}
		}
	}
	if _, err := store.Check(ctx); err != nil {
		t.Fatalf("Check after archiving: %v", err)
	}
}
