// Package procjob runs an operating-system command as a recording job.
//
// Start returns a jobs.RecordingJobStart for a registry. Its producer starts
// the command in a process group of its own, captures stdout and stderr, and
// pumps both into the job's record labelled with their channels, while the
// consuming cursor (Hooks.ReadOutput) still receives every byte, in arrival
// order, with a line "[stderr]" or "[stdout]" where the channel changes
// (stdout alone reads as written), so a model reading it can tell an error
// from the output. Done waits
// for the process group to end and for the pump's final drain, so every byte
// the process wrote is in the record before the outcome is reported: exit
// status 0 completes the job, any other status fails it with the status in
// the detail, and a process ended by Cancel is killed.
//
// # Stopping the process group
//
// Nothing the job starts in its process group outlives Done. Cancel sends
// SIGTERM to the whole group and SIGKILL a grace period later (Options.Grace)
// to whatever of the group is left, whatever the leader did meanwhile: a
// leader that dies at once does not save a grandchild that ignores SIGTERM.
// When the leader exits by itself and leaves processes running in its group,
// they get the same SIGTERM, grace and SIGKILL before Done returns, and the
// outcome's detail says so. A process that survives even SIGKILL for another
// grace period (uninterruptible sleep) is reported in the detail rather than
// waited for. On Linux the group counts as ended when its only members left
// are zombies, read from /proc.
//
// A process that leaves the group (setsid, setpgid, a daemon's double fork)
// is out of the process group's reach: without a cgroup it outlives Done. If
// it still holds the job's output, the output is cut off a grace period after
// the group ended, and the detail says so; Done does not wait for it.
//
// On Linux, Options.Cgroup closes that escape. It names a cgroup v2
// directory procjob may create children in: a subtree delegated to the
// runtime (a systemd unit with Delegate=yes, a container's own cgroup
// namespace) or, for root, any cgroup v2 directory. Each job then starts in a
// cgroup of its own under it (clone3 with CLONE_INTO_CGROUP, Linux 5.7) and
// the job is everything in that cgroup, which a process cannot leave without
// the right to write to another cgroup's cgroup.procs: SIGTERM goes to the
// process group and to each process of the cgroup, SIGKILL is cgroup.kill
// (Linux 5.14), the job has ended when cgroup.events says it is no longer
// populated, and the cgroup is removed before Done returns. procjob cannot
// assume such a directory exists, so without the option it uses the process
// group alone; see docs/decisions/0027.
//
// # Foreground
//
// RunForeground runs the command for a caller that waits for it, with a
// deadline policy (Wait): kill at the deadline, offer the running process,
// or no deadline. It spawns exactly what Start spawns, but no job: the
// streams keep their window from the first byte and the consuming cursor
// every byte. An Offer at the deadline is the running process: its Start
// (registered with registry.Registry.Promote, or Accept) attaches it to a
// job, the same process with nothing respawned, whose record holds the
// output from the command's start and whose ReadOutput continues right
// after the foreground's Output; Decline, or no answer within
// Wait.AnswerWithin, kills it. See docs/decisions/0191.
//
// # Narration
//
// With Options.Narration the command gets a third pipe, file descriptor 3,
// to narrate its work for the people watching (echo "phase: link" >&3):
// the record keeps it on the log channel (jobs.ChannelLog), so followers
// and the console show it, styled apart, while the consuming cursor never
// sees it: the model reads the command's output, not its narration.
//
// # Terminal
//
// With Options.Terminal the command runs under a pseudo-terminal instead of
// pipes: the terminal is its stdin, stdout, stderr and controlling terminal,
// and its window has the size given. What it writes is one stream, in the
// order it was written, recorded on the terminal channel; on pipes a pump
// round reads all of stdout and then all of stderr, so writes to both
// within one round land stdout first, and only a terminal (or 2>&1) keeps
// their true order. Programs see a terminal, so they colour their output,
// draw progress and flush per line as they do for a person: TERM is
// xterm-256color unless the environment sets it. The terminal does what a
// terminal does: it echoes input and ends lines with CR LF.
//
// The job is a terminal job (jobs.RecordingJobStart.RunTerminal), so its
// jobs.TerminalJob, or the registry by id, sends it input as if typed and
// resizes its window (the program gets SIGWINCH). A Send is answered within
// 2s of its call, however many others send at the same time: to a program
// that has stopped reading its input, each of them gets an error at its own
// bound, the wait for its turn included; two Sends' texts never interleave.
// The command leads a
// session of its own, whose process group is the job's group as above: the
// teardown, its grace and its cgroup are the same, and so are the bounded
// buffers and the pump. When the session's leader exits, the kernel hangs
// the terminal up, which sends the rest of its group SIGHUP.
//
// Terminals are Unix's: procjob opens them on Linux, macOS and the BSDs
// (tested on Linux), and refuses Options.Terminal elsewhere, Windows
// included, with an error that says so; see docs/decisions/0120.
//
// # What ran
//
// With Options.Recorder (the registry's own recorder) an owned job records
// two facts beside its job/registered and job/settled: job/command, its
// argv and working directory, once the job is registered, and job/exited,
// its exit code or the signal that ended it, before it settles; a promoted
// foreground command records both too. Argv is recorded as given, secrets
// included, cut to jobs.DefaultMaxCommandBytes together with the
// directory; the environment is never recorded. See docs/decisions/0234.
//
// # Platforms
//
// On Unix systems the above holds as written; the group is the one setpgid
// makes, and between the leader's exit and the group's end a signal goes to
// the group only right after the group was seen to exist, so a reused group
// id is as unlikely as pid reuse within a poll interval (milliseconds). On
// Windows the command starts in a new console process group; Cancel ends the
// leader at once with TerminateProcess (Windows has no SIGTERM, so there is
// no grace), its outcome detail is "terminated", and what the leader started
// is out of reach, as a setsid escape is on Unix. Options.Cgroup is refused
// off Linux. Off Linux, the group has ended once kill(-pgid, 0) finds no
// member, since launchd and the BSDs' init reap orphans. A Windows job object
// would reach descendants, and a CTRL_BREAK_EVENT before TerminateProcess
// would give a console process a grace; both need golang.org/x/sys/windows or
// hand-written kernel32 bindings that no test here can run. `make cross`
// builds the module, tests included, for Windows and macOS.
//
// Nothing else the job starts — goroutine or file descriptor — outlives Done.
package procjob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// Options describe the command and how to run it.
type Options struct {
	// Command is the program and its arguments; it is required.
	Command []string
	Dir     string   // working directory; empty is the caller's
	Env     []string // environment; nil inherits the caller's

	Kind     string // job kind; defaults to the program's base name
	Label    string // job label; defaults to the command line
	Owner    jobs.SessionID
	ToolCall jobs.ToolCallID

	// Grace is how long the process group gets after SIGTERM before SIGKILL,
	// and how long output held open after the group ended is still read;
	// zero means 2s.
	Grace time.Duration
	// Poll is the pump cadence when Pacer is nil; zero means jobs.DefaultPumpPoll.
	Poll time.Duration
	// Pacer, when set, shares one pump goroutine and timer among many jobs.
	Pacer *registry.Pacer
	// Window is how many recent bytes of each stream stay readable by the
	// pump; output that outruns the pump by more is recorded as a gap.
	// Zero means jobs.DefaultRetainBytes.
	Window int
	// Cgroup, on Linux, is a cgroup v2 directory procjob may create
	// children in (a delegated subtree; see the package doc). When set, each
	// job runs in a cgroup of its own under it, so a process that leaves the
	// process group is stopped too; a directory that is not such a cgroup
	// makes the start fail. Empty means no cgroup.
	Cgroup string
	// ReadOutputLimit caps the unread bytes kept for ReadOutput; zero means
	// 64 MiB. Their buffer grows with the unread output up to the limit, never
	// past it, and each ReadOutput lets it go.
	ReadOutputLimit int
	// Terminal, when set, runs the command under a pseudo-terminal whose
	// window has this size (a zero dimension means 24 rows or 80 columns),
	// and makes the job a terminal job that takes input; see the package
	// doc. Nil runs it on pipes.
	Terminal *jobs.TerminalSize
	// Narration, on pipes, gives the command a third output, file
	// descriptor 3, for what it says about its own work (a phase, a step):
	// the record keeps it on the log channel, followers and the console see
	// it, and the consuming cursor (ReadOutput, so Registry.Read and
	// job_output) never returns it. Ignored under a terminal; Unix only
	// (Windows passes no descriptor past stderr, so the start fails there).
	Narration bool
	// Recorder, when set, receives two facts of an owned job (Owner set):
	// job/command, its argv and working directory, once the job is
	// registered, and job/exited, its exit code or the signal that ended
	// it, before it settles. Give it the registry's own recorder
	// (jobhistory.NewRecorder) so that both land on the job's stream between
	// its job/registered and job/settled, where its page reads them. Argv is
	// recorded as given, secrets included, cut to jobs.DefaultMaxCommandBytes
	// (docs/decisions/0234); a fact the recorder refuses is named in the
	// outcome's detail. Nil records neither.
	Recorder registry.Recorder
}

