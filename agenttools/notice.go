package agenttools

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/registry"
)

// IDBytes is the length of a JobID as a notice writes it (a canonical
// UUID). A job notice whose budget is at least IDBytes always carries the
// job's full id; see JobNotice.
const IDBytes = 36

// pointerBytes is the shortest notice that still names job_list; below it a
// notice is empty, since nothing useful fits.
const pointerBytes = len("job_list")

// ellipsis marks text a notice cut.
const ellipsis = "…"

// JobNotice is the model-facing text of a job's settlement (or, for a live
// snapshot, of its state), at most budget bytes of valid UTF-8 on one line,
// such as
//
//	Job sh-3 "run the tests" (id 0b5c…) failed: exit status 1. Read its output with job_output.
//
// It gives up, in this order, what does not fit: the label (cut, then
// dropped), the hint, the detail (cut, then dropped), the name, the status.
// The text is cut only at a rune boundary, and a cut ends in an ellipsis.
// The full JobID goes last: any budget of at least IDBytes carries it.
// A smaller budget cannot, and the notice then points to job_list, which
// lists the job with its id, as long as "job_list" (8 bytes) fits; below
// that the notice is empty. The default budget is tools.DefaultNoticeBytes.
func JobNotice(snap jobs.JobSnapshot, budget int) string {
	id := snap.ID.String()
	verb := statusVerb(snap.Status)
	head := "Job"
	if name := oneLine(snap.Name); name != "" {
		head += " " + name
	}
	n := notice{
		head:   head,
		label:  oneLine(snap.Label),
		id:     id,
		verb:   verb,
		detail: oneLine(snap.Detail),
		hint:   "Read its output with job_output.",
	}
	if !snap.Status.Terminal() {
		n.hint = "Call job_wait to wait for it."
	}
	if s, ok := n.fit(budget); ok {
		return s
	}
	return pointer(budget, "A job "+verb+": see job_list.", "See job_list.")
}

// SubagentNotice is the model-facing text of a message from a child — the
// manager's settlement notice (source subagentSettled) or a child's report
// (subagentReport) — at most budget bytes of valid UTF-8: the message's text
// as the manager wrote it when it fits, otherwise its first line, which names
// the child, and as much of the rest as fits, cut with an ellipsis. A text
// whose first line does not name the child gets the line "Subagent <id>:"
// before it. The
// child's full id goes last: a budget of at least len(child id) carries it.
// Below that the notice points to job_list, which lists the subagents the
// caller started, down to 8 bytes; below those it is empty. A message with no
// sender is cut to the budget like any text.
func SubagentNotice(msg subagents.Message, budget int) string {
	text := registry.ValidUTF8(messageText(msg))
	child := string(msg.Source.Sender)
	if child == "" || !utf8.ValidString(child) {
		return cutUTF8(text, max(budget, 0))
	}
	head, body, _ := strings.Cut(text, "\n")
	if !strings.Contains(head, child) {
		head, body = "Subagent "+child+":", text
		text = head + "\n" + body
	}
	if len(text) <= budget {
		return text
	}
	if s, ok := cutTail(head+"\n", body, budget); ok {
		return s
	}
	what := "wrote"
	switch msg.Source.Kind {
	case subagents.SourceKindSubagentSettled:
		what = "finished"
	case subagents.SourceKindSubagentReport:
		what = "reported"
	}
	for _, s := range []string{head, "Subagent " + child + " " + what + ".", "Subagent " + child + ".", child} {
		if len(s) <= budget {
			return s
		}
	}
	return pointer(budget, "A subagent "+what+": see job_list.", "See job_list.")
}

