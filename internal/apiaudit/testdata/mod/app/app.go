// Package app uses lib.
package app

import l "example.com/mod/lib"

// Run uses lib through a renamed import, and T's method through a value.
func Run() int {
	var t l.T
	t.Method()
	return l.Used()
}
