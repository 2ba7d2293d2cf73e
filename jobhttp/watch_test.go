package jobhttp_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
)

// watchFrame reads the next view frame of a Watch stream, skipping nothing.
func watchFrame(t *testing.T, st *stream) (event, wire.WatchFrame) {
	t.Helper()
	ev := st.mustNext()
	if ev.name != "view" {
		t.Fatalf("event %q (%s), want a view frame", ev.name, ev.data)
	}
	var f wire.WatchFrame
	if err := json.Unmarshal([]byte(ev.data), &f); err != nil {
		t.Fatalf("view frame %s: %v", ev.data, err)
	}
	if ev.id != f.Resume {
		t.Fatalf("view frame's id %q is not its resume point %q", ev.id, f.Resume)
	}
	return ev, f
}

// openWatch opens a Watch stream with views and returns it with its name.
func openWatch(t *testing.T, s *server, views string, header map[string]string) (*stream, wire.WatchOpened) {
	t.Helper()
	st := s.stream("/api/watch?views="+url.QueryEscape(views), "alice", header)
	ev := st.mustNext()
	var o wire.WatchOpened
	if ev.name != "watch" || json.Unmarshal([]byte(ev.data), &o) != nil || o.Stream == "" {
		t.Fatalf("first event %+v, want the watch event", ev)
	}
	return st, o
}

// followText is the output text of a view's follow frame, "" for another.
func followText(t *testing.T, f wire.WatchFrame) string {
	t.Helper()
	if f.Event != "output" {
		return ""
	}
	frame, err := jobs.DecodeFollowFrame(f.Data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range frame.(jobs.OutputFrame).Chunks {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestWatchCarriesEveryViewOnOneStreamAndResumesEachFromItsOwnOffset: one
// Watch stream carries the roster and two follows, counts once against a
// cap of one stream, opens and closes views by the control routes, and a
// reconnect with the last frame's id resumes each follow at its own offset,
// with no byte twice and none lost (decision 0198).
func TestWatchCarriesEveryViewOnOneStreamAndResumesEachFromItsOwnOffset(t *testing.T) {
	s := newServer(t, []jobhttp.Option{jobhttp.WithMaxStreamsPerSession(1)})
	a, pa := s.startRecording("alice", "a", 0)
	b, pb := s.startRecording("alice", "b", 0)
	pa.job.Append("a1\n", jobs.AppendOptions{})
	pb.job.Append("b1\n", jobs.AppendOptions{})
	st, opened := openWatch(t, s, "r=WatchJobs;fa=FollowJob:"+a.ID.String(), nil)

	got := map[string]string{}
	var last event
	// The roster, and fa's opened and output frames, in any order.
	for len(got["fa"]) < 3 || got["r"] == "" {
		ev, f := watchFrame(t, st)
		last = ev
		switch f.View {
		case "r":
			got["r"] = f.Event
		case "fa":
			got["fa"] += followText(t, f)
		default:
			t.Fatalf("frame of view %q", f.View)
		}
	}
	// A second stream of the session is past the cap; the views are not.
	if res := s.request("GET", "/api/watch", "alice", nil, nil); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second Watch: %s, want 429", res.Status)
	}
	res := s.request("POST", "/api/watch/"+opened.Stream+"/views", "alice", strings.NewReader(`{"view":"fb","route":"FollowJob","id":"`+b.ID.String()+`"}`), map[string]string{"Content-Type": "application/json"})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("OpenView: %s", res.Status)
	}
	if res := s.request("POST", "/api/watch/"+opened.Stream+"/views", "bob", strings.NewReader(`{"view":"x","route":"WatchJobs"}`), map[string]string{"Content-Type": "application/json"}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("OpenView of another session's stream: %s, want 404", res.Status)
	}
	for got["fb"] != "b1\n" {
		ev, f := watchFrame(t, st)
		last = ev
		if f.View == "fb" {
			got["fb"] += followText(t, f)
		}
	}
	if !strings.Contains(last.id, "fb=FollowJob:"+b.ID.String()+"@3") || !strings.Contains(last.id, "fa=FollowJob:"+a.ID.String()+"@3") {
		t.Fatalf("resume point %q lacks a follow's offset", last.id)
	}
	// The connection drops; meanwhile both jobs write on.
	st.res.Body.Close()
	pa.job.Append("a2\n", jobs.AppendOptions{})
	pb.job.Append("b2\n", jobs.AppendOptions{})
	pa.finish(jobs.JobStatusCompleted, "")
	st2, _ := waitWatch(t, s, last.id)
	ends := map[string]bool{}
	for !ends["fa"] || got["fb"] != "b1\nb2\n" {
		_, f := watchFrame(t, st2)
		got[f.View] += followText(t, f)
		if f.Event == "status" {
			ends[f.View] = true
			if strings.Contains(f.Resume, "fa=") {
				t.Fatalf("the ended view fa is still in the resume point %q", f.Resume)
			}
		}
	}
	if got["fa"] != "a1\na2\n" || got["fb"] != "b1\nb2\n" {
		t.Fatalf("follows read %q and %q, want each line once", got["fa"], got["fb"])
	}
}

// waitWatch reconnects to a Watch stream with a Last-Event-ID, as a client
// does, until the stream it replaces has been released (the cap is one):
// each try is a request the server answers 429 until then.
func waitWatch(t *testing.T, s *server, lastID string) (*stream, wire.WatchOpened) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		res := s.request("GET", "/api/watch", "alice", nil, map[string]string{"Last-Event-ID": lastID})
		if res.StatusCode == http.StatusOK {
			st := &stream{t: t, res: res, sc: bufio.NewScanner(res.Body)}
			t.Cleanup(func() { res.Body.Close() })
			ev := st.mustNext()
			var o wire.WatchOpened
			if ev.name != "watch" || json.Unmarshal([]byte(ev.data), &o) != nil || o.Resume != lastID {
				t.Fatalf("reconnect's first event %+v, want the watch event resuming %q", ev, lastID)
			}
			return st, o
		}
		res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("reconnect: %s", res.Status)
		}
	}
	t.Fatal("the dropped Watch stream was never released")
	return nil, wire.WatchOpened{}
}

