package subagent

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// DescriptorVersion is the version of the descriptors the manager writes
// and the only one a cold resume understands.
const DescriptorVersion = 2

// A Service is the continuation manager: it starts one-shot runs and
// continuable children, routes follow-ups and reports, resumes children cold
// from their streams, and tears them down. Its methods are safe for
// concurrent use.
type Service struct {
	store    journal.Store
	host     Host
	jobs     *registry.Registry
	sessions *journal.SessionStore[jobs.SessionID]
	now      func() time.Time
	log      *slog.Logger
	obs      Observer
	bound    time.Duration
	cpOff    bool // no checkpoints: a resume reads the whole stream
	newChild func() jobs.SessionID

	mu        sync.Mutex
	providers map[string]Provider
	order     []string
	roots     map[jobs.SessionID]attachedRoot
	children  map[jobs.SessionID]*activation
	locks     map[jobs.SessionID]*childLock
	closing   bool                   // Close began: nothing is admitted
	scopes    map[jobs.SessionID]int // parents whose descendants are draining
	inflight  sync.WaitGroup         // materializations Close waits for
	watchers  sync.WaitGroup         // residency watchers
}

// An Option configures a Service.
type Option func(*Service)

// WithStore makes children durable on store, one stream per child. Without
// a store continuable children are refused (ErrPersistenceUnavailable).
func WithStore(store journal.Store) Option { return func(s *Service) { s.store = store } }

// WithHost supplies the runtime's agent host. Without one continuable
// children are refused (ErrContinuationUnavailable).
func WithHost(h Host) Option { return func(s *Service) { s.host = h } }

// WithRegistry runs background one-shot runs (StartJob) as jobs of kind
// "subagent" in r.
func WithRegistry(r *registry.Registry) Option { return func(s *Service) { s.jobs = r } }

// WithSessions shares the runtime's session flush barrier: each resident
// child is a live session there, with the store's Flush as a listener, and
// a child's teardown flushes it. Without, the Service keeps its own.
func WithSessions(ss *journal.SessionStore[jobs.SessionID]) Option {
	return func(s *Service) { s.sessions = ss }
}

// WithClock sets the clock fact times are read from.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets where contained failures (a failed final flush, an
// undeliverable notice) are logged. Without it, or with nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// WithTeardownBound bounds how long the teardown of a settling child waits
// for its agent; drains and Close are bounded by their context.
func WithTeardownBound(d time.Duration) Option { return func(s *Service) { s.bound = d } }

// WithChildIDs sets how fresh child ids are drawn (default: a random UUID).
func WithChildIDs(next func() jobs.SessionID) Option {
	return func(s *Service) { s.newChild = next }
}

// New returns a Service.
func New(opts ...Option) *Service {
	s := &Service{
		now:       time.Now,
		log:       slog.New(slog.DiscardHandler),
		obs:       NopObserver{},
		bound:     jobs.DefaultTeardownBound,
		newChild:  func() jobs.SessionID { return jobs.SessionID(subagents.NewMessageID().String()) },
		providers: map[string]Provider{},
		roots:     map[jobs.SessionID]attachedRoot{},
		children:  map[jobs.SessionID]*activation{},
		locks:     map[jobs.SessionID]*childLock{},
		scopes:    map[jobs.SessionID]int{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.sessions == nil {
		s.sessions = journal.NewSessionStore[jobs.SessionID]()
	}
	return s
}

// RegisterProvider registers p under its name and returns the function that
// removes it. A second provider of the same name is ErrDuplicateProvider; a
// provider that is neither a OneShotProvider nor a ContinuablePreparer is
// ErrUnsupportedCapability. Removing a provider does not touch children it
// created: their resume never asks a provider.
func (s *Service) RegisterProvider(p Provider) (remove func(), err error) {
	name := p.Name()
	_, oneShot := p.(OneShotProvider)
	_, continuable := p.(ContinuablePreparer)
	if !oneShot && !continuable {
		return nil, newError(subagents.ErrorCodeUnsupportedCapability, nil, "provider %q can neither start one-shot runs nor prepare continuable children", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.providers[name]; dup {
		return nil, newError(subagents.ErrorCodeDuplicateProvider, nil, "provider %q is already registered", name)
	}
	s.providers[name] = p
	s.order = append(s.order, name)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.providers[name] != p {
				return
			}
			delete(s.providers, name)
			for i, n := range s.order {
				if n == name {
					s.order = append(s.order[:i:i], s.order[i+1:]...)
					break
				}
			}
		})
	}, nil
}

// Providers lists the registered providers' names in registration order.
func (s *Service) Providers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

func (s *Service) provider(name string) (Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.providers[name]
	if !ok {
		return nil, newError(subagents.ErrorCodeNoProvider, nil, "no provider %q", name)
	}
	return p, nil
}

// Attach makes root, an agent the runtime runs outside the manager (a
// user's top-level session), a live parent: it may start children and
// receive their reports and notices until detach is called. Only this very
// value is authorized, never a copy with the same id. Root must be a
// pointer. The messages it receives are not recorded; see AttachDurable.
func (s *Service) Attach(root Agent) (detach func(), err error) {
	if err := checkPointer(root); err != nil {
		return nil, err
	}
	return s.attach(root, nil)
}

// An attachedRoot is a live root; inbox is set for a durable one.
type attachedRoot struct {
	agent Agent
	inbox *rootInbox
}

// deliver hands msg to the root, recording it first on a durable root's
// stream.
func (r attachedRoot) deliver(ctx context.Context, msg subagents.Message, wake bool) error {
	if r.inbox != nil {
		return r.inbox.deliver(ctx, r.agent, msg, wake)
	}
	return r.agent.Deliver(msg, wake)
}

func (s *Service) attach(root Agent, in *rootInbox) (detach func(), err error) {
	id := root.ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, newError(subagents.ErrorCodeDraining, nil, "attach %s: the manager is closing", id)
	}
	if _, live := s.roots[id]; live {
		return nil, newError(subagents.ErrorCodeDuplicateChild, nil, "attach %s: a root with this id is attached", id)
	}
	if _, live := s.children[id]; live {
		return nil, newError(subagents.ErrorCodeDuplicateChild, nil, "attach %s: a child with this id is live", id)
	}
	s.roots[id] = attachedRoot{agent: root, inbox: in}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.roots[id].agent == root {
			delete(s.roots, id)
		}
	}, nil
}

