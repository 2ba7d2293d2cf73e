package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// recordID is the record id of a fact the manager writes, which makes a
// retried append of it write nothing and gives a stream at most one of it:
// "created", "seed/<index>", "started/<run>", "ended/<run>",
// "accepted/<message>", "claimed/<message>", "discarded/<message>",
// "checkpoint/<run>" on the child's stream and "checkpoint/<index>" on its
// pointer stream.
func recordID(f subagents.Fact) string {
	switch f := f.(type) {
	case *subagents.SubagentCreated:
		return "created"
	case *subagents.SubagentSeeded:
		return "seed/" + strconv.Itoa(f.Index)
	case *subagents.SubagentResidencyStarted:
		return "started/" + f.Run.String()
	case *subagents.SubagentResidencyEnded:
		return "ended/" + f.Run.String()
	case *subagents.SubagentMessageAccepted:
		return "accepted/" + f.Message.String()
	case *subagents.SubagentMessageClaimed:
		return "claimed/" + f.Message.String()
	case *subagents.SubagentMessageDiscarded:
		return "discarded/" + f.Message.String()
	case *subagents.SubagentCheckpoint:
		return "checkpoint/" + f.Run.String()
	case *subagents.SubagentCheckpointed:
		return "checkpoint/" + strconv.Itoa(f.Index)
	}
	panic(fmt.Sprintf("subagent: no record id for %T", f))
}

// appendFacts appends facts to stream in one append, each with its record id.
func (s *Service) appendFacts(ctx context.Context, stream journal.Stream, facts ...subagents.Fact) error {
	_, err := s.appendSeqs(ctx, stream, facts...)
	return err
}

// appendSeqs is appendFacts returning the seq of each fact.
func (s *Service) appendSeqs(ctx context.Context, stream journal.Stream, facts ...subagents.Fact) ([]uint64, error) {
	entries := make([]journal.Entry, len(facts))
	for i, f := range facts {
		payload, err := subagents.EncodeFact(f)
		if err != nil {
			return nil, err
		}
		entries[i] = journal.Entry{ID: recordID(f), Payload: payload}
	}
	return s.store.Append(ctx, stream, entries...)
}

// appendDurable appends facts to stream in one AppendBatch, each with its
// record id, and returns once they are durable: the store takes them in one
// call and syncs them once, where an Append and a Flush would be two calls
// (and, on the file store, a lock each).
func (s *Service) appendDurable(ctx context.Context, stream journal.Stream, facts ...subagents.Fact) error {
	entries := make([]journal.Entry, len(facts))
	for i, f := range facts {
		payload, err := subagents.EncodeFact(f)
		if err != nil {
			return err
		}
		entries[i] = journal.Entry{ID: recordID(f), Payload: payload}
	}
	_, err := s.store.AppendBatch(ctx, journal.Batch{Stream: stream, Entries: entries})
	return err
}

// A history is a child's stream folded from its last checkpoint (or from
// its creation): what a cold resume needs.
type history struct {
	header  subagents.ChildHeader
	desc    subagents.Descriptor
	based   bool              // the fold met the created fact or a checkpoint
	seed    []json.RawMessage // the seeded events, when the fold read them
	waiting []pendingMsg      // accepted, neither claimed nor discarded, in acceptance order
	gone    map[subagents.MessageID]bool
	open    []subagents.RunID // residencies started and never ended (a crash)
	cp      checkpointCursor
	read    int // records read
}

func newHistory() *history { return &history{gone: map[subagents.MessageID]bool{}} }

