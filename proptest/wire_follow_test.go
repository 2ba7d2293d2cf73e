package proptest

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
)

// openFollow opens a follow stream, fresh or resumed, of any job as any
// session and checks its answer; an open stream joins m.follow, to be read
// later.
func (m *wireMachine) openFollow(rt *rapid.T) {
	j := m.pickJob(rt)
	if open := m.openFollowers(); len(open) > 0 && rapid.Bool().Draw(rt, "joinAnother") {
		j = open[rapid.IntRange(0, len(open)-1).Draw(rt, "joined")].job // share its stream
	}
	session := j.owner
	if rapid.IntRange(0, 4).Draw(rt, "foreign") == 0 {
		session = rapid.SampledFrom(wireSessions).Draw(rt, "session")
	}
	host := rapid.SampledFrom(wireHosts[:4]).Draw(rt, "host")
	if rapid.IntRange(0, 9).Draw(rt, "anyHost") == 0 {
		host = rapid.SampledFrom(wireHosts).Draw(rt, "host")
	}
	from := int64(-1)
	path, header := "/api/jobs/"+j.id.String()+"/follow", map[string]string{}
	switch rapid.IntRange(0, 2).Draw(rt, "resume") {
	case 1:
		from = resumeOffset(rt, j)
		path += "?from=" + strconv.FormatInt(from, 10)
	case 2:
		from = resumeOffset(rt, j)
		header["Last-Event-ID"] = strconv.FormatInt(from, 10)
	}
	res := m.request(rt, "GET", path, session, host, header, "")
	want := http.StatusOK
	switch {
	case !m.served(host):
		want = http.StatusForbidden
	case j.owner != session || j.unknown:
		want = http.StatusNotFound
	case !j.record:
		want = http.StatusConflict
	}
	if res.StatusCode != want || want != http.StatusOK {
		body, _ := readAll(res)
		if res.StatusCode != want {
			rt.Fatalf("follow of a job of %s (record %v) as %s for Host %s: %d %s, want %d", j.owner, j.record, session, host, res.StatusCode, body, want)
		}
		if want == http.StatusNotFound && string(body) != notFound {
			rt.Fatalf("follow as %s of a job it cannot see: %s, want the one 404 body", session, body)
		}
		return
	}
	f := &wireFollower{job: j, res: res, sc: bufio.NewScanner(res.Body)}
	f.sc.Buffer(make([]byte, 64<<10), 1<<20)
	m.follow = append(m.follow, f)
	m.checkOpened(rt, f, from)
	if rapid.Bool().Draw(rt, "drainNow") {
		m.drain(rt, f)
	}
}

// resumeOffset draws where a follow resumes: anywhere in the output, or
// next to where an append ended, which is where the frames a stream shares
// begin and end.
func resumeOffset(rt *rapid.T, j *wireJob) int64 {
	total := int64(len(j.text))
	if len(j.ends) == 0 || rapid.Bool().Draw(rt, "anywhere") {
		return rapid.Int64Range(0, total).Draw(rt, "from")
	}
	end := j.ends[rapid.IntRange(0, len(j.ends)-1).Draw(rt, "end")]
	return min(max(end+rapid.Int64Range(-1, 1).Draw(rt, "nudge"), 0), total)
}

func readAll(res *http.Response) ([]byte, error) {
	defer res.Body.Close()
	var b strings.Builder
	_, err := bufio.NewReader(res.Body).WriteTo(&b)
	return []byte(b.String()), err
}

// window returns the record's retained window of j now.
func (m *wireMachine) window(rt *rapid.T, j *wireJob) (earliest, total int64) {
	rd, err := m.reg.ReadRecord(j.owner, j.id, int64(len(j.text)))
	if err != nil {
		rt.Fatalf("window of %s: %v", j.id, err)
	}
	return rd.Earliest, rd.Next
}

// checkOpened reads a new stream's opened frame: it starts where asked, or
// at the earliest retained byte, and says the window as it is.
func (m *wireMachine) checkOpened(rt *rapid.T, f *wireFollower, from int64) {
	ev, ok := f.next(rt)
	if !ok || ev.name != "opened" {
		rt.Fatalf("follow of %s: first event %+v (%v), want opened", f.job.id, ev, ok)
	}
	var o jobs.OpenedFrame
	if err := json.Unmarshal([]byte(ev.data), &o); err != nil {
		rt.Fatalf("opened frame %s: %v", ev.data, err)
	}
	earliest, total := m.window(rt, f.job)
	want := from
	if from < 0 {
		want = earliest
	}
	if o.From != want || o.Earliest != earliest || o.Total != total || o.Total != int64(len(f.job.text)) || ev.id != strconv.FormatInt(o.From, 10) || o.Job.ID != f.job.id {
		rt.Fatalf("opened %+v id %q after asking for %d, want from %d, window %d..%d", o, ev.id, from, want, earliest, total)
	}
	f.cursor = o.From
}