// Start returns a start for the registry that runs the command as a
// recording job: with Options.Terminal, a terminal job, whose start sets
// RunTerminal (registry.StartTerminal returns its jobs.TerminalJob);
// otherwise one on pipes, whose start sets Run.
func Start(opts Options) jobs.RecordingJobStart {
	kind, label := opts.Kind, opts.Label
	if len(opts.Command) > 0 {
		if kind == "" {
			kind = baseName(opts.Command[0])
		}
		if label == "" {
			label = commandLine(opts.Command)
		}
	}
	start := jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: kind, Label: label, Owner: opts.Owner, ToolCall: opts.ToolCall},
	}
	if opts.Terminal != nil {
		start.RunTerminal = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			p, err := run(job, opts)
			if err != nil {
				return jobs.Hooks{}, jobs.TerminalInput{}, err
			}
			return p.hooks(), p.term.input(), nil
		}
		return start
	}
	start.Run = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
		p, err := run(job, opts)
		if err != nil {
			return jobs.Hooks{}, err
		}
		return p.hooks(), nil
	}
	return start
}

// A process is one running command, the process group it leads, and what
// watches them.
type process struct {
	opts      Options // what it runs, and where its facts go
	cmd       *exec.Cmd
	group     *jobGroup
	grace     time.Duration
	poll      time.Duration       // the pump's cadence without a pacer
	pacer     *registry.Pacer     // the shared pump, or nil
	exited    registry.OnceSignal // the group has ended and the output is drained
	startedAt time.Time           // when the command started
	pumpDone  chan error          // the pump's result, after its final drain
	outputs   []output            // stdout and stderr, or the terminal
	consumer  *consumer
	term      *terminal // the pseudo-terminal; nil on pipes
	copied    sync.WaitGroup

	// Set by supervise before exited fires.
	waitErr   error     // cmd.Wait's result for the leader
	leftovers bool      // the leader exited by itself and left processes in its group
	survivors bool      // processes of the group were still there after SIGKILL and its wait
	cutOff    bool      // output was still open after the group ended, and was cut off
	stopErr   error     // the group the leader left could not be signalled
	kept      error     // the cgroup could not be removed
	endedAt   time.Time // when the group had ended and the output drained

	mu        sync.Mutex
	cancelled string        // the first Cancel's reason
	stopping  bool          // the group has been sent the terminate signal
	killTimer *time.Timer   // sends SIGKILL a grace period after stopping began
	killed    chan struct{} // closed once SIGKILL has been sent
	finished  bool          // the group has ended: nothing may be signalled any more
	attached  bool          // a job records the output: done waits for its pump
	job       jobs.JobID    // the job attached, once attached

	doneOnce sync.Once
	outcome  jobs.JobOutcome
	doneErr  error
}

