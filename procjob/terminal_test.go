//go:build unix

package procjob

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/registry/registrytest"
)

// startTerminal runs a command under a terminal of size (nil: the
// default) as start does, and returns its input too.
func startTerminal(t testing.TB, opts Options, size *jobs.TerminalSize) (*registrytest.Job, jobs.Hooks, jobs.TerminalInput) {
	t.Helper()
	if size == nil {
		size = &jobs.TerminalSize{}
	}
	opts.Terminal = size
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	rec := &registrytest.Job{}
	start := Start(opts)
	if start.Run != nil || start.RunTerminal == nil {
		t.Fatal("a start with Options.Terminal must set RunTerminal, and only it")
	}
	hooks, in, err := start.RunTerminal(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, hooks, in
}

// recorded is the job's record in append order, and the channels it was
// appended on.
func recorded(rec *registrytest.Job) (string, map[jobs.Channel]bool) {
	var b strings.Builder
	channels := map[jobs.Channel]bool{}
	for _, a := range rec.Appends() {
		b.WriteString(a.Text)
		channels[a.Opts.Channel] = true
	}
	return b.String(), channels
}

// interleaved writes n pairs of writes, one to stdout and one to stderr,
// each its own write(2) microseconds after the last, after half a second in
// which the pump has long made its first round.
const interleaved = `sleep 0.5; i=0; while [ $i -lt %d ]; do printf 'o%%d ' $i; printf 'e%%d ' $i >&2; i=$((i+1)); done`

// TestATerminalKeepsTheTrueOrderOfStdoutAndStderr runs one program on
// pipes and under a terminal, with the pump asleep until the program has
// ended. On pipes the record has, per round, all of stdout's bytes and then
// all of stderr's (the order the package doc gives); under a terminal it
// has the bytes in the order they were written.
func TestATerminalKeepsTheTrueOrderOfStdoutAndStderr(t *testing.T) {
	const n = 20
	script := fmt.Sprintf(interleaved, n)
	var truth, outs, errs strings.Builder
	for i := range n {
		fmt.Fprintf(&truth, "o%d e%d ", i, i)
		fmt.Fprintf(&outs, "o%d ", i)
		fmt.Fprintf(&errs, "e%d ", i)
	}

	pipes, hooks := start(t, Options{Command: []string{"sh", "-c", script}, Poll: time.Hour})
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range pipes.Appends() {
		got = append(got, fmt.Sprintf("[%s] %s", a.Opts.Channel, a.Text))
	}
	t.Logf("pipes, one round:\n%s", strings.Join(got, "\n"))
	if want := []string{"[stdout] " + outs.String(), "[stderr] " + errs.String()}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pipes recorded\n%s\nwant stdout's round, then stderr's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	term, hooks, _ := startTerminal(t, Options{Command: []string{"sh", "-c", script}, Poll: time.Hour}, nil)
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	text, channels := recorded(term)
	t.Logf("terminal, one round:\n[terminal] %s", text)
	if text != truth.String() {
		t.Errorf("the terminal recorded %q; want the true order %q", text, truth.String())
	}
	if len(channels) != 1 || !channels[jobs.ChannelTerminal] {
		t.Errorf("the terminal's record is on channels %v; want terminal alone", channels)
	}
}

// TestATerminalIsWhatProgramsColourFor: a program that colours only when
// its output is a terminal colours under one, and not on pipes.
func TestATerminalIsWhatProgramsColourFor(t *testing.T) {
	const script = `if [ -t 1 ]; then printf '\033[1;32mok\033[0m\n'; else echo ok; fi`
	pipes, hooks := start(t, Options{Command: []string{"sh", "-c", script}})
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	if text := pipes.Text(jobs.ChannelStdout); text != "ok\n" {
		t.Errorf("pipes recorded %q; want no colours", text)
	}
	term, termHooks, _ := startTerminal(t, Options{Command: []string{"sh", "-c", script}}, nil)
	if _, err := termHooks.Done(); err != nil {
		t.Fatal(err)
	}
	if text, _ := recorded(term); text != "\x1b[1;32mok\x1b[0m\r\n" {
		t.Errorf("the terminal recorded %q; want the colours, and the terminal's CR LF", text)
	}

	// GNU grep colours its matches on a terminal, its TERM permitting:
	// procjob sets one where the environment has none.
	if out, _ := exec.Command("grep", "--version").Output(); !strings.Contains(string(out), "GNU") {
		t.Logf("skipped the grep case: grep is not GNU grep")
		return
	}
	const grep = `echo 'a needle here' | grep --color=auto needle`
	term, termHooks, _ = startTerminal(t, Options{Command: []string{"sh", "-c", grep}, Env: []string{"PATH=/usr/bin:/bin"}}, nil)
	termHooks.Done()
	if text, _ := recorded(term); !strings.Contains(text, "\x1b[") || !strings.Contains(text, "needle") {
		t.Errorf("grep under a terminal wrote %q; want the match coloured", text)
	}
	plain, hooks := start(t, Options{Command: []string{"sh", "-c", grep}})
	hooks.Done()
	if text := plain.Text(jobs.ChannelStdout); text != "a needle here\n" {
		t.Errorf("grep on a pipe wrote %q; want it plain", text)
	}
}

func TestATerminalHasItsWindowSizeAndResizes(t *testing.T) {
	rec, hooks, in := startTerminal(t, Options{Command: []string{"sh", "-c", "stty size; read x; stty size"}}, &jobs.TerminalSize{Rows: 33, Cols: 101})
	waitFor(t, func() bool { text, _ := recorded(rec); return text == "33 101\r\n" })
	if err := in.Resize(jobs.TerminalSize{Rows: 50, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	if err := in.Send("\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	if text, _ := recorded(rec); text != "33 101\r\n\r\n50 132\r\n" {
		t.Errorf("recorded %q; want the size, the echoed newline and the new size", text)
	}
	if err := in.Resize(jobs.TerminalSize{Rows: 0, Cols: 80}); err == nil {
		t.Error("a resize to no rows was accepted")
	}

	rec, hooks, _ = startTerminal(t, Options{Command: []string{"stty", "size"}}, &jobs.TerminalSize{Cols: 120})
	hooks.Done()
	if text, _ := recorded(rec); text != "24 120\r\n" {
		t.Errorf("a terminal with no rows given recorded %q; want the default 24", text)
	}
}

func TestAResizeSignalsTheProgram(t *testing.T) {
	rec, hooks, in := startTerminal(t, Options{Command: []string{"sh", "-c", `trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.02; done`}}, nil)
	waitFor(t, func() bool { text, _ := recorded(rec); return text == "ready\r\n" })
	if err := in.Resize(jobs.TerminalSize{Rows: 40, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusCompleted {
		t.Fatalf("outcome %+v, %v; want the WINCH trap to end the program", outcome, err)
	}
	if text, _ := recorded(rec); text != "ready\r\n40 100\r\n" {
		t.Errorf("recorded %q; want the size the trap saw", text)
	}
}

func TestInputRoundTrips(t *testing.T) {
	rec, hooks, in := startTerminal(t, Options{Command: []string{"sh", "-c", "read line; echo got:$line"}}, nil)
	if err := in.Send("hello, terminal\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	// The terminal echoes the input, as a terminal does, then the program answers.
	if text, _ := recorded(rec); text != "hello, terminal\r\ngot:hello, terminal\r\n" {
		t.Errorf("recorded %q", text)
	}

	// cat copies a line back; Ctrl-D at the start of a line ends its input.
	rec, hooks, in = startTerminal(t, Options{Command: []string{"cat"}}, nil)
	for _, s := range []string{"abc\n", "\x04"} {
		if err := in.Send(s); err != nil {
			t.Fatal(err)
		}
	}
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusCompleted {
		t.Fatalf("outcome %+v, %v; want cat ended by Ctrl-D", outcome, err)
	}
	if text, _ := recorded(rec); text != "abc\r\nabc\r\n" {
		t.Errorf("recorded %q; want the echo and cat's copy", text)
	}
	if err := in.Send("late\n"); err == nil || !strings.Contains(err.Error(), "the terminal has closed") {
		t.Errorf("Send after the job ended = %v; want the terminal closed", err)
	}
}

func TestInputToAProgramThatDoesNotReadIsBounded(t *testing.T) {
	_, hooks, in := startTerminal(t, Options{Command: []string{"sleep", "60"}}, nil)
	defer hooks.Done()
	defer hooks.Cancel("test over")
	line := strings.Repeat("y", 63) + "\n"
	begin := time.Now()
	var err error
	for i := 0; err == nil && i < 1<<14; i++ { // 1 MiB, far past a terminal's buffers
		err = in.Send(line)
	}
	if err == nil || !strings.Contains(err.Error(), "has not read its input") {
		t.Fatalf("Send = %v; want the bound", err)
	}
	if took := time.Since(begin); took > inputWait+3*time.Second {
		t.Errorf("Send gave up after %v; want about %v", took, inputWait)
	}
}

func TestATerminalRecordsOutputWrittenRightBeforeExit(t *testing.T) {
	for i := range 20 {
		rec, hooks, _ := startTerminal(t, Options{Command: []string{"sh", "-c", "printf 'last words'"}, Poll: time.Hour}, nil)
		if _, err := hooks.Done(); err != nil {
			t.Fatal(err)
		}
		if text, _ := recorded(rec); text != "last words" {
			t.Fatalf("run %d: record at Done = %q", i, text)
		}
	}
}

func TestCancelEndsATerminalJob(t *testing.T) {
	rec, hooks, _ := startTerminal(t, Options{Command: []string{"sh", "-c", "echo started; sleep 60 & sleep 60; wait"}}, nil)
	waitFor(t, func() bool { text, _ := recorded(rec); return text == "started\r\n" })
	if err := hooks.Cancel("user asked"); err != nil {
		t.Fatal(err)
	}
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusKilled {
		t.Fatalf("outcome %+v, %v; want killed", outcome, err)
	}
}

// TestATerminalJobThroughTheRegistry: StartTerminal hands the runtime the
// handle that types into an interactive shell, and the record reads back
// through the registry like any job's.
func TestATerminalJobThroughTheRegistry(t *testing.T) {
	r := registry.New()
	defer r.Close(context.Background())
	snap, term, err := r.StartTerminal(t.Context(), Start(Options{Command: []string{"sh"}, Owner: "s", Terminal: &jobs.TerminalSize{}, Poll: 10 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Terminal || snap.Kind != "sh" {
		t.Fatalf("snapshot %+v; want a terminal job of kind sh", snap)
	}
	if err := term.Send("echo got:$((6 * 7))\n"); err != nil {
		t.Fatal(err)
	}
	if err := r.Send("s", snap.ID, "exit 3\n"); err != nil {
		t.Fatal(err)
	}
	end, settled, err := r.Wait(t.Context(), "s", snap.ID, 10*time.Second)
	if err != nil || !settled || end.Status != jobs.JobStatusFailed || end.Detail != "exit status 3" {
		t.Fatalf("Wait = %+v, %v, %v; want failed with exit status 3", end, settled, err)
	}
	rec, err := r.ReadRecord("s", snap.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range rec.Chunks {
		text.WriteString(c.Text)
	}
	if !strings.Contains(text.String(), "got:42\r\n") {
		t.Errorf("record %q; want the shell's answer", text.String())
	}
	if err := term.Send("echo again\n"); err == nil {
		t.Error("a settled terminal job took input")
	}
}

func TestWithTermAddsATermOnlyWhereThereIsNone(t *testing.T) {
	if got := withTerm([]string{"PATH=/bin"}); strings.Join(got, " ") != "PATH=/bin TERM=xterm-256color" {
		t.Errorf("withTerm = %q", got)
	}
	if got := withTerm([]string{"TERM=dumb"}); strings.Join(got, " ") != "TERM=dumb" {
		t.Errorf("withTerm replaced the environment's TERM: %q", got)
	}
}
