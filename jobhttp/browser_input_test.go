//go:build unix

package jobhttp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/procjob"
)

// TestPageTypesIntoATerminalJob: a terminal job's output has a one-line
// input box; a line entered there reaches the program under its
// pseudo-terminal, whose coloured answer the log renders, and the box is
// disabled once the job has settled. A recording job without a terminal
// has no box, and the page passes axe-core with the box open.
func TestPageTypesIntoATerminalJob(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	plain, _ := s.startRecording("alice", "build the app", 0)
	term, err := s.reg.Start(t.Context(), procjob.Start(procjob.Options{
		Command:  []string{"sh", "-c", `printf 'name? '; read name; printf '\033[32mhello, %s\033[0m\n' "$name"`},
		Kind:     "sh",
		Label:    "greet",
		Owner:    "alice",
		Terminal: &jobs.TerminalSize{},
		Poll:     10 * time.Millisecond,
	}))
	if err != nil {
		t.Fatal(err)
	}
	row := openOutput(t, ctx, s.srv.URL, term.ID)
	waitJS(t, ctx, "the prompt", `document.querySelector('`+row+` .output').textContent.includes("name?")`, 10*time.Second)
	bad, passes := axeViolations(t, ctx)
	t.Logf("axe-core with a terminal's input box open: %d rules passed, %d serious or critical violations", passes, len(bad))
	for _, b := range bad {
		t.Errorf("axe: %s", b)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(row+" .term-line", "Ada"),
		chromedp.SendKeys(row+" .term-line", kb.Enter),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the answer", `[...document.querySelectorAll('`+row+` .ln .txt')].some(e => e.textContent === "hello, Ada")`, 10*time.Second)
	if n := js[int](t, ctx, `document.querySelectorAll('`+row+` .ln .txt .f2').length`); n == 0 {
		t.Error("the terminal's green answer is not coloured")
	}
	waitJS(t, ctx, "the box disabled once the job settled", `document.querySelector('`+row+` .term-line').disabled && document.querySelector('`+row+` .term-input button').disabled`, 10*time.Second)
	if v := js[string](t, ctx, `document.querySelector('`+row+` .term-line').value`); v != "" {
		t.Errorf("the sent line stays in the box: %q", v)
	}
	screenshot(t, ctx, "terminal-input")

	other := openOutput(t, ctx, s.srv.URL, plain.ID)
	if n := js[int](t, ctx, `document.querySelectorAll('`+other+` .term-input').length`); n != 0 {
		t.Errorf("a recording job without a terminal has %d input boxes", n)
	}
	if text := js[string](t, ctx, `document.body.innerText`); strings.Contains(text, "input refused") {
		t.Errorf("the page says an input was refused:\n%s", text)
	}
}
