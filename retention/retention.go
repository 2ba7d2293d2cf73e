// Package retention decides which streams of a runtime's history in
// PostgreSQL are over, so that pgstore's Archive may move them into a
// journal file: `jobgen journal archive`. The journal knows no vocabulary;
// this package reads the job and subagent vocabularies' facts and judges
// each stream by them, since an age cutoff alone would archive an open job's
// session or a subagent a follow-up could still resume. The judges live here,
// reading the facts, rather than registered with the store by each
// vocabulary, so that the store stays free of vocabularies:
//
//   - a session's stream is over when every job it registered has settled;
//   - a subagent child's stream when every residency it started has ended
//     and no accepted message waits (neither claimed nor discarded): the
//     child is settled and disposed;
//   - a host's heartbeat stream when its last heartbeat's lease has run
//     out: that run of the host is gone;
//   - a stream holding records of another vocabulary is never over, unless
//     Options.AllowUnknown says its own records do not matter;
//   - a stream holding a job or subagent fact a newer build wrote (a version,
//     variant or enum value this build does not know: decision 0174) is never
//     over for this build, AllowUnknown or not, since that fact may be what
//     ends its history; the reason kept names it, and a newer build judges it.
//
// Streams are judged in trees: a child goes with its parent's stream (when
// the store holds one) and a child's checkpoint pointer streams with the
// child, and a tree is archived whole or not at all, so no archived child
// is left a parent that may still send it a follow-up, and no stream is
// left pointing into an archive. A stream qualifies when its last record
// was appended before Options.Before and its tree all qualifies. So a new
// vocabulary's streams are kept until this package learns to judge them, and
// a long-lived session whose jobs never all settle is never archived.
//
// The judgement and the move agree: Choose judges each stream through the
// last seq Streams listed for it, and the Plan names that seq beside the
// stream (a pgstore.Judged); Archive moves each stream through it and no
// further. A fact appended after the judgement (a job registered in a
// session that was over when Choose read it, a follow-up to a settled
// child) was not judged, so it stays in the store, live, with whatever
// follows it; the next Choose judges it (decision 0147).
//
//	plan, err := retention.Choose(ctx, store, retention.Options{Before: time.Now().Add(-30 * 24 * time.Hour)})
//	moved, err := store.Archive(ctx, plan.Archive, file)
package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// Options say which streams Choose may archive.
type Options struct {
	// Before is the cutoff: a stream whose last record was appended at or
	// after it is kept.
	Before time.Time
	// Now is when leases are judged; zero means time.Now().
	Now time.Time
	// AllowUnknown judges records of a vocabulary this package does not
	// know as saying nothing against archiving their stream.
	AllowUnknown bool
}

// A Plan is what Choose decided.
type Plan struct {
	// Archive are the streams to archive, by name, each with the seq
	// through which it was judged: whole trees, each of whose streams is
	// over through that seq.
	Archive []pgstore.Judged
	// Records counts the records of Archive the store holds.
	Records uint64
	// Kept are the streams old enough to archive that stay, each with why.
	Kept []Kept
}

// Streams returns the names of the streams to archive, in Archive's order.
func (p Plan) Streams() []journal.Stream {
	out := make([]journal.Stream, len(p.Archive))
	for i, j := range p.Archive {
		out[i] = j.Stream
	}
	return out
}

// A Kept is a stream old enough to archive that stays.
type Kept struct {
	Stream journal.Stream
	// Why says what keeps it: its own history, or another stream of its
	// tree.
	Why string
}

// A node is one stream of the store, as Choose sees it.
type node struct {
	info      pgstore.StreamInfo
	candidate bool   // its last record is older than the cutoff
	why       string // why its own history is not over; "" when it is
	link      jobs.SessionID
	root      *node // the tree it belongs to (union-find)
}

// find returns n's tree, halving the path to it.
func (n *node) find() *node {
	for n.root != n {
		n.root = n.root.root
		n = n.root
	}
	return n
}

// Choose reads the streams of store and returns which may be archived.
func Choose(ctx context.Context, store *pgstore.Store, opts Options) (Plan, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	nodes := map[journal.Stream]*node{}
	var order []*node
	for info, err := range store.Streams(ctx) {
		if err != nil {
			return Plan{}, err
		}
		n := &node{info: info, candidate: info.LastAt.Before(opts.Before)}
		n.root = n
		nodes[info.Stream] = n
		order = append(order, n)
	}
	for _, n := range order {
		var j judgement
		if n.candidate {
			// Through the seq Streams listed, whose record is older than
			// the cutoff: what follows came since, and is not judged.
			for rec, err := range store.ReadStream(ctx, n.info.Stream, n.info.Archived) {
				if err != nil {
					return Plan{}, fmt.Errorf("retention: %w", err)
				}
				if rec.Seq > n.info.Head {
					break
				}
				if err := j.add(rec); err != nil {
					return Plan{}, fmt.Errorf("retention: %w", err)
				}
			}
			n.why = j.unsettled(opts.Now, opts.AllowUnknown)
		} else {
			// Only how it belongs to others matters: its first record says.
			j.add(journal.Record{Stream: n.info.Stream, Payload: n.info.First})
		}
		n.link = j.parent
		if j.child != "" {
			n.link = j.child
		}
	}
	for _, n := range order {
		if other, ok := nodes[journal.Stream(n.link)]; ok && n.link != "" {
			if a, b := n.find(), other.find(); a != b {
				b.root = a
			}
		}
	}
	return plan(order), nil
}

// plan archives the trees whose streams all qualify and keeps the other
// candidates, saying why.
func plan(order []*node) Plan {
	blocked := map[*node]*node{} // a tree's root → a stream that keeps it
	for _, n := range order {
		if !n.candidate || n.why != "" {
			if _, ok := blocked[n.find()]; !ok {
				blocked[n.find()] = n
			}
		}
	}
	var p Plan
	for _, n := range order {
		if !n.candidate {
			continue
		}
		b, kept := blocked[n.find()]
		switch {
		case !kept:
			p.Archive = append(p.Archive, pgstore.Judged{Stream: n.info.Stream, Through: n.info.Head})
			p.Records += n.info.Head - n.info.Archived
		case b == n:
			p.Kept = append(p.Kept, Kept{Stream: n.info.Stream, Why: n.why})
		case !b.candidate:
			p.Kept = append(p.Kept, Kept{Stream: n.info.Stream, Why: fmt.Sprintf("%q of its tree has a record after the cutoff", b.info.Stream)})
		default:
			p.Kept = append(p.Kept, Kept{Stream: n.info.Stream, Why: fmt.Sprintf("%q of its tree is not over: %s", b.info.Stream, b.why)})
		}
	}
	return p
}
