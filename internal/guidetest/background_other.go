//go:build !unix

package guidetest

import "testing"

// start skips the test off Unix: a background command is stopped through
// its process group, which only Unix has, and the guides' commands are
// shell commands.
func (r Run) start(t testing.TB, c Cmd) {
	t.Helper()
	t.Skipf("%s:%d: a background command runs only on Unix", r.Guide, c.Line)
}
