package jobhttp_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The log viewer: colours, carriage returns, line numbers,
// timestamps, search, auto-scroll and the raw download.

const esc = "\x1b"

// colouredOutput is a build log as terminals colour it: 16, 256 and true
// colours, bold, italic and underline, a progress line redrawn with
// carriage returns, one escape split across two appends, and markup that
// must stay text.
var colouredOutput = []struct{ text string }{
	{esc + "[1mStep 1/3\x1b[0m fetching modules\n"},
	{"progress  10%\r"}, {"progress  55%\r"}, {"progress 100%\n"},
	{esc + "[32mok\x1b[0m   github.com/acme/app   0.412s\n"},
	{esc + "[33mwarn\x1b[0m deprecated call in " + esc + "[4mmain.go:12\x1b[0m\n"},
	{esc + "[38;5;81m256-colour\x1b[0m and " + esc + "[38;2;255;175;0mtrue colour\x1b[0m and " + esc + "[3mitalic\x1b[0m\n"},
	{esc + "[3"}, {"1mFAIL\x1b[0m TestCheckout (split escape)\n"},
	{"<img src=x onerror=alert(1)> stays text\n"},
}

func TestPageRendersColouredOutputAsALog(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "build the app", 0)
	for _, c := range colouredOutput {
		p.job.Append(c.text, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	p.job.Append("main.go:3: unused import\n", jobs.AppendOptions{Channel: jobs.ChannelStderr})
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	waitJS(t, ctx, "the stderr line", `document.querySelector('`+row+` .ln[data-channel="stderr"]') !== null`, 10*time.Second)

	text := js[string](t, ctx, `[...document.querySelectorAll('`+row+` .ln .txt')].map(e => e.textContent).join("\n")`)
	want := strings.Join([]string{
		"Step 1/3 fetching modules", "progress 100%", "ok   github.com/acme/app   0.412s",
		"warn deprecated call in main.go:12", "256-colour and true colour and italic",
		"FAIL TestCheckout (split escape)", "<img src=x onerror=alert(1)> stays text", "main.go:3: unused import",
	}, "\n")
	if text != want {
		t.Errorf("the log reads\n%s\nwant\n%s", text, want)
	}
	if n := js[int](t, ctx, `document.querySelectorAll('`+row+` .output img').length`); n != 0 {
		t.Errorf("output became markup: %d img elements", n)
	}
	for _, c := range []struct{ what, expr string }{
		{"bold", `.bold`}, {"green (16 colours)", `.f2`}, {"yellow", `.f3`}, {"red across a split escape", `.f1`},
		{"underline", `.underline`}, {"italic", `.italic`},
	} {
		if js[int](t, ctx, `document.querySelectorAll('`+row+` .ln .txt `+c.expr+`').length`) == 0 {
			t.Errorf("no %s span (%s)", c.what, c.expr)
		}
	}
	colours := js[string](t, ctx, `[...document.querySelectorAll('`+row+` .ln .txt span')].map(e => e.style.color).filter(Boolean).join(",")`)
	if !strings.Contains(colours, "rgb(95, 215, 255)") || !strings.Contains(colours, "rgb(255, 175, 0)") {
		t.Errorf("256 and true colours: inline colours %q", colours)
	}
	nums := js[string](t, ctx, `[...document.querySelectorAll('`+row+` .ln .num')].map(e => e.textContent).join(",")`)
	if nums != "1,2,3,4,5,6,7,8" {
		t.Errorf("line numbers %q", nums)
	}
	rel := js[string](t, ctx, `document.querySelector('`+row+` .ln .ts').textContent`)
	title := js[string](t, ctx, `document.querySelector('`+row+` .ln .ts').title`)
	if !strings.HasPrefix(rel, "+") || !strings.Contains(title, "T") {
		t.Errorf("timestamp %q (title %q): want relative to the start, absolute on hover", rel, title)
	}
	chromedp.Do(ctx, chromedp.Click(row+" .log-time"))
	abs := js[string](t, ctx, `document.querySelector('`+row+` .ln .ts').textContent`)
	if strings.HasPrefix(abs, "+") || strings.Count(abs, ":") != 2 {
		t.Errorf("after the time toggle the timestamp is %q, want a time of day", abs)
	}
	chromedp.Do(ctx, chromedp.Click(row+" .log-time"))
	screenshot(t, ctx, "log-colours")
}

func TestPageSearchesAJobsOutput(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "test the app", 0)
	for i := range 300 {
		line := "=== RUN   TestStep\n"
		if i%100 == 42 {
			line = "--- FAIL: TestCheckout (0.01s)\n"
		}
		p.job.Append(line, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	waitJS(t, ctx, "300 lines", `document.querySelector('`+row+` .output').dataset.lines === "300"`, 10*time.Second)
	if err := chromedp.Do(ctx, chromedp.SendKeys(row+" .log-search", "fail: testcheckout")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "three matches", `document.querySelector('`+row+` .log-count').textContent === "1 of 3"`, 5*time.Second)
	line := func() string {
		return js[string](t, ctx, `document.querySelector('`+row+` mark.current').closest('.ln').dataset.line`)
	}
	if got := line(); got != "43" {
		t.Errorf("the first match is on line %s, want 43", got)
	}
	chromedp.Do(ctx, chromedp.Click(row+" .log-next"))
	if got := line(); got != "143" {
		t.Errorf("next: line %s, want 143", got)
	}
	chromedp.Do(ctx, chromedp.Click(row+" .log-prev"), chromedp.Click(row+" .log-prev"))
	if got := line(); got != "243" {
		t.Errorf("previous twice wraps to line %s, want 243", got)
	}
	if marks := js[int](t, ctx, `document.querySelectorAll('`+row+` mark').length`); marks < 1 {
		t.Errorf("no highlighted match in view")
	}
	screenshot(t, ctx, "search")
}

func TestPageAutoScrollPausesWhenScrolledUpAndResumesAtTheEnd(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "a chatty job", 0)
	appendLines := func(from, n int) {
		var b strings.Builder
		for i := from; i < from+n; i++ {
			b.WriteString("line " + itoa(i) + "\n")
		}
		p.job.Append(b.String(), jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	appendLines(1, 200)
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	pane := `document.querySelector('` + row + ` .output')`
	atEnd := pane + `.scrollTop + ` + pane + `.clientHeight >= ` + pane + `.scrollHeight - 9`
	waitJS(t, ctx, "following the end", pane+`.dataset.lines === "200" && `+atEnd, 10*time.Second)
	js[bool](t, ctx, pane+`.scrollTop = 100; true`)
	waitJS(t, ctx, "the follow toggle says paused", `document.querySelector('`+row+` .log-follow').getAttribute("aria-pressed") === "false"`, 5*time.Second)
	appendLines(201, 50)
	waitJS(t, ctx, "250 lines", pane+`.dataset.lines === "250"`, 10*time.Second)
	if top := js[float64](t, ctx, pane+`.scrollTop`); top < 90 || top > 110 {
		t.Errorf("new output moved a paused pane to %v", top)
	}
	js[bool](t, ctx, pane+`.scrollTop = `+pane+`.scrollHeight; true`)
	waitJS(t, ctx, "following again at the end", `document.querySelector('`+row+` .log-follow').getAttribute("aria-pressed") === "true"`, 5*time.Second)
	appendLines(251, 50)
	waitJS(t, ctx, "the pane followed the new output", pane+`.dataset.lines === "300" && `+atEnd, 10*time.Second)
}

func TestPageOffersTheRawRecordForDownload(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "build", 0)
	p.job.Append(esc+"[32mok"+esc+"[0m\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	href := js[string](t, ctx, `document.querySelector('`+row+` a.log-raw').href`)
	if !strings.HasSuffix(href, "/api/jobs/"+snap.ID.String()+"/raw") {
		t.Errorf("raw link %q", href)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('`+row+` a.log-raw').href).then(r => r.text())`,
		chromedp.EvalAwaitPromise))
	if err != nil || got != esc+"[32mok"+esc+"[0m\n" {
		t.Errorf("the raw download is %q (%v)", got, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Narration on the log channel is shown, on lines of its own, styled apart
// from the output (decision 0193).
func TestPageStylesTheLogChannelApart(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "build the app", 0)
	p.job.Append("phase: compile\n", jobs.AppendOptions{Channel: jobs.ChannelLog})
	p.job.Append("compiled 3 packages\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	p.job.Append("phase: link\n", jobs.AppendOptions{Channel: jobs.ChannelLog})
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	waitJS(t, ctx, "the second log line", `document.querySelectorAll('`+row+` .ln.log[data-channel="log"]').length === 2`, 10*time.Second)
	got := js[string](t, ctx, `[...document.querySelectorAll('`+row+` .ln.log .txt')].map(e => e.textContent).join("|")`)
	if got != "phase: compile|phase: link" {
		t.Errorf("log lines = %q", got)
	}
	if n := js[int](t, ctx, `document.querySelectorAll('`+row+` .ln:not(.log) .txt').length`); n != 1 {
		t.Errorf("%d lines of output, want the one stdout line apart from the narration", n)
	}
	if style := js[string](t, ctx, `getComputedStyle(document.querySelector('`+row+` .ln.log .txt')).fontStyle`); style != "italic" {
		t.Errorf("a log line's font style = %q, want it styled apart (italic)", style)
	}
}

// actionsOutput is a CI log as GitHub Actions writes it: a line before any
// group, two finished groups (the second of 200 lines, one a failure), and
// a third still running. Its lines are numbered 1, 2–3, 4–203 and 204: the
// marker lines are no output lines.
func actionsOutput() []string {
	out := []string{"Runner ready\n", "::group::Set up job\n", "Operating system: Linux\nImage: ubuntu-24.04\n", "::endgroup::\n", "::group::Run tests\n"}
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		if i == 151 {
			b.WriteString("--- FAIL: TestCheckout (0.01s)\n")
		} else {
			b.WriteString("=== RUN   TestStep" + itoa(i) + "\n")
		}
	}
	return append(out, b.String(), "::endgroup::\n", "::group::Deploy\n", "uploading the artefact\n")
}

// promptMarkedOutput is a shell session with OSC 133 marks (prompt, command,
// output, end with its exit code), the second command failing.
func promptMarkedOutput() string {
	mark := func(m string) string { return esc + "]133;" + m + "\x07" }
	cmd := func(line, output, end string) string {
		return mark("A") + "$ " + mark("B") + line + "\n" + mark("C") + output + mark(end)
	}
	return cmd("go build ./...", "", "D;0") +
		cmd("go test ./...", "ok   example.com/a 0.2s\n--- FAIL: TestX (0.00s)\nFAIL\n", "D;1") +
		cmd("echo done", "done\n", "D;0") + mark("A") + "$ "
}

// TestPageShowsLogGroupsCollapsedOnceFinished: Actions groups and OSC 133
// commands are groups whose header is a button that says its name, line
// count and duration (and a command's exit, a failure in words and not by
// colour alone); a finished group is collapsed and a running one open;
// Enter and Space on the header open and collapse it, keeping the focus;
// a search, and a link to a line, open the group the line is in; axe-core
// finds nothing serious in either theme.
func TestPageShowsLogGroupsCollapsedOnceFinished(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	ci, p := s.startRecording("alice", "ci run", 0)
	for _, c := range actionsOutput() {
		p.job.Append(c, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	shell, q := s.startRecording("alice", "shell session", 0)
	session := promptMarkedOutput()
	for i := 0; i < len(session); i += 7 { // chunks that split every mark somewhere
		q.job.Append(session[i:min(i+7, len(session))], jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	row := openOutput(t, ctx, s.srv.URL, ci.ID)
	heads := `[...document.querySelectorAll('` + row + ` .group-head button.log-group')]`
	waitJS(t, ctx, "three group headers", heads+`.length === 3`, 10*time.Second)
	state := func() string {
		return js[string](t, ctx, heads+`.map(b => b.querySelector(".name").textContent + "=" + b.getAttribute("aria-expanded")).join(",")`)
	}
	if got := state(); got != "Set up job=false,Run tests=false,Deploy=true" {
		t.Errorf("groups %s; want the finished ones collapsed and the running one open", got)
	}
	numbers := func() string {
		return js[string](t, ctx, `[...document.querySelectorAll('`+row+` .ln[data-line]')].map(e => e.dataset.line).join(",")`)
	}
	if got := numbers(); got != "1,204" {
		t.Errorf("the collapsed page shows lines %s; want 1 and 204, the collapsed groups' lines skipped", got)
	}
	if meta := js[string](t, ctx, heads+`[1].querySelector(".meta").textContent`); !strings.HasPrefix(meta, "200 lines · ") {
		t.Errorf("the Run tests header says %q; want its 200 lines and its duration", meta)
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "log-groups-"+scheme)
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core on the grouped log (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on the grouped log (%s): %s", scheme, b)
		}
	}
	emulateScheme(t, ctx, "light")

	// The keyboard: Enter opens the focused header, Space collapses it.
	js[bool](t, ctx, heads+`[1].focus(); true`)
	chromedp.Do(ctx, chromedp.KeyEvent("\r"))
	waitJS(t, ctx, "Run tests opened by Enter", heads+`[1].getAttribute("aria-expanded") === "true" && document.querySelector('`+row+` .ln[data-line="4"]') !== null`, 5*time.Second)
	if focused := js[string](t, ctx, `document.activeElement.closest(".group-head")?.querySelector(".name").textContent ?? ""`); focused != "Run tests" {
		t.Errorf("after Enter the focus is on %q; want it kept on the Run tests header", focused)
	}
	chromedp.Do(ctx, chromedp.KeyEvent(" "))
	waitJS(t, ctx, "Run tests collapsed by Space", heads+`[1].getAttribute("aria-expanded") === "false"`, 5*time.Second)
	if got := numbers(); got != "1,204" {
		t.Errorf("collapsed again, the page shows lines %s", got)
	}

	// A search opens the group its match is in.
	if err := chromedp.Do(ctx, chromedp.SendKeys(row+" .log-search", "fail: testcheckout")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the match", `document.querySelector('`+row+` .log-count').textContent === "1 of 1"`, 5*time.Second)
	if got := js[string](t, ctx, `document.querySelector('`+row+` mark.current')?.closest('.ln').dataset.line ?? "none"`); got != "154" {
		t.Errorf("the match is shown on line %s; want 154, inside Run tests", got)
	}
	js[bool](t, ctx, `document.querySelector('`+row+` .output').scrollTop = 0; true`)
	waitJS(t, ctx, "the top of the log rendered", heads+`.length === 2`, 5*time.Second)
	if got := state(); got != "Set up job=false,Run tests=true" {
		t.Errorf("after the search the groups at the top are %s; want Run tests opened", got)
	}

	// A link to a line in a collapsed group opens it, on a fresh load.
	link := s.srv.URL + "/#job=" + ci.ID.String() + "&line=3"
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "line 3 marked", `document.querySelector('`+row+` .ln.target[data-line="3"]') !== null`, 10*time.Second)
	if got := state(); got != "Set up job=true,Run tests=false,Deploy=true" {
		t.Errorf("after the link the groups are %s; want Set up job opened", got)
	}

	// The shell session: a group per command, named by it, with its exit.
	shellRow := rowSelector(shell.ID)
	chromedp.Do(ctx, chromedp.Click(shellRow+" button.toggle"))
	cmds := `[...document.querySelectorAll('` + shellRow + ` .group-head')]`
	waitJS(t, ctx, "three command headers", cmds+`.length === 3`, 10*time.Second)
	got := js[string](t, ctx, cmds+`.map(e => e.querySelector(".name").textContent + " (" + e.querySelector(".meta").textContent.split(" · ").pop() + (e.classList.contains("failed") ? ", failed" : "") + ")").join(" | ")`)
	if want := "go build ./... (✓ exit 0) | go test ./... (✗ exit 1, failed) | echo done (✓ exit 0)"; got != want {
		t.Errorf("the commands read %q; want %q", got, want)
	}
	if lines := js[string](t, ctx, `[...document.querySelectorAll('`+shellRow+` .ln[data-line] .txt')].map(e => e.textContent).join("|")`); lines != "$ go build ./...|$ go test ./...|$ echo done|$ " {
		t.Errorf("the collapsed session shows %q; want the prompt lines only", lines)
	}
	js[bool](t, ctx, cmds+`[1].querySelector("button").click(); true`)
	waitJS(t, ctx, "the failing command opened", `document.querySelector('`+shellRow+` .ln[data-line="4"] .txt')?.textContent === "--- FAIL: TestX (0.00s)"`, 5*time.Second)
	js[bool](t, ctx, `document.querySelector('`+shellRow+`').scrollIntoView(); true`)
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "log-commands-"+scheme)
		bad, _ := axeViolations(t, ctx)
		for _, b := range bad {
			t.Errorf("axe on the command groups (%s): %s", scheme, b)
		}
	}
}