// messageText joins the text blocks of a message.
func messageText(msg subagents.Message) string {
	var b strings.Builder
	for _, c := range msg.Content {
		if c.Kind == subagents.ContentKindText {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// A notice is the parts of a job notice, most important last.
type notice struct {
	head, label, id, verb, detail, hint string
}

// minCut is the least room a cut label or detail is given; with less, the
// part is dropped rather than cut to a stub.
const minCut = 8

// fit renders the richest layout that fits budget.
func (n notice) fit(budget int) (string, bool) {
	core := " (id " + n.id + ") " + n.verb
	layouts := []struct {
		label, detail, hint string
		cutDetail           bool
	}{
		{n.label, n.detail, n.hint, false},
		{"", n.detail, n.hint, false},
		{"", n.detail, "", true},
		{"", "", "", false},
	}
	for _, l := range layouts {
		if s, ok := n.render(core, l.label, l.detail, l.hint, l.cutDetail, budget); ok {
			return s, true
		}
	}
	for _, s := range []string{"Job " + n.id + " " + n.verb + ".", "Job " + n.id, n.id} {
		if len(s) <= budget {
			return s, true
		}
	}
	return "", false
}

// render writes head, the quoted label, core, ": detail", "." and the hint,
// cutting the label (and with cutDetail the detail) to what budget leaves,
// and fails when the parts it was given cannot fit.
func (n notice) render(core, label, detail, hint string, cutDetail bool, budget int) (string, bool) {
	fixed := len(n.head) + len(core)
	if hint != "" {
		fixed += len(" ") + len(hint)
	}
	if detail != "" {
		fixed += len(": ")
	}
	room := budget - fixed
	if label != "" {
		if label = cutTo(label, room-len(` ""`)-len(detail)-period(detail)); label == "" {
			return "", false
		}
		room -= len(` ""`) + len(label)
	}
	switch {
	case detail == "":
		room -= len(".")
	case len(detail)+period(detail) <= room:
		room -= len(detail) + period(detail)
	case !cutDetail:
		return "", false
	default:
		if detail = cut(detail, room); detail == "" {
			return "", false
		}
		room -= len(detail)
	}
	if room < 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(n.head)
	if label != "" {
		b.WriteString(` "` + label + `"`)
	}
	b.WriteString(core)
	if detail != "" {
		b.WriteString(": " + detail)
	}
	if detail == "" || period(detail) == 1 {
		b.WriteString(".")
	}
	if hint != "" {
		b.WriteString(" " + hint)
	}
	return b.String(), b.Len() <= budget
}

// period is how many bytes the period after a detail takes: none when the
// detail ends a sentence itself, or ends in a cut's ellipsis.
func period(detail string) int {
	if strings.HasSuffix(detail, ".") || strings.HasSuffix(detail, ellipsis) {
		return 0
	}
	return 1
}

// cutTo returns s when it fits in room bytes, else s cut to a rune boundary
// with an ellipsis, or "" when fewer than minCut bytes are left for it.
func cutTo(s string, room int) string {
	if len(s) <= room {
		return s
	}
	return cut(s, room)
}

// cut returns s cut to a rune boundary with an ellipsis, in at most room
// bytes, or "" when fewer than minCut bytes are left for it.
func cut(s string, room int) string {
	if room < minCut {
		return ""
	}
	return cutUTF8(s, room-len(ellipsis)) + ellipsis
}

// cutTail returns head and as much of body as budget leaves, cut with an
// ellipsis; it fails when fewer than minCut bytes are left for body.
func cutTail(head, body string, budget int) (string, bool) {
	room := budget - len(head)
	if room < minCut {
		return "", false
	}
	return head + cutTo(body, room), true
}

// pointer returns the longest of the pointers to job_list that fits budget,
// "job_list" itself, or "" below that.
func pointer(budget int, long ...string) string {
	for _, s := range long {
		if len(s) <= budget {
			return s
		}
	}
	if budget >= pointerBytes {
		return "job_list"
	}
	return ""
}

// statusVerb says what a job of status did, in a notice.
func statusVerb(s jobs.JobStatus) string {
	switch s {
	case jobs.JobStatusCompleted:
		return "completed"
	case jobs.JobStatusKilled:
		return "was killed"
	case jobs.JobStatusFailed:
		return "failed"
	case jobs.JobStatusStopping:
		return "is stopping"
	}
	return "is running"
}

// oneLine makes text fit on one line of valid UTF-8: invalid bytes become
// U+FFFD (registry.ValidUTF8), and every run of white space or control
// characters one space.
func oneLine(s string) string {
	s = registry.ValidUTF8(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
