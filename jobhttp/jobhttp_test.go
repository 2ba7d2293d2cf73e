package jobhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

func TestARequestWithoutASessionIsUnauthorized(t *testing.T) {
	s := newServer(t, nil)
	for _, path := range []string{"/api/jobs", "/api/jobs/events"} {
		res := s.request("GET", path, "", nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %s, want 401", path, res.Status)
		}
	}
}

func TestTheRosterHoldsOnlyTheCallersJobs(t *testing.T) {
	s := newServer(t, nil)
	mine, _ := s.startRecording("alice", "build", 0)
	s.startPlain("bob", "deploy")

	res := s.request("GET", "/api/jobs", "alice", nil, nil)
	defer res.Body.Close()
	var list []jobs.JobSnapshot
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != mine.ID || !list[0].Record {
		t.Fatalf("alice's roster = %+v, want only her recording job %s", list, mine.ID)
	}
}

func TestForeignAndUnknownJobsAnswerTheSame404(t *testing.T) {
	s := newServer(t, nil)
	bobs, _ := s.startRecording("bob", "secret", 0)
	unknown := jobs.NewJobID()
	var bodies []string
	for _, path := range []string{
		"/api/jobs/" + bobs.ID.String(), "/api/jobs/" + unknown.String(), "/api/jobs/not-a-uuid",
		"/api/jobs/" + bobs.ID.String() + "/follow", "/api/jobs/" + unknown.String() + "/follow",
	} {
		res := s.request("GET", path, "alice", nil, nil)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s as alice: %s, want 404", path, res.Status)
		}
		bodies = append(bodies, string(body))
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("404 bodies differ (%q vs %q): a client could tell a foreign job from none", b, bodies[0])
		}
	}
	res := s.request("POST", "/api/jobs/"+bobs.ID.String()+"/kill", "alice", strings.NewReader(`{}`),
		map[string]string{"Content-Type": "application/json"})
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("alice killing bob's job: %s, want 404", res.Status)
	}
	if snap, _ := s.reg.Get("bob", bobs.ID); snap.Status != jobs.JobStatusRunning {
		t.Errorf("bob's job is %s after alice's kill, want running", snap.Status)
	}
}