// fold takes one record of the child's stream into the history. The first
// record it is given must be the created fact or a checkpoint; the
// runtime's own records are skipped. A subagent fact that does not decode
// makes the child not resumable: damage, or (decision 0174) a fact a newer
// build wrote — a version, variant or enum value this build does not know —
// which the error names with this build, since a resume from the rest of
// the history could lose or redeliver a message.
func (h *history) fold(id jobs.SessionID, rec journal.Record) error {
	h.read++
	f, err := subagents.ReadFact(rec.Payload)
	if err != nil {
		return newError(subagents.ErrorCodeNotResumable, err, "child %s: record %d", id, rec.Seq)
	}
	if u, ok := f.(subagents.UnknownFact); ok {
		if u.Why == codec.UnknownType && !isSubagentFact(rec.Payload) {
			return nil // the runtime's own record
		}
		return newError(subagents.ErrorCodeNotResumable, u.Err, "child %s: record %d holds %s, which %s cannot read; a child is resumed from its whole history or not at all: resume it on a build that knows the fact", id, rec.Seq, u.Unknown, thisBuild())
	}
	if !h.based {
		return h.base(id, f)
	}
	switch f := f.(type) {
	case subagents.SubagentSeeded:
		h.seed = append(h.seed, f.Event)
	case subagents.SubagentCheckpoint:
		h.restore(f)
	case subagents.SubagentMessageAccepted:
		h.waiting = append(h.waiting, pendingMsg{msg: subagents.Message{ID: f.Message, Source: f.Source, Content: f.Content}, wake: f.Wake})
	case subagents.SubagentMessageClaimed:
		h.gone[f.Message] = true
	case subagents.SubagentMessageDiscarded:
		h.gone[f.Message] = true
	case subagents.SubagentResidencyStarted:
		h.open = append(h.open, f.Run)
	case subagents.SubagentResidencyEnded:
		h.open = slices.DeleteFunc(h.open, func(r subagents.RunID) bool { return r == f.Run })
	}
	return nil
}

// base takes the first fact of the fold: the created fact, or a checkpoint.
func (h *history) base(id jobs.SessionID, f subagents.Fact) error {
	switch f := f.(type) {
	case subagents.SubagentCreated:
		h.header, h.desc, h.based = f.Header, f.Descriptor, true
		return nil
	case subagents.SubagentCheckpoint:
		h.restore(f)
		return nil
	}
	return newError(subagents.ErrorCodeNotResumable, nil, "child %s has no supported continuation state: its stream does not begin with subagent/created; do not retry", id)
}

// restore makes a checkpoint the state of the fold: it replaces all that
// came before it.
func (h *history) restore(c subagents.SubagentCheckpoint) {
	h.header, h.desc, h.based = c.Header, c.Descriptor, true
	h.waiting = h.waiting[:0]
	clear(h.gone)
	for _, w := range c.Waiting {
		h.waiting = append(h.waiting, pendingMsg{msg: w.Message, wake: w.Wake})
	}
	h.open = nil
	h.cp.index = max(h.cp.index, c.Index)
}

// pending returns the waiting messages, in acceptance order.
func (h *history) pending() []pendingMsg {
	var out []pendingMsg
	for _, p := range h.waiting {
		if !h.gone[p.msg.ID] {
			out = append(out, p)
		}
	}
	return out
}

// foldDescriptor returns the child's descriptor when it can be continued.
func foldDescriptor(id jobs.SessionID, d subagents.Descriptor) (subagents.Descriptor, error) {
	if d.Version != DescriptorVersion || d.Mode != subagents.DescriptorModeContinuable {
		return d, newError(subagents.ErrorCodeNotResumable, nil,
			"child %s has no supported continuation state (descriptor version %d, mode %q); do not retry send_message to it", id, d.Version, d.Mode)
	}
	return d, nil
}

// isSubagentFact reports whether payload is an envelope of this vocabulary.
func isSubagentFact(payload []byte) bool {
	env, err := codec.DecodeEnvelope(payload)
	return err == nil && strings.HasPrefix(env.Type, "subagent/")
}

// thisBuild names the running build as an error about what it cannot read
// does: "this build (github.com/jobgen/jobgen v1.2.0)", with the VCS
// revision when the binary records one.
func thisBuild() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "this build"
	}
	name := info.Main.Path + " " + info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			name += ", revision " + s.Value[:12]
		}
	}
	return "this build (" + name + ")"
}

func (h *history) String() string {
	return fmt.Sprintf("history{read:%d waiting:%d open:%d checkpoint:%d}", h.read, len(h.pending()), len(h.open), h.cp.index)
}
