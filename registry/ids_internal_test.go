package registry

import (
	"testing"

	"github.com/google/uuid"
)

// The registry's ids are random version 4 UUIDs, never repeated across
// refills of the buffer.
func TestIDSourceIssuesDistinctVersion4UUIDs(t *testing.T) {
	s := newIDSource()
	seen := map[[16]byte]bool{}
	for range 3 * idBatch {
		id := s.next()
		u := uuid.UUID(id)
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%s: version %d, variant %v; want 4, RFC 4122", u, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("%s issued twice", u)
		}
		seen[id] = true
	}
}
