// Package gentest is what the backends' tests share: Golden, the golden
// runner over the front end's cases and a backend's own; Deterministic,
// the first rule of gen.Backend; and small helpers (WriteFile, ErrorLines,
// the shipped spec, a synthetic spec for benchmarks). Only tests import it.
package gentest
