package registry

import (
	"context"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// startFace starts a plain job of owner that settles through its face.
func startFace(t *testing.T, r *Registry, owner jobs.SessionID) (jobs.JobSnapshot, jobs.RunningJob) {
	t.Helper()
	var face jobs.RunningJob
	snap, err := r.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "bash", Label: "shard", Owner: owner},
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return faceHooks, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap, face
}

// Starts of different owners never meet on one lock: a whole
// start → settle → wait → remove of one owner, and a fenced record read,
// complete while another owner's shard and its job are locked.
func TestOwnersShareNoLock(t *testing.T) {
	r := New()
	a, _ := startFace(t, r, "a")
	ja := r.ids.get(a.ID)
	var rec jobs.RecordingJob
	recSnap, err := r.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "rec", Label: "shard", Owner: "b"},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			rec = job
			return faceHooks, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ja.sh.mu.Lock()
	ja.mu.Lock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		snap, face := startFace(t, r, "b")
		face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
		if _, settled, err := r.Wait(context.Background(), "b", snap.ID, 0); err != nil || !settled {
			t.Errorf("Wait = %v, %v", settled, err)
		}
		if err := r.Remove("b", snap.ID); err != nil {
			t.Error(err)
		}
		rec.Append("out", jobs.AppendOptions{})
		var buf recordBuffer
		if err := r.readRecordInto("b", recSnap.ID, 0, &buf); err != nil || string(buf.Bytes()) != "out" {
			t.Errorf("readRecordInto = %q, %v", buf.Bytes(), err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("owner b's start waited for owner a's lock")
	}
	ja.mu.Unlock()
	ja.sh.mu.Unlock()
}

// DisposeOwner drops the shard it emptied, so a registry that sees many
// sessions come and go keeps none of them; the session may start again, and
// ordinals go on.
func TestDisposeOwnerDropsItsShard(t *testing.T) {
	r := New()
	_, face := startFace(t, r, "a")
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	old := r.shards.get("a")
	if err := r.DisposeOwner(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if r.shards.get("a") != nil || !old.removed {
		t.Fatal("the emptied shard is still in the registry")
	}
	if got := len(r.allShards(false)); got != 1 {
		t.Fatalf("%d shards left, want only the unowned one", got)
	}
	snap, _ := startFace(t, r, "a")
	if snap.Name != "bash-2" || r.shards.get("a") == old {
		t.Fatalf("restart after dispose: %s on the old shard %v; want bash-2 on a new one", snap.Name, r.shards.get("a") == old)
	}
}

// A start that finds a shard DisposeOwner has marked dropped but not yet
// taken out of the directory takes a new shard, and drops the old one.
func TestStartReplacesADroppedShard(t *testing.T) {
	r := New()
	_, face := startFace(t, r, "a")
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	old := r.shards.get("a")
	old.mu.Lock()
	old.list, old.removed = nil, true // as DisposeOwner leaves it, before it deletes it
	old.mu.Unlock()
	snap, _ := startFace(t, r, "a")
	sh := r.shards.get("a")
	if sh == nil || sh == old || r.ids.get(snap.ID).sh != sh {
		t.Fatal("the start did not take a new shard")
	}
	if got, err := r.Get("a", snap.ID); err != nil || got.Status != jobs.JobStatusRunning {
		t.Fatalf("Get = %+v, %v", got, err)
	}
}

// A Close while a session's first start is being admitted either lists the
// new shard or makes it closed: the start is refused or torn down, never
// left running in a closed registry.
func TestShardMadeAfterCloseIsClosed(t *testing.T) {
	r := New()
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "bash", Label: "late", Owner: "new"},
		Run:            func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { return faceHooks, nil },
	}); err == nil {
		t.Fatal("a new owner's start on a closed registry was admitted")
	}
	if sh := r.shards.get("new"); sh == nil || !sh.closed {
		t.Fatalf("the shard made after Close is not closed: %+v", sh)
	}
}
