//go:build unix

package procjob

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// writerEnv makes the test binary, run as a job's command, the writer of
// BenchmarkOutputWrite64B instead of the tests: it writes that many lines
// of 64 bytes to stdout, each with a write(2) of its own, and exits.
const writerEnv = "PROCJOB_BENCH_WRITES"

func TestMain(m *testing.M) {
	if n := os.Getenv(writerEnv); n != "" {
		writeLines(n)
		return
	}
	os.Exit(m.Run())
}

func writeLines(count string) {
	n, err := strconv.Atoi(count)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	line := []byte("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n")
	for range n {
		if _, err := os.Stdout.Write(line); err != nil {
			os.Exit(1)
		}
	}
	os.Exit(0)
}

// BenchmarkOutputWrite64B is what one 64-byte write of a job costs from the
// program's write to the job's record, on pipes and under a terminal, in
// the same run: one job per benchmark run writes b.N lines, and the time is
// from its start to its settlement (all output recorded). The process's
// start and exit are in it too, spread over b.N writes.
func BenchmarkOutputWrite64B(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		terminal *jobs.TerminalSize
	}{
		{"pipes", nil},
		{"terminal", &jobs.TerminalSize{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := registry.New()
			defer r.Close(context.Background())
			b.SetBytes(64)
			b.ResetTimer()
			snap, err := r.Start(context.Background(), Start(Options{
				Command:         []string{self},
				Env:             append(os.Environ(), writerEnv+"="+strconv.Itoa(b.N)),
				Terminal:        tc.terminal,
				Poll:            10 * time.Millisecond,
				ReadOutputLimit: 1 << 20,
				Window:          16 << 20, // no round falls behind: every byte is counted
			}))
			if err != nil {
				b.Fatal(err)
			}
			end, settled, err := r.Wait(context.Background(), "", snap.ID, 0)
			b.StopTimer()
			if err != nil || !settled || end.Status != jobs.JobStatusCompleted {
				b.Fatalf("the writer ended %+v, %v, %v", end, settled, err)
			}
			want := int64(64 * b.N)
			if tc.terminal != nil {
				want += int64(b.N) // the terminal writes each LF as CR LF
			}
			if end.OutputBytes != want {
				b.Fatalf("recorded %d bytes; want %d", end.OutputBytes, want)
			}
		})
	}
}
