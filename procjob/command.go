package procjob

import (
	"errors"
	"fmt"
	"os/exec"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// recordCommand hands the recorder the job/command fact of an owned job:
// what runs and where, bounded by jobs.DefaultMaxCommandBytes. It is
// called once the job is registered, so the fact follows job/registered
// on the job's stream. An error is the recorder's, with context.
func (p *process) recordCommand(id jobs.JobID) error {
	argv, dir, truncated := boundCommand(p.opts.Command, p.opts.Dir, jobs.DefaultMaxCommandBytes)
	err := p.opts.Recorder.Record(jobs.JobCommand{
		JobID: id, At: p.startedAt.UnixMilli(), Owner: p.opts.Owner,
		Argv: argv, Dir: dir, Truncated: truncated,
	})
	if err != nil {
		return fmt.Errorf("job/command not recorded: %w", err)
	}
	return nil
}

// recordExit hands the recorder the job/exited fact of an owned job: the
// leader's exit code, or the signal that ended it. A wait that failed
// for another reason than the leader's exit says nothing of it, and
// records nothing.
func (p *process) recordExit(id jobs.JobID, at time.Time) error {
	code, signal := 0, ""
	if p.waitErr != nil {
		var exit *exec.ExitError
		if !errors.As(p.waitErr, &exit) {
			return nil
		}
		code, signal = exitOf(exit)
	}
	err := p.opts.Recorder.Record(jobs.JobExited{JobID: id, At: at.UnixMilli(), Owner: p.opts.Owner, ExitCode: code, Signal: signal})
	if err != nil {
		return fmt.Errorf("job/exited not recorded: %w", err)
	}
	return nil
}

// boundCommand cuts argv and dir to at most limit bytes together, dir
// first and then each argument in order, each cut at a UTF-8 boundary;
// the arguments past the limit are dropped. truncated reports that
// anything was cut or dropped. An argv within the limit comes back as
// given.
func boundCommand(argv []string, dir string, limit int) (bounded []string, boundedDir string, truncated bool) {
	left := limit
	cut := func(s string) string {
		if len(s) <= left {
			left -= len(s)
			return s
		}
		truncated = true
		n := left
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		left = 0
		return s[:n]
	}
	boundedDir = cut(dir)
	bounded = make([]string, 0, len(argv))
	for _, arg := range argv {
		if left == 0 {
			truncated = true
			break
		}
		bounded = append(bounded, cut(arg))
	}
	return bounded, boundedDir, truncated
}