// An output is one output of the process: the stream that keeps it, the
// read end procjob holds, and the channel the record labels it with.
type output struct {
	s       *stream
	r       *os.File
	channel jobs.Channel
}

func run(job jobs.RecordingJob, opts Options) (*process, error) {
	p, err := spawn(opts)
	if err != nil {
		return nil, err
	}
	p.attach(job)
	return p, nil
}

// spawn starts the command and what watches it: the copies of its outputs
// into their streams and the supervisor. Nothing goes to a record until
// attach gives the process a job, while the streams keep the last window
// bytes of each output and the consuming cursor every byte, so a process
// attached later (an accepted Offer) records its output from the start.
func spawn(opts Options) (*process, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("procjob: no command")
	}
	p := newProcess(opts)
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	// The read ends are ours rather than exec's, so that cmd.Wait returns
	// when the leader exits, not when the last process holding the output
	// lets go.
	writeEnds, err := p.openOutputs(cmd, opts.Terminal)
	if err != nil {
		return nil, err
	}
	group, err := prepareGroup(cmd, opts.Cgroup, p.term != nil)
	if err != nil {
		p.closeOutputs(writeEnds)
		return nil, err
	}
	p.group = group
	p.cmd = cmd
	err = cmd.Start()
	closeAll(writeEnds) // the process holds its own copies now
	if err != nil {
		p.closeOutputs(nil)
		group.release()
		return nil, fmt.Errorf("procjob: start %s: %w", commandLine(opts.Command), err)
	}
	p.startedAt = time.Now()
	group.started(cmd.Process)
	for _, o := range p.outputs {
		p.copied.Add(1)
		go func() {
			defer p.copied.Done()
			copyOutput(o.s, o.r)
		}()
	}
	go p.supervise()
	return p, nil
}

