package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
)

// MCP tasks, backed by jobs (decision 0161). The Go SDK implements neither
// form, so jobgen serves them on its hooks:
//
//   - 2025-11-25, tasks in the core protocol: a tools/call whose params
//     carry "task" ({"ttl": …}) answers {"task": Task}; tasks/get answers
//     the Task, tasks/result waits for settlement and answers the tool's
//     result, tasks/list the caller's tasks, tasks/cancel the Task after
//     asking the job to stop. The server says so in its capabilities
//     ("tasks": {list, cancel, requests.tools.call}), the tools in
//     execution.taskSupport.
//   - 2026-07-28, the io.modelcontextprotocol/tasks extension: a tools/call
//     from a client whose per-request capabilities name the extension
//     answers {"resultType": "task", …Task}; tasks/get answers the task
//     with its result inlined once it has one, tasks/cancel an empty
//     acknowledgement, tasks/update is refused (no job asks for input).
//
// The task id is the JobID, and the task's state is the job's, read
// through the caller's Toolset — fenced by its session, so another
// session's task is unknown, exactly as an id nobody issued — from the
// registry, or from the job's facts in the history once the registry no
// longer holds it (after a restart). Nothing else is kept: a task outlives
// its MCP session and its process because the job's facts do.
//
// In a fleet, a task request about a job of another host is forwarded to
// that host before any of this runs (fleet.go).

const (
	// tasksExtension names the 2026-07-28 extension.
	tasksExtension = "io.modelcontextprotocol/tasks"
	// relatedTaskKey is the _meta key that ties a result to its task.
	relatedTaskKey = "io.modelcontextprotocol/related-task"
	// liftedTaskKey is where the 2025-11-25 "task" param of a tools/call
	// is moved to, in the request's _meta, before the SDK decodes the
	// params (which would drop it): see liftTask.
	liftedTaskKey = "jobgen.dev/task"
	// pollInterval is the polling interval a task suggests.
	pollInterval = 500 // ms
)

// A form is which protocol's tasks a request speaks.
type form int

const (
	noTask form = iota
	form20251125
	form20260728
)

// taskForm says whether, and in which form, a tools/call asks for a task.
func taskForm(req *sdk.CallToolRequest) form {
	if req.ProtocolVersion() >= "2026-07-28" {
		if caps := req.ClientCapabilities(); caps != nil {
			if _, ok := caps.Extensions[tasksExtension]; ok {
				return form20260728
			}
		}
		return noTask
	}
	if _, ok := req.Params.Meta[liftedTaskKey]; ok {
		return form20251125
	}
	return noTask
}

// formOf is the form of a tasks/* request: 2026-07-28 when its _meta says
// so, else 2025-11-25's.
func formOf(meta sdk.Meta) form {
	if v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string); v >= "2026-07-28" {
		return form20260728
	}
	return form20251125
}

// A wireTask is a task as both forms write it; the members of the other
// form are left out.
type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int    `json:"pollInterval"`
}

// A modernTask is a task of the 2026-07-28 extension: ttlMs and
// pollIntervalMs, the result or error inlined, and the result type.
type modernTask struct {
	sdk.ResultBase
	ResultType     string         `json:"resultType,omitempty"`
	TaskID         string         `json:"taskId"`
	Status         string         `json:"status"`
	StatusMessage  string         `json:"statusMessage,omitempty"`
	CreatedAt      string         `json:"createdAt"`
	LastUpdatedAt  string         `json:"lastUpdatedAt"`
	TTLMs          *int64         `json:"ttlMs"`
	PollIntervalMs int            `json:"pollIntervalMs"`
	Result         *callResult    `json:"result,omitempty"`
	Error          *jsonrpc.Error `json:"error,omitempty"`
}

// taskOf is the task of a job's state.
func taskOf(st agenttools.JobState) wireTask {
	snap := st.Snapshot
	t := wireTask{
		TaskID:        snap.ID.String(),
		CreatedAt:     millis(snap.StartedAt),
		LastUpdatedAt: millis(max(snap.FinishedAt, snap.StartedAt)),
		PollInterval:  pollInterval,
		StatusMessage: snap.Detail,
	}
	switch {
	case st.Lost:
		t.Status = "failed"
		t.StatusMessage = "lost: the process that ran the job ended before the job did"
	case snap.Status == jobs.JobStatusCompleted:
		t.Status = "completed"
	case snap.Status == jobs.JobStatusFailed:
		t.Status = "failed"
	case snap.Status == jobs.JobStatusKilled:
		t.Status = "cancelled"
	default:
		t.Status = "working"
		t.LastUpdatedAt = millis(time.Now().UnixMilli())
	}
	return t
}

