package procjob

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// A cgroup is the cgroup v2 directory one job runs in. The command is
// started in it (clone3 with CLONE_INTO_CGROUP), so everything it starts is
// in it too, whatever session or process group it moves to; cgroup.kill
// (Linux 5.14) ends them all at once.
type cgroup struct {
	dir string
	fd  int // the directory, open for CLONE_INTO_CGROUP
}

// newCgroup makes a cgroup for one job under parent, a cgroup v2 directory
// this process may create children in (a delegated subtree, or root).
func newCgroup(parent string) (*cgroup, error) {
	if _, err := os.Stat(filepath.Join(parent, "cgroup.subtree_control")); err != nil {
		return nil, fmt.Errorf("procjob: cgroup %s: not a cgroup v2 directory: %w", parent, err)
	}
	var id [6]byte
	rand.Read(id[:])
	dir := filepath.Join(parent, "procjob-"+hex.EncodeToString(id[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("procjob: cgroup: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("procjob: cgroup %s: no cgroup.kill (Linux 5.14): %w", parent, err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("procjob: cgroup: open %s: %w", dir, err)
	}
	return &cgroup{dir: dir, fd: fd}, nil
}

// startIn makes the command start in the cgroup.
func (c *cgroup) startIn(attr *syscall.SysProcAttr) {
	attr.UseCgroupFD, attr.CgroupFD = true, c.fd
}

// populated reports whether a process is still in the cgroup. Zombies are
// not: a process leaves its cgroup as it exits. When cgroup.events cannot be
// read, the cgroup counts as populated.
func (c *cgroup) populated() bool {
	events, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return true
	}
	for line := range bytes.Lines(events) {
		if v, found := bytes.CutPrefix(line, []byte("populated ")); found {
			return !bytes.Equal(bytes.TrimSpace(v), []byte("0"))
		}
	}
	return true
}

// signal sends sig to every process in the cgroup. One that forks meanwhile
// may miss it; cgroup.kill has no such race, and follows after the grace.
func (c *cgroup) signal(sig syscall.Signal) error {
	procs, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", c.dir, err)
	}
	for field := range bytes.FieldsSeq(procs) {
		if pid, err := strconv.Atoi(string(field)); err == nil {
			if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("cgroup %s: process %d: %w", c.dir, pid, err)
			}
		}
	}
	return nil
}

// kill ends every process in the cgroup, and in cgroups below it.
func (c *cgroup) kill() {
	os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove closes the directory and removes the cgroup; it must be empty.
func (c *cgroup) remove() error {
	syscall.Close(c.fd)
	if err := os.Remove(c.dir); err != nil {
		return fmt.Errorf("cgroup %s not removed: %w", c.dir, err)
	}
	return nil
}
