package launcher_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jobgen/jobgen/launcher"
)

// StopServer ends a server within its grace although a client holds a
// connection open on which it never sent a request, which Shutdown alone
// waits five seconds for.
func TestStopServerDoesNotWaitForASilentConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Start()
	defer srv.Close()
	silent, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	time.Sleep(50 * time.Millisecond) // the server accepts it
	start := time.Now()
	if err := launcher.StopServer(srv.Config, 200*time.Millisecond)(context.Background()); err != nil {
		t.Fatalf("StopServer = %v, want nil once Close ended the silent connection", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("StopServer took %v, want about its grace of 200ms", took)
	}
	if _, err := http.Get(srv.URL); err == nil {
		t.Error("the server still answers after StopServer")
	}
}

// A server with nothing in flight stops at once, with no error.
func TestStopServerOfAnIdleServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	if err := launcher.StopServer(srv.Config, 0)(context.Background()); err != nil {
		t.Fatalf("StopServer = %v", err)
	}
}
