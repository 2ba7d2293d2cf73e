package jobhttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
)

func TestRawAnswersTheRetainedRecordAsPlainText(t *testing.T) {
	s := newServer(t, nil)
	snap, p := s.startRecording("alice", "build", 0)
	p.job.Append("\x1b[32mok\x1b[0m <b>not html</b>\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	p.job.Append("warning\n", jobs.AppendOptions{Channel: jobs.ChannelStderr})
	res := s.request("GET", "/api/jobs/"+snap.ID.String()+"/raw", "alice", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("raw: %d %s", res.StatusCode, body)
	}
	if got, want := string(body), "\x1b[32mok\x1b[0m <b>not html</b>\nwarning\n"; got != want {
		t.Errorf("raw body = %q, want %q", got, want)
	}
	for k, want := range map[string]string{
		"Content-Type":           "text/plain; charset=utf-8",
		"X-Content-Type-Options": "nosniff",
		"Content-Disposition":    `attachment; filename="` + snap.Name + `.log"`,
		"X-Record-Next":          "36",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestRawIsFencedLikeEveryRead(t *testing.T) {
	s := newServer(t, nil)
	mine, _ := s.startRecording("alice", "build", 0)
	plain, _ := s.startPlain("alice", "plain")
	for _, c := range []struct {
		name, path, session string
		header              map[string]string
		want                int
	}{
		{"another session's job", "/api/jobs/" + mine.ID.String() + "/raw", "bob", nil, http.StatusNotFound},
		{"no session", "/api/jobs/" + mine.ID.String() + "/raw", "", nil, http.StatusUnauthorized},
		{"a foreign host", "/api/jobs/" + mine.ID.String() + "/raw", "alice", map[string]string{"Host": "attacker.example"}, http.StatusForbidden},
		{"a plain job", "/api/jobs/" + plain.ID.String() + "/raw", "alice", nil, http.StatusConflict},
		{"a malformed id", "/api/jobs/nope/raw", "alice", nil, http.StatusNotFound},
	} {
		res := s.request("GET", c.path, c.session, nil, c.header)
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, res.StatusCode, c.want)
		}
	}
}

func TestSubagentTreeShowsOnlyTheChildrenUnderTheCallersRoots(t *testing.T) {
	at := newAgentTree(t)
	at.settledTree(t)
	s := newServer(t, []jobhttp.Option{jobhttp.WithSubagents(at.tree)})
	var nodes []wire.SubagentNode
	getJSON(t, s, "/api/subagents", "alice", &nodes)
	var ids []string
	for _, n := range nodes {
		ids = append(ids, string(n.ID)+"@"+string(n.Parent)+":"+string(n.State))
		if n.Root != "alice" {
			t.Errorf("%s: root %q, want alice", n.ID, n.Root)
		}
	}
	want := []string{"planner@alice:waiting", "planner-researcher@planner:settled", "planner-coder@planner:running"}
	if !slices.Equal(ids, want) {
		t.Errorf("alice's tree = %v, want %v", ids, want)
	}
	if nodes[1].Depth != 2 || nodes[1].Provider != "researcher" || nodes[1].StopReason != "completed" {
		t.Errorf("researcher node = %+v", nodes[1])
	}
	var bobs []wire.SubagentNode
	getJSON(t, s, "/api/subagents", "bob", &bobs)
	if len(bobs) != 1 || bobs[0].ID != "bobs-helper" {
		t.Errorf("bob's tree = %+v, want his one helper", bobs)
	}
	// Another session's child answers as one that does not exist.
	for _, path := range []string{"/api/subagents/bobs-helper/history", "/api/subagents/nobody/history"} {
		res := s.request("GET", path, "alice", nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("alice GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

func TestSubagentHistoryHoldsTheChildsMessagesFromItsStream(t *testing.T) {
	at := newAgentTree(t)
	at.settledTree(t)
	s := newServer(t, []jobhttp.Option{jobhttp.WithSubagents(at.tree)})
	var events []wire.SubagentEvent
	getJSON(t, s, "/api/subagents/planner/history", "alice", &events)
	var kinds []string
	var report *wire.SubagentEvent
	for i, e := range events {
		kinds = append(kinds, string(e.Kind))
		if e.Source == "subagentReport" {
			report = &events[i]
		}
	}
	if !slices.Contains(kinds, "created") || !slices.Contains(kinds, "accepted") || !slices.Contains(kinds, "claimed") || !slices.Contains(kinds, "residencyStarted") {
		t.Errorf("planner's history kinds = %v", kinds)
	}
	if report == nil || report.Sender != "planner-researcher" || !strings.Contains(report.Text, "flaky tests") {
		t.Errorf("planner's history has no report from the researcher: %+v", events)
	}
}

func TestSubagentEventsStreamTheTreeAsItChanges(t *testing.T) {
	at := newAgentTree(t)
	at.settledTree(t)
	s := newServer(t, []jobhttp.Option{jobhttp.WithSubagents(at.tree)})
	st := s.stream("/api/subagents/events", "alice", nil)
	first := st.mustNext()
	if first.name != "tree" || !strings.Contains(first.data, `"planner-coder"`) {
		t.Fatalf("first event = %+v", first)
	}
	close(at.release) // the coder finishes; the planner, notified, settles too
	for {
		ev := st.mustNext()
		var nodes []wire.SubagentNode
		if err := json.Unmarshal([]byte(ev.data), &nodes); err != nil {
			t.Fatal(err)
		}
		settled := 0
		for _, n := range nodes {
			if n.State == wire.SubagentStateSettled {
				settled++
			}
		}
		if settled == len(nodes) {
			break
		}
	}
}

func TestSubagentRoutesAreA404WithoutSubagents(t *testing.T) {
	s := newServer(t, nil)
	for _, path := range []string{"/api/subagents", "/api/subagents/events", "/api/subagents/x/history"} {
		res := s.request("GET", path, "alice", nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

// getJSON GETs path as session and decodes its 200 body into v.
func getJSON(t *testing.T, s *server, path, session string, v any) {
	t.Helper()
	res := s.request("GET", path, session, nil, nil)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
