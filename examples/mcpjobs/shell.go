package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// shellInput is what the shell tool takes. Its schema is inferred from the
// struct by the SDK's schema package: the tool is this runtime's, not
// jobgen's vocabulary.
type shellInput struct {
	Command string `json:"command" jsonschema:"The shell command to run, as sh -c runs it."`
	Label   string `json:"label,omitempty" jsonschema:"What the job is for, in a few words; the command when absent."`
}

// shellResult is what the shell tool returns.
type shellResult struct {
	JobID string `json:"jobId" jsonschema:"The job's id. Use it in job_output, job_wait and job_kill."`
	Name  string `json:"name" jsonschema:"The job's display name, such as sh-1."`
}

// shellTool is the runtime's start tool: it runs a command as a procjob
// owned by the caller's session, so the caller's job tools see it, and
// returns at once.
func shellTool(reg *registry.Registry) (agenttools.StartTool, error) {
	in, err := schemaJSON[shellInput]()
	if err != nil {
		return agenttools.StartTool{}, err
	}
	out, err := schemaJSON[shellResult]()
	if err != nil {
		return agenttools.StartTool{}, err
	}
	// As a task the result is the job's end: job_wait's members join it.
	if out, err = openSchema(out); err != nil {
		return agenttools.StartTool{}, err
	}
	return agenttools.StartTool{
		Tool: agenttools.Tool{
			Name:         "shell",
			Title:        "Run a shell command",
			Description:  "shell runs a shell command in the background as a job of yours and returns at once with the job's id. Read its output with job_output, wait for it with job_wait, stop it with job_kill. A line the command prints that starts with \"progress: \" becomes the job's progress line.",
			InputSchema:  in,
			OutputSchema: out,
			Annotations:  &agenttools.Annotations{Destructive: true, OpenWorld: true},
			Tasks:        true,
		},
		Call: func(ctx context.Context, caller agenttools.Caller, args json.RawMessage) (json.RawMessage, error) {
			var in shellInput
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil || strings.TrimSpace(in.Command) == "" {
				return nil, &agenttools.Error{Code: tools.ErrorCodeInvalidArguments, Message: `shell needs {"command": "..."}, and optionally a "label".`}
			}
			start := procjob.Start(procjob.Options{
				Command: []string{"sh", "-c", in.Command},
				Kind:    "sh",
				Label:   in.Label,
				Owner:   caller.Session,
			})
			run := start.Run
			start.Run = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
				return run(ctx, progressLines{job})
			}
			snap, err := reg.Start(ctx, start)
			if err != nil {
				return nil, err // the Toolset tells the registry's errors (too many jobs …) as its own
			}
			return json.Marshal(shellResult{JobID: snap.ID.String(), Name: snap.Name})
		},
	}, nil
}

// schemaJSON is the JSON Schema the SDK's schema package infers for T.
func schemaJSON[T any]() (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("mcpjobs: schema of %T: %w", *new(T), err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("mcpjobs: schema of %T", *new(T)), err)
	}
	return data, nil
}

// openSchema lets an object schema's instances have members it does not
// name.
func openSchema(schema json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, err
	}
	delete(m, "additionalProperties")
	return json.Marshal(m)
}

// progressLines is a shell job's face whose output lines that start with
// "progress: " (whole within one write) set the job's progress line,
// which job_list, job_wait's progress notifications and a task's status
// message show.
type progressLines struct{ jobs.RecordingJob }

func (p progressLines) Append(text string, opts jobs.AppendOptions) {
	p.RecordingJob.Append(text, opts)
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "progress: "); ok {
			p.UpdateDetail(strings.TrimSpace(rest))
		}
	}
}
