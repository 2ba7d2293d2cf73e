package registry_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A read into one reused buffer answers what ReadRecord answers, for every
// caller, offset and job, while jobs of two owners start, grow, settle and
// are removed, and their ids are taken again: the buffer remembers the job
// it read last, and that memory never lets a read past the fence or to a
// job that is gone. (The buffered read is the package's own; the property
// machine checks ReadRecord against its model.)
func TestReadRecordIntoAgreesWithReadRecordAcrossReuse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pool := []jobs.JobID{{1}, {2}}
		var next jobs.JobID
		r := registry.New(registry.WithIDs(func() jobs.JobID { return next }),
			registry.WithLimits(registry.Limits{RetainBytes: 16}))
		type live struct {
			owner jobs.SessionID
			p     *producer
			face  jobs.RecordingJob
		}
		jobsByID := map[jobs.JobID]*live{}
		var buf registry.RecordBuffer
		rt.Repeat(map[string]func(*rapid.T){
			"start": func(rt *rapid.T) {
				id := rapid.SampledFrom(pool).Draw(rt, "id")
				if jobsByID[id] != nil {
					rt.Skip("id in use")
				}
				next = id
				l := &live{owner: rapid.SampledFrom([]jobs.SessionID{"a", "b"}).Draw(rt, "owner"), p: newProducer()}
				if _, err := r.Start(t.Context(), recordingStart(l.owner, "bash", l.p, &l.face)); err != nil {
					rt.Fatalf("Start: %v", err)
				}
				jobsByID[id] = l
			},
			"append": func(rt *rapid.T) {
				l := jobsByID[rapid.SampledFrom(pool).Draw(rt, "id")]
				if l == nil {
					rt.Skip("no job")
				}
				l.face.Append(strings.Repeat("x", rapid.IntRange(1, 9).Draw(rt, "n")), jobs.AppendOptions{})
			},
			"remove": func(rt *rapid.T) {
				id := rapid.SampledFrom(pool).Draw(rt, "id")
				l := jobsByID[id]
				if l == nil {
					rt.Skip("no job")
				}
				l.p.finish(jobs.JobStatusCompleted, "", "")
				waitSettled(t, r, l.owner, id)
				if err := r.Remove(l.owner, id); err != nil {
					rt.Fatalf("Remove: %v", err)
				}
				delete(jobsByID, id)
			},
			"read": func(rt *rapid.T) {
				caller := rapid.SampledFrom([]jobs.SessionID{"a", "b", ""}).Draw(rt, "caller")
				id := rapid.SampledFrom(pool).Draw(rt, "readID")
				from := rapid.Int64Range(-1, 40).Draw(rt, "from")
				want, wantErr := r.ReadRecord(caller, id, from)
				err := r.ReadRecordInto(caller, id, from, &buf)
				if kind(err) != kind(wantErr) {
					rt.Fatalf("ReadRecordInto(%q, %v, %d) = %v; ReadRecord says %v", caller, id, from, err, wantErr)
				}
				if err == nil && !reflect.DeepEqual(bufferRead(&buf), want) {
					rt.Fatalf("ReadRecordInto(%q, %v, %d) =\n%+v\nReadRecord says\n%+v", caller, id, from, bufferRead(&buf), want)
				}
			},
		})
		for _, l := range jobsByID {
			l.p.finish(jobs.JobStatusCompleted, "", "")
		}
	})
}

// kind names the registry error err is, for comparing two reads' refusals.
func kind(err error) string {
	for _, k := range []error{registry.ErrUnknownJob, registry.ErrForeignJob, registry.ErrNoRecord, registry.ErrNegativeOffset} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "none"
}

// bufferRead turns a RecordBuffer into the RecordRead it stands for.
func bufferRead(b *registry.RecordBuffer) jobs.RecordRead {
	out := jobs.RecordRead{Earliest: b.Earliest, Next: b.Next, Lossy: b.Lossy, Chunks: []jobs.RecordChunk{}}
	for i, c := range b.Chunks {
		out.Chunks = append(out.Chunks, jobs.RecordChunk{Offset: c.Offset(), At: c.At(), Text: string(b.Text(i)),
			Channel: c.Channel(), GapBefore: c.GapBefore()})
	}
	return out
}
