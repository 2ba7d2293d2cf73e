package jobhttp_test

import (
	"bufio"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

// BenchmarkWatchTenFollows measures what one client receives of ten busy
// jobs: over one Watch stream with ten follow views (decision 0198), and
// over ten separate FollowJob streams, its peer, in the same run. An op is
// one 64-byte line appended to each of the ten jobs; the timer stops when
// the client has read every byte (each view's, or each stream's, last id
// at the job's end). It reports the frames per second the client read and
// the output's MB/s.
func BenchmarkWatchTenFollows(b *testing.B) {
	for _, mode := range []string{"watch-10", "peer=follow-10"} {
		b.Run(mode, func(b *testing.B) {
			s := newServer(b, []jobhttp.Option{jobhttp.WithMaxStreamsPerSession(16)})
			var ps []*producer
			var ids []jobs.JobID
			for range 10 {
				snap, p := s.startRecording("alice", "busy", 0)
				ps, ids = append(ps, p), append(ids, snap.ID)
			}
			var frames atomic.Int64
			reached := make([]atomic.Int64, len(ids)) // each job's offset the client has read to
			var wg sync.WaitGroup
			var bodies []*http.Response
			read := func(res *http.Response, onID func(string)) {
				defer wg.Done()
				sc := bufio.NewScanner(res.Body)
				sc.Buffer(make([]byte, 1<<20), 4<<20)
				for sc.Scan() {
					line := sc.Text()
					switch {
					case strings.HasPrefix(line, "id: "):
						onID(line[4:])
					case strings.HasPrefix(line, "event: "):
						frames.Add(1)
					}
				}
			}
			if mode == "watch-10" {
				var views []string
				for i, id := range ids {
					views = append(views, "f"+strconv.Itoa(i)+"=FollowJob:"+id.String())
				}
				res := s.request("GET", "/api/watch?views="+url.QueryEscape(strings.Join(views, ";")), "alice", nil, nil)
				bodies = append(bodies, res)
				wg.Add(1)
				go read(res, func(id string) {
					for _, v := range strings.Split(id, ";") {
						name, rest, _ := strings.Cut(v, "=")
						_, off, ok := strings.Cut(rest, "@")
						i, _ := strconv.Atoi(strings.TrimPrefix(name, "f"))
						if n, err := strconv.ParseInt(off, 10, 64); ok && err == nil {
							reached[i].Store(n)
						}
					}
				})
			} else {
				for i, id := range ids {
					res := s.request("GET", "/api/jobs/"+id.String()+"/follow", "alice", nil, nil)
					bodies = append(bodies, res)
					wg.Add(1)
					go read(res, func(id string) {
						if n, err := strconv.ParseInt(id, 10, 64); err == nil {
							reached[i].Store(n)
						}
					})
				}
			}
			line := strings.Repeat("z", 63) + "\n"
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			frames0 := frames.Load()
			for range b.N {
				for _, p := range ps {
					p.job.Append(line, jobs.AppendOptions{})
				}
			}
			want := int64(b.N * len(line))
			for i := range reached {
				for reached[i].Load() < want {
					time.Sleep(time.Millisecond)
				}
			}
			elapsed := time.Since(start).Seconds()
			b.StopTimer()
			b.ReportMetric(float64(frames.Load()-frames0)/elapsed, "frames/s")
			b.ReportMetric(float64(want*int64(len(ids)))/elapsed/1e6, "MB/s")
			for _, res := range bodies {
				res.Body.Close()
			}
			wg.Wait()
		})
	}
}
