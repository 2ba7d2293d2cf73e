package procjob

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry/registrytest"
)

// testCgroup makes a cgroup v2 directory for one test's jobs, under
// $PROCJOB_TEST_CGROUP or else under this process's own cgroup, and removes
// it after the test. It skips the test where no such directory can be made.
func testCgroup(t *testing.T) string {
	t.Helper()
	parent := os.Getenv("PROCJOB_TEST_CGROUP")
	if parent == "" {
		parent = ownCgroup()
	}
	var id [4]byte
	rand.Read(id[:])
	dir := filepath.Join(parent, "procjob-test-"+hex.EncodeToString(id[:]))
	if parent == "" || os.Mkdir(dir, 0o755) != nil {
		t.Skipf("needs a cgroup v2 directory this user may create cgroups in (have %q); set PROCJOB_TEST_CGROUP to one, such as a systemd unit's with Delegate=yes", parent)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		os.Remove(dir)
		t.Skipf("cgroups under %s have no cgroup.kill (Linux 5.14)", parent)
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				sub := filepath.Join(dir, e.Name())
				os.WriteFile(filepath.Join(sub, "cgroup.kill"), []byte("1"), 0)
				for range 100 {
					if os.Remove(sub) == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				t.Errorf("job cgroup %s was left behind", e.Name())
			}
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("test cgroup: %v", err)
		}
	})
	return dir
}

// ownCgroup is the directory of this process's cgroup v2, or "".
func ownCgroup() string {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var path string
	for line := range strings.Lines(string(self)) {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			path = strings.TrimSpace(rest)
		}
	}
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil || path == "" {
		return ""
	}
	defer mounts.Close()
	for lines := bufio.NewScanner(mounts); lines.Scan(); {
		// id parent dev root mountpoint options ... - fstype source options
		fields := strings.Fields(lines.Text())
		if i := slicesIndex(fields, "-"); i > 4 && i+1 < len(fields) && fields[i+1] == "cgroup2" {
			return filepath.Join(fields[4], path)
		}
	}
	return ""
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// escapeScript starts a process that leaves the job's process group with
// setsid and keeps stdout open, writes its pid to the file named by $0, and
// exits once that is done (or, with wait, waits for it).
const escapeScript = `setsid sh -c 'echo $$ >"$0.tmp"; mv "$0.tmp" "$0"; echo escaped; exec sleep 300' "$0" &
until [ -s "$0" ]; do sleep 0.01; done`

// alive reports whether pid is a process that has not exited.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := parseStat(stat)
	return ok && state != 'Z' && state != 'X'
}

func TestACgroupStopsWhatLeftTheProcessGroup(t *testing.T) {
	for _, c := range []struct {
		name   string
		script string
		cancel bool
	}{
		{"after a normal exit", escapeScript, false},
		{"on cancel", escapeScript + "; exec sleep 300", true},
		{"on cancel, ignoring SIGTERM", "trap '' TERM; " + escapeScript + "; exec sleep 300", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := testCgroup(t)
			pidFile := filepath.Join(t.TempDir(), "escapee")
			p, err := run(&registrytest.Job{}, Options{Command: []string{"sh", "-c", c.script, pidFile}, Cgroup: parent, Grace: 200 * time.Millisecond, Poll: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var escapee int
			waitFor(t, func() bool {
				b, _ := os.ReadFile(pidFile)
				escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return escapee > 0
			})
			t.Cleanup(func() { syscall.Kill(escapee, syscall.SIGKILL) })
			if pgid, _ := syscall.Getpgid(escapee); pgid == p.cmd.Process.Pid {
				t.Fatalf("the escapee %d is still in the job's process group", escapee)
			}
			hooks := p.hooks()
			if c.cancel {
				if err := hooks.Cancel("stop"); err != nil {
					t.Fatal(err)
				}
			}
			outcome, err := hooks.Done()
			if err != nil {
				t.Fatal(err)
			}
			if alive(escapee) {
				t.Errorf("process %d left the process group and outlived Done", escapee)
			}
			if strings.Contains(outcome.Detail, "cut off") || strings.Contains(outcome.Detail, "cgroup") {
				t.Errorf("outcome = %+v; the escapee's output should have ended with it, and its cgroup gone", outcome)
			}
			if c.cancel && outcome.Status != jobs.JobStatusKilled {
				t.Errorf("outcome = %+v, want killed", outcome)
			}
			if !c.cancel && outcome.Status != jobs.JobStatusCompleted {
				t.Errorf("outcome = %+v, want completed", outcome)
			}
		})
	}
}

func TestAStartWithADirectoryThatIsNoCgroupFails(t *testing.T) {
	dir := t.TempDir()
	_, err := Start(Options{Command: []string{"true"}, Cgroup: dir}).Run(t.Context(), &registrytest.Job{})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want a start error naming %s", err, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed start left %v behind", entries)
	}
}
