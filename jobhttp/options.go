package jobhttp

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// An Option configures New: what a Handler serves besides the live
// registry, and how it serves it. Without any, a Handler serves the live
// registry to the loopback names with the default limits (decision 0229:
// what a constructor cannot work without is an argument, every optional
// setting an option whose absence is the default).
type Option interface {
	applyHandler(*handlerConfig) error
}

// A FleetOption configures NewFleet: which hosts a Fleet forwards to, what
// it keeps of the shared history, and how it serves.
type FleetOption interface {
	applyFleet(*fleetConfig) error
}

// A ServeOption configures how a server answers, the same for a Handler
// and a Fleet: the Host names it answers for, its streams' limits and its
// logger. It is an Option and a FleetOption both.
type ServeOption interface {
	Option
	FleetOption
}

// serveConfig is what a Handler and a Fleet are configured with alike.
type serveConfig struct {
	Hosts                []string // as WithHosts gave them, checked
	MaxStreamsPerSession int
	WriteTimeout         time.Duration
	KeepAlive            time.Duration
	Logger               *slog.Logger
	JobFacts             JobFactsFunc
}

// defaultServe is the serveConfig without options.
func defaultServe() serveConfig {
	return serveConfig{
		MaxStreamsPerSession: 8,
		WriteTimeout:         30 * time.Second,
		KeepAlive:            15 * time.Second,
		Logger:               slog.New(slog.DiscardHandler),
	}
}

// handlerConfig is a Handler's configuration: its options applied to the
// defaults.
type handlerConfig struct {
	serveConfig
	History    HistoryFunc
	AllHistory AllHistoryFunc
	Operator   func(jobs.SessionID) bool
	Subagents  Subagents
}

// A serveOption sets part of the configuration a Handler and a Fleet share.
type serveOption func(*serveConfig) error

func (o serveOption) applyHandler(c *handlerConfig) error { return o(&c.serveConfig) }
func (o serveOption) applyFleet(c *fleetConfig) error     { return o(&c.serveConfig) }

// A handlerOption sets part of a Handler's own configuration.
type handlerOption func(*handlerConfig) error

func (o handlerOption) applyHandler(c *handlerConfig) error { return o(c) }

// WithHosts sets the Host header values the server answers for: a name or
// address ("jobs.example.com", "10.0.0.7", "[fd00::7]") allows any port,
// host:port allows that port alone. Names are compared without case and
// without a trailing dot. Without it, or with no names, the server answers
// for the loopback names localhost, 127.0.0.1 and [::1] on any port, which
// is right for a server listening on a loopback address; a server
// reachable under other names must list them. A listed name is trusted as
// this server's own: list no name another party controls.
//
// Every other request, page and API, reads and writes alike, is a 403
// before anything else is looked at, the session function included. A
// browser sends cookies and the same-origin markers to whatever host name a
// page was loaded from, so after a DNS rebinding (attacker.example
// re-pointed at this server) a page of the attacker's is "same-origin" with
// it; only the Host header still says which name the browser thinks it
// talks to.
func WithHosts(hosts ...string) ServeOption {
	return serveOption(func(c *serveConfig) error {
		if _, err := newHostSet(hosts); err != nil {
			return err
		}
		c.Hosts = append([]string(nil), hosts...)
		return nil
	})
}

// WithMaxStreamsPerSession caps the event streams one session holds open
// at once; without it the cap is 8. A page holds one roster stream and one
// follow per expanded row, so one person rarely needs more than a few; a
// session that several people or many tabs share needs a higher cap. A
// stream past the cap is a 429 with Retry-After and a body saying what to
// do, and the page retries by itself.
func WithMaxStreamsPerSession(n int) ServeOption {
	return serveOption(func(c *serveConfig) error {
		if n < 1 {
			return fmt.Errorf("jobhttp: WithMaxStreamsPerSession(%d): a session needs at least 1 stream", n)
		}
		c.MaxStreamsPerSession = n
		return nil
	})
}

// WithWriteTimeout drops a stream whose client has not taken a write for d;
// without it, 30 s.
func WithWriteTimeout(d time.Duration) ServeOption {
	return serveOption(func(c *serveConfig) error {
		if d <= 0 {
			return fmt.Errorf("jobhttp: WithWriteTimeout(%v): the timeout must be positive", d)
		}
		c.WriteTimeout = d
		return nil
	})
}

// WithKeepAlive sets how often an idle stream sends a comment line, so
// proxies and clients see it is alive; without it, every 15 s.
func WithKeepAlive(d time.Duration) ServeOption {
	return serveOption(func(c *serveConfig) error {
		if d <= 0 {
			return fmt.Errorf("jobhttp: WithKeepAlive(%v): the interval must be positive", d)
		}
		c.KeepAlive = d
		return nil
	})
}

// WithLogger sets where contained failures are logged. Without it, or with
// nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) ServeOption {
	return serveOption(func(c *serveConfig) error {
		if l != nil {
			c.Logger = l
		}
		return nil
	})
}

// WithHistory answers ListHistory (/api/history) with the caller's
// execution intervals, and ArchivedHistory (/api/history/archived) with
// them and the runs of the history retention archived (StoreHistory reads
// them from a journal). Without it, or with nil, those routes are a 404.
func WithHistory(history HistoryFunc) Option {
	return handlerOption(func(c *handlerConfig) error { c.History = history; return nil })
}

