//go:build !unix

package factspec_test

import "time"

// cpuTime is the wall-clock time since the process's first call where the
// platform gives no per-process CPU clock: the linear-time test compares a
// large decode with a small one, so a monotonic clock keeps the ratio honest,
// only noisier.
func cpuTime() time.Duration { return time.Since(processStart) }

var processStart = time.Now()