func TestFollowStreamsFramesWithTheNextOffsetAsID(t *testing.T) {
	s := newServer(t, nil)
	snap, p := s.startRecording("alice", "build", 0)
	p.job.Append("fetch\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})

	st := s.stream("/api/jobs/"+snap.ID.String()+"/follow", "alice", nil)
	ev, frame := st.nextFrame()
	opened, ok := frame.(jobs.OpenedFrame)
	if ev.name != "opened" || !ok || opened.From != 0 || opened.Total != 6 {
		t.Fatalf("first event %q %+v, want opened from 0 with 6 bytes", ev.name, frame)
	}
	ev, frame = st.nextFrame()
	out, ok := frame.(jobs.OutputFrame)
	if ev.name != "output" || !ok || ev.id != "6" || out.Next != 6 || out.Chunks[0].Text != "fetch\n" {
		t.Fatalf("second event %+v %+v, want output id 6 with fetch", ev, frame)
	}
	p.job.Append("oops\n", jobs.AppendOptions{Channel: jobs.ChannelStderr})
	ev, frame = st.nextFrame()
	out, _ = frame.(jobs.OutputFrame)
	if ev.id != "11" || out.Chunks[0].Channel != jobs.ChannelStderr {
		t.Fatalf("third event %+v, want output id 11 on stderr", ev)
	}
	p.finish(jobs.JobStatusCompleted, "built")
	ev, frame = st.nextFrame()
	status, ok := frame.(jobs.StatusFrame)
	if ev.name != "status" || !ok || status.Job.Status != jobs.JobStatusCompleted {
		t.Fatalf("last event %q %+v, want status completed", ev.name, frame)
	}
	st.ended()
}

func TestFollowResumesFromLastEventIDOrFrom(t *testing.T) {
	for _, how := range []string{"Last-Event-ID", "from"} {
		t.Run(how, func(t *testing.T) {
			s := newServer(t, nil)
			snap, p := s.startRecording("alice", "build", 0)
			p.job.Append("one\n", jobs.AppendOptions{})
			p.job.Append("two\n", jobs.AppendOptions{})
			p.finish(jobs.JobStatusCompleted, "")
			path, header := "/api/jobs/"+snap.ID.String()+"/follow", map[string]string{}
			if how == "from" {
				path += "?from=4"
			} else {
				header["Last-Event-ID"] = "4"
			}
			st := s.stream(path, "alice", header)
			_, frame := st.nextFrame()
			if o := frame.(jobs.OpenedFrame); o.From != 4 {
				t.Fatalf("opened from %d, want 4", o.From)
			}
			_, frame = st.nextFrame()
			out := frame.(jobs.OutputFrame)
			if out.Lossy || len(out.Chunks) != 1 || out.Chunks[0].Text != "two\n" || out.Next != 8 {
				t.Fatalf("resumed frame %+v, want only two, not lossy", out)
			}
			st.nextFrame() // status
			st.ended()
		})
	}
}

func TestFollowResumesLossyPastTheRetainedWindow(t *testing.T) {
	s := newServer(t, nil)
	snap, p := s.startRecording("alice", "noisy", 16)
	for i := range 10 {
		p.job.Append(fmt.Sprintf("line %02d\n", i), jobs.AppendOptions{}) // 8 bytes each
	}
	st := s.stream("/api/jobs/"+snap.ID.String()+"/follow?from=0", "alice", nil)
	_, frame := st.nextFrame()
	if o := frame.(jobs.OpenedFrame); o.Earliest <= 0 {
		t.Fatalf("opened %+v: the window should have moved past 0", o)
	}
	_, frame = st.nextFrame()
	out := frame.(jobs.OutputFrame)
	if !out.Lossy || out.Next != 80 || out.Chunks[len(out.Chunks)-1].Text != "line 09\n" {
		t.Fatalf("first output after an evicted offset %+v, want lossy up to 80", out)
	}
}

func TestFollowRefusesBadOffsetsWith400(t *testing.T) {
	s := newServer(t, nil)
	snap, p := s.startRecording("alice", "build", 0)
	p.job.Append("abc", jobs.AppendOptions{})
	for _, tc := range []struct{ query, header string }{
		{query: "?from=-1"}, {query: "?from=abc"}, {query: "?from=4"}, {header: "x"}, {header: "-5"},
		// Only canonical decimal, as the server writes ids: no sign, no
		// leading zeros, nothing around the digits.
		{query: "?from=%2B3"}, {query: "?from=002"}, {query: "?from=00"}, {query: "?from=%203"}, {query: "?from=0x1"},
		{header: "+3"}, {header: "01"}, {header: "-0"}, {header: "1e0"},
	} {
		h := map[string]string{}
		if tc.header != "" {
			h["Last-Event-ID"] = tc.header
		}
		res := s.request("GET", "/api/jobs/"+snap.ID.String()+"/follow"+tc.query, "alice", nil, h)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("follow %q / Last-Event-ID %q: %s, want 400", tc.query, tc.header, res.Status)
		}
	}
}

func TestFollowOfAPlainJobIsRefused(t *testing.T) {
	s := newServer(t, nil)
	snap, _ := s.startPlain("alice", "quiet")
	res := s.request("GET", "/api/jobs/"+snap.ID.String()+"/follow", "alice", nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("follow of a plain job: %s, want 409", res.Status)
	}
}

