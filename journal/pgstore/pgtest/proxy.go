package pgtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A Proxy stands between the tests' clients and the server, so that a test
// can break connections as a network or a restarting server would, without
// touching the server: Cut drops every connection, Terminate ends each with
// the FATAL error a server sends as it goes down, and StartingUp makes new
// connections meet the refusal of a server still recovering. It forwards
// bytes unchanged otherwise.
type Proxy struct {
	ln     net.Listener
	target string
	dsn    string

	running sync.WaitGroup // the proxy's goroutines

	mu       sync.Mutex
	links    map[*link]struct{}
	starting bool
	accepted int
	// ended counts the Cuts and Terminates, and last is the last one's
	// message (nil for a Cut): a connection accepted before one of them
	// and still being set up when it came is ended as it registers, as a
	// server going down ends every connection it has, half-open ones too.
	ended int
	last  []byte
	holds []*Hold // armed by HoldNextCommit, taken by the COMMITs that follow, in order
	made  []*Hold // every hold, released when the test ends
}

// A Hold is a transaction stopped just before its COMMIT: the server has run
// its statements (it holds its locks and its xid, its rows are written and
// not visible), and it commits when the hold is released.
type Hold struct {
	p        *Proxy
	pid      uint32 // the held transaction's backend, once engaged
	engaged  chan struct{}
	released chan struct{}
	once     sync.Once
}

// Engaged is closed once a transaction is held: its connection stopped at
// the message that would commit it. The server may still be running the
// statements sent before that message (on a loaded machine, not started
// them); Ran waits for them.
func (h *Hold) Engaged() <-chan struct{} { return h.engaged }

// Ran waits, once h is engaged, until the server ran every statement the
// held transaction sent before its commit: its backend waits for the
// client (pg_stat_activity's ClientRead), having taken its locks and
// written its rows. pool reaches the server directly.
func (h *Hold) Ran(ctx context.Context, pool *pgxpool.Pool) error {
	select {
	case <-h.engaged:
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		var reading bool
		err := pool.QueryRow(ctx, `SELECT coalesce(bool_or(wait_event = 'ClientRead'), false) FROM pg_stat_activity WHERE pid = $1`, int32(h.pid)).Scan(&reading)
		if err != nil {
			return fmt.Errorf("pgtest: hold of backend %d: %w", h.pid, err)
		}
		if reading {
			return nil
		}
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Release lets the held transaction send its COMMIT, or disarms the hold
// if no transaction was held yet; a second call does nothing.
func (h *Hold) Release() {
	h.once.Do(func() {
		h.p.mu.Lock()
		if i := slices.Index(h.p.holds, h); i >= 0 {
			h.p.holds = slices.Delete(h.p.holds, i, i+1)
		}
		h.p.mu.Unlock()
		close(h.released)
	})
}

// HoldNextCommit holds the next transaction that sends COMMIT (or the Sync
// that commits a one-statement append) through the
// proxy (after those that earlier holds took) until the returned Hold is
// released: what its client sends on that connection waits, and the server
// keeps the transaction open.
func (p *Proxy) HoldNextCommit() *Hold {
	h := &Hold{p: p, engaged: make(chan struct{}), released: make(chan struct{})}
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.made = append(p.made, h)
	p.mu.Unlock()
	return h
}

// A link is one proxied connection.
type link struct {
	client, server net.Conn
	mu             sync.Mutex    // serializes writes to client
	pid            atomic.Uint32 // the server's backend, from its BackendKeyData
}

// NewProxy starts a proxy to the server of dsn on a loopback port and stops
// it when t ends.
func NewProxy(t testing.TB, dsn string) *Proxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("proxy: want a postgres:// URL with a host, got %q", dsn)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: u.Host, links: map[*link]struct{}{}}
	u.Host = ln.Addr().String()
	p.dsn = u.String()
	p.running.Go(p.serve)
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		made := p.made
		p.mu.Unlock()
		for _, h := range made {
			h.Release()
		}
		p.Cut()
		p.running.Wait()
	})
	return p
}

