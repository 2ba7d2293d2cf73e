// Package tooldef is the runtime of the tool tables jobgen generates from a
// spec's tools section (spec/README.md, "Tools"; decision 0207), as package
// codec is the runtime of its types and httproute of its routes: a
// generated package with tools has Tools, its table, and a function per
// tool returning its Tool. It knows no vocabulary and runs no tool; package
// agenttools binds tools to handlers, and agenttools/mcpserver serves them
// over MCP.
package tooldef

import (
	"encoding/json"
	"fmt"
)

// A Tool is what a model-facing tool says of itself: its name, the
// description a model reads, the JSON Schemas of its input and result,
// each a document of its own (no $ref), and what it tells a client of its
// effects and of running as a task. Its JSON is what a client is shown.
type Tool struct {
	Name string `json:"name"`
	// Title is the tool's name for people, such as "List jobs".
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// Input and Result are the records the tool takes and returns, as the
	// spec writes them ("JobList", "jobs.JobSnapshot"); empty for a tool
	// not declared in a spec. They are Go's to read, not a client's.
	Input  string `json:"-"`
	Result string `json:"-"`
	// InputSchema is the schema of the tool's arguments, a JSON object;
	// OutputSchema that of its result, or nil for none.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the tool's hints to a client (MCP's annotations);
	// nil says nothing.
	Annotations *Annotations `json:"annotations,omitempty"`
	// TaskSupport says whether the tool can run as a task: its call then
	// stands for a job, which a task protocol follows to its end.
	TaskSupport TaskSupport `json:"taskSupport,omitzero"`
}

// Annotations are what a tool tells a client about its effects, so that
// the client can decide what to confirm with a person and what it may
// retry. They are MCP's readOnlyHint, destructiveHint, idempotentHint and
// openWorldHint.
type Annotations struct {
	ReadOnly    bool `json:"readOnly,omitempty"`    // it changes nothing
	Destructive bool `json:"destructive,omitempty"` // it may end or undo work
	Idempotent  bool `json:"idempotent,omitempty"`  // calling it twice does what once does
	OpenWorld   bool `json:"openWorld,omitempty"`   // it reaches beyond the runtime
}

// A TaskSupport says whether a tool can run as a task (MCP's
// execution.taskSupport).
type TaskSupport int

// The task supports. The zero value is TaskForbidden, as a tool that says
// nothing is in MCP.
const (
	TaskForbidden TaskSupport = iota // never as a task
	TaskOptional                     // as a task when the client asks for one
	TaskRequired                     // only as a task: a call without one is refused
)

var taskSupportNames = [...]string{"forbidden", "optional", "required"}

// String names t as MCP writes it.
func (t TaskSupport) String() string {
	if t < 0 || int(t) >= len(taskSupportNames) {
		return fmt.Sprintf("TaskSupport(%d)", int(t))
	}
	return taskSupportNames[t]
}

// MarshalText writes t as MCP does; a value outside the three is refused.
func (t TaskSupport) MarshalText() ([]byte, error) {
	if t < 0 || int(t) >= len(taskSupportNames) {
		return nil, fmt.Errorf("tooldef: %v is no task support", t)
	}
	return []byte(taskSupportNames[t]), nil
}

// UnmarshalText reads t as MCP writes it.
func (t *TaskSupport) UnmarshalText(text []byte) error {
	for i, name := range taskSupportNames {
		if string(text) == name {
			*t = TaskSupport(i)
			return nil
		}
	}
	return fmt.Errorf("tooldef: %q is no task support (forbidden, optional or required)", text)
}

// Tasks reports whether t lets a tool run as a task.
func (t TaskSupport) Tasks() bool { return t == TaskOptional || t == TaskRequired }