func TestKillRefusesWhatACrossSiteFormCouldSend(t *testing.T) {
	s := newServer(t, nil)
	snap, _ := s.startRecording("alice", "build", 0)
	path := "/api/jobs/" + snap.ID.String() + "/kill"
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"multipart", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, http.StatusUnsupportedMediaType},
		{"text", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"none", nil, http.StatusUnsupportedMediaType},
		{"other origin", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"cross site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"null origin", map[string]string{"Content-Type": "application/json", "Origin": "null"}, http.StatusForbidden},
		{"other port", map[string]string{"Content-Type": "application/json", "Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"form from this origin", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": s.srv.URL, "Sec-Fetch-Site": "same-origin"}, http.StatusUnsupportedMediaType},
	} {
		res := s.request("POST", path, "alice", strings.NewReader(`{"reason":"x"}`), tc.header)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("kill as %s: %s, want %d", tc.name, res.Status, tc.want)
		}
	}
	if got, _ := s.reg.Get("alice", snap.ID); got.Status != jobs.JobStatusRunning {
		t.Fatalf("job is %s after refused kills, want running", got.Status)
	}
	res := s.request("POST", path, "alice", strings.NewReader(`{"reason":"enough"}`),
		map[string]string{"Content-Type": "application/json", "Origin": s.srv.URL, "Sec-Fetch-Site": "same-origin"})
	defer res.Body.Close()
	var body struct {
		Result string           `json:"result"`
		Job    jobs.JobSnapshot `json:"job"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("same-origin kill: %s %v", res.Status, err)
	}
	if body.Result != "requested" || body.Job.Status == jobs.JobStatusRunning {
		t.Fatalf("kill answered %+v, want requested and no longer running", body)
	}
}

func TestEventStreamsPerSessionAreCapped(t *testing.T) {
	s := newServer(t, []jobhttp.Option{jobhttp.WithMaxStreamsPerSession(2)})
	a := s.stream("/api/jobs/events", "alice", nil)
	b := s.stream("/api/jobs/events", "alice", nil)
	a.mustNext()
	b.mustNext()
	res := s.request("GET", "/api/jobs/events", "alice", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third stream: %s, want 429", res.Status)
	}
	// The refusal says what to do: which limit, what to close, when to retry.
	for _, want := range []string{"cap of open event streams (2, jobhttp.WithMaxStreamsPerSession)", "close another page", "retry in 5 s"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("429 body %s does not say %q", body, want)
		}
	}
	if ra := res.Header.Get("Retry-After"); ra != "5" {
		t.Errorf("429 Retry-After %q, want 5", ra)
	}
	other := s.stream("/api/jobs/events", "bob", nil) // another session has its own cap
	other.mustNext()
	a.res.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := s.request("GET", "/api/jobs/events", "alice", nil, nil)
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream never freed its slot: %s", res.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRosterEventsComeOncePerLifecycleChangeNeverPerAppend(t *testing.T) {
	s := newServer(t, nil)
	st := s.stream("/api/jobs/events", "alice", nil)
	if ev := st.mustNext(); ev.name != "roster" || ev.data != "[]" {
		t.Fatalf("first roster event %+v, want an empty roster", ev)
	}
	_, p := s.startRecording("alice", "build", 0)
	ev := st.mustNext()
	var list []jobs.JobSnapshot
	if err := json.Unmarshal([]byte(ev.data), &list); err != nil || len(list) != 1 {
		t.Fatalf("after a start: %+v (%v), want one job", ev, err)
	}
	for range 500 {
		p.job.Append("x", jobs.AppendOptions{})
	}
	p.finish(jobs.JobStatusCompleted, "done")
	ev = st.mustNext()
	if err := json.Unmarshal([]byte(ev.data), &list); err != nil || list[0].Status != jobs.JobStatusCompleted {
		t.Fatalf("the event after 500 appends and a settlement is %+v, want the settled roster", ev)
	}
}

func TestCloseEndsOpenStreamsCleanly(t *testing.T) {
	s := newServer(t, nil)
	snap, _ := s.startRecording("alice", "forever", 0)
	follow := s.stream("/api/jobs/"+snap.ID.String()+"/follow", "alice", nil)
	follow.nextFrame()
	roster := s.stream("/api/jobs/events", "alice", nil)
	roster.mustNext()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.h.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for name, st := range map[string]*stream{"follow": follow, "roster": roster} {
		if ev := st.mustNext(); ev.name != "bye" {
			t.Errorf("%s stream after Close: %+v, want bye", name, ev)
		}
		st.ended()
	}
	res := s.request("GET", "/api/jobs/events", "alice", nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a stream after Close: %s, want 503", res.Status)
	}
}

// TestASlowFollowerNeverBlocksTheProducer: a client that stops reading holds
// no buffer of its own and never slows the producer's appends; once the
// connection's buffers are full the server drops it after WriteTimeout, and
// the heap stays bounded by the job's record however much passes through.
func TestASlowFollowerNeverBlocksTheProducer(t *testing.T) {
	s := newServer(t, []jobhttp.Option{jobhttp.WithWriteTimeout(200 * time.Millisecond), jobhttp.WithMaxStreamsPerSession(1)})
	snap, p := s.startRecording("alice", "firehose", 64<<10)

	conn, err := net.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/jobs/%s/follow HTTP/1.1\r\nHost: 127.0.0.1\r\n%s: alice\r\n\r\n", snap.ID, sessionHeader)
	// The client never reads a byte. The producer writes until the server
	// has dropped the stalled stream, which frees the session's one slot.
	line := strings.Repeat("y", 1023) + "\n"
	var written int64
	deadline := time.Now().Add(30 * time.Second)
	for dropped := false; !dropped; {
		for range 64 { // a window's worth per round, with the follower's flush cadence to fill the socket
			p.job.Append(line, jobs.AppendOptions{})
		}
		written += 64 << 10
		time.Sleep(5 * time.Millisecond)
		res := s.request("GET", "/api/jobs/events", "alice", nil, nil)
		res.Body.Close()
		dropped = res.StatusCode == http.StatusOK
		if !dropped && time.Now().After(deadline) {
			t.Fatalf("after %d MiB the stalled follower still holds its slot (%s)", written>>20, res.Status)
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("%d KiB appended past a stalled follower; heap %d KiB", written>>10, ms.HeapAlloc>>10)
	if ms.HeapAlloc > 32<<20 {
		t.Errorf("heap is %d MiB after a stalled follower: memory grew with the output", ms.HeapAlloc>>20)
	}
	if got, _ := s.reg.Get("alice", snap.ID); got.OutputBytes != written {
		t.Fatalf("OutputBytes = %d, want %d: an append was lost or blocked", got.OutputBytes, written)
	}
}

func TestHistoryAnswersOnlyTheSessionsIntervalsFromTheJournal(t *testing.T) {
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	s := newServer(t, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store))},
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	mine, p := s.startRecording("alice", "build", 0)
	s.startPlain("bob", "other")
	p.finish(jobs.JobStatusCompleted, "built")
	if _, _, err := s.reg.Wait(context.Background(), "alice", mine.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	res := s.request("GET", "/api/history", "alice", nil, nil)
	defer res.Body.Close()
	var ivs []jobhistory.Interval
	if err := json.NewDecoder(res.Body).Decode(&ivs); err != nil {
		t.Fatal(err)
	}
	if len(ivs) != 1 || ivs[0].JobID != mine.ID || !ivs[0].Complete || ivs[0].Status != jobs.JobStatusCompleted {
		t.Fatalf("alice's history = %+v, want her one completed job", ivs)
	}
}

func TestHistoryIsA404WithoutAJournal(t *testing.T) {
	s := newServer(t, nil)
	res := s.request("GET", "/api/history", "alice", nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("history without a journal: %s, want 404", res.Status)
	}
}

// TestThePagesDecodersAreTheCompiledTypeScript: the page decodes every
// document with the package's JavaScript of spec/jobs.yaml (tools/ts/page.sh
// copies it); a hand edit or a stale copy in static/ fails here.
func TestThePagesDecodersAreTheCompiledTypeScript(t *testing.T) {
	if _, err := os.Stat("../tools/ts/node_modules/.bin/tsc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no pinned TypeScript under CI=true: .ci/run runs make ts-deps")
		}
		t.Skip("no pinned TypeScript: run make ts-deps (needs Node.js) to check static/")
	}
	out, err := exec.Command("../tools/ts/page.sh", "check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestAKillThatFailsIsA502AndLogged: when the producer's Cancel fails, the
// client gets a 502 without the error's text and the handler's logger gets
// the error.
func TestAKillThatFailsIsA502AndLogged(t *testing.T) {
	var logs syncBuffer
	s := newServer(t, []jobhttp.Option{jobhttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))})
	ended := make(chan struct{})
	t.Cleanup(func() { close(ended) }) // before the server's cleanup, which closes the registry
	snap, err := s.reg.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "stubborn", Label: "setuid", Owner: "alice"},
		Run: func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			return jobs.Hooks{
				Cancel: func(string) error { return errors.New("signal refused: operation not permitted") },
				Done:   func() (jobs.JobOutcome, error) { <-ended; return jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil },
			}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := s.request("POST", "/api/jobs/"+snap.ID.String()+"/kill", "alice", strings.NewReader(`{"reason":"stop"}`),
		map[string]string{"Content-Type": "application/json"})
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway || strings.Contains(string(body), "not permitted") {
		t.Fatalf("a failed kill answered %s %s, want 502 without the error's text", res.Status, body)
	}
	if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "not permitted") || !strings.Contains(l, snap.ID.String()) {
		t.Fatalf("a failed kill logged %q, want an error naming the job and the cause", l)
	}
}