func millis(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

func terminal(status string) bool { return status != "working" && status != "input_required" }

// modern is t in the 2026-07-28 form.
func modern(t wireTask, resultType string) *modernTask {
	return &modernTask{ResultType: resultType, TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, PollIntervalMs: t.PollInterval}
}

// A createTaskResult is a 2025-11-25 tools/call's answer as a task.
type createTaskResult struct {
	sdk.ResultBase
	Task wireTask `json:"task"`
}

// A flatTask is a 2025-11-25 answer that is a Task (tasks/get,
// tasks/cancel).
type flatTask struct {
	sdk.ResultBase
	wireTask
}

// startTask runs tool as a task: a start tool starts its job, job_wait
// names one; either way the task is the job, answered at once.
func (srv *server) startTask(ctx context.Context, ts *agenttools.Toolset, req *sdk.CallToolRequest, tool agenttools.Tool, f form) (sdk.Result, error) {
	version := req.ProtocolVersion()
	var id jobs.JobID
	if tool.Name == "job_wait" {
		var in tools.JobWait
		if json.Unmarshal(req.Params.Arguments, &in) != nil {
			// Arguments that do not decode are told as the tool tells them.
			out, err := ts.Call(ctx, tool.Name, req.Params.Arguments)
			return toolResult(version, out, err), nil
		}
		id = in.JobID
	} else {
		out, err := ts.Call(ctx, tool.Name, req.Params.Arguments)
		if err != nil {
			return toolResult(version, out, err), nil
		}
		var started struct {
			JobID jobs.JobID `json:"jobId"`
		}
		if json.Unmarshal(out, &started) != nil {
			srv.log.Error("mcpserver: a start tool that runs as a task returned no jobId", "tool", tool.Name)
			return toolResult(version, nil, &agenttools.Error{Code: tools.ErrorCodeInternal, Message: "The runtime failed to do this."}), nil
		}
		id = started.JobID
	}
	st, err := ts.Job(ctx, id)
	if err != nil {
		return toolResult(version, nil, err), nil
	}
	t := taskOf(st)
	if f == form20260728 {
		return modern(t, "task"), nil
	}
	return &createTaskResult{Task: t}, nil
}

// taskParams are the params of tasks/get, tasks/result, tasks/cancel and
// tasks/update.
type taskParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
	// Cursor is tasks/list's.
	Cursor string `json:"cursor,omitempty"`
}

// A listTasksResult is tasks/list's answer.
type listTasksResult struct {
	sdk.ResultBase
	Tasks []wireTask `json:"tasks"`
}

// An ackResult is the empty acknowledgement of the 2026-07-28 form.
type ackResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
}

// addTaskMethods registers tasks/get, tasks/result, tasks/list,
// tasks/cancel and tasks/update.
func (srv *server) addTaskMethods(s *sdk.Server) {
	must := func(err error) {
		if err != nil {
			panic(err) // the methods are not the SDK's: it cannot refuse them
		}
	}
	must(sdk.AddReceivingCustomMethod(s, "tasks/get", srv.getTask))
	must(sdk.AddReceivingCustomMethod(s, "tasks/result", srv.resultOfTask))
	must(sdk.AddReceivingCustomMethod(s, "tasks/list", srv.listTasks))
	must(sdk.AddReceivingCustomMethod(s, "tasks/cancel", srv.cancelTask))
	must(sdk.AddReceivingCustomMethod(s, "tasks/update", srv.updateTask))
}

// getTask is tasks/get: the task, in its request's form; at 2026-07-28 with its result or error inlined once it has one.
func (srv *server) getTask(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	ts, st, err := srv.task(ctx, p)
	if err != nil {
		return nil, err
	}
	if formOf(p.Meta) == form20251125 {
		return &flatTask{wireTask: taskOf(st)}, nil
	}
	return detailedTask(ts, st, "complete"), nil
}

// detailedTask is the 2026-07-28 task of st, with its result or error
// inlined once it has one: what tasks/get answers and a notifications/tasks
// carries.
func detailedTask(ts *agenttools.Toolset, st agenttools.JobState, resultType string) *modernTask {
	t := taskOf(st)
	m := modern(t, resultType)
	if terminal(t.Status) {
		switch t.Status {
		case "failed":
			m.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.StatusMessage + ": " + ts.Notice(st.Snapshot)}
		default:
			m.Result = taskResult(ts, st, "2026-07-28")
		}
	}
	return m
}

// resultOfTask is tasks/result: it waits for the job to settle, sending its progress line when the request has a token, and answers the task's result.
func (srv *server) resultOfTask(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	ts, st, err := srv.task(ctx, p)
	if err != nil {
		return nil, err
	}
	if !st.FromHistory && !st.Snapshot.Status.Terminal() {
		stop := srv.progressOf(ctx, ss, ts, st.Snapshot.ID, p.Meta["progressToken"])
		_, _, err = ts.WaitJob(ctx, st.Snapshot.ID, 0)
		stop()
		if err != nil {
			return nil, err
		}
		if st, err = ts.Job(ctx, st.Snapshot.ID); err != nil {
			return nil, err
		}
	}
	res := taskResult(ts, st, "")
	res.Meta = sdk.Meta{relatedTaskKey: map[string]any{"taskId": st.Snapshot.ID.String()}}
	return res, nil
}

