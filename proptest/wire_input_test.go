package proptest

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
)

// wireKeys is a terminal job's terminal in the wire machine: it keeps what
// it was sent.
type wireKeys struct {
	mu    sync.Mutex
	typed []string
	want  []string // what the model says it was sent
}

func (k *wireKeys) input() jobs.TerminalInput {
	return jobs.TerminalInput{
		Send: func(text string) error {
			k.mu.Lock()
			defer k.mu.Unlock()
			k.typed = append(k.typed, text)
			return nil
		},
		Resize: func(jobs.TerminalSize) error { return nil },
	}
}

func (k *wireKeys) sent() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.typed)
}

// input posts input to a job as kill posts a kill: any job or an unknown
// id, mostly from its owner, for any Host, any way a browser or a tool may
// send it. It is answered 200, and reaches the job's terminal, only for a
// served Host, a JSON body from an allowed origin, the job's own session
// and a live terminal job; afterwards every terminal holds exactly the
// input answered 200.
func (m *wireMachine) input(rt *rapid.T) {
	j := m.pickJob(rt)
	session := j.owner
	if rapid.IntRange(0, 3).Draw(rt, "foreign") == 0 {
		session = rapid.SampledFrom(wireSessions).Draw(rt, "session")
	}
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	how := killHows[rapid.IntRange(0, len(killHows)-1).Draw(rt, "how")]
	text := rapid.SampledFrom(wireTexts).Draw(rt, "text")
	body, _ := json.Marshal(map[string]string{"text": text})
	code, answer := m.plain(rt, "POST", "/api/jobs/"+j.id.String()+"/input", session, host, how.header(host), string(body))
	want := http.StatusOK
	switch {
	case !m.served(host):
		refusedHost(rt, "input", code, answer)
		want = http.StatusForbidden
	case how.contentType != "application/json":
		want = http.StatusUnsupportedMediaType
	case !how.allowed():
		want = http.StatusForbidden
	case j.owner != session || j.unknown:
		want = http.StatusNotFound
	case j.keys == nil || j.settled:
		want = http.StatusConflict
	}
	if code != want {
		rt.Fatalf("input %q to a job of %s (terminal %v, settled %v) as %s for Host %s: %d %s, want %d",
			how.name, j.owner, j.keys != nil, j.settled, session, host, code, answer, want)
	}
	if code == http.StatusOK {
		j.keys.want = append(j.keys.want, text)
	}
	for _, t := range m.jobs {
		if t.keys != nil && !slices.Equal(t.keys.sent(), t.keys.want) {
			rt.Fatalf("the terminal of a job of %s was sent %q, want %q", t.owner, t.keys.sent(), t.keys.want)
		}
	}
}
