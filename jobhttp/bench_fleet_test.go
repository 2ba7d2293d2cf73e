package jobhttp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// BenchmarkRosterLatency measures how long after a job's registration is
// recorded (from Start returning: for a PostgreSQL history, once committed) its row
// reaches a watcher of the roster's event stream: on the host's own Handler
// (the baseline: the registry tells it directly) and on a Fleet of three
// hosts over one PostgreSQL history (the fact goes through the database and
// the fleet's tail). Each op starts one job on the next host; p50 and p99
// are reported in milliseconds.
func BenchmarkRosterLatency(b *testing.B) {
	b.Run("host", func(b *testing.B) {
		s := newServer(b, nil)
		st := s.stream("/api/jobs/events", "s1", nil)
		st.mustNext() // the roster as it is
		measureRoster(b, st, func() (string, *producer) { snap, p := s.startRecording("s1", "bench", 0); return snap.ID.String(), p })
	})
	b.Run("fleet-3-hosts", func(b *testing.B) {
		schema := pgtest.Schema(b)
		lease := 10 * time.Second
		hosts := []*fleetHost{newFleetHost(b, schema, "host-a", lease), newFleetHost(b, schema, "host-b", lease), newFleetHost(b, schema, "host-c", lease)}
		fleet := newTestFleet(b, schema, lease, hosts...)
		st := fleet.stream("/api/jobs/events", "s1", nil)
		st.mustNext()
		n := 0
		measureRoster(b, st, func() (string, *producer) {
			n++
			snap, p := hosts[n%len(hosts)].startRecording("s1", "bench", 0)
			return snap.ID.String(), p
		})
	})
}

// measureRoster runs b.N starts and waits, after each, for the roster event
// that holds the started job, then settles it (a session's slots are few),
// reporting the latencies' p50 and p99.
func measureRoster(b *testing.B, st *stream, start func() (string, *producer)) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		id, p := start()
		t0 := time.Now()
		for {
			ev := st.mustNext()
			if ev.name == "roster" && strings.Contains(ev.data, id) {
				break
			}
		}
		lat = append(lat, time.Since(t0))
		p.finish(jobs.JobStatusCompleted, "")
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