func checkPointer(a Agent) error {
	if a == nil {
		return newError(subagents.ErrorCodeUnauthorized, nil, "nil agent")
	}
	if reflect.TypeOf(a).Kind() != reflect.Pointer {
		return fmt.Errorf("subagent: agent of type %T must be a pointer: the manager authorizes by identity", a)
	}
	return nil
}

// A State is a child's derived state. The manager keeps no state machine:
// a child is running while its agent runs a turn or a waking message waits
// to be claimed; waiting while it is quiescent but owns live children;
// settled children are disposed at once and are then absent.
type State int

const (
	// Absent: no residency; a follow-up resumes the child cold.
	Absent State = iota
	// Materializing: the child's agent is being made.
	Materializing
	// Running: a turn runs or a waking message waits.
	Running
	// Waiting: quiescent, with live children of its own.
	Waiting
	// Disposing: teardown began; a follow-up waits for it, then resumes.
	Disposing
)

func (st State) String() string {
	return [...]string{"absent", "materializing", "running", "waiting", "disposing"}[st]
}

// State returns the child's derived state.
func (s *Service) State(child jobs.SessionID) State {
	s.mu.Lock()
	act := s.children[child]
	if act == nil {
		s.mu.Unlock()
		return Absent
	}
	switch act.state {
	case stateOpening:
		s.mu.Unlock()
		return Materializing
	case stateDisposing:
		s.mu.Unlock()
		return Disposing
	}
	agent, waking, owned := act.agent, act.wakingLocked(), len(act.owned)
	s.mu.Unlock()
	if waking > 0 {
		return Running
	}
	select {
	case <-agent.Idle():
		if owned > 0 {
			return Waiting
		}
		return Running // quiescent and about to settle
	default:
		return Running
	}
}

// Children lists the live children of parent, sorted by id.
func (s *Service) Children(parent jobs.SessionID) []jobs.SessionID {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []jobs.SessionID
	for id, act := range s.children {
		if act.header.ParentSession == parent {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// liveLocked returns the activation of agent when agent is the exact live agent
// of a resident child, or reports whether it is an attached root. Call
// with s.mu held.
func (s *Service) liveLocked(a Agent) (act *activation, ok bool) {
	if a == nil {
		return nil, false
	}
	id := a.ID()
	if act := s.children[id]; act != nil {
		return act, act.state == stateResident && act.agent == a
	}
	if r, ok := s.roots[id]; ok && r.agent == a {
		return nil, true
	}
	return nil, false
}

// admittingLocked refuses work while the manager closes or a drain covers the
// session or one of its ancestors. Call with s.mu held.
func (s *Service) admittingLocked(session jobs.SessionID) error {
	if s.closing {
		return newError(subagents.ErrorCodeDraining, nil, "the manager is draining")
	}
	for id, hops := session, 0; id != "" && hops < 1<<16; hops++ {
		if s.scopes[id] > 0 {
			return newError(subagents.ErrorCodeDraining, nil, "the descendants of %s are draining", id)
		}
		act := s.children[id]
		if act == nil {
			break
		}
		id = act.header.ParentSession
	}
	return nil
}

// A childLock serialises creation and resume of one child id, honouring
// the caller's context while it waits.
type childLock struct {
	ch   chan struct{}
	refs int
}

func (s *Service) lockChild(ctx context.Context, id jobs.SessionID) (unlock func(), err error) {
	s.mu.Lock()
	l := s.locks[id]
	if l == nil {
		l = &childLock{ch: make(chan struct{}, 1)}
		s.locks[id] = l
	}
	l.refs++
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(s.locks, id)
		}
		s.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, cancelled(ctx, fmt.Sprintf("waiting for child %s", id))
	}
}
