package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// recordID is the record id of a fact the manager writes, which makes a
// retried append of it write nothing and gives a stream at most one of it:
// "created", "seed/<index>", "started/<run>", "ended/<run>",
// "accepted/<message>", "claimed/<message>", "discarded/<message>".
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
	}
	panic(fmt.Sprintf("subagent: no record id for %T", f))
}

// appendFacts appends facts to stream in one append, each with its record id.
func (s *Service) appendFacts(ctx context.Context, stream journal.Stream, facts ...subagents.Fact) error {
	entries := make([]journal.Entry, len(facts))
	for i, f := range facts {
		payload, err := subagents.EncodeFact(f)
		if err != nil {
			return err
		}
		entries[i] = journal.Entry{ID: recordID(f), Payload: payload}
	}
	_, err := s.store.Append(ctx, stream, entries...)
	return err
}

// A history is a child's stream folded: what a cold resume needs.
type history struct {
	created  *subagents.SubagentCreated
	seed     []json.RawMessage
	pending  []pendingMsg      // accepted, neither claimed nor discarded, in acceptance order
	open     []subagents.RunID // residencies started and never ended (a crash)
	records  []journal.Record
	messages int // accepted messages, for tests and the example
}

// readHistory reads and folds the child's stream. A stream with no created
// fact first, or a subagent fact that does not decode, is not resumable.
func (s *Service) readHistory(ctx context.Context, id jobs.SessionID) (*history, error) {
	h := &history{}
	index := map[subagents.MessageID]int{} // into accepted
	var accepted []lazyMsg
	gone := map[subagents.MessageID]bool{}
	started := map[subagents.RunID]int{}
	var runs []subagents.RunID
	for rec, err := range s.store.ReadStream(ctx, journal.Stream(id), 0) {
		if err != nil {
			if c := cancelled(ctx, "read child "+string(id)); c != nil {
				return nil, c
			}
			return nil, newError(subagents.ErrorCodeNotResumable, err, "read the history of child %s", id)
		}
		h.records = append(h.records, rec)
		if h.created != nil {
			// The fast path: most of a long history is inbox traffic whose
			// ids are all the fold needs; an accepted message's content is
			// decoded only if it is still waiting at the end.
			if k, ok := peek(rec.Payload); ok {
				switch k.Type {
				case subagents.SubagentMessageAcceptedType:
					if _, dup := index[k.Data.Message]; !dup {
						index[k.Data.Message] = len(accepted)
						accepted = append(accepted, lazyMsg{id: k.Data.Message, payload: rec.Payload, seq: rec.Seq})
					}
				case subagents.SubagentMessageClaimedType, subagents.SubagentMessageDiscardedType:
					gone[k.Data.Message] = true
				case subagents.SubagentResidencyStartedType:
					started[k.Data.Run] = len(runs)
					runs = append(runs, k.Data.Run)
				case subagents.SubagentResidencyEndedType:
					if i, ok := started[k.Data.Run]; ok {
						runs[i] = subagents.RunID{}
					}
				}
				continue
			}
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			if errors.Is(err, subagents.ErrUnknownFact) && !isSubagentFact(rec.Payload) {
				continue // the runtime's own record
			}
			return nil, newError(subagents.ErrorCodeNotResumable, err, "child %s: record %d", id, rec.Seq)
		}
		if h.created == nil {
			c, ok := f.(subagents.SubagentCreated)
			if !ok {
				return nil, newError(subagents.ErrorCodeNotResumable, nil, "child %s has no supported continuation state: its stream does not begin with subagent/created; do not retry", id)
			}
			h.created = &c
			continue
		}
		if f, ok := f.(subagents.SubagentSeeded); ok {
			h.seed = append(h.seed, f.Event)
		}
	}
	if h.created == nil {
		return nil, newError(subagents.ErrorCodeNotResumable, nil, "child %s is unavailable: no history", id)
	}
	for _, p := range accepted {
		if gone[p.id] {
			continue
		}
		f, err := subagents.DecodeFact(p.payload)
		if err != nil {
			return nil, newError(subagents.ErrorCodeNotResumable, err, "child %s: record %d", id, p.seq)
		}
		a := f.(subagents.SubagentMessageAccepted)
		h.pending = append(h.pending, pendingMsg{msg: subagents.Message{ID: a.Message, Source: a.Source, Content: a.Content}, wake: a.Wake})
	}
	for _, r := range runs {
		if !r.IsZero() {
			h.open = append(h.open, r)
		}
	}
	h.messages = len(accepted)
	return h, nil
}

// foldDescriptor returns the child's descriptor when it can be continued.
func foldDescriptor(id jobs.SessionID, c *subagents.SubagentCreated) (subagents.Descriptor, error) {
	d := c.Descriptor
	if d.Version != DescriptorVersion || d.Mode != subagents.DescriptorModeContinuable {
		return d, newError(subagents.ErrorCodeNotResumable, nil,
			"child %s has no supported continuation state (descriptor version %d, mode %q); do not retry send_message to it", id, d.Version, d.Mode)
	}
	return d, nil
}

func isSubagentFact(payload []byte) bool {
	var env struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(payload, &env) == nil && strings.HasPrefix(env.Type, "subagent/")
}

func (h *history) String() string {
	return fmt.Sprintf("history{records:%d pending:%d open:%d}", len(h.records), len(h.pending), len(h.open))
}

// A lazyMsg is an accepted message whose content is decoded only if the
// fold finds it still waiting.
type lazyMsg struct {
	id      subagents.MessageID
	payload []byte
	seq     uint64
}

// A peeked fact is the envelope of an inbox or residency fact with only
// the ids the fold needs.
type peeked struct {
	Type string `json:"type"`
	V    int    `json:"v"`
	Data struct {
		Message subagents.MessageID `json:"message"`
		Run     subagents.RunID     `json:"run"`
	} `json:"data"`
}

// peek reads the type and ids of a version 1 inbox or residency fact; ok is
// false for anything else (or anything odd), which takes the full decoder.
func peek(payload []byte) (peeked, bool) {
	var k peeked
	if json.Unmarshal(payload, &k) != nil || k.V != 1 {
		return k, false
	}
	switch k.Type {
	case subagents.SubagentMessageAcceptedType, subagents.SubagentMessageClaimedType, subagents.SubagentMessageDiscardedType:
		return k, !k.Data.Message.IsZero()
	case subagents.SubagentResidencyStartedType, subagents.SubagentResidencyEndedType:
		return k, !k.Data.Run.IsZero()
	}
	return k, false
}
