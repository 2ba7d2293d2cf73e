package gen

import "errors"

// A Resolved is a spec that Validate accepted: Parse read it without a
// problem, every name resolved to its declaration, in this spec or in one it
// imports, and nothing was left to report. Only Validate (through Load and
// LoadFS) makes one, so a backend (golang.Emit, typescript.Emit, ...)
// cannot be handed a spec that was loaded but never checked, whose
// unresolved references would emit wrong code.
type Resolved struct {
	spec *Spec
}

// Spec returns the validated model, for backends and comparisons to read,
// or nil for a Resolved that Validate did not make (the zero value), which
// a backend answers with ErrNotResolved.
func (r *Resolved) Spec() *Spec {
	if r == nil {
		return nil
	}
	return r.spec
}

// ErrNotResolved is what a backend returns for a Resolved that Validate did
// not make: the zero value.
var ErrNotResolved = errors.New("gen: the spec was not validated; load it with Load or LoadFS")
