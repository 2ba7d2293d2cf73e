package proptest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
)

// noticeText draws what producers and models put in a notice: short and
// long, any Unicode, control characters, invalid UTF-8.
func noticeText(t *rapid.T, label string) string {
	return rapid.OneOf(
		rapid.Just(""),
		rapid.StringN(0, 12, -1),
		rapid.StringN(0, 300, -1),
		rapid.StringOfN(rapid.RuneFrom([]rune{'a', ' ', '\n', '\t', 'é', '€', '𝄞', 0, 0x7f}), 0, 200, -1),
		rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(t, "bytes")) }),
	).Draw(t, label)
}

// checkNotice checks one notice against its budget: within it, valid
// UTF-8; it carries id, or names job_list, or is empty below 8 bytes;
// and it carries id whenever the budget can hold it (minID bytes).
func checkNotice(t *rapid.T, what, notice, id string, budget, minID int) {
	t.Helper()
	if len(notice) > max(budget, 0) {
		t.Fatalf("%s at budget %d is %d bytes: %q", what, budget, len(notice), notice)
	}
	if !utf8.ValidString(notice) {
		t.Fatalf("%s at budget %d is not valid UTF-8: %q", what, budget, notice)
	}
	switch {
	case strings.Contains(notice, id):
	case budget >= minID:
		t.Fatalf("%s at budget %d (≥ %d) lacks the id %q: %q", what, budget, minID, id, notice)
	case strings.Contains(notice, "job_list"):
	case budget < len("job_list") && notice == "":
	default:
		t.Fatalf("%s at budget %d neither carries the id nor names job_list: %q", what, budget, notice)
	}
}

// TestNoticeBound is the bound of the model-facing notices (see
// agenttools.JobNotice): for random settlements, and for every budget from 0
// to past the full notice, a job notice is at most the budget, valid UTF-8
// on one line, and carries the full JobID or points to job_list (or, below
// the 8 bytes of "job_list", is empty); at budgets of at least
// agenttools.IDBytes it always carries the JobID. Subagent notices keep the
// child's id the same way, from the id's own length up. A larger budget
// never gives a shorter notice.
func TestNoticeBound(t *testing.T) {
	statuses := jobs.JobStatusValues()
	rapid.Check(t, func(t *rapid.T) {
		snap := jobs.JobSnapshot{
			ID:     jobs.JobID(uuid.UUID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id"))),
			Name:   noticeText(t, "name"),
			Label:  noticeText(t, "label"),
			Detail: noticeText(t, "detail"),
			Status: rapid.SampledFrom(statuses).Draw(t, "status"),
		}
		id := snap.ID.String()
		full := agenttools.JobNotice(snap, 1<<20)
		prev := -1
		for budget := -1; budget <= len(full)+2; budget++ {
			n := agenttools.JobNotice(snap, budget)
			checkNotice(t, "job notice", n, id, budget, agenttools.IDBytes)
			if strings.ContainsAny(n, "\n\r") {
				t.Fatalf("job notice at budget %d spans lines: %q", budget, n)
			}
			if len(n) < prev {
				t.Fatalf("job notice at budget %d (%d bytes) is shorter than at %d (%d bytes)", budget, len(n), budget-1, prev)
			}
			prev = len(n)
		}
		if big := rapid.IntRange(len(full), 1<<16).Draw(t, "bigBudget"); agenttools.JobNotice(snap, big) != full {
			t.Fatalf("at budget %d the notice is not the full one", big)
		}
		if d := agenttools.JobNotice(snap, tools.DefaultNoticeBytes); len(d) > tools.DefaultNoticeBytes || !strings.Contains(d, id) {
			t.Fatalf("at the default budget: %q", d)
		}

		child := rapid.OneOf(rapid.Just(uuid.NewString()), rapid.StringMatching(`[a-z0-9-]{1,40}`), rapid.StringN(1, 40, -1)).Draw(t, "child")
		kind := rapid.SampledFrom([]subagents.SourceKind{subagents.SourceKindSubagentSettled, subagents.SourceKindSubagentReport}).Draw(t, "kind")
		text := "Background subagent " + child + " " + noticeText(t, "how") + "\n" + noticeText(t, "closing")
		if rapid.Bool().Draw(t, "runtimeText") {
			text = noticeText(t, "text")
		}
		msg := subagents.Message{
			Source:  subagents.MessageSource{Kind: kind, Sender: jobs.SessionID(child)},
			Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: text}},
		}
		for budget := -1; budget <= len(text)+2; budget++ {
			checkNotice(t, "subagent notice", agenttools.SubagentNotice(msg, budget), child, budget, len(child))
		}
	})
}
