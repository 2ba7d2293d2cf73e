package main

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/examples/mcpjobs/generated/shelltools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// shellTool is the runtime's start tool: it runs a command as a procjob
// owned by the caller's session, so the caller's job tools see it. Without
// a timeout it returns at once; with one it waits for the command in the
// foreground and promotes a command that outlives it to a job (procjob's
// Offer, decision 0191). What it says of itself (its title, description,
// hints, task support and schemas) is spec/shelltools.yaml's.
func shellTool(reg *registry.Registry, rec registry.Recorder, log *slog.Logger) (agenttools.StartTool, error) {
	return agenttools.NewStartTool(shelltools.ShellTool(), func(ctx context.Context, caller agenttools.Caller, in shelltools.Shell) (shelltools.ShellResult, error) {
		if strings.TrimSpace(in.Command) == "" {
			return shelltools.ShellResult{}, &agenttools.Error{Code: tools.ErrorCodeInvalidArguments, Message: `shell needs {"command": "..."}, and optionally a "label".`}
		}
		opts := procjob.Options{
			Command: []string{"sh", "-c", in.Command},
			Kind:    "sh",
			Label:   in.Label,
			Owner:   caller.Session,
			// What the command writes to fd 3 is narration for the people
			// watching (the console), never job_output's.
			Narration: true,
			// The job's page shows the command the model ran and how it
			// exited, promoted foreground commands included.
			Recorder: rec,
		}
		if in.TimeoutSeconds > 0 {
			return foreground(ctx, reg, log, opts, time.Duration(in.TimeoutSeconds)*time.Second)
		}
		snap, err := reg.Start(ctx, withProgressLines(procjob.Start(opts)))
		if err != nil {
			return shelltools.ShellResult{}, err // the Toolset tells the registry's errors (too many jobs …) as its own
		}
		return shelltools.ShellResult{JobID: snap.ID, Name: snap.Name}, nil
	})
}

// foreground runs the command in the foreground for at most timeout. A
// command that ends in time is answered with its output and no job; one
// that outlives it is promoted: the same process becomes the caller's job,
// and the call returns its id with the output so far, at most job_output's
// default budget, whose rest the job's first job_output reads. Once
// promoted, the call's end (a client that gives up) no longer touches the
// job; job_kill stops it.
func foreground(ctx context.Context, reg *registry.Registry, log *slog.Logger, opts procjob.Options, timeout time.Duration) (shelltools.ShellResult, error) {
	fg, err := procjob.RunForeground(ctx, opts, procjob.Wait{Deadline: timeout, Policy: procjob.DeadlineOffer, OutputBytes: tools.DefaultOutputBytes, Log: log})
	if err != nil {
		return shelltools.ShellResult{}, err
	}
	if fg.Offer == nil {
		return shelltools.ShellResult{Output: shown(fg.Output), Status: fg.Outcome.Status, Detail: fg.Outcome.Detail}, nil
	}
	// The deadline has passed: what is left is registering the job, which
	// an abort of the call arriving now must not undo halfway.
	snap, err := fg.Offer.AcceptStart(context.WithoutCancel(ctx), reg, withProgressLines(fg.Offer.Start()))
	if err != nil {
		return shelltools.ShellResult{}, err // refused (too many jobs …): the command was killed
	}
	return shelltools.ShellResult{JobID: snap.ID, Name: snap.Name, Promoted: true, Output: fg.Output}, nil
}

// shown is a finished foreground command's output as the call returns it:
// at most job_output's largest budget, cut on a rune boundary, with a line
// saying how much was left out.
func shown(out string) string {
	if len(out) <= tools.DefaultMaxOutputBytes {
		return out
	}
	cut := out[:registry.CompleteUTF8(out[:tools.DefaultMaxOutputBytes])]
	return cut + "\n[" + strconv.Itoa(len(out)-len(cut)) + " more bytes of output not shown]\n"
}

// withProgressLines gives a shell job's starter a face whose output lines
// that start with "progress: " set the job's progress line.
func withProgressLines(start jobs.RecordingJobStart) jobs.RecordingJobStart {
	run := start.Run
	start.Run = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
		return run(ctx, progressLines{job})
	}
	return start
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
