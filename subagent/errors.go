package subagent

import (
	"context"
	"fmt"

	"github.com/jobgen/jobgen/generated/subagents"
)

// An Error is a failure of the continuation manager, classified by its Code.
// Callers branch with errors.Is against the sentinels below, which match any
// Error of the same code:
//
//	if errors.Is(err, subagent.ErrNotResumable) { /* do not retry */ }
type Error struct {
	// Code classifies the failure.
	Code subagents.ErrorCode
	// Msg says what failed, for people.
	Msg string
	// Err is the cause, when there is one (a host's or store's error, the
	// context's cause); errors.Is and errors.As reach it.
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.Msg == "" && e.Err == nil:
		return "subagent: " + string(e.Code)
	case e.Err == nil:
		return "subagent: " + e.Msg
	case e.Msg == "":
		return "subagent: " + string(e.Code) + ": " + e.Err.Error()
	}
	return "subagent: " + e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an Error of the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The errors.Is targets, one per code.
var (
	ErrContinuationUnavailable = &Error{Code: subagents.ErrorCodeContinuationUnavailable}
	ErrPersistenceUnavailable  = &Error{Code: subagents.ErrorCodePersistenceUnavailable}
	ErrNoProvider              = &Error{Code: subagents.ErrorCodeNoProvider}
	ErrDuplicateProvider       = &Error{Code: subagents.ErrorCodeDuplicateProvider}
	ErrUnsupportedCapability   = &Error{Code: subagents.ErrorCodeUnsupportedCapability}
	ErrDuplicateChild          = &Error{Code: subagents.ErrorCodeDuplicateChild}
	ErrDraining                = &Error{Code: subagents.ErrorCodeDraining}
	ErrUnauthorized            = &Error{Code: subagents.ErrorCodeUnauthorized}
	ErrActivationClosing       = &Error{Code: subagents.ErrorCodeActivationClosing}
	ErrParentUnavailable       = &Error{Code: subagents.ErrorCodeParentUnavailable}
	ErrNotResumable            = &Error{Code: subagents.ErrorCodeNotResumable}
	ErrActivationTeardown      = &Error{Code: subagents.ErrorCodeActivationTeardownFailed}
	ErrCancelled               = &Error{Code: subagents.ErrorCodeCancelled}
	ErrInvalidRequest          = &Error{Code: subagents.ErrorCodeInvalidRequest}
)

func newError(code subagents.ErrorCode, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// cancelled returns nil while ctx is live, else an ErrCancelled wrapping the
// context's cause (so errors.Is(err, context.Canceled) holds too).
func cancelled(ctx context.Context, what string) error {
	if ctx.Err() == nil {
		return nil
	}
	return &Error{Code: subagents.ErrorCodeCancelled, Msg: what, Err: context.Cause(ctx)}
}

// A DepthError refuses a child deeper than the request's MaxDepth allows.
type DepthError struct {
	Depth, Max int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("subagent depth %d exceeds maxDepth %d", e.Depth, e.Max)
}
