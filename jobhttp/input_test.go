package jobhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
)

// A keyboard is a terminal job's input as the test sees it: what it was
// sent, and the error it answers.
type keyboard struct {
	mu   sync.Mutex
	sent []string
	err  error
}

func (k *keyboard) send(text string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return k.err
	}
	k.sent = append(k.sent, text)
	return nil
}

func (k *keyboard) typed() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.sent...)
}

// startTerminal starts a terminal job owned by session whose input goes to
// the returned keyboard.
func (s *server) startTerminal(session jobs.SessionID, label string) (jobs.JobSnapshot, *producer, *keyboard) {
	s.t.Helper()
	p := &producer{result: make(chan jobs.JobOutcome, 1)}
	k := &keyboard{}
	snap, _, err := s.reg.StartTerminal(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "sh", Label: label, Owner: session},
		RunTerminal: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			p.job = job
			return p.hooks(), jobs.TerminalInput{Send: k.send, Resize: func(jobs.TerminalSize) error { return nil }}, nil
		},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { p.finish(jobs.JobStatusCompleted, "") })
	return snap, p, k
}

// sameOrigin is what the page's fetch sends with input.
func (s *server) sameOrigin() map[string]string {
	return map[string]string{"Content-Type": "application/json", "Origin": s.srv.URL, "Sec-Fetch-Site": "same-origin"}
}

// postInput posts body as input to id and returns the status and the
// decoded answer or refusal.
func (s *server) postInput(id, session, body string, header map[string]string) (int, wire.InputResponse, wire.ErrorBody) {
	s.t.Helper()
	res := s.request("POST", "/api/jobs/"+id+"/input", session, strings.NewReader(body), header)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var ok wire.InputResponse
	var refused wire.ErrorBody
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, &ok); err != nil {
			s.t.Fatalf("input answered %s: %v", data, err)
		}
	} else if err := json.Unmarshal(data, &refused); err != nil {
		s.t.Fatalf("input refused with %s, not an ErrorBody: %v", data, err)
	}
	return res.StatusCode, ok, refused
}

func TestInputTypesIntoATerminalJob(t *testing.T) {
	s := newServer(t, nil)
	snap, _, k := s.startTerminal("alice", "shell")
	status, answer, refused := s.postInput(snap.ID.String(), "alice", `{"text":"ls -l\n"}`, s.sameOrigin())
	if status != http.StatusOK {
		t.Fatalf("input: %d %q; want 200", status, refused.Error)
	}
	if answer.Job.ID != snap.ID || !answer.Job.Terminal {
		t.Errorf("input answered %+v; want the terminal job", answer.Job)
	}
	if got := k.typed(); len(got) != 1 || got[0] != "ls -l\n" {
		t.Errorf("the terminal was sent %q; want the text", got)
	}
}

// TestInputIsRefusedWhatKillIsRefused: the origin, host and session rules of
// kill hold for input, and a refused input types nothing.
func TestInputIsRefusedWhatKillIsRefused(t *testing.T) {
	s := newServer(t, nil)
	snap, _, k := s.startTerminal("alice", "shell")
	for _, tc := range []struct {
		name    string
		session string
		header  map[string]string
		want    int
	}{
		{"form", "alice", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"text", "alice", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"no content type", "alice", nil, http.StatusUnsupportedMediaType},
		{"other origin", "alice", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"cross site", "alice", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same site", "alice", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"a rebinding host", "alice", map[string]string{"Content-Type": "application/json", "Host": "attacker.example"}, http.StatusForbidden},
		{"no session", "", map[string]string{"Content-Type": "application/json"}, http.StatusUnauthorized},
	} {
		status, _, refused := s.postInput(snap.ID.String(), tc.session, `{"text":"rm -rf ~\n"}`, tc.header)
		if status != tc.want || refused.Error == "" {
			t.Errorf("input as %s: %d %q; want %d with a reason", tc.name, status, refused.Error, tc.want)
		}
	}
	if got := k.typed(); len(got) != 0 {
		t.Fatalf("refused input reached the terminal: %q", got)
	}
}

func TestInputRefusesWhatNoTerminalTakes(t *testing.T) {
	s := newServer(t, nil)
	live, _, k := s.startTerminal("alice", "shell")
	settled, settledProducer, _ := s.startTerminal("alice", "done")
	settledProducer.finish(jobs.JobStatusCompleted, "exit status 0")
	if _, ok, err := s.reg.Wait(context.Background(), "alice", settled.ID, 0); !ok || err != nil {
		t.Fatalf("the job did not settle: %v", err)
	}
	plain, _ := s.startPlain("alice", "quiet")
	recording, _ := s.startRecording("alice", "build", 0)
	foreign, _, foreignKeys := s.startTerminal("bob", "bob's shell")
	failing, _, failingKeys := s.startTerminal("alice", "stuck")
	failingKeys.mu.Lock()
	failingKeys.err = errors.New("the program has not read its input for 2s")
	failingKeys.mu.Unlock()

	for _, tc := range []struct {
		name, id, body string
		want           int
	}{
		{"a plain job", plain.ID.String(), `{"text":"x"}`, http.StatusConflict},
		{"a recording job without a terminal", recording.ID.String(), `{"text":"x"}`, http.StatusConflict},
		{"a settled terminal job", settled.ID.String(), `{"text":"x"}`, http.StatusConflict},
		{"another session's terminal job", foreign.ID.String(), `{"text":"x"}`, http.StatusNotFound},
		{"an unknown job", jobs.NewJobID().String(), `{"text":"x"}`, http.StatusNotFound},
		{"a malformed id", "not-an-id", `{"text":"x"}`, http.StatusNotFound},
		{"empty text", live.ID.String(), `{"text":""}`, http.StatusBadRequest},
		{"no text", live.ID.String(), `{}`, http.StatusBadRequest},
		{"not JSON", live.ID.String(), `ls`, http.StatusBadRequest},
		{"over 16 KiB", live.ID.String(), `{"text":"` + strings.Repeat("y", 16<<10) + `"}`, http.StatusRequestEntityTooLarge},
		{"a terminal that refuses the text", failing.ID.String(), `{"text":"x"}`, http.StatusBadGateway},
	} {
		status, _, refused := s.postInput(tc.id, "alice", tc.body, s.sameOrigin())
		if status != tc.want || refused.Error == "" {
			t.Errorf("input to %s: %d %q; want %d with a reason", tc.name, status, refused.Error, tc.want)
		}
	}
	if got, other := k.typed(), foreignKeys.typed(); len(got) != 0 || len(other) != 0 {
		t.Fatalf("refused input reached a terminal: %q, %q", got, other)
	}
	// Another session's job and one that does not exist are the same 404.
	_, _, a := s.postInput(foreign.ID.String(), "alice", `{"text":"x"}`, s.sameOrigin())
	_, _, b := s.postInput(jobs.NewJobID().String(), "alice", `{"text":"x"}`, s.sameOrigin())
	if a != b {
		t.Errorf("a foreign job answers %q, an unknown one %q; want them alike", a.Error, b.Error)
	}
}
