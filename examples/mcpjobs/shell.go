package main

import (
	"context"
	"strings"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/examples/mcpjobs/generated/shelltools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// shellTool is the runtime's start tool: it runs a command as a procjob
// owned by the caller's session, so the caller's job tools see it, and
// returns at once. What it says of itself (its title, description, hints,
// task support and schemas) is spec/shelltools.yaml's.
func shellTool(reg *registry.Registry) (agenttools.StartTool, error) {
	return agenttools.NewStartTool(shelltools.ShellTool(), func(ctx context.Context, caller agenttools.Caller, in shelltools.Shell) (shelltools.ShellResult, error) {
		if strings.TrimSpace(in.Command) == "" {
			return shelltools.ShellResult{}, &agenttools.Error{Code: tools.ErrorCodeInvalidArguments, Message: `shell needs {"command": "..."}, and optionally a "label".`}
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
			return shelltools.ShellResult{}, err // the Toolset tells the registry's errors (too many jobs …) as its own
		}
		return shelltools.ShellResult{JobID: snap.ID, Name: snap.Name}, nil
	})
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
