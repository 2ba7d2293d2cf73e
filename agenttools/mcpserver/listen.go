package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// Task status notifications of the 2026-07-28 tasks extension (decision
// 0222): a client sends subscriptions/listen whose notifications name
// taskIds; the server acknowledges (notifications/subscriptions/
// acknowledged) the ids it agrees to, and pushes notifications/tasks, each
// the task as tasks/get would answer it at that moment, whenever one
// changes. The SDK's subscriptions/listen knows no taskIds and a server
// can send no notification of its own method through it, so the HTTP
// handler serves such a listen itself, on the request's event stream;
// delete this when the SDK carries the extension's members.
//
// The ids agreed are those visible to the caller (another session's task
// and an id nobody issued are left out alike, so the acknowledgement tells
// nothing); in a fleet, only the tasks whose jobs run on this host. The
// jobs are looked at every listenEvery; the stream ends with its result
// once every agreed task has ended, or at once when none was agreed, and
// when the client goes or the handler closes.

const (
	// listenEvery is how often a listen looks at its tasks.
	listenEvery = 250 * time.Millisecond
	// maxListenTasks bounds the ids one listen follows.
	maxListenTasks = 100
	// subscriptionKey is the _meta key tying a notification to its listen.
	subscriptionKey = "io.modelcontextprotocol/subscriptionId"
)

// A listenRequest is what the handler reads of a subscriptions/listen.
type listenRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications *struct {
			TaskIDs *[]string `json:"taskIds"`
		} `json:"notifications"`
	} `json:"params"`
}

// listenFor reads body as a subscriptions/listen that names taskIds, or
// says it is none.
func listenFor(body []byte) (listenRequest, bool) {
	var req listenRequest
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !bytes.Contains(trimmed, []byte(`"taskIds"`)) {
		return req, false
	}
	if json.Unmarshal(trimmed, &req) != nil || req.Method != "subscriptions/listen" || len(req.ID) == 0 ||
		req.Params.Notifications == nil || req.Params.Notifications.TaskIDs == nil {
		return req, false
	}
	var version string
	_ = json.Unmarshal(req.Params.Meta["io.modelcontextprotocol/protocolVersion"], &version)
	return req, version >= "2026-07-28" // subscriptions/listen is 2026-07-28's
}

// namesTasksExtension says whether a request's _meta declares the tasks
// extension among the client's capabilities.
func namesTasksExtension(meta map[string]json.RawMessage) bool {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(meta["io.modelcontextprotocol/clientCapabilities"], &caps) != nil {
		return false
	}
	_, ok := caps.Extensions[tasksExtension]
	return ok
}

// serveListen serves a subscriptions/listen naming tasks, on an event
// stream, until its tasks have all ended, the request ends or the handler
// closes.
func (h *Handler) serveListen(w http.ResponseWriter, r *http.Request, ts *agenttools.Toolset, req listenRequest) {
	if !namesTasksExtension(req.Params.Meta) {
		writeRPCError(w, req.ID, &jsonrpc.Error{Code: -32003, Message: "Missing required client capability: task status notifications need the " + tasksExtension + " extension",
			Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + tasksExtension + `":{}}}}`)})
		return
	}
	ctx := r.Context()
	var agreed []jobs.JobID
	live := ts.Jobs()
	for _, taskID := range *req.Params.Notifications.TaskIDs {
		id, ok := parseTaskID(taskID)
		if !ok || slices.Contains(agreed, id) || len(agreed) == maxListenTasks {
			continue
		}
		if h.opts.Fleet != nil && !slices.ContainsFunc(live, func(s jobs.JobSnapshot) bool { return s.ID == id }) {
			continue // its job may run on another host: not told from here
		}
		if _, err := ts.Job(ctx, id); err == nil {
			agreed = append(agreed, id)
		}
	}
	subscription := req.ID
	ids := make([]string, len(agreed))
	for i, id := range agreed {
		ids[i] = id.String()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(msg any) bool {
		data, err := json.Marshal(msg)
		if err != nil {
			h.log.Error("mcpserver: a listen's message does not encode", "err", err)
			return false
		}
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", data); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	notify := func(method string, params any) bool {
		return send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	ack := map[string]any{"_meta": map[string]any{subscriptionKey: subscription}, "notifications": map[string]any{"taskIds": ids}}
	if !notify("notifications/subscriptions/acknowledged", ack) {
		return
	}
	last := make(map[jobs.JobID][]byte, len(agreed))
	ended := map[jobs.JobID]bool{}
	tick := time.NewTicker(listenEvery)
	defer tick.Stop()
watch:
	for len(ended) < len(agreed) {
		for _, id := range agreed {
			if ended[id] {
				continue
			}
			st, err := ts.Job(ctx, id)
			if err != nil {
				ended[id] = true // nothing more to tell of it
				continue
			}
			task := detailedTask(ts, st, "")
			task.Meta = sdk.Meta{subscriptionKey: subscription}
			data, err := json.Marshal(task)
			if err != nil {
				continue
			}
			if !bytes.Equal(withoutUpdatedAt(data), withoutUpdatedAt(last[id])) {
				last[id] = data
				if !notify("notifications/tasks", json.RawMessage(data)) {
					return
				}
			}
			if terminal(task.Status) {
				ended[id] = true
			}
		}
		if len(ended) == len(agreed) {
			break
		}
		select {
		case <-ctx.Done(): // the client went (the write below fails), or the handler closes
			break watch
		case <-tick.C:
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"resultType": "complete", "_meta": map[string]any{subscriptionKey: subscription}}})
}

// withoutUpdatedAt is a task's JSON without its lastUpdatedAt, which a
// working task's carries as now: a change of it alone is no change.
func withoutUpdatedAt(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	delete(m, "lastUpdatedAt")
	out, _ := json.Marshal(m)
	return out
}
