//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package procjob

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/jobgen/jobgen/generated/jobs"
)

// openTerminal refuses: procjob opens pseudo-terminals only where Unix has
// them. Windows' ConPTY is not supported; see docs/decisions/0120.
func openTerminal(jobs.TerminalSize) (*terminal, *os.File, error) {
	return nil, nil, fmt.Errorf("procjob: Options.Terminal: %s has no pseudo-terminal procjob can open "+
		"(Windows' ConPTY is not supported): run the command on pipes", runtime.GOOS)
}

// setSize is never called: no terminal is ever opened here.
func setSize(*os.File, jobs.TerminalSize) error {
	return errors.New("no pseudo-terminal")
}
