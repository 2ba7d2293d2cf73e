package agenttools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
)

var objectSchema = json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`)

// failing is a start tool that fails with err, or panics with it.
func failing(err error, panics bool) agenttools.StartTool {
	return agenttools.StartTool{
		Tool: agenttools.Tool{Name: "start", Description: "start starts.", InputSchema: objectSchema},
		Call: func(context.Context, agenttools.Caller, json.RawMessage) (json.RawMessage, error) {
			if panics {
				panic(err)
			}
			return nil, err
		},
	}
}

// Every error of the layers below reaches the model as a code and a
// sentence of its own; the Go error's text goes to the log only.
func TestErrorsOfTheLayersBelowAreToldAsCodes(t *testing.T) {
	secret := "pq: connection to 10.0.0.7 refused"
	tests := []struct {
		err  error
		code tools.ErrorCode
	}{
		{fmt.Errorf("registry: start: %s: %w", secret, registry.ErrTooManyJobs), tools.ErrorCodeTooManyJobs},
		{fmt.Errorf("registry: %s: %w", secret, registry.ErrClosed), tools.ErrorCodeUnavailable},
		{fmt.Errorf("registry: %s: %w", secret, registry.ErrInvalidStart), tools.ErrorCodeInvalidArguments},
		{fmt.Errorf("%s: %w", secret, context.Canceled), tools.ErrorCodeCancelled},
		{fmt.Errorf("%s: %w", secret, context.DeadlineExceeded), tools.ErrorCodeCancelled},
		{&subagent.Error{Code: "unauthorized", Msg: secret}, tools.ErrorCodeUnauthorized},
		{&subagent.Error{Code: "notResumable", Msg: secret}, tools.ErrorCodeNotResumable},
		{&subagent.Error{Code: "parentUnavailable", Msg: secret}, tools.ErrorCodeParentUnavailable},
		{&subagent.Error{Code: "draining", Msg: secret}, tools.ErrorCodeClosing},
		{&subagent.Error{Code: "activationClosing", Msg: secret}, tools.ErrorCodeClosing},
		{&subagent.Error{Code: "noProvider", Msg: secret}, tools.ErrorCodeNoProvider},
		{&subagent.Error{Code: "unsupportedCapability", Msg: secret}, tools.ErrorCodeUnsupported},
		{&subagent.Error{Code: "duplicateChild", Msg: secret}, tools.ErrorCodeDuplicateChild},
		{&subagent.Error{Code: "continuationUnavailable", Msg: secret}, tools.ErrorCodeUnavailable},
		{&subagent.Error{Code: "persistenceUnavailable", Msg: secret}, tools.ErrorCodeUnavailable},
		{&subagent.Error{Code: "invalidRequest", Msg: secret}, tools.ErrorCodeInvalidArguments},
		{&subagent.Error{Code: "cancelled", Msg: secret}, tools.ErrorCodeCancelled},
		{&subagent.Error{Code: "activationTeardownFailed", Msg: secret}, tools.ErrorCodeInternal},
		{fmt.Errorf("start: %w", &subagent.DepthError{Depth: 9, Max: 8}), tools.ErrorCodeDepthExceeded},
		{errors.New(secret), tools.ErrorCodeInternal},
		{&agenttools.Error{Code: tools.ErrorCodeTooManyJobs, Message: "the runtime's own sentence"}, tools.ErrorCodeTooManyJobs},
	}
	for _, tt := range tests {
		for _, panics := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v panics=%v", tt.err, panics), func(t *testing.T) {
				var log bytes.Buffer
				f := newFixture(t, agenttools.WithStartTool(failing(tt.err, panics)), agenttools.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
				e := callErr(t, f.tools.For("a"), "start", `{"cmd":"x"}`)
				want := tt.code
				if panics {
					want = tools.ErrorCodeInternal
				}
				if e.Code != want || e.Message == "" {
					t.Errorf("error = %s: %q, want %s", e.Code, e.Message, want)
				}
				if strings.Contains(e.Message, "10.0.0.7") {
					t.Errorf("the message %q leaks the Go error", e.Message)
				}
				if want == tools.ErrorCodeInternal && !strings.Contains(log.String(), "level=ERROR msg=\"agenttools: tool") {
					t.Errorf("an internal error was not logged: %q", log.String())
				}
			})
		}
	}
}

func TestStartToolsAreTheRuntimes(t *testing.T) {
	var got agenttools.Caller
	shell := agenttools.StartTool{
		Tool: agenttools.Tool{Name: "shell", Description: "shell runs a command as a job.", InputSchema: objectSchema},
		Call: func(_ context.Context, c agenttools.Caller, args json.RawMessage) (json.RawMessage, error) {
			got = c
			return json.RawMessage(`{"started":` + string(args) + `}`), nil
		},
	}
	f := newFixture(t, agenttools.WithStartTool(shell))
	s := f.tools.For("a")
	if names := s.Tools(); names[0].Name != "shell" || names[1].Name != "job_list" {
		t.Errorf("tools = %v, want the start tool first", names)
	}
	if out := call(t, s, "shell", `{"cmd":"ls"}`); string(out) != `{"started":{"cmd":"ls"}}` {
		t.Errorf("shell = %s", out)
	}
	if got.Session != "a" || got.Agent != nil {
		t.Errorf("the start tool was called for %+v, want session a", got)
	}

	bad := shell
	bad.Call = func(context.Context, agenttools.Caller, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"oops"`), nil
	}
	f2 := newFixture(t, agenttools.WithStartTool(bad))
	if e := callErr(t, f2.tools.For("a"), "shell", `{}`); e.Code != tools.ErrorCodeInternal {
		t.Errorf("invalid JSON from a start tool: %v, want internal", e)
	}
}