// An sse is one Server-Sent Event.
type sse struct{ id, name, data string }

// next reads the follower's next event, skipping comments and retry fields;
// ok is false when the stream ended.
func (f *wireFollower) next(rt *rapid.T) (ev sse, ok bool) {
	have := false
	for f.sc.Scan() {
		line := f.sc.Text()
		switch {
		case line == "":
			if have {
				return ev, true
			}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry: "):
		case strings.HasPrefix(line, "id: "):
			ev.id, have = line[4:], true
		case strings.HasPrefix(line, "event: "):
			ev.name, have = line[7:], true
		case strings.HasPrefix(line, "data: "):
			ev.data, have = line[6:], true
		default:
			rt.Fatalf("not an SSE line: %q", line)
		}
	}
	return sse{}, false
}

func (m *wireMachine) openFollowers() []*wireFollower {
	var out []*wireFollower
	for _, f := range m.follow {
		if !f.ended {
			out = append(out, f)
		}
	}
	return out
}

// drainFollow reads an open follower until it has the job's whole output,
// and, for a settled job, its status.
func (m *wireMachine) drainFollow(rt *rapid.T) {
	open := m.openFollowers()
	if len(open) == 0 {
		rt.Skip("no open follower")
	}
	m.drain(rt, open[rapid.IntRange(0, len(open)-1).Draw(rt, "follower")])
}

// drain reads f until it has the job's whole output, and, for a settled
// job, its status.
func (m *wireMachine) drain(rt *rapid.T, f *wireFollower) {
	total := int64(len(f.job.text))
	start := time.Now()
	// A cursor inside the last character has nothing more to read.
	for f.job.settled || nextRune(f.job.text, f.cursor) < total {
		if time.Since(start) > time.Hour {
			rt.Fatalf("follower of %s stuck at %d of %d", f.job.id, f.cursor, total)
		}
		ev, ok := f.next(rt)
		if !ok {
			rt.Fatalf("follow of %s ended at %d of %d without a status", f.job.id, f.cursor, total)
		}
		switch ev.name {
		case "output":
			m.checkOutput(rt, f, ev)
		case "status":
			var s jobs.StatusFrame
			if err := json.Unmarshal([]byte(ev.data), &s); err != nil || !f.job.settled || nextRune(f.job.text, f.cursor) != total || !s.Job.Status.Terminal() {
				rt.Fatalf("status %s at %d of %d (settled %v): want it only after the whole output of a settled job", ev.data, f.cursor, total, f.job.settled)
			}
			if _, ok := f.next(rt); ok {
				rt.Fatalf("follow of %s went on after its status", f.job.id)
			}
			f.ended = true
			f.res.Body.Close()
			return
		default:
			rt.Fatalf("follow of %s: event %+v", f.job.id, ev)
		}
	}
}

// checkOutput checks one output frame against the model and moves the
// follower's cursor past it.
func (m *wireMachine) checkOutput(rt *rapid.T, f *wireFollower, ev sse) {
	var o jobs.OutputFrame
	if err := json.Unmarshal([]byte(ev.data), &o); err != nil || len(o.Chunks) == 0 {
		rt.Fatalf("output frame %s: %v", ev.data, err)
	}
	if ev.id != strconv.FormatInt(o.Next, 10) {
		rt.Fatalf("output frame id %q, want its next %d", ev.id, o.Next)
	}
	text := f.job.text
	at := o.Chunks[0].Offset
	for _, c := range o.Chunks {
		if c.Offset != at || c.Offset+int64(len(c.Text)) > int64(len(text)) || text[c.Offset:c.Offset+int64(len(c.Text))] != c.Text {
			rt.Fatalf("chunk %+v of %s: not the job's bytes at %d, contiguously", c, f.job.id, at)
		}
		at += int64(len(c.Text))
	}
	if o.Next != at {
		rt.Fatalf("output frame next %d, want the end of its last chunk %d", o.Next, at)
	}
	// Lossy means bytes from the cursor on were evicted before they could
	// be sent: then the frame starts past the cursor, at most at the
	// earliest byte still retained (eviction only moves forward, so the
	// window now bounds the one the frame was read from).
	first, resume := o.Chunks[0].Offset, nextRune(text, f.cursor)
	earliest, _ := m.window(rt, f.job)
	switch {
	case first < f.cursor:
		rt.Fatalf("frame from %d after cursor %d: bytes repeated", first, f.cursor)
	case !o.Lossy && first != resume:
		rt.Fatalf("frame from %d after cursor %d, not lossy: bytes %d..%d skipped", first, f.cursor, resume, first)
	case o.Lossy && first <= resume && f.cursor >= earliest:
		rt.Fatalf("frame from %d after cursor %d says lossy, but nothing was evicted (earliest %d)", first, f.cursor, earliest)
	case o.Lossy && first > earliest:
		rt.Fatalf("lossy frame from %d after cursor %d: bytes %d..%d are still retained", first, f.cursor, earliest, first)
	}
	f.cursor = o.Next
}

