package agenttools_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
)

var noticeID = jobs.JobID(uuid.MustParse("0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f"))

func failedTests() jobs.JobSnapshot {
	return jobs.JobSnapshot{ID: noticeID, Name: "sh-3", Kind: "sh", Label: "run the tests", Status: jobs.JobStatusFailed, Detail: "exit status 1"}
}

func TestJobNoticeGivesUpPartsInOrder(t *testing.T) {
	snap := failedTests()
	id := noticeID.String()
	// Each step of the ladder, at the budget of its own length: a budget
	// one byte smaller gives the next step.
	ladder := []string{
		`Job sh-3 "run the tests" (id ` + id + `) failed: exit status 1. Read its output with job_output.`,
		`Job sh-3 "run the t…" (id ` + id + `) failed: exit status 1. Read its output with job_output.`,
		`Job sh-3 "run the…" (id ` + id + `) failed: exit status 1. Read its output with job_output.`,
		`Job sh-3 "run th…" (id ` + id + `) failed: exit status 1. Read its output with job_output.`, // the shortest cut label
		`Job sh-3 (id ` + id + `) failed: exit status 1. Read its output with job_output.`,           // label dropped
		`Job sh-3 (id ` + id + `) failed: exit status 1.`,                                            // hint dropped
		`Job sh-3 (id ` + id + `) failed: exit st…`,                                                  // detail cut
		`Job sh-3 (id ` + id + `) failed: exit …`,                                                    // the shortest cut detail
		`Job sh-3 (id ` + id + `) failed.`,                                                           // detail dropped
		`Job ` + id + ` failed.`,                                                                     // name dropped
		`Job ` + id,                                                                                  // status dropped
		id,
		`A job failed: see job_list.`, // the id does not fit
		`See job_list.`,
		`job_list`,
	}
	for i, want := range ladder {
		if got := agenttools.JobNotice(snap, len(want)); got != want {
			t.Errorf("budget %d:\n got %q (%d bytes)\nwant %q", len(want), got, len(got), want)
		}
		if i+1 < len(ladder) && len(ladder[i+1]) < len(want)-1 {
			if got := agenttools.JobNotice(snap, len(want)-1); got == want {
				t.Errorf("budget %d still gives %q", len(want)-1, got)
			}
		}
	}
	if got := agenttools.JobNotice(snap, tools.DefaultNoticeBytes); got != ladder[0] {
		t.Errorf("at the default budget: %q, want %q", got, ladder[0])
	}
	if got := agenttools.JobNotice(snap, agenttools.IDBytes); got != id {
		t.Errorf("at IDBytes: %q, want the id", got)
	}
	for _, budget := range []int{7, 0, -1} {
		if got := agenttools.JobNotice(snap, budget); got != "" {
			t.Errorf("budget %d: %q, want nothing", budget, got)
		}
	}
}

func TestJobNoticeOfEveryStatus(t *testing.T) {
	for status, want := range map[jobs.JobStatus]string{
		jobs.JobStatusCompleted: "completed. Read its output with job_output.",
		jobs.JobStatusKilled:    "was killed. Read its output with job_output.",
		jobs.JobStatusFailed:    "failed. Read its output with job_output.",
		jobs.JobStatusRunning:   "is running. Call job_wait to wait for it.",
		jobs.JobStatusStopping:  "is stopping. Call job_wait to wait for it.",
	} {
		snap := jobs.JobSnapshot{ID: noticeID, Name: "sh-1", Status: status}
		if got := agenttools.JobNotice(snap, tools.DefaultNoticeBytes); !strings.HasSuffix(got, ") "+want) {
			t.Errorf("%s: %q, want it to end %q", status, got, want)
		}
	}
}

