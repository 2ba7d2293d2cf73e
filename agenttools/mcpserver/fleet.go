package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// In a fleet of hosts on one history (decision 0221), a task's job runs on
// one host, and its live state (the registry's snapshot, the output, the
// wait, the kill) is that host's alone: another host reading the shared
// facts would see a job registered and not settled, and call it lost. So a
// request that names a task whose job this host does not hold goes to the
// host that owns it, through the fleet's signed forwarding
// (WithFleet, a jobhttp.Fleet): only to a host the operator
// configured, for the caller's session as this handler authenticated it,
// and fenced there again by that session. A task the fleet does not place
// under the caller's session (another session's, an id nobody issued) is
// not forwarded: this host answers it, with the one "unknown task" error.

// A Forwarder forwards a request about a job to the host of the fleet
// that owns it; jobhttp.Fleet is one (its ForwardJob documents the rules).
type Forwarder interface {
	// ForwardJob returns the handler that serves r, a request of session
	// about the job id, at the job's host; nil, nil when this host serves
	// it; an error when the job's host cannot be reached through the
	// fleet, which the caller is told.
	ForwardJob(r *http.Request, session jobs.SessionID, id jobs.JobID) (http.Handler, error)
}

// taskMethods are the requests that name a task (params.taskId).
var taskMethods = map[string]bool{"tasks/get": true, "tasks/result": true, "tasks/cancel": true, "tasks/update": true}

// jobTools are the tools whose call names a job (arguments.jobId): in a
// fleet they go where the job runs, as its task's requests do, so job_wait
// (plain or as a task), job_output and job_kill see the job live.
var jobTools = map[string]bool{"job_wait": true, "job_output": true, "job_kill": true}

// A taskRequest is what routing reads of a request body: one JSON-RPC
// request, not a batch.
type taskRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		TaskID    string `json:"taskId"`
		Name      string `json:"name"`
		Arguments struct {
			JobID string `json:"jobId"`
		} `json:"arguments"`
	} `json:"params"`
}

// forward serves r at the host that owns the job of the task its body
// names (or the job a job tool's call names), when that is another host,
// and reports whether it did (or refused the request). The body's taskId decides, not the Mcp-Name
// header; a request whose header names another task than its body is
// refused, as the SDK refuses a tools/call whose Mcp-Name is not its
// tool's, so that nothing in front of the fleet that routes by the header
// sends it elsewhere than the body says.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, session jobs.SessionID, ts *agenttools.Toolset, body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !bytes.Contains(trimmed, []byte(`"taskId"`)) && !bytes.Contains(trimmed, []byte(`"jobId"`)) {
		return false
	}
	var req taskRequest
	if json.Unmarshal(trimmed, &req) != nil || len(req.ID) == 0 {
		return false
	}
	var named string
	switch {
	case taskMethods[req.Method]:
		named = req.Params.TaskID
		if name := r.Header.Get("Mcp-Name"); name != "" && name != named {
			http.Error(w, fmt.Sprintf("header mismatch: Mcp-Name header value %q does not match body value %q", registry.ValidUTF8(cut(name, 64)), registry.ValidUTF8(cut(named, 64))), http.StatusBadRequest)
			return true
		}
	case req.Method == "tools/call" && jobTools[req.Params.Name]:
		named = req.Params.Arguments.JobID // the SDK checks Mcp-Name against the tool's name
	default:
		return false
	}
	id, ok := parseTaskID(named)
	if !ok || slices.ContainsFunc(ts.Jobs(), func(s jobs.JobSnapshot) bool { return s.ID == id }) {
		return false // no task at all (answered here), or a live job of this host
	}
	fwd, err := h.opts.Fleet.ForwardJob(r, session, id)
	if err != nil {
		h.log.Warn("mcpserver: a task's host is not reachable through the fleet", "task", id, "session", session, "err", err)
		writeRPCError(w, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "task " + id.String() + " runs on a host this server cannot reach: " + err.Error()})
		return true
	}
	if fwd == nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	fwd.ServeHTTP(w, r)
	return true
}

// writeRPCError answers a JSON-RPC request id with e.
func writeRPCError(w http.ResponseWriter, id json.RawMessage, e *jsonrpc.Error) {
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	if err != nil { // every member is JSON already
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}
