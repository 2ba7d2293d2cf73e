// Package agenttools gives agents — the users of a job runtime — the tools
// to watch and steer their jobs and subagents: job_list, job_output,
// job_wait, job_kill, and for an agent of a subagent.Service,
// subagent_start, send_message and report. What each tool says of itself —
// its name, title, description, hints, task support and the JSON Schemas
// of its input and result — is spec/tools.yaml's tools section, read from
// the generated table (tools.Tools(); decision 0207): none of it is written
// here. Each call decodes its arguments with the generated decoders of
// generated/tools, which refuse a value beyond its field's bound.
//
// # Toolsets
//
// New binds the tools to a registry (and, with WithSubagents, a subagent
// service); For and ForAgent make the Toolset of one caller. Every call
// is fenced by the caller's session exactly as the registry fences reads:
// another session's job and a job that does not exist get the same answer,
// unknownJob, so a model cannot probe for ids. send_message and report are
// authorized by the manager against the very agent value the Toolset was
// made for, as the manager authorizes everything.
//
// Call never returns a Go error of the layers below: a failure is an *Error,
// a stable tools.ErrorCode and a sentence saying what to do, whose JSON (a
// tools.ToolError) is what the model is handed; the error behind it goes to
// the logger. A panicking tool is contained the same way. Go errors name
// internals (addresses, pids, file paths), so returning them for the runtime
// to format would let every runtime leak something; and tools.ErrorCode is
// an enum of its own rather than subagents.ErrorCode, whose codes describe
// the manager and cover no job error. For send_message, a child with no
// history and another parent's child both read as unauthorized, for the same
// reason as unknownJob. A bad argument is told in the input schema's terms
// (which argument, what it must be), found by reading the arguments again
// against the schema, not by parsing a decoder's message.
//
// # job_output, the consuming cursor
//
// job_output reads with Registry.Read, the model's consuming cursor, which
// is separate from the record (Registry.ReadRecord never consumes). A call
// returns at most a byte budget (tools.DefaultOutputBytes unless the model
// asks for less, tools.DefaultMaxOutputBytes at most), cut on a rune
// boundary; the rest of what the read took waits in the Tools, by job, and
// the result says how many bytes wait and that another call reads on. What
// waits ends with the job (Registry.Remove) or its session
// (Registry.DisposeOwner), as does the list of subagents a parent started,
// whether or not the session calls again. What waits is kept by the Tools,
// not by a Toolset, because a Toolset lives as long as its caller's
// connection, and bytes consumed from the registry must outlive the
// connection that took them; every use is fenced first by a registry call
// with the caller's session, so a foreign or unknown id never reaches it.
// Nothing is read from the registry while something waits, so the wait is
// bounded by one read. Once a read saw the job settled, no further read is
// made: a producer without ReadOutput hands its final output out once, not
// at every call. A job that settled with a result (JobOutcome.Result) has it
// in the result member of the call that returns the last of its output,
// once, as the registry's Read hands it once. A rune a read cut short waits
// for its rest, so the text does not depend on how reads split; a budget
// below 4 bytes is read as 4, so a call always makes progress. Paging by
// offset over Registry.ReadRecord instead would not consume, and the record
// keeps only a bounded window; returning everything at once would blow a
// model's context with a job's megabytes of output.
//
// # Notices
//
// JobNotice and SubagentNotice turn a settlement into the one line a model
// is told, bounded to a byte budget (tools.DefaultNoticeBytes by default):
// the full JobID (or child id) whenever the budget can hold it, and a
// pointer to job_list, which lists both, when it cannot. A model acts on a
// notice only through the id in it, so the text is given up piece by piece
// and the id last: cutting the full text at the budget would lose the id
// exactly when it matters.
//
// # Start tools
//
// Which jobs an agent may start is the runtime's decision: a runtime offers
// its own start tools (WithStartTool), such as a shell tool that starts a
// procjob owned by the caller's session, and the Toolset lists and calls
// them beside its own, with the same error contract. A start tool declared
// in the runtime's own spec is bound with NewStartTool, which decodes and
// checks its arguments as the built-in tools' are. The library has no shell
// tool of its own: every runtime has its own sandbox, limits and commands,
// and the library would have to grow options for all of them.
//
// A start tool may also run its work in the foreground with a timeout and
// promote what outlives it (procjob's RunForeground and Offer, registered
// with Registry.Promote; decision 0191): the call returns the job's id
// with the output so far, and the job is then like any other. Its
// job_output reads on right after that output (the model's cursor is the
// producer's, which the foreground call read from), job_wait and its
// notice tell its end, the end of the call that promoted it does not stop
// it, and job_kill does. examples/mcpjobs's shell tool does so with
// timeoutSeconds.
//
// # Titles, hints, tasks and history
//
// Each built-in tool has the title and Annotations its spec gives it, and
// its input schema forbids unknown arguments and states its fields'
// bounds. job_wait, and a start tool whose TaskSupport lets it, can run as
// a task of a task protocol (package agenttools/mcpserver): Toolset.Job,
// WaitJob, KillJob and WaitResult are what such a protocol reads and
// steers a job through, fenced as the tools are, and with WithHistory a job
// the registry no longer holds is read from its facts. Instructions tell a
// model how the tools fit together.
//
// # Model APIs
//
// InputSchemaTools and FunctionTools render a Toolset's tools in the two
// shapes the common model APIs take; package agenttools/mcpserver serves them
// over the Model Context Protocol.
package agenttools
