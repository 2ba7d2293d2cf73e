package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
)

// An Error is a failed tool call as the model is told of it: a stable code
// and a sentence saying what went wrong and what to do. Its JSON (see
// JSON) is a tools.ToolError. Every error Toolset.Call returns is one; the
// Go error behind it, which may name internals, is never in Message.
type Error struct {
	Code    tools.ErrorCode
	Message string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is reports whether target is an Error of the same code, so callers
// branch with errors.Is against the sentinels below.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// JSON returns the error as the model is handed it, a tools.ToolError.
func (e *Error) JSON() json.RawMessage {
	data, err := json.Marshal(tools.ToolError{Code: e.Code, Message: e.Message})
	if err != nil { // only an ErrorCode outside the enum fails, which no Error holds
		data, _ = json.Marshal(tools.ToolError{Code: tools.ErrorCodeInternal, Message: e.Message})
	}
	return data
}

// The errors.Is targets, one per code a caller is likely to branch on.
var (
	ErrInvalidArguments = &Error{Code: tools.ErrorCodeInvalidArguments}
	ErrUnknownTool      = &Error{Code: tools.ErrorCodeUnknownTool}
	ErrUnknownJob       = &Error{Code: tools.ErrorCodeUnknownJob}
	ErrInternal         = &Error{Code: tools.ErrorCodeInternal}
)

func fail(code tools.ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// unknownJob is the one answer for a job the caller may not see: an id
// that was never issued, one removed, and another session's job read the
// same, so that a model cannot probe for other sessions' ids.
func unknownJob(id jobs.JobID) *Error {
	return fail(tools.ErrorCodeUnknownJob, "No job with id %s is visible to you. Call job_list to see the jobs you can use, with their ids.", id)
}

// jobError maps an error of the registry, from a call about job id, to
// what the model is told; ok is false for an error that is not the
// registry's (or the context's), which the caller maps itself.
func jobError(err error, id jobs.JobID) (e *Error, ok bool) {
	switch {
	case errors.Is(err, registry.ErrUnknownJob), errors.Is(err, registry.ErrForeignJob):
		return unknownJob(id), true
	case errors.Is(err, registry.ErrTooManyJobs):
		return fail(tools.ErrorCodeTooManyJobs, "You already run as many jobs as you may. Wait for one to finish (job_wait) or stop one (job_kill), then start again."), true
	case errors.Is(err, registry.ErrClosed):
		return fail(tools.ErrorCodeUnavailable, "The runtime is shutting down and starts no more jobs."), true
	case errors.Is(err, registry.ErrInvalidStart):
		return fail(tools.ErrorCodeInvalidArguments, "The runtime refused to start this job as described: check the arguments."), true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fail(tools.ErrorCodeCancelled, "The call was cancelled before it finished."), true
	}
	return nil, false
}

// subagentError maps an error of the continuation manager, from a call of
// tool about child (empty when there is none yet), to what the model is
// told; ok is false for an error that is not the manager's.
func subagentError(err error, tool string, child jobs.SessionID) (e *Error, ok bool) {
	var depth *subagent.DepthError
	if errors.As(err, &depth) {
		return fail(tools.ErrorCodeDepthExceeded, "Subagents may not nest this deep (%d levels at most). Do the work yourself, or send it to a subagent you already have.", depth.Max), true
	}
	var se *subagent.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fail(tools.ErrorCodeCancelled, "The call was cancelled before it finished."), true
		}
		return nil, false
	}
	who := "the subagent"
	if child != "" {
		who = "subagent " + string(child)
	}
	switch se.Code {
	case subagents.ErrorCodeUnauthorized:
		switch {
		case tool == "report":
			return fail(tools.ErrorCodeUnauthorized, "You were not started by an agent you can report to: report is for subagents."), true
		case child != "":
			return fail(tools.ErrorCodeUnauthorized, "You can send messages only to the subagents you started, and %s is not one of them. Call job_list to see yours.", child), true
		}
		return fail(tools.ErrorCodeUnauthorized, "The runtime does not know you as a live agent, so you cannot start subagents."), true
	case subagents.ErrorCodeNotResumable:
		return fail(tools.ErrorCodeNotResumable, "The history of %s cannot be continued. Do not send it more messages; start a new subagent if you need one.", who), true
	case subagents.ErrorCodeParentUnavailable:
		return fail(tools.ErrorCodeParentUnavailable, "The agent that started you is not running, so the report was not delivered. Finish your turn with the report as your closing message."), true
	case subagents.ErrorCodeDraining, subagents.ErrorCodeActivationClosing:
		return fail(tools.ErrorCodeClosing, "This is being shut down and accepts nothing more. Finish your turn."), true
	case subagents.ErrorCodeNoProvider:
		return fail(tools.ErrorCodeNoProvider, "No subagent provider of that name exists."), true
	case subagents.ErrorCodeUnsupportedCapability:
		return fail(tools.ErrorCodeUnsupported, "This provider cannot start a subagent like this."), true
	case subagents.ErrorCodeDuplicateChild:
		return fail(tools.ErrorCodeDuplicateChild, "A subagent with that id already exists."), true
	case subagents.ErrorCodeContinuationUnavailable, subagents.ErrorCodePersistenceUnavailable:
		return fail(tools.ErrorCodeUnavailable, "This runtime cannot run subagents that keep their history. Do not retry."), true
	case subagents.ErrorCodeInvalidRequest:
		return fail(tools.ErrorCodeInvalidArguments, "The request is incomplete: a subagent needs a label and a prompt."), true
	case subagents.ErrorCodeCancelled:
		return fail(tools.ErrorCodeCancelled, "The call was cancelled before it finished."), true
	}
	return nil, false
}

// internal is the answer for a failure the model cannot fix; the error
// itself goes to the log, never to the model.
func internal() *Error {
	return fail(tools.ErrorCodeInternal, "The runtime failed to do this. Try again later; if it keeps failing, say so.")
}

// unknownTool names the tools the caller has.
func unknownTool(name string, have []string) *Error {
	return fail(tools.ErrorCodeUnknownTool, "There is no tool %q here. The tools are: %s.", name, strings.Join(have, ", "))
}
