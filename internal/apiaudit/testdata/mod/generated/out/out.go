// Package out is generated code: its own API is not listed, but its uses count.
package out

import "example.com/mod/lib"

// Exported is the spec's, not audited.
var Exported = lib.Gen
