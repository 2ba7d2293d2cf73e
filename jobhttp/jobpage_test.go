//go:build unix

package jobhttp_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// commandServer is a server whose registry and procjob record to one
// journal, and the recorder procjob's jobs take.
func commandServer(t *testing.T) (*server, registry.Recorder) {
	store := subagenttest.NewMemStore()
	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
	return newServer(t, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)),
	}, registry.WithRecorder(rec)), rec
}

func TestJobHistoryAnswersWhatACommandRanAndHowItExited(t *testing.T) {
	s, rec := commandServer(t)
	dir := t.TempDir()
	argv := []string{"sh", "-c", "exit 3", "it's"}
	snap, err := s.reg.Start(t.Context(), procjob.Start(procjob.Options{Command: argv, Dir: dir, Owner: "alice", Recorder: rec}))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s.reg, "alice", snap.ID)
	res := s.request("GET", "/api/history/jobs/"+snap.ID.String(), "alice", nil, nil)
	defer res.Body.Close()
	var page wire.JobHistory
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a job's page: %s %v", res.Status, err)
	}
	var types []string
	for _, f := range page.Facts {
		types = append(types, f.Type)
	}
	if want := []string{"job/registered", "job/command", "job/exited", "job/settled"}; !slices.Equal(types, want) {
		t.Fatalf("facts = %v; want %v", types, want)
	}
	var cmd jobs.JobCommand
	if err := json.Unmarshal([]byte(page.Facts[1].Data), &cmd); err != nil || !slices.Equal(cmd.Argv, argv) || cmd.Dir != dir {
		t.Errorf("job/command = %+v, %v; want argv %q in %s", cmd, err, argv, dir)
	}
	var exited jobs.JobExited
	if err := json.Unmarshal([]byte(page.Facts[2].Data), &exited); err != nil || exited.ExitCode != 3 || exited.Signal != "" {
		t.Errorf("job/exited = %+v, %v; want exit code 3", exited, err)
	}
	if iv := page.Interval; iv.JobID != snap.ID || iv.Status != jobs.JobStatusFailed {
		t.Errorf("interval = %+v; want the failed job: the command's facts project to its one interval", iv)
	}
}