// WithAllHistory reads every session's execution intervals, for
// SearchHistory with all=true by a session WithOperator allows
// (StoreAllHistory reads them from a journal). Without it, or with nil, a
// search reads the caller's own history alone.
func WithAllHistory(all AllHistoryFunc) Option {
	return handlerOption(func(c *handlerConfig) error { c.AllHistory = all; return nil })
}

// WithJobFacts answers JobHistory, a job's page: the facts of one job of
// the caller's history (StoreJobFacts reads them from a journal; a fleet
// reads them from the shared history, where every host records its jobs).
// Without it, or with nil, that route is a 404.
func WithJobFacts(facts JobFactsFunc) ServeOption {
	return serveOption(func(c *serveConfig) error { c.JobFacts = facts; return nil })
}

// WithOperator sets which sessions may search every session's history.
// Without it, or with nil, none may: the fence, a session sees its own,
// stays the default.
func WithOperator(operator func(jobs.SessionID) bool) Option {
	return handlerOption(func(c *handlerConfig) error { c.Operator = operator; return nil })
}

// WithSubagents answers /api/subagents with the continuable children under
// the caller's roots and their histories (NewJournalSubagents reads them
// from the manager's journal). Without it, or with nil, those routes are a
// 404.
func WithSubagents(s Subagents) Option {
	return handlerOption(func(c *handlerConfig) error { c.Subagents = s; return nil })
}

// newHandlerConfig applies opts to the defaults; a nil option is skipped.
func newHandlerConfig(opts []Option) (handlerConfig, error) {
	c := handlerConfig{serveConfig: defaultServe()}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyHandler(&c); err != nil {
			return handlerConfig{}, err
		}
	}
	return c, nil
}

// fleetConfig is a Fleet's configuration: its arguments, and its options
// applied to the defaults.
type fleetConfig struct {
	serveConfig
	History   journal.Tailer
	Key       FleetKey
	Peers     map[jobs.HostID]*url.URL
	Window    int
	RunWindow int
	Lease     time.Duration
	Transport http.RoundTripper // nil: newFleetProxy's own
	Now       func() time.Time
}

// A fleetOption sets part of a Fleet's own configuration.
type fleetOption func(*fleetConfig) error

func (o fleetOption) applyFleet(c *fleetConfig) error { return o(c) }

// WithPeers sets where the fleet forwards a job's follow, raw download,
// kill and input: the base URL (http or https, no credentials, query or
// fragment) of each host's wire, by the host name its registrations carry
// (jobs.JobHost.Name). A job whose host is not listed is refused with 409
// and nothing is forwarded. The address a registration names is never
// used: anyone who may append to the shared history could name any
// address, an internal one included (decision 0153). Without it the fleet
// forwards nothing: a view that only reads.
func WithPeers(peers map[jobs.HostID]string) FleetOption {
	return fleetOption(func(c *fleetConfig) error {
		parsed, err := parsePeers(peers)
		if err != nil {
			return err
		}
		c.Peers = parsed
		return nil
	})
}

// WithWindow sets how many jobs that are over, settled or lost with their
// host, the fleet keeps showing: the most recently over, across every
// session; without it, 1,000. Every job that runs on a live host is kept
// besides, so what the fleet holds is what runs and the window, however
// long the history (decision 0155).
func WithWindow(n int) FleetOption {
	return fleetOption(func(c *fleetConfig) error {
		if n < 1 {
			return fmt.Errorf("jobhttp: WithWindow(%d): the fleet keeps at least 1 job that is over", n)
		}
		c.Window = n
		return nil
	})
}

// WithRunWindow sets how many runs of hosts whose lease ended the fleet
// keeps listing (ListFleetHosts), the most recently ended, besides the runs
// with a job it keeps unsettled; without it, 100.
func WithRunWindow(n int) FleetOption {
	return fleetOption(func(c *fleetConfig) error {
		if n < 1 {
			return fmt.Errorf("jobhttp: WithRunWindow(%d): the fleet keeps at least 1 ended run", n)
		}
		c.RunWindow = n
		return nil
	})
}

// WithLease sets how long a host's run counts as alive before its first
// heartbeat is read (after that, each heartbeat says); without it, 15 s
// (3×jobhistory.DefaultHeartbeatEvery).
func WithLease(d time.Duration) FleetOption {
	return fleetOption(func(c *fleetConfig) error {
		if d <= 0 {
			return fmt.Errorf("jobhttp: WithLease(%v): a lease must be positive", d)
		}
		c.Lease = d
		return nil
	})
}

// WithTransport sets what carries the forwarded requests. Without it, or
// with nil, a transport with a 5 s dial and response-header timeout.
func WithTransport(t http.RoundTripper) FleetOption {
	return fleetOption(func(c *fleetConfig) error { c.Transport = t; return nil })
}

// WithClock sets the clock leases are judged by. Without it, or with nil,
// time.Now.
func WithClock(now func() time.Time) FleetOption {
	return fleetOption(func(c *fleetConfig) error {
		if now != nil {
			c.Now = now
		}
		return nil
	})
}

// newFleetConfig applies opts to the defaults; a nil option is skipped.
func newFleetConfig(opts []FleetOption) (fleetConfig, error) {
	c := fleetConfig{serveConfig: defaultServe(), Window: 1000, RunWindow: 100, Lease: 15 * time.Second, Now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyFleet(&c); err != nil {
			return fleetConfig{}, err
		}
	}
	return c, nil
}