// TestWatchRefusesMalformedViewsAndAViewRefusesAsItsRoute: a malformed views
// text is the stream's 400; a follow of a job that is not the caller's is
// the view's own 404, and the stream goes on.
func TestWatchRefusesMalformedViewsAndAViewRefusesAsItsRoute(t *testing.T) {
	s := newServer(t, nil)
	for _, views := range []string{"r", "r=Nope", "r=WatchJobs;r=WatchJobs", "f=FollowJob", "f=FollowJob:x", "f=FollowJob:" + jobs.NewJobID().String() + "@01", "r=WatchJobs:x"} {
		if res := s.request("GET", "/api/watch?views="+url.QueryEscape(views), "alice", nil, nil); res.StatusCode != http.StatusBadRequest {
			t.Errorf("views %q: %s, want 400", views, res.Status)
		}
	}
	theirs, _ := s.startRecording("bob", "theirs", 0)
	st, _ := openWatch(t, s, "f=FollowJob:"+theirs.ID.String()+";r=WatchJobs", nil)
	seen := map[string]wire.WatchFrame{}
	for len(seen) < 2 {
		_, f := watchFrame(t, st)
		seen[f.View] = f
	}
	if f := seen["f"]; f.Event != "refused" || f.Status != http.StatusNotFound || strings.Contains(f.Resume, "f=") {
		t.Fatalf("view of another's job: %+v, want refused 404 and gone from the resume point", f)
	}
	if seen["r"].Event != "roster" {
		t.Fatalf("roster view: %+v", seen["r"])
	}
}
