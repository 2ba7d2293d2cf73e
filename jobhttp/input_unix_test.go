//go:build unix

package jobhttp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/procjob"
)

// TestInputOverTheWireReachesARealTerminal: text posted as input is read by
// a program under a pseudo-terminal, and its answer comes back on the
// follow stream, on the terminal channel.
func TestInputOverTheWireReachesARealTerminal(t *testing.T) {
	s := newServer(t, nil)
	snap, err := s.reg.Start(t.Context(), procjob.Start(procjob.Options{
		Command:  []string{"sh", "-c", "read line; echo got:$line"},
		Owner:    "alice",
		Terminal: &jobs.TerminalSize{},
		Poll:     10 * time.Millisecond,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if status, _, refused := s.postInput(snap.ID.String(), "alice", `{"text":"over the wire\n"}`, s.sameOrigin()); status != http.StatusOK {
		t.Fatalf("input: %d %q", status, refused.Error)
	}
	st := s.stream("/api/jobs/"+snap.ID.String()+"/follow?from=0", "alice", nil)
	var screen strings.Builder
	for {
		_, frame := st.nextFrame()
		switch f := frame.(type) {
		case jobs.OutputFrame:
			for _, c := range f.Chunks {
				if c.Channel != jobs.ChannelTerminal {
					t.Errorf("chunk %q on channel %q; want terminal", c.Text, c.Channel)
				}
				screen.WriteString(c.Text)
			}
		case jobs.StatusFrame:
			if f.Job.Status != jobs.JobStatusCompleted || screen.String() != "over the wire\r\ngot:over the wire\r\n" {
				t.Fatalf("the job ended %s with %q on its terminal", f.Job.Status, screen.String())
			}
			return
		}
	}
}