// DSN returns dsn with the proxy in place of the server.
func (p *Proxy) DSN() string { return p.dsn }

// Accepted returns how many connections the proxy has accepted.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Cut closes every connection now, as a network failure would: a client
// waiting for a reply sees its connection reset.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	links := p.detach()
	p.ended, p.last = p.ended+1, nil
	p.mu.Unlock()
	for _, l := range links {
		l.client.Close()
		l.server.Close()
	}
	return len(links)
}

// Terminate ends every connection the way a server going down does: each
// client is sent a FATAL error with code and message, between two of the
// server's messages, and the connection is closed. 57P01 "terminating
// connection due to administrator command" is a fast shutdown or
// pg_terminate_backend; 57P01 "terminating connection due to unexpected
// postmaster exit" a backend that lost its postmaster; 57P02 a crash of
// another backend.
func (p *Proxy) Terminate(code, message string) int {
	msg := fatal(code, message)
	p.mu.Lock()
	links := p.detach()
	p.ended, p.last = p.ended+1, msg
	p.mu.Unlock()
	for _, l := range links {
		l.mu.Lock()
		l.client.Write(msg)
		l.mu.Unlock()
		l.client.Close()
		l.server.Close()
	}
	return len(links)
}

// StartingUp sets whether new connections are refused as a server in crash
// recovery refuses them: FATAL 57P03 "the database system is starting up".
func (p *Proxy) StartingUp(on bool) {
	p.mu.Lock()
	p.starting = on
	p.mu.Unlock()
}

// detach removes and returns every link; p.mu is held.
func (p *Proxy) detach() []*link {
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	clear(p.links)
	return links
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		starting, ended := p.starting, p.ended
		p.mu.Unlock()
		if starting {
			p.running.Go(func() { refuseStartup(c) })
			continue
		}
		p.running.Go(func() { p.forward(c, ended) })
	}
}

