package jobhttp

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// Subagents is what the handler serves of a runtime's continuable children
// (WithSubagents). Both methods are fenced by session: a session sees
// only the children under its own roots, and a child under another's is
// ErrNoSuchChild, like one that does not exist.
type Subagents interface {
	// Tree returns the continuable children whose lineage starts at session,
	// parents before their children, siblings in creation order.
	Tree(ctx context.Context, session jobs.SessionID) ([]wire.SubagentNode, error)
	// History returns one such child's history, oldest first.
	History(ctx context.Context, session, child jobs.SessionID) ([]wire.SubagentEvent, error)
}

// ErrNoSuchChild is what Subagents answer for a child that is not under the
// caller's roots, whether it exists or not.
var ErrNoSuchChild = errors.New("jobhttp: no such subagent")

// LiveStates tells the state of a child the manager holds resident;
// *subagent.Service is one.
type LiveStates interface {
	State(child jobs.SessionID) subagent.State
}

// maxChildEvents bounds the history kept per child: the newest events are
// kept, as a record keeps its newest output.
const maxChildEvents = 1000

// A JournalSubagents reads the continuable children from the journal the
// subagent manager writes: every child's stream opens with its created fact
// (parent, depth, provider, label), and its inbox and residencies follow.
// It folds the store's records in global order once, and on each call only
// what was appended since, so a call costs what is new. Settled children
// stay listed; live states, when a LiveStates is given, refine running
// from waiting.
type JournalSubagents struct {
	store journal.Store
	live  LiveStates

	mu       sync.Mutex
	pos      journal.Position
	children map[jobs.SessionID]*childEntry
	order    []jobs.SessionID // creation order
}

// A childEntry is one child as its stream has shown it so far.
type childEntry struct {
	node   wire.SubagentNode
	open   int                            // residencies started and not ended
	unrun  map[subagents.MessageID]bool   // waking messages not yet claimed or discarded
	events []wire.SubagentEvent           // newest maxChildEvents
	owned  map[jobs.SessionID]*childEntry // children, for waiting
}

// NewJournalSubagents returns the children recorded in store; live, which
// may be nil, is the manager whose resident children it asks for their
// state.
func NewJournalSubagents(store journal.Store, live LiveStates) *JournalSubagents {
	return &JournalSubagents{store: store, live: live, children: map[jobs.SessionID]*childEntry{}}
}

// Tree implements Subagents.
func (j *JournalSubagents) Tree(ctx context.Context, session jobs.SessionID) ([]wire.SubagentNode, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.catchUpLocked(ctx); err != nil {
		return nil, err
	}
	byParent := map[jobs.SessionID][]jobs.SessionID{}
	for _, id := range j.order {
		c := j.children[id]
		if j.rootLocked(c) == session {
			byParent[c.node.Parent] = append(byParent[c.node.Parent], id)
		}
	}
	out := []wire.SubagentNode{}
	var walk func(parent jobs.SessionID)
	walk = func(parent jobs.SessionID) {
		for _, id := range byParent[parent] {
			out = append(out, j.nodeLocked(j.children[id], session))
			walk(id)
		}
	}
	walk(session)
	return out, nil
}

// History implements Subagents.
func (j *JournalSubagents) History(ctx context.Context, session, child jobs.SessionID) ([]wire.SubagentEvent, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.catchUpLocked(ctx); err != nil {
		return nil, err
	}
	c := j.children[child]
	if c == nil || j.rootLocked(c) != session {
		return nil, ErrNoSuchChild
	}
	return slices.Clone(c.events), nil
}

// rootLocked is the session at the top of c's lineage: the first ancestor
// that is no child.
func (j *JournalSubagents) rootLocked(c *childEntry) jobs.SessionID {
	for hops := 0; hops < 1<<16; hops++ {
		p := j.children[c.node.Parent]
		if p == nil {
			return c.node.Parent
		}
		c = p
	}
	return ""
}

// nodeLocked is c's node with its root and state filled in.
func (j *JournalSubagents) nodeLocked(c *childEntry, root jobs.SessionID) wire.SubagentNode {
	n := c.node
	n.Root = root
	n.State = j.stateLocked(c)
	return n
}

