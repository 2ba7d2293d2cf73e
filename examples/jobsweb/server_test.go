package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

// A pipeListener hands the server in-memory connections, so that the clock
// of a synctest bubble drives the server's timeouts.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.closed) }); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

// dial opens a connection to the server and returns the client's end.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// serveInBubble runs the demo's server for h on a pipe listener until the
// test ends.
func serveInBubble(t *testing.T, h http.Handler) *pipeListener {
	ln := newPipeListener()
	srv := newHTTPServer(h, slog.New(slog.DiscardHandler))
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln
}

// get sends a keep-alive GET on conn and reads the whole response.
func get(t *testing.T, conn net.Conn, br *bufio.Reader, path string) {
	t.Helper()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// closedByServer reports whether the server has closed conn: a read ends
// with EOF instead of data.
func closedByServer(br *bufio.Reader) bool {
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF)
}

// TestIdleConnectionsAreClosed: a keep-alive connection stays usable while
// requests come, and the server closes it once it has been idle for
// idleTimeout, so idle connections cannot pile up.
func TestIdleConnectionsAreClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := serveInBubble(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
		var conns []net.Conn
		var readers []*bufio.Reader
		for range 3 {
			c := ln.dial()
			br := bufio.NewReader(c)
			get(t, c, br, "/")
			conns, readers = append(conns, c), append(readers, br)
		}
		time.Sleep(idleTimeout - time.Second)
		get(t, conns[0], readers[0], "/") // still open, and idle from now again
		time.Sleep(2 * time.Second)
		for i := 1; i < 3; i++ {
			if !closedByServer(readers[i]) {
				t.Errorf("connection %d is open after %v idle", i, idleTimeout+time.Second)
			}
		}
		time.Sleep(idleTimeout)
		if !closedByServer(readers[0]) {
			t.Errorf("connection 0 is open after %v idle", idleTimeout+time.Second)
		}
	})
}

// TestSlowHeadersAreDropped: a client that trickles its headers is dropped
// after readHeaderTimeout.
func TestSlowHeadersAreDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := serveInBubble(t, http.NotFoundHandler())
		c := ln.dial()
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: localhost\r\n")
		start := time.Now()
		io.Copy(io.Discard, c) // whatever the server says, it must end the connection
		if took := time.Since(start); took > readHeaderTimeout+time.Second {
			t.Errorf("a client that never finished its headers held the connection for %v", took)
		}
	})
}

// TestAnEventStreamOutlivesTheServerTimeouts: the server's timeouts bound
// requests and idle connections, never a stream that is in use; the page's
// roster stream keeps going with its keep-alives for as long as it is read.
func TestAnEventStreamOutlivesTheServerTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := registry.New()
		h, err := jobhttp.New(reg, func(*http.Request) (jobs.SessionID, error) { return session, nil })
		if err != nil {
			t.Fatal(err)
		}
		ln := serveInBubble(t, h)
		c := ln.dial()
		fmt.Fprintf(c, "GET /api/jobs/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("roster stream: %v %v", res, err)
		}
		sc := bufio.NewScanner(res.Body)
		start := time.Now()
		var keepAlives int
		for time.Since(start) < 10*time.Minute && sc.Scan() {
			if strings.HasPrefix(sc.Text(), ": keep-alive") {
				keepAlives++
			}
		}
		if took := time.Since(start); took < 10*time.Minute {
			t.Fatalf("the stream ended after %v (%d keep-alives, %v): a server timeout cut it", took, keepAlives, sc.Err())
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		go io.Copy(io.Discard, res.Body)
		h.Close(ctx)
		reg.Close(ctx)
	})
}
