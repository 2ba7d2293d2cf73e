package proptest

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

var showStats = flag.Bool("proptest.stats", false, "log how often each property reached each case")

// stats counts the cases the properties reach, so that a property that
// stopped reaching something (a settlement cause, a lossy read) shows.
var stats = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func note(format string, args ...any) {
	if !*showStats {
		return
	}
	stats.Lock()
	stats.n[fmt.Sprintf(format, args...)]++
	stats.Unlock()
}

// logStats logs and resets the counts when -proptest.stats is given.
func logStats(t *testing.T) {
	if !*showStats {
		return
	}
	stats.Lock()
	defer stats.Unlock()
	keys := make([]string, 0, len(stats.n))
	for k := range stats.n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%8d  %s\n", stats.n[k], k)
	}
	t.Logf("cases reached:\n%s", b.String())
	clear(stats.n)
}
