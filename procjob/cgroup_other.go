//go:build unix && !linux

package procjob

import (
	"fmt"
	"runtime"
	"syscall"
)

// A cgroup exists only on Linux; elsewhere Options.Cgroup is refused.
type cgroup struct{}

func newCgroup(parent string) (*cgroup, error) {
	return nil, fmt.Errorf("procjob: cgroup %s: cgroups exist only on Linux, not %s", parent, runtime.GOOS)
}

func (*cgroup) startIn(*syscall.SysProcAttr) {}
func (*cgroup) populated() bool              { return false }
func (*cgroup) signal(syscall.Signal) error  { return nil }
func (*cgroup) kill()                        {}
func (*cgroup) remove() error                { return nil }
