package proptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

// TestWatchMachine is the model-based property of the Watch stream
// (decision 0198): random sequences of appends to and settlements of a
// session's jobs, follow views opened and closed by the control routes,
// frames read, and the connection dropped and resumed with the last frame's
// id, inside a synctest bubble on in-memory connections. After every read
// the model checks:
//
//   - every follow view reads its job's bytes exactly once, in order: a
//     view that opens again after a reconnect opens at the byte it had
//     reached, never before it nor after;
//   - a view ends with its job's status after every byte, or with closed
//     after CloseView, and from then on is in no resume point; every open
//     view is in each one;
//   - a reconnect's watch event resumes exactly the last id it was given;
//   - another session can neither open nor close a view of the stream (404).
func TestWatchMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) {
			m := newWatchMachine(rt)
			defer m.close()
			rt.Repeat(map[string]func(*rapid.T){
				"append":    m.append,
				"finish":    m.finish,
				"openView":  m.openView,
				"closeView": m.closeView,
				"read":      m.read,
				"reconnect": m.reconnect,
				"":          func(rt *rapid.T) { m.read(rt) },
			})
			m.drainAll(rt)
		})
	})
}

// watchTexts are ASCII, so that a view's bytes are its text.
var watchTexts = []string{"a", "bc", "line\n", "0123456789", "ok\n"}

// A watchJob is the model of one job the stream may view.
type watchJob struct {
	wireJob
}

// A watchView is the model of one view: the job it follows, what it read.
type watchView struct {
	job    *watchJob
	got    string
	ended  bool // its status or closed frame arrived
	seen   bool // it was in a resume point: from then on it is in every one until it ends
	closed bool // CloseView asked for it to end
}

type watchMachine struct {
	srv    *http.Server
	ln     *pipeListener
	h      *jobhttp.Handler
	reg    *registry.Registry
	client *http.Client
	jobs   []*watchJob
	views  map[string]*watchView
	serial int
	// The connection: its response, its reader, the stream's name and the
	// last id it sent.
	res    *http.Response
	sc     *bufio.Scanner
	name   string
	lastID string
}

func newWatchMachine(rt *rapid.T) *watchMachine {
	m := &watchMachine{ln: newPipeListener(), views: map[string]*watchView{}}
	m.reg = registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 64, RetainBytes: 1 << 20, SettledRetainBytes: 1 << 20}))
	h, err := jobhttp.New(m.reg, func(r *http.Request) (jobs.SessionID, error) {
		return jobs.SessionID(r.Header.Get("X-Session")), nil
	},
		jobhttp.WithMaxStreamsPerSession(1<<10),
		jobhttp.WithWriteTimeout(24*time.Hour),
	)
	if err != nil {
		rt.Fatal(err)
	}
	m.h = h
	m.srv = &http.Server{Handler: h}
	go m.srv.Serve(m.ln)
	m.client = &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return m.ln.dial(), nil },
	}}
	views := []string{}
	for i := range rapid.IntRange(1, 3).Draw(rt, "jobs") {
		j := m.start(rt)
		if i == 0 || rapid.Bool().Draw(rt, "viewedAtOnce") {
			name := m.newName()
			m.views[name] = &watchView{job: j}
			views = append(views, name+"=FollowJob:"+j.id.String())
		}
	}
	m.connect(rt, "/api/watch?views="+strings.Join(views, "%3B"), nil)
	return m
}

func (m *watchMachine) newName() string {
	m.serial++
	return fmt.Sprintf("v%d", m.serial)
}

func (m *watchMachine) start(rt *rapid.T) *watchJob {
	j := &watchJob{wireJob{owner: "a", record: true, result: make(chan jobs.JobOutcome, 1)}}
	hooks := jobs.Hooks{
		Cancel: func(string) error { j.finish(jobs.JobStatusKilled); return nil },
		Done:   func() (jobs.JobOutcome, error) { return <-j.result, nil },
	}
	snap, err := m.reg.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "watch", Label: "job", Owner: "a"},
		Run:            func(_ context.Context, face jobs.RecordingJob) (jobs.Hooks, error) { j.face = face; return hooks, nil },
	})
	if err != nil {
		rt.Fatalf("start: %v", err)
	}
	j.id = snap.ID
	m.jobs = append(m.jobs, j)
	return j
}

func (m *watchMachine) close() {
	if m.res != nil {
		m.res.Body.Close()
	}
	ctx := context.Background()
	m.h.Close(ctx)
	m.srv.Close()
	for _, j := range m.jobs {
		j.finish(jobs.JobStatusCompleted)
	}
	m.reg.Close(ctx)
	m.client.Transport.(*http.Transport).CloseIdleConnections()
}