// nextRune is where a read at offset begins: offset itself, or the start of
// the next character when offset lies inside one.
func nextRune(text string, offset int64) int64 {
	for offset < int64(len(text)) && !utf8.RuneStart(text[offset]) {
		offset++
	}
	return offset
}

func (m *wireMachine) closeFollow(rt *rapid.T) {
	open := m.openFollowers()
	if len(open) == 0 {
		rt.Skip("no open follower")
	}
	f := open[rapid.IntRange(0, len(open)-1).Draw(rt, "follower")]
	f.res.Body.Close()
	f.ended = true
}

// A killHow is how a kill request is made: its Content-Type and the
// markers a browser adds.
type killHow struct {
	name, contentType, origin, site string
}

var killHows = []killHow{
	{"json from the page", "application/json", "same", "same-origin"},
	{"json, Origin only", "application/json", "same", ""},
	{"json from a tool", "application/json", "", ""},
	{"json from the address bar", "application/json", "", "none"},
	{"form from the page", "application/x-www-form-urlencoded", "same", "same-origin"},
	{"text from another site", "text/plain", "http://evil.example", "cross-site"},
	{"json from another site", "application/json", "http://evil.example", "cross-site"},
	{"json from a sibling site", "application/json", "http://evil.example", "same-site"},
	{"json, another Origin", "application/json", "http://evil.example", ""},
	{"json, null Origin", "application/json", "null", ""},
}

// header is the request's headers, sent to host.
func (k killHow) header(host string) map[string]string {
	header := map[string]string{"Content-Type": k.contentType}
	switch k.origin {
	case "":
	case "same":
		header["Origin"] = "http://" + host
	default:
		header["Origin"] = k.origin
	}
	if k.site != "" {
		header["Sec-Fetch-Site"] = k.site
	}
	return header
}

// allowed says whether a browser would have let another site's page make
// the request (false) or not, by what jobhttp documents.
func (k killHow) allowed() bool {
	return k.contentType == "application/json" && (k.site == "same-origin" || k.site == "none" || k.site == "" && (k.origin == "" || k.origin == "same"))
}

func (m *wireMachine) kill(rt *rapid.T) {
	j := m.pickJob(rt)
	session := j.owner
	if rapid.IntRange(0, 3).Draw(rt, "foreign") == 0 {
		session = rapid.SampledFrom(wireSessions).Draw(rt, "session")
	}
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	how := killHows[rapid.IntRange(0, len(killHows)-1).Draw(rt, "how")]
	code, body := m.plain(rt, "POST", "/api/jobs/"+j.id.String()+"/kill", session, host, how.header(host), `{"reason":"property"}`)
	want := http.StatusOK
	switch {
	case !m.served(host):
		refusedHost(rt, "kill", code, body)
		want = http.StatusForbidden
	case how.contentType != "application/json":
		want = http.StatusUnsupportedMediaType
	case !how.allowed():
		want = http.StatusForbidden
	case j.owner != session || j.unknown:
		want = http.StatusNotFound
	}
	if code != want {
		rt.Fatalf("kill %q of a job of %s as %s for Host %s: %d %s, want %d", how.name, j.owner, session, host, code, body, want)
	}
	if j.unknown {
		return
	}
	if code == http.StatusOK && !j.settled {
		m.settle(rt, j)
	}
	snap, err := m.reg.Get(j.owner, j.id)
	if err != nil || snap.Status.Terminal() != j.settled || (code != http.StatusOK && !j.settled && snap.Status != jobs.JobStatusRunning) {
		rt.Fatalf("after kill %q (%d) the job is %s (%v), settled in the model %v", how.name, code, snap.Status, err, j.settled)
	}
}

// A pipeListener hands the server in-memory connections, so the bubble's
// clock drives every timeout and flush.
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

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.closed) }); return nil }

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

// dial connects a client to the server.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
	case <-l.closed:
		server.Close()
	}
	return client
}
