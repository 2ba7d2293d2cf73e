package jobhttp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

// streamCounter counts a tab's open event-stream responses through the
// DevTools protocol: a response of text/event-stream is open from its
// headers until it finishes or fails.
type streamCounter struct {
	mu   sync.Mutex
	open map[network.RequestID]bool
	max  int
}

func countStreams(t *testing.T, ctx context.Context) *streamCounter {
	t.Helper()
	c := &streamCounter{open: map[network.RequestID]bool{}}
	err := chromedp.Listen(ctx, func(ev any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventResponseReceived:
			if ev.Response != nil && strings.HasPrefix(ev.Response.MimeType, "text/event-stream") {
				c.open[ev.RequestID] = true
				c.max = max(c.max, len(c.open))
			}
		case *network.EventLoadingFinished:
			delete(c.open, ev.RequestID)
		case *network.EventLoadingFailed:
			delete(c.open, ev.RequestID)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *streamCounter) counts() (open, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open), c.max
}

// restartable is a server of one handler that the test can take down (its
// listener and every connection closed, as when its process dies) and bring
// back on the same address.
type restartable struct {
	t    *testing.T
	h    http.Handler
	addr string
	srv  *http.Server
}

func (r *restartable) start() {
	r.t.Helper()
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.srv = &http.Server{Handler: r.h}
	go r.srv.Serve(ln)
}

func (r *restartable) kill() { r.srv.Close() }

// TestFourTabsOfThreePanesStayLiveOnOneStreamEachAndResumeAfterARestart:
// four tabs of the page, each with three output panes open, all live on
// one streaming connection per tab, counted through the DevTools protocol
// (the page opened one per pane and one for the roster before: 16
// for four tabs, past the six a browser allows a host). Taking the server
// down shows offline within seconds; bringing it back resumes every pane
// where it was, with no line twice and none lost.
func TestFourTabsOfThreePanesStayLiveOnOneStreamEachAndResumeAfterARestart(t *testing.T) {
	first := browser(t)
	reg := registry.New()
	h, err := jobhttp.New(reg, func(*http.Request) (jobs.SessionID, error) { return "alice", nil })
	if err != nil {
		t.Fatal(err)
	}
	srv := &restartable{t: t, h: h}
	srv.start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.kill()
		reg.Close(ctx)
	})
	s := &server{t: t, reg: reg, h: h}
	var ids []jobs.JobID
	var producers []*producer
	for i := range 3 {
		snap, p := s.startRecording("alice", fmt.Sprintf("job %d", i), 0)
		ids, producers = append(ids, snap.ID), append(producers, p)
	}
	lines := 0
	write := func(n int) {
		for range n {
			lines++
			for i, p := range producers {
				p.job.Append(fmt.Sprintf("job %d line %d\n", i, lines), jobs.AppendOptions{})
			}
		}
	}
	write(3)

	tabs := []context.Context{first}
	for range 3 {
		ctx, cancel := chromedp.NewContext(first)
		t.Cleanup(cancel)
		tabs = append(tabs, ctx)
	}
	counters := make([]*streamCounter, len(tabs))
	for i, ctx := range tabs {
		counters[i] = countStreams(t, ctx)
		actions := []chromedp.Action[chromedp.Void]{chromedp.Navigate("http://" + srv.addr + "/")}
		for _, id := range ids {
			row := rowSelector(id)
			actions = append(actions, chromedp.WaitVisible(row+" button.toggle"), chromedp.Click(row+" button.toggle"), chromedp.WaitVisible(row+" .output"))
		}
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("tab %d: opening three panes: %v", i, err)
		}
	}
	// paneLines is the text of every pane of a tab, pane by pane.
	paneText := func(id jobs.JobID) string {
		return `[...document.querySelectorAll('` + rowSelector(id) + ` .ln .txt')].map(e => e.textContent).join("\n")`
	}
	want := func(i int) string {
		var b []string
		for n := 1; n <= lines; n++ {
			b = append(b, fmt.Sprintf("job %d line %d", i, n))
		}
		return strings.Join(b, "\n")
	}
	allLive := func(what string) {
		t.Helper()
		for ti, ctx := range tabs {
			for i, id := range ids {
				waitJS(t, ctx, fmt.Sprintf("%s: tab %d pane %d", what, ti, i), paneText(id)+` === `+strconv.Quote(want(i)), 15*time.Second)
			}
			if got := js[string](t, ctx, `document.getElementById("connection").textContent`); got != "live" {
				t.Errorf("%s: tab %d says %q, want live", what, ti, got)
			}
		}
	}
	allLive("three lines")
	write(2) // live: every pane of every tab shows them
	allLive("live lines")
	for i, c := range counters {
		if open, most := c.counts(); open != 1 || most != 1 {
			t.Errorf("tab %d holds %d streaming connections (at most %d), want exactly 1", i, open, most)
		} else {
			t.Logf("tab %d: %d streaming connection with the roster and three panes open", i, open)
		}
	}

	srv.kill()
	down := time.Now()
	for i, ctx := range tabs {
		waitJS(t, ctx, fmt.Sprintf("tab %d says offline", i), `document.getElementById("connection").textContent === "offline"`, 10*time.Second)
	}
	t.Logf("every tab said offline %v after the server went down", time.Since(down).Round(100*time.Millisecond))
	write(3) // while the server is down
	srv.start()
	allLive("after the restart")
	for i, c := range counters {
		if open, _ := c.counts(); open != 1 {
			t.Errorf("after the restart, tab %d holds %d streaming connections, want 1", i, open)
		}
	}
}
