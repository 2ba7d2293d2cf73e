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

// Spec returns the validated model, for backends and comparisons to read.
func (r *Resolved) Spec() *Spec { return r.spec }

// ErrNotResolved is what a backend returns for a Resolved that Validate did
// not make: the zero value.
var ErrNotResolved = errors.New("gen: the spec was not validated; load it with Load or LoadFS")

// Model returns the spec behind r, or an error for the zero Resolved.
func (r *Resolved) Model() (*Spec, error) {
	if r == nil || r.spec == nil {
		return nil, ErrNotResolved
	}
	return r.spec, nil
}