// attach gives the process its job: the pump records every output from
// the oldest byte its stream still holds (offset 0 unless the window
// passed it), and done waits for the pump's final drain. It is called once.
func (p *process) attach(job jobs.RecordingJob) {
	sources := make([]registry.PumpSource, len(p.outputs))
	for i, o := range p.outputs {
		sources[i] = registry.PumpSource{Reader: o.s, Channel: o.channel}
	}
	p.mu.Lock()
	p.attached, p.job = true, job.ID()
	p.mu.Unlock()
	go func() {
		p.pumpDone <- registry.PumpJobOutput(context.Background(), job, sources,
			registry.PumpOptions{Poll: p.poll, Pacer: p.pacer, Done: &p.exited})
	}()
}

func newProcess(opts Options) *process {
	window := opts.Window
	if window <= 0 {
		window = jobs.DefaultRetainBytes
	}
	limit := opts.ReadOutputLimit
	if limit <= 0 {
		limit = 64 << 20
	}
	p := &process{opts: opts, grace: opts.Grace, poll: opts.Poll, pacer: opts.Pacer, pumpDone: make(chan error, 1), consumer: &consumer{limit: limit}, killed: make(chan struct{})}
	if p.grace <= 0 {
		p.grace = 2 * time.Second
	}
	if p.poll <= 0 {
		p.poll = jobs.DefaultPumpPoll
	}
	newStream := func(ch jobs.Channel) *stream { return &stream{window: window, sink: p.consumer, channel: ch} }
	if opts.Terminal != nil {
		p.outputs = []output{{s: newStream(jobs.ChannelTerminal), channel: jobs.ChannelTerminal}}
	} else {
		p.consumer.labels = true
		p.outputs = []output{{s: newStream(jobs.ChannelStdout), channel: jobs.ChannelStdout}, {s: newStream(jobs.ChannelStderr), channel: jobs.ChannelStderr}}
		if opts.Narration {
			narration := &stream{window: window, channel: jobs.ChannelLog} // no sink: the model never reads it
			p.outputs = append(p.outputs, output{s: narration, channel: jobs.ChannelLog})
		}
	}
	return p
}

// openOutputs gives the command its outputs: a pipe each for stdout and
// stderr, or with size a pseudo-terminal for stdin, stdout and stderr. It
// returns the ends the command gets, which the caller closes once the
// command has started.
func (p *process) openOutputs(cmd *exec.Cmd, size *jobs.TerminalSize) ([]*os.File, error) {
	if size != nil {
		term, tty, err := openTerminal(*size)
		if err != nil {
			return nil, err
		}
		p.term, p.outputs[0].r = term, term.master
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.Env = withTerm(cmd.Env)
		return []*os.File{tty}, nil
	}
	var writeEnds []*os.File
	for i := range p.outputs {
		r, w, err := os.Pipe()
		if err != nil {
			p.closeOutputs(writeEnds)
			return nil, fmt.Errorf("procjob: output pipe: %w", err)
		}
		p.outputs[i].r, writeEnds = r, append(writeEnds, w)
	}
	cmd.Stdout, cmd.Stderr = writeEnds[0], writeEnds[1]
	if len(writeEnds) > 2 {
		cmd.ExtraFiles = writeEnds[2:] // the narration, fd 3
	}
	return writeEnds, nil
}