// stateLocked derives c's state: settled without an open residency; with
// one, the manager's word when it holds the child, else running while a
// waking message waits or no child of its own is open, waiting otherwise.
func (j *JournalSubagents) stateLocked(c *childEntry) wire.SubagentState {
	if c.open == 0 {
		return wire.SubagentStateSettled
	}
	if j.live != nil {
		switch j.live.State(c.node.ID) {
		case subagent.Absent:
			return wire.SubagentStateSettled // a residency a crash left open
		case subagent.Waiting:
			return wire.SubagentStateWaiting
		default:
			return wire.SubagentStateRunning
		}
	}
	if len(c.unrun) > 0 {
		return wire.SubagentStateRunning
	}
	for _, o := range c.owned {
		if o.open > 0 {
			return wire.SubagentStateWaiting
		}
	}
	return wire.SubagentStateRunning
}

// catchUpLocked folds the records appended since the last call.
func (j *JournalSubagents) catchUpLocked(ctx context.Context) error {
	for rec, err := range j.store.ReadAll(ctx, j.pos) {
		if err != nil {
			return err
		}
		j.pos = rec.Pos
		if !bytes.Contains(rec.Payload, []byte(`"subagent/`)) {
			continue // another vocabulary's record: cheap to skip unread
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			continue // not one this build reads; the manager reports its own
		}
		j.applyLocked(jobs.SessionID(rec.Stream), f)
	}
	return nil
}

// applyLocked folds one fact of stream into its child.
func (j *JournalSubagents) applyLocked(stream jobs.SessionID, f subagents.Fact) {
	if created, ok := f.(subagents.SubagentCreated); ok {
		j.create(created)
		return
	}
	c := j.children[stream]
	if c == nil {
		return // a root's stream, or a pointer stream
	}
	var ev wire.SubagentEvent
	switch f := f.(type) {
	case subagents.SubagentResidencyStarted:
		c.open++
		ev = wire.SubagentEvent{At: f.At, Kind: wire.SubagentEventKindResidencyStarted, Resumed: f.Resumed}
		c.node.StopReason = ""
	case subagents.SubagentResidencyEnded:
		c.open = max(0, c.open-1)
		ev = wire.SubagentEvent{At: f.At, Kind: wire.SubagentEventKindResidencyEnded, StopReason: string(f.StopReason), Text: f.LastMessage}
		c.node.StopReason = string(f.StopReason)
	case subagents.SubagentMessageAccepted:
		c.node.Messages++
		if f.Wake {
			c.unrun[f.Message] = true
		}
		ev = wire.SubagentEvent{At: f.At, Kind: wire.SubagentEventKindAccepted, Message: f.Message.String(),
			Source: string(f.Source.Kind), Sender: f.Source.Sender, Summary: f.Source.Summary, Text: contentText(f.Content), Wake: f.Wake}
	case subagents.SubagentMessageClaimed:
		delete(c.unrun, f.Message)
		ev = wire.SubagentEvent{At: f.At, Kind: wire.SubagentEventKindClaimed, Message: f.Message.String()}
	case subagents.SubagentMessageDiscarded:
		delete(c.unrun, f.Message)
		ev = wire.SubagentEvent{At: f.At, Kind: wire.SubagentEventKindDiscarded, Message: f.Message.String(), Why: f.Why}
	default:
		return // seed and checkpoints say nothing a person reads
	}
	c.node.LastActivity = max(c.node.LastActivity, ev.At)
	c.events = append(c.events, ev)
	if n := len(c.events); n > maxChildEvents {
		c.events = slices.Delete(c.events, 0, n-maxChildEvents)
	}
}

// create adds the child a created fact names, once.
func (j *JournalSubagents) create(f subagents.SubagentCreated) {
	if j.children[f.Child] != nil {
		return
	}
	c := &childEntry{
		node: wire.SubagentNode{
			ID: f.Child, Parent: f.Header.ParentSession, Depth: f.Header.DelegationDepth,
			Provider: f.Descriptor.Provider, Label: f.Descriptor.Label,
			AgentProvider: f.Descriptor.AgentProvider, AgentModel: f.Descriptor.AgentModel,
			CreatedAt: f.At, LastActivity: f.At,
		},
		unrun:  map[subagents.MessageID]bool{},
		owned:  map[jobs.SessionID]*childEntry{},
		events: []wire.SubagentEvent{{At: f.At, Kind: wire.SubagentEventKindCreated, Text: f.Descriptor.Label}},
	}
	j.children[f.Child] = c
	j.order = append(j.order, f.Child)
	if p := j.children[f.Header.ParentSession]; p != nil {
		p.owned[f.Child] = c
	}
}

// contentText joins a message's text blocks; an image is named, not shown.
func contentText(blocks []subagents.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch b.Kind {
		case subagents.ContentKindText:
			parts = append(parts, b.Text)
		default:
			parts = append(parts, "["+string(b.Kind)+" "+b.MediaType+"]")
		}
	}
	return strings.Join(parts, "\n")
}
