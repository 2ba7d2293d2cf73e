//go:build !linux

package registry

import "time"

// threadCPU reports false: off Linux, paired measures wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
