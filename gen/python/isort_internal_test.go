package python

import (
	"slices"
	"testing"
)

// TestImportsAreInIsortsOrder: the names of a from-import come out as ruff's
// isort check (I001) wants them, which a plain sort gets wrong once a name
// such as Uint16 meets UUIDIdentifier, or Int8 meets Int16.
func TestImportsAreInIsortsOrder(t *testing.T) {
	names := map[string]bool{}
	for _, n := range []string{"decode_union", "UUIDIdentifier", "Uint16", "Int64", "Int8", "Int16", "Model",
		"DEFAULT_X", "Envelope", "decode_envelope", "StringIdentifier", "JsonValue"} {
		names[n] = true
	}
	want := []string{"DEFAULT_X", "Envelope", "Int8", "Int16", "Int64", "JsonValue", "Model", "StringIdentifier",
		"Uint16", "UUIDIdentifier", "decode_envelope", "decode_union"}
	if got := isortMembers(names); !slices.Equal(got, want) {
		t.Errorf("isortMembers = %v\nwant %v", got, want)
	}
}
