package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A listenStream is an open subscriptions/listen: the messages of its
// event stream, one at a time.
type listenStream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

// listen opens a subscriptions/listen for taskIds as token's client at
// 2026-07-28, naming the tasks extension when ext is set.
func listen(t *testing.T, url, token string, ext bool, taskIDs ...string) *listenStream {
	t.Helper()
	caps := map[string]any{}
	if ext {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": map[string]any{
		"notifications": map[string]any{"taskIds": taskIDs},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "wire", "version": "v0"},
			"io.modelcontextprotocol/clientCapabilities": caps},
	}})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer " + token, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &listenStream{t: t, resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// A listenMessage is one JSON-RPC message of a listen.
type listenMessage struct {
	Method string
	ID     json.RawMessage
	Params json.RawMessage
	Result map[string]any
	Error  *rpcError
}

// next is the stream's next message; ok is false once it ended.
func (ls *listenStream) next() (listenMessage, bool) {
	ls.t.Helper()
	for ls.sc.Scan() {
		data, found := strings.CutPrefix(ls.sc.Text(), "data: ")
		if !found && !strings.HasPrefix(data, "{") { // an answer that is JSON, not a stream
			continue
		}
		var m listenMessage
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			ls.t.Fatalf("%s: %v", data, err)
		}
		return m, true
	}
	return listenMessage{}, false
}

// notification is the next message, which must be a notifications/tasks,
// decoded as a task.
func (ls *listenStream) notification() task {
	ls.t.Helper()
	m, ok := ls.next()
	if !ok || m.Method != "notifications/tasks" {
		ls.t.Fatalf("next message %+v (open %v), want notifications/tasks", m, ok)
	}
	return decodeTask(ls.t, m.Params)
}

// A 2026-07-28 client that lists task ids in subscriptions/listen hears of
// each task it may see: the acknowledgement names only those (not another
// session's, not an invented id), then a notifications/tasks with the
// task as tasks/get has it, again at each change (the progress line, the
// settlement with its result inlined, a cancel), and the stream ends with
// its result once every task has ended. A client without the extension is
// refused with -32003.
func TestTaskStatusNotificationsOverListen(t *testing.T) {
	tr := newTaskRuntime(t, filepath.Join(t.TempDir(), "journal"))
	alice, bob := tr.wire(t, "alice-token", "2026-07-28"), tr.wire(t, "bob-token", "2026-07-28")
	start := func(w *wire, label string) string {
		return decodeTask(t, w.ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": label}})).TaskID
	}
	built, served, bobs := start(alice, "build"), start(alice, "server"), start(bob, "bob's")

	refused, ok := listen(t, tr.srv.URL, "alice-token", false, built).next()
	if !ok || refused.Error == nil || refused.Error.Code != -32003 {
		t.Errorf("listen without the tasks extension = %+v, want -32003", refused)
	}

	ls := listen(t, tr.srv.URL, "alice-token", true, built, served, bobs, jobs.NewJobID().String(), "not-an-id")
	ack, ok := ls.next()
	var acked struct {
		Notifications struct{ TaskIDs []string }
		Meta          map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(ack.Params, &acked)
	if !ok || ack.Method != "notifications/subscriptions/acknowledged" || strings.Join(acked.Notifications.TaskIDs, ",") != built+","+served ||
		acked.Meta["io.modelcontextprotocol/subscriptionId"] != float64(7) {
		t.Fatalf("first message %s %s, want the acknowledgement of alice's two tasks", ack.Method, ack.Params)
	}
	for _, want := range []string{built, served} {
		if got := ls.notification(); got.TaskID != want || got.Status != "working" {
			t.Errorf("notification = %+v, want %s working", got, want)
		}
	}
	job := tr.job(jobIDOf(t, built))
	job.UpdateDetail("1 of 2")
	if got := ls.notification(); got.TaskID != built || got.Status != "working" || got.StatusMessage != "1 of 2" {
		t.Errorf("notification after the progress line = %+v, want it", got)
	}
	job.write("ok\n")
	job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	if got := ls.notification(); got.TaskID != built || got.Status != "completed" || got.Result == nil || !got.Result.StructuredContent.Finished {
		t.Errorf("notification after the settlement = %+v, want completed with its result", got)
	}
	alice.ok("tasks/cancel", map[string]any{"taskId": served})
	if got := ls.notification(); got.TaskID != served || got.Status != "cancelled" {
		t.Errorf("notification after tasks/cancel = %+v, want cancelled", got)
	}
	end, ok := ls.next()
	if !ok || string(end.ID) != "7" || end.Result["resultType"] != "complete" {
		t.Errorf("last message %+v, want the listen's result", end)
	}
	if _, more := ls.next(); more {
		t.Error("the stream went on after its result")
	}

	empty := listen(t, tr.srv.URL, "bob-token", true, built)
	if ack, _ := empty.next(); !strings.Contains(string(ack.Params), `"taskIds":[]`) {
		t.Errorf("bob's listen for alice's task acknowledged %s, want no task", ack.Params)
	}
	if end, ok := empty.next(); !ok || string(end.ID) != "7" {
		t.Errorf("bob's listen went on: %+v, want its result at once", end)
	}
}
