package gen

// The model of a spec's tools section (decision 0207): the model-facing
// tools whose input and result records the spec declares, with what each
// tells a model and its client. Like the rest of the model it is plain
// data in spec order; Validate checks the records and the hints.

// A Tool is one tool a model calls: its name, the description a model
// reads, the records it takes and returns, and what it tells a client of
// its effects and of running as a task.
type Tool struct {
	Name   string // as a model calls it: "job_output"
	GoName string // the name camel-cased, "JobOutput"; see FuncName
	Title  string // its name for people, such as "Read a job's new output"; may be empty
	Doc    string // the description a model reads
	Pos    Pos
	// Input is the record whose object the tool takes, a record of the
	// spec; Result the record it returns, of the spec or an imported one,
	// nil for a tool that returns none.
	Input  *Type
	Result *Type
	Hints  Hints
	// TaskSupport says whether the tool can, or must, run as a task.
	TaskSupport    TaskSupport
	TaskSupportPos Pos
}

// FuncName is the name of the Go function that returns the tool's
// definition: the Go name and "Tool", JobOutputTool.
func (t *Tool) FuncName() string { return t.GoName + "Tool" }

// Hints are what a tool tells a client of its effects, as MCP's tool
// annotations say them: a client decides from them what to confirm with a
// person, and what it may retry. A hint the spec leaves out is false.
type Hints struct {
	ReadOnly    bool // readOnlyHint: it changes nothing
	Destructive bool // destructiveHint: it may end or undo work
	Idempotent  bool // idempotentHint: calling it twice does what once does
	OpenWorld   bool // openWorldHint: it reaches beyond the runtime
	// DestructiveSaid reports that the spec states destructiveHint, which a
	// tool that is not read-only must (MCP reads its absence as true).
	DestructiveSaid bool
	Pos             Pos // the annotations key; the tool's name when there is none
}

// HintKeys are the keys of a tool's annotations, MCP's names.
var HintKeys = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Said names the hints that are true, in HintKeys' order, in words:
// "read-only", "destructive", "idempotent", "open world".
func (h Hints) Said() []string {
	var out []string
	for i, set := range []bool{h.ReadOnly, h.Destructive, h.Idempotent, h.OpenWorld} {
		if set {
			out = append(out, [...]string{"read-only", "destructive", "idempotent", "open world"}[i])
		}
	}
	return out
}

// A TaskSupport says whether a tool can run as a task of a task protocol
// (MCP's execution.taskSupport): its call then stands for work a client
// follows to its end.
type TaskSupport int

// The task supports. The zero value is TaskForbidden, as a tool that says
// nothing is in MCP.
const (
	TaskForbidden TaskSupport = iota // never as a task
	TaskOptional                     // as a task when the client asks for one
	TaskRequired                     // only as a task
)

// TaskSupports returns every task support in the order documentation
// lists them.
func TaskSupports() []TaskSupport { return []TaskSupport{TaskForbidden, TaskOptional, TaskRequired} }

// String names the task support as the spec and MCP write it.
func (t TaskSupport) String() string {
	return [...]string{"forbidden", "optional", "required"}[t]
}