func TestNewRefusesAStartToolItCannotOffer(t *testing.T) {
	call := func(context.Context, agenttools.Caller, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	tests := []struct {
		name string
		st   agenttools.StartTool
		want string
	}{
		{"no name", agenttools.StartTool{Tool: agenttools.Tool{InputSchema: objectSchema}, Call: call}, "needs a name"},
		{"a built-in's name", agenttools.StartTool{Tool: agenttools.Tool{Name: "job_list", InputSchema: objectSchema}, Call: call}, "the name is taken"},
		{"no Call", agenttools.StartTool{Tool: agenttools.Tool{Name: "x", InputSchema: objectSchema}}, "has no Call"},
		{"no schema", agenttools.StartTool{Tool: agenttools.Tool{Name: "x"}, Call: call}, "must be a JSON Schema of type object"},
		{"an array schema", agenttools.StartTool{Tool: agenttools.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"array"}`)}, Call: call}, "of type object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agenttools.New(registry.New(), agenttools.WithStartTool(tt.st))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error saying %q", err, tt.want)
			}
		})
	}
	if _, err := agenttools.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	st := agenttools.StartTool{Tool: agenttools.Tool{Name: "x", InputSchema: objectSchema}, Call: call}
	if _, err := agenttools.New(registry.New(), agenttools.WithStartTool(st), agenttools.WithStartTool(st)); err == nil {
		t.Error("two start tools of one name were accepted")
	}
}

func TestUnknownToolNamesTheTools(t *testing.T) {
	f := newFixture(t)
	e := callErr(t, f.tools.For("a"), strings.Repeat("x", 1000), `{}`)
	if e.Code != tools.ErrorCodeUnknownTool || !strings.HasSuffix(e.Message, "The tools are: job_list, job_output, job_wait, job_kill.") || len(e.Message) > 200 {
		t.Errorf("error = %v", e)
	}
	if !errors.Is(e, agenttools.ErrUnknownTool) || errors.Is(e, agenttools.ErrUnknownJob) {
		t.Errorf("errors.Is does not match on the code")
	}
	var _ jobs.SessionID = f.tools.For("a").Caller().Session
}

// A start tool declared in a spec and bound with NewStartTool decodes its
// arguments as the built-in tools do: with the generated decoder, checked
// against the tool's input schema, so a missing, unknown or out-of-bounds
// argument is invalidArguments naming it, and run sees only what decoded.
// Here the tool is job_output's definition renamed peek: its input is a
// JobOutput, whose maxBytes is bounded in spec/tools.yaml.
func TestNewStartToolDecodesArgumentsAsTheBuiltInToolsDo(t *testing.T) {
	peek := tools.JobOutputTool()
	peek.Name = "peek"
	var got []tools.JobOutput
	st, err := agenttools.NewStartTool(peek, func(_ context.Context, _ agenttools.Caller, in tools.JobOutput) (tools.JobKillResult, error) {
		got = append(got, in)
		return tools.JobKillResult{JobID: in.JobID, Name: "x", Outcome: tools.KillOutcomeRequested, Status: jobs.JobStatusStopping}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, agenttools.WithStartTool(st))
	s := f.tools.For("a")
	id := jobID(1)
	res := decode[tools.JobKillResult](t, call(t, s, "peek", map[string]any{"jobId": id, "maxBytes": 65536}))
	if res.JobID != id || len(got) != 1 || got[0].MaxBytes != 65536 {
		t.Fatalf("peek answered %+v and saw %+v, want the arguments decoded", res, got)
	}
	for args, want := range map[string]string{
		`{}`: `peek needs the argument "jobId".`,
		`{"jobId": "` + id.String() + `", "maxBytes": 65537}`: `The argument "maxBytes" of peek must be from 0 to 65536.`,
		`{"jobId": "` + id.String() + `", "max_bytes": 1}`:    `peek has no argument "max_bytes"; its arguments are jobId, maxBytes.`,
	} {
		if e := callErr(t, s, "peek", args); e.Code != tools.ErrorCodeInvalidArguments || e.Message != want {
			t.Errorf("peek(%s) = %v, want invalidArguments %q", args, e, want)
		}
	}
	if len(got) != 1 {
		t.Errorf("run saw %d calls, want only the one that decoded", len(got))
	}
	if _, err := agenttools.NewStartTool(peek, func(context.Context, agenttools.Caller, tools.JobKill) (tools.JobKillResult, error) {
		return tools.JobKillResult{}, nil
	}); err == nil {
		t.Error("NewStartTool bound a JobKill handler to a tool that takes a JobOutput")
	}
}

// A string argument longer than its schema's maxLength is refused naming
// it, counted in characters as the schema and the decoders count them: a
// start tool's schema need not come from a spec for its bounds to hold.
func TestAStringPastItsMaxLengthIsRefusedNamingIt(t *testing.T) {
	tool := agenttools.Tool{Name: "note", Description: "note keeps a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":3}},"additionalProperties":false}`)}
	st, err := agenttools.NewStartTool(tool, func(_ context.Context, _ agenttools.Caller, in struct {
		Text string `json:"text"`
	}) (map[string]string, error) {
		return map[string]string{"kept": in.Text}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, agenttools.WithStartTool(st))
	s := f.tools.For("a")
	if got := decode[map[string]string](t, call(t, s, "note", `{"text": "😀😀😀"}`)); got["kept"] != "😀😀😀" {
		t.Errorf("three characters of four bytes each: %v, want them kept", got)
	}
	if e := callErr(t, s, "note", `{"text": "abcd"}`); e.Code != tools.ErrorCodeInvalidArguments || e.Message != `The argument "text" of note must be at most 3 characters.` {
		t.Errorf("four characters: %v, want invalidArguments naming text", e)
	}
}
