//go:build unix

package journal

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecoveryIsLinearOnCraftedLines: a line full of record candidates
// whose framing parses and whose fact runs to the line's end costs recovery
// a pass, not a checksum of the rest of the line per candidate (which
// took 1.35 s for a 1 MiB line, 10.9 s for 10 MiB). A line four times as
// long takes about four times as long (quadratic would be sixteen; the test allows ten); the
// best of three runs of each, so that a loaded machine does not decide.
func TestRecoveryIsLinearOnCraftedLines(t *testing.T) {
	candidate := `{"pos":1,"stream":"a","seq":1,"crc32c":"00000000","fact":`
	crafted := func(bytes int) string {
		return writeFile(t, "crafted.journal", []byte(header+"x"+strings.Repeat(candidate, bytes/len(candidate))+"}\n"))
	}
	cost := func(path string) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			start := cpuTime(t)
			_, err := Check(path)
			best = min(best, cpuTime(t)-start)
			if !errors.Is(err, ErrTornTail) {
				t.Fatalf("Check = %v; want a torn tail (no valid record anywhere)", err)
			}
		}
		return best
	}
	short, long := cost(crafted(256<<10)), cost(crafted(1<<20-100))
	if long > 10*short+20*time.Millisecond {
		t.Fatalf("a crafted line of 1 MiB costs %v, of 256 KiB %v: %.1f times for four times the bytes", long, short, float64(long)/float64(short))
	}
	t.Logf("crafted line: 256 KiB %v, 1 MiB %v", short, long)
	if _, err := Open(crafted(1<<20-100), WithLogger(discard())); err != nil {
		t.Fatalf("Open = %v; want the torn line cut", err)
	}
}

// cpuTime is the CPU time the test process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