// listTasks is tasks/list: the caller's own live jobs as tasks.
func (srv *server) listTasks(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	ts, ok := srv.toolset(ctx)
	if !ok {
		return nil, errNoToolset
	}
	res := &listTasksResult{Tasks: []wireTask{}}
	for _, snap := range ts.Jobs() {
		if snap.Owner == ts.Caller().Session { // the caller's own, not the unowned
			res.Tasks = append(res.Tasks, taskOf(agenttools.JobState{Snapshot: snap}))
		}
	}
	return res, nil
}

// cancelTask is tasks/cancel: Kill; a finished task's cancel is refused at 2025-11-25 and acknowledged at 2026-07-28.
func (srv *server) cancelTask(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	ts, st, err := srv.task(ctx, p)
	if err != nil {
		return nil, err
	}
	f := formOf(p.Meta)
	if terminal(taskOf(st).Status) {
		if f == form20251125 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task " + p.TaskID + " has already finished"}
		}
		return &ackResult{ResultType: "complete"}, nil
	}
	if err := ts.KillJob(st.Snapshot.ID, "cancelled with tasks/cancel"); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if f == form20260728 {
		return &ackResult{ResultType: "complete"}, nil
	}
	if st, err = ts.Job(ctx, st.Snapshot.ID); err != nil {
		return nil, err
	}
	return &flatTask{wireTask: taskOf(st)}, nil
}

// updateTask is tasks/update, which no task takes: no job asks for input.
func (srv *server) updateTask(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	if _, _, err := srv.task(ctx, p); err != nil {
		return nil, err
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task " + p.TaskID + " asks for no input"}
}

// task finds the task p names, fenced by the caller's session: another
// session's task, an id nobody issued and one that is no JobID all answer
// the same error.
func (srv *server) task(ctx context.Context, p *taskParams) (*agenttools.Toolset, agenttools.JobState, error) {
	ts, ok := srv.toolset(ctx)
	if !ok {
		return nil, agenttools.JobState{}, errNoToolset
	}
	unknown := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no task " + registry.ValidUTF8(cut(p.TaskID, 64)) + " is visible to you"}
	id, ok := parseTaskID(p.TaskID)
	if !ok {
		return nil, agenttools.JobState{}, unknown
	}
	st, err := ts.Job(ctx, id)
	if err != nil {
		return nil, agenttools.JobState{}, unknown
	}
	return ts, st, nil
}

// parseTaskID is the JobID a task id is, if it is one (not the nil one).
func parseTaskID(taskID string) (jobs.JobID, bool) {
	var id jobs.JobID
	if err := json.Unmarshal([]byte(`"`+strings.ReplaceAll(taskID, `"`, ``)+`"`), &id); err != nil || id == (jobs.JobID{}) {
		return jobs.JobID{}, false
	}
	return id, true
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// taskResult is a settled task's result: what job_wait answers for its
// job, with its id and name (the members a start tool's result has), as
// structured content and text, and the job's output as the registry keeps
// it (its record, read without consuming, so every poll answers the same)
// as a second text block. A task read from the history has no output.
func taskResult(ts *agenttools.Toolset, st agenttools.JobState, version string) *callResult {
	w := ts.WaitResult(st)
	body := struct {
		JobID jobs.JobID `json:"jobId"`
		Name  string     `json:"name"`
		tools.JobWaitResult
	}{st.Snapshot.ID, st.Snapshot.Name, w}
	data, err := json.Marshal(body)
	if err != nil {
		return toolResult(version, nil, err)
	}
	res := toolResult(version, data, nil)
	if !st.FromHistory {
		if out, lossy := ts.Record(st.Snapshot.ID); out != "" {
			if lossy {
				out = "[earlier output was not kept]\n" + out
			}
			res.Content = append(res.Content, &sdk.TextContent{Text: out})
		}
	}
	return res
}

// An initializeResult is initialize's answer with capabilities the SDK's
// type cannot hold: the 2025-11-25 "tasks" member.
type initializeResult struct {
	sdk.ResultBase
	Capabilities    map[string]any      `json:"capabilities"`
	Instructions    string              `json:"instructions,omitempty"`
	ProtocolVersion string              `json:"protocolVersion"`
	ServerInfo      *sdk.Implementation `json:"serverInfo"`
}

// withTaskCapability is init with the server's tasks capability, at the
// version that has tasks in the core protocol.
func withTaskCapability(init *sdk.InitializeResult) sdk.Result {
	if init.ProtocolVersion != "2025-11-25" {
		return init
	}
	var caps map[string]any
	data, err := json.Marshal(init.Capabilities)
	if err != nil || json.Unmarshal(data, &caps) != nil {
		return init
	}
	if caps == nil {
		caps = map[string]any{}
	}
	delete(caps, "extensions") // the extension is 2026-07-28's form
	caps["tasks"] = map[string]any{
		"list":     map[string]any{},
		"cancel":   map[string]any{},
		"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
	}
	res := &initializeResult{Capabilities: caps, Instructions: init.Instructions, ProtocolVersion: init.ProtocolVersion, ServerInfo: init.ServerInfo}
	res.Meta = init.Meta
	return res
}
