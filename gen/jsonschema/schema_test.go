package jsonschema

import (
	"errors"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// TestEmitTakesOnlyAValidatedSpec: the zero Resolved, which Validate
// never returns, is refused.
func TestEmitTakesOnlyAValidatedSpec(t *testing.T) {
	if _, err := Emit(nil); !errors.Is(err, gen.ErrNotResolved) {
		t.Errorf("Emit(nil): err = %v, want ErrNotResolved", err)
	}
}