// forward connects c to the server and copies both ways. The proxy answers
// an SSL or GSS request itself (no), so that what the server sends is typed
// messages only; it copies those whole, so that Terminate can put its error
// between two. ended is how many Cuts and Terminates came before c was
// accepted: one that comes while c is set up ends it too.
func (p *Proxy) forward(c net.Conn, ended int) {
	startup, err := plainStartup(c)
	if err != nil {
		c.Close()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if _, err := s.Write(startup); err != nil {
		c.Close()
		s.Close()
		return
	}
	l := &link{client: c, server: s}
	p.mu.Lock()
	if p.ended != ended {
		last := p.last
		p.mu.Unlock()
		if last != nil {
			c.Write(last)
		}
		c.Close()
		s.Close()
		return
	}
	p.links[l] = struct{}{}
	p.mu.Unlock()
	p.running.Go(func() {
		p.copyClientMessages(l)
		s.Close()
	})
	p.copyMessages(l)
	c.Close()
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// copyMessages copies the server's side of l to the client a message at a time.
func (p *Proxy) copyMessages(l *link) {
	var head [5]byte
	var msg []byte
	for {
		if _, err := io.ReadFull(l.server, head[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[1:])) - 4
		if n < 0 {
			return
		}
		if cap(msg) < 5+n {
			msg = make([]byte, 5+n)
		}
		msg = msg[:5+n]
		copy(msg, head[:])
		if _, err := io.ReadFull(l.server, msg[5:]); err != nil {
			return
		}
		if head[0] == 'K' && n >= 4 { // BackendKeyData: the backend's pid
			l.pid.Store(binary.BigEndian.Uint32(msg[5:]))
		}
		if !l.write(msg) {
			return
		}
	}
}

// copyClientMessages copies the client's side of l to the server a message at
// a time, noting the statements it prepares, so that a Hold can stop the
// connection at the message that would run COMMIT: a COMMIT, or the Sync
// that ends the implicit transaction of a one-statement append.
func (p *Proxy) copyClientMessages(l *link) {
	prepared := map[string]string{} // statement name: its text
	// explicit: a BEGIN was bound and no COMMIT or ROLLBACK since; implicit:
	// an append (append_facts) was bound outside one, so the Sync that
	// follows commits it, and a Hold stops the connection there.
	explicit, implicit := false, false
	var msg []byte
	for {
		var head [5]byte
		if _, err := io.ReadFull(l.client, head[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[1:])) - 4
		if n < 0 {
			return
		}
		if cap(msg) < 5+n {
			msg = make([]byte, 5+n)
		}
		msg = msg[:5+n]
		copy(msg, head[:])
		if _, err := io.ReadFull(l.client, msg[5:]); err != nil {
			return
		}
		body := msg[5:]
		switch head[0] {
		case 'P': // Parse: name, query, …
			name, rest := cstring(body)
			query, _ := cstring(rest)
			prepared[name] = query
		case 'B': // Bind: portal, statement, …
			_, rest := cstring(body)
			stmt, _ := cstring(rest)
			explicit, implicit = txState(prepared[stmt], explicit, implicit)
			p.holdAt(l, prepared[stmt])
		case 'S': // Sync: it commits an implicit transaction
			if implicit {
				implicit = false
				p.holdAt(l, "COMMIT")
			}
		case 'Q': // a simple query (pgx sends one for an Exec without arguments)
			query, _ := cstring(body)
			explicit, _ = txState(query, explicit, false)
			p.holdAt(l, query)
		}
		if _, err := l.server.Write(msg); err != nil {
			return
		}
	}
}

// txState follows a connection's transaction through query: explicit
// from a BEGIN to its COMMIT or ROLLBACK, and implicit once an append
// (append_facts) runs outside one, until the Sync that commits it.
func txState(query string, explicit, implicit bool) (bool, bool) {
	q := strings.ToUpper(strings.TrimSpace(query))
	switch {
	case strings.HasPrefix(q, "BEGIN"):
		return true, implicit
	case q == "COMMIT" || q == "ROLLBACK":
		return false, implicit
	case !explicit && strings.Contains(q, "APPEND_FACTS("):
		return explicit, true
	}
	return explicit, implicit
}

// holdAt waits, if a Hold is armed and query is COMMIT, until it is
// released.
func (p *Proxy) holdAt(l *link, query string) {
	if !strings.EqualFold(strings.TrimSpace(query), "COMMIT") {
		return
	}
	p.mu.Lock()
	if len(p.holds) == 0 {
		p.mu.Unlock()
		return
	}
	h := p.holds[0]
	p.holds = p.holds[1:]
	p.mu.Unlock()
	h.pid = l.pid.Load()
	close(h.engaged)
	<-h.released
}

// cstring splits b at its first NUL.
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

// write sends b to l's client whole, or reports that it could not.
func (l *link) write(b []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.client.Write(b)
	return err == nil
}

// refuseStartup answers a client's startup as a server in recovery does.
func refuseStartup(c net.Conn) {
	defer c.Close()
	if _, err := plainStartup(c); err != nil {
		return
	}
	c.Write(fatal("57P03", "the database system is starting up"))
}

const (
	sslRequest = 80877103
	gssRequest = 80877104
)

// plainStartup reads c's startup packets, answering an SSL or GSS request
// with no, and returns the startup message that follows.
func plainStartup(c net.Conn) ([]byte, error) {
	for {
		var head [8]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return nil, err
		}
		n := int(binary.BigEndian.Uint32(head[:4]))
		if n < 8 || n > 1<<16 {
			return nil, errors.New("pgtest proxy: bad startup packet")
		}
		if code := binary.BigEndian.Uint32(head[4:]); code == sslRequest || code == gssRequest {
			if _, err := c.Write([]byte{'N'}); err != nil {
				return nil, err
			}
			continue
		}
		msg := make([]byte, n)
		copy(msg, head[:])
		if _, err := io.ReadFull(c, msg[8:]); err != nil {
			return nil, err
		}
		return msg, nil
	}
}

// fatal returns the wire form of a FATAL ErrorResponse.
func fatal(code, message string) []byte {
	b, err := (&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: message}).Encode(nil)
	if err != nil {
		panic(err)
	}
	return b
}