func (m *watchMachine) do(rt *rapid.T, method, path string, session jobs.SessionID, header map[string]string, body string) *http.Response {
	req, err := http.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
	if err != nil {
		rt.Fatal(err)
	}
	req.Header.Set("X-Session", string(session))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := m.client.Do(req)
	if err != nil {
		rt.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

// connect opens the stream and reads its watch event.
func (m *watchMachine) connect(rt *rapid.T, path string, header map[string]string) {
	res := m.do(rt, "GET", path, "a", header, "")
	if res.StatusCode != http.StatusOK {
		body, _ := readAll(res)
		rt.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	m.res, m.sc = res, bufio.NewScanner(res.Body)
	m.sc.Buffer(make([]byte, 64<<10), 1<<20)
	ev := m.next(rt)
	var o wire.WatchOpened
	if ev.name != "watch" || json.Unmarshal([]byte(ev.data), &o) != nil {
		rt.Fatalf("first event %+v, want watch", ev)
	}
	if header != nil && o.Resume != header["Last-Event-ID"] {
		rt.Fatalf("reconnect resumes %q, want the last id %q", o.Resume, header["Last-Event-ID"])
	}
	m.name = o.Stream
}

// next is the stream's next event, comments skipped.
func (m *watchMachine) next(rt *rapid.T) sse {
	var ev sse
	have := false
	for m.sc.Scan() {
		line := m.sc.Text()
		switch {
		case line == "":
			if have {
				return ev
			}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry: "):
		case strings.HasPrefix(line, "id: "):
			ev.id, have = line[4:], true
		case strings.HasPrefix(line, "event: "):
			ev.name, have = line[7:], true
		case strings.HasPrefix(line, "data: "):
			ev.data, have = line[6:], true
		}
	}
	rt.Fatalf("the Watch stream ended: %v", m.sc.Err())
	return sse{}
}

func (m *watchMachine) live() []*watchJob {
	var out []*watchJob
	for _, j := range m.jobs {
		if !j.settled {
			out = append(out, j)
		}
	}
	return out
}

func (m *watchMachine) append(rt *rapid.T) {
	live := m.live()
	if len(live) == 0 {
		rt.Skip("no live job")
	}
	j := live[rapid.IntRange(0, len(live)-1).Draw(rt, "job")]
	for range rapid.IntRange(1, 4).Draw(rt, "appends") {
		text := rapid.SampledFrom(watchTexts).Draw(rt, "text")
		j.face.Append(text, jobs.AppendOptions{})
		j.text += text
	}
}

func (m *watchMachine) finish(rt *rapid.T) {
	live := m.live()
	if len(live) == 0 {
		rt.Skip("no live job")
	}
	j := live[rapid.IntRange(0, len(live)-1).Draw(rt, "job")]
	j.finish(jobs.JobStatusCompleted)
	j.settled = true
}

func (m *watchMachine) openViews() []string {
	var out []string
	for name, v := range m.views {
		if !v.ended && !v.closed {
			out = append(out, name)
		}
	}
	return out
}

// openView follows a job more: one of the session's, or, refused, as
// another session.
func (m *watchMachine) openView(rt *rapid.T) {
	if len(m.openViews()) >= 6 {
		rt.Skip("enough views")
	}
	j := m.start(rt)
	if rapid.Bool().Draw(rt, "existing") && len(m.jobs) > 1 {
		j = m.jobs[rapid.IntRange(0, len(m.jobs)-2).Draw(rt, "which")]
		m.jobs = m.jobs[:len(m.jobs)-1]
	}
	name := m.newName()
	body := `{"view":"` + name + `","route":"FollowJob","id":"` + j.id.String() + `"}`
	if rapid.IntRange(0, 3).Draw(rt, "foreign") == 0 {
		res := m.do(rt, "POST", "/api/watch/"+m.name+"/views", "b", nil, body)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			rt.Fatalf("OpenView as another session: %d, want 404", res.StatusCode)
		}
		return
	}
	res := m.do(rt, "POST", "/api/watch/"+m.name+"/views", "a", nil, body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		rt.Fatalf("OpenView: %d", res.StatusCode)
	}
	m.views[name] = &watchView{job: j}
}

func (m *watchMachine) closeView(rt *rapid.T) {
	open := m.openViews()
	if len(open) == 0 {
		rt.Skip("no open view")
	}
	name := rapid.SampledFrom(open).Draw(rt, "view")
	if rapid.IntRange(0, 3).Draw(rt, "foreign") == 0 {
		res := m.do(rt, "DELETE", "/api/watch/"+m.name+"/views/"+name, "b", nil, "")
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			rt.Fatalf("CloseView as another session: %d, want 404", res.StatusCode)
		}
		return
	}
	res := m.do(rt, "DELETE", "/api/watch/"+m.name+"/views/"+name, "a", nil, "")
	res.Body.Close()
	// A view whose status is on its way may be over before the close.
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotFound {
		rt.Fatalf("CloseView: %d", res.StatusCode)
	}
	m.views[name].closed = true
}

// caughtUp reports whether every view has read what it is owed.
func (m *watchMachine) caughtUp() bool {
	for _, v := range m.views {
		if v.ended {
			continue
		}
		if v.closed || v.job.settled || v.got != v.job.text {
			return false
		}
	}
	return true
}

// read reads frames until every view has what it is owed, checking each.
func (m *watchMachine) read(rt *rapid.T) {
	began := time.Now()
	for !m.caughtUp() {
		if time.Since(began) > time.Minute {
			rt.Fatalf("the views stalled: %s", m.describe())
		}
		m.frame(rt)
	}
}

func (m *watchMachine) describe() string {
	var b strings.Builder
	for name, v := range m.views {
		fmt.Fprintf(&b, "%s: read %q of %q, ended %v, closed %v, settled %v; ", name, v.got, v.job.text, v.ended, v.closed, v.job.settled)
	}
	return b.String()
}

// frame reads and checks one frame.
func (m *watchMachine) frame(rt *rapid.T) {
	ev := m.next(rt)
	var f wire.WatchFrame
	if ev.name != "view" || json.Unmarshal([]byte(ev.data), &f) != nil || ev.id != f.Resume {
		rt.Fatalf("event %+v, want a view frame whose id is its resume point", ev)
	}
	m.lastID = f.Resume
	v := m.views[f.View]
	if v == nil || v.ended {
		rt.Fatalf("frame of view %q, which is not open: %s", f.View, ev.data)
	}
	v.seen = true
	switch f.Event {
	case "opened":
		var o jobs.OpenedFrame
		if err := json.Unmarshal(f.Data, &o); err != nil || o.From != int64(len(v.got)) {
			rt.Fatalf("view %s opened at %d (%v), having read %d bytes", f.View, o.From, err, len(v.got))
		}
	case "output":
		var o jobs.OutputFrame
		if err := json.Unmarshal(f.Data, &o); err != nil {
			rt.Fatal(err)
		}
		for _, c := range o.Chunks {
			v.got += c.Text
		}
		if !strings.HasPrefix(v.job.text, v.got) {
			rt.Fatalf("view %s read %q, which is not how %q begins", f.View, v.got, v.job.text)
		}
	case "status":
		if !v.closed && v.got != v.job.text { // a close drops what was on its way
			rt.Fatalf("view %s ended having read %q of %q", f.View, v.got, v.job.text)
		}
		v.ended = true
	case "closed":
		if !v.closed {
			rt.Fatalf("view %s closed unasked", f.View)
		}
		v.ended = true
	default:
		rt.Fatalf("view %s: event %s: %s", f.View, f.Event, f.Data)
	}
	for name, v := range m.views {
		in := strings.Contains(";"+f.Resume, ";"+name+"=")
		if v.ended && in {
			rt.Fatalf("view %s is over but in the resume point %q", name, f.Resume)
		}
		if in {
			v.seen = true // in a resume point: a reconnect resumes it
		}
		if v.seen && !v.ended && !v.closed && !in {
			rt.Fatalf("view %s is open but not in the resume point %q", name, f.Resume)
		}
	}
}

// reconnect drops the connection and resumes from the last id.
func (m *watchMachine) reconnect(rt *rapid.T) {
	if m.lastID == "" {
		rt.Skip("no id yet")
	}
	for _, v := range m.views {
		if v.closed && !v.ended {
			rt.Skip("a close is on its way") // its frame is the stream's, which the drop would lose
		}
	}
	m.res.Body.Close()
	m.connect(rt, "/api/watch", map[string]string{"Last-Event-ID": m.lastID})
	// A view opened after the last id the client saw is in none: the
	// client opens it again, as the page does.
	for name, v := range m.views {
		if !v.ended && !strings.Contains(";"+m.lastID, ";"+name+"=") {
			res := m.do(rt, "POST", "/api/watch/"+m.name+"/views", "a", nil, `{"view":"`+name+`","route":"FollowJob","id":"`+v.job.id.String()+`"}`)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				rt.Fatalf("OpenView again after the reconnect: %d", res.StatusCode)
			}
		}
	}
}

// drainAll settles every job and reads every view to its end.
func (m *watchMachine) drainAll(rt *rapid.T) {
	for _, j := range m.live() {
		j.finish(jobs.JobStatusCompleted)
		j.settled = true
	}
	for {
		done := true
		for _, v := range m.views {
			done = done && v.ended
		}
		if done {
			return
		}
		m.frame(rt)
	}
}