// closeOutputs closes the read ends procjob holds, and others.
func (p *process) closeOutputs(others []*os.File) {
	for _, o := range p.outputs {
		if o.r != nil {
			o.r.Close()
		}
	}
	closeAll(others)
}

func (p *process) hooks() jobs.Hooks {
	return jobs.Hooks{Cancel: p.cancel, Done: p.done, ReadOutput: p.consumer.read}
}

// copyOutput writes what the process writes to r into s until r ends or is closed.
func copyOutput(s *stream, r *os.File) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func closeAll(groups ...[]*os.File) {
	for _, files := range groups {
		for _, f := range files {
			f.Close()
		}
	}
}

// supervise waits for the leader to exit, then for its process group to end,
// stopping what the leader left running with the same terminate, grace and
// SIGKILL as Cancel, then for the output to drain, and fires exited. The
// SIGKILL timer runs until the group has ended, whatever the leader does.
func (p *process) supervise() {
	p.waitErr = p.cmd.Wait()
	if p.group.running() {
		p.mu.Lock()
		p.leftovers = p.cancelled == ""
		p.stopErr = p.stopLocked()
		p.mu.Unlock()
		// A group that could not be signalled (EPERM) has no SIGKILL coming
		// either: waiting for it would be waiting forever.
		p.survivors = p.stopErr != nil || !p.awaitGroupEnd()
	}
	p.mu.Lock()
	p.finished = true
	if p.killTimer != nil {
		p.killTimer.Stop()
	}
	p.mu.Unlock()
	p.kept = p.group.release() // fails, and says so, only if a survivor holds the cgroup

	// The group has ended, so only a process that left it (see the package
	// doc) can still hold the output open: give it the grace, then cut it off.
	drained := make(chan struct{})
	go func() { p.copied.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(p.grace):
		p.cutOff = true
	}
	p.closeOutputs(nil) // ends a copy still blocked in Read, and the terminal's input
	<-drained
	for _, o := range p.outputs {
		o.s.close()
	}
	p.endedAt = time.Now()
	p.exited.Fire()
}

// awaitGroupEnd polls until no process of the group is left, and reports
// false if some still are a grace period after SIGKILL was sent (a process in
// uninterruptible sleep, say), so Done cannot hang on them.
func (p *process) awaitGroupEnd() bool {
	killed := p.killed
	var giveUp <-chan time.Time
	for delay := time.Millisecond; p.group.running(); delay = min(2*delay, 50*time.Millisecond) {
		select {
		case <-time.After(delay):
		case <-killed:
			killed, giveUp = nil, time.After(p.grace)
		case <-giveUp:
			return false
		}
	}
	return true
}

// cancel stops the process group: the terminate signal now, SIGKILL after the
// grace period unless the whole group has ended by then. It is idempotent.
func (p *process) cancel(reason string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return nil
	}
	if p.cancelled == "" {
		if reason == "" {
			reason = "cancelled"
		}
		p.cancelled = reason
	}
	return p.stopLocked()
}

// stopLocked sends the group the terminate signal and arms the SIGKILL timer,
// once. p.mu is held.
func (p *process) stopLocked() error {
	if p.stopping {
		return nil
	}
	if err := p.group.terminate(); err != nil {
		return fmt.Errorf("procjob: stop process group %d: %w", p.cmd.Process.Pid, err)
	}
	p.stopping = true
	p.killTimer = time.AfterFunc(p.grace, p.kill)
	return nil
}

// kill sends SIGKILL to the group unless it has ended.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.group.kill()
	close(p.killed)
}
