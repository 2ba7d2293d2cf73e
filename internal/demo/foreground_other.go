//go:build !(linux || darwin)

package demo

// Foreground does nothing where the process cannot take a terminal's
// foreground; Ctrl-C then reaches make and go run too.
func Foreground() (restore func()) { return func() {} }