// A notice's parts come from producers and models: whatever they hold,
// the notice is one line of valid UTF-8 within its budget.
func TestJobNoticeIsOneLineOfValidUTF8(t *testing.T) {
	snap := jobs.JobSnapshot{ID: noticeID, Name: "sh\n-1", Label: "a\x00b\tc\xff", Status: jobs.JobStatusFailed, Detail: "line one\r\nline two \xe2\x82"}
	got := agenttools.JobNotice(snap, tools.DefaultNoticeBytes)
	want := `Job sh -1 "a b c` + "\uFFFD" + `" (id ` + noticeID.String() + `) failed: line one line two ` + "\uFFFD\uFFFD" + `. Read its output with job_output.`
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for budget := 0; budget <= len(want)+1; budget++ {
		got := agenttools.JobNotice(snap, budget)
		if len(got) > budget || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\t\x00") {
			t.Fatalf("budget %d: %q", budget, got)
		}
		if budget >= agenttools.IDBytes && !strings.Contains(got, noticeID.String()) {
			t.Fatalf("budget %d: %q lacks the id", budget, got)
		}
	}
}

func settledNotice(child, closing string) subagents.Message {
	text := "Background subagent " + child + " finished and will do no further work unless you send it more.\nIts closing message:\n" + closing
	return subagents.Message{
		Source:  subagents.MessageSource{Kind: subagents.SourceKindSubagentSettled, Sender: jobs.SessionID(child)},
		Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: text}},
	}
}

func TestSubagentNoticeKeepsTheChildsID(t *testing.T) {
	child := "6f1c2a7e-1b2c-4d3e-8f90-a1b2c3d4e5f6"
	msg := settledNotice(child, "The flake is a race in the checkout fixture.")
	full := msg.Content[0].Text
	head, _, _ := strings.Cut(full, "\n")
	tests := []struct {
		budget int
		want   string
	}{
		{len(full), full},
		{len(full) - 1, cutBefore(full, len(full)-1-len("…")) + "…"},
		{len(head) + 1 + 8, head + "\nIts c…"},
		{len(head) + 1 + 7, head},
		{len(head), head},
		{len(head) - 1, "Subagent " + child + " finished."},
		{len("Subagent " + child + "."), "Subagent " + child + "."},
		{len(child), child},
		{len(child) - 1, "A subagent finished: see job_list."},
		{13, "See job_list."},
		{8, "job_list"},
		{7, ""},
	}
	for _, tt := range tests {
		if got := agenttools.SubagentNotice(msg, tt.budget); got != tt.want {
			t.Errorf("budget %d:\n got %q\nwant %q", tt.budget, got, tt.want)
		}
	}
}

func TestSubagentNoticeOfAReportOrARuntimeMessage(t *testing.T) {
	report := subagents.Message{
		Source:  subagents.MessageSource{Kind: subagents.SourceKindSubagentReport, Sender: "r1"},
		Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "Background subagent r1 reported:\nhalfway there"}},
	}
	if got := agenttools.SubagentNotice(report, 32); got != "Background subagent r1 reported:" {
		t.Errorf("a cut report = %q", got)
	}
	bare := subagents.Message{
		Source:  subagents.MessageSource{Kind: subagents.SourceKindSubagentSettled, Sender: "r2"},
		Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "done: all twelve files checked"}},
	}
	if got := agenttools.SubagentNotice(bare, 25); got != "Subagent r2:\ndone: all…" {
		t.Errorf("a message without the manager's head line = %q", got)
	}
	user := subagents.Message{Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "héllo"}}}
	if got := agenttools.SubagentNotice(user, 2); got != "h" {
		t.Errorf("a message with no sender is cut to the budget: %q", got)
	}
}

// The size of the notices a model is told, at the default budget.
func ExampleJobNotice() {
	snap := jobs.JobSnapshot{ID: noticeID, Name: "sh-3", Kind: "sh", Label: "run the tests", Status: jobs.JobStatusFailed, Detail: "exit status 1"}
	n := agenttools.JobNotice(snap, tools.DefaultNoticeBytes)
	fmt.Printf("%d bytes: %s\n", len(n), n)
	n = agenttools.JobNotice(snap, 40)
	fmt.Printf("%d bytes: %s\n", len(n), n)
	n = agenttools.JobNotice(snap, 30)
	fmt.Printf("%d bytes: %s\n", len(n), n)
	// Output:
	// 122 bytes: Job sh-3 "run the tests" (id 0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f) failed: exit status 1. Read its output with job_output.
	// 40 bytes: Job 0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f
	// 27 bytes: A job failed: see job_list.
}

// cutBefore is s cut to at most n bytes on a rune boundary.
func cutBefore(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
