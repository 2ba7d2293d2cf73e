package python

import (
	"strings"
	"testing"
)

// TestDecodersAreLinearInSize generates the kitchen-sink spec, whose Dish
// holds itself (parent), as package kv with its runtime and runs
// testdata/linear/linear.py beside it: the generated decoders take time
// linear in the size of a document of each hostile shape (a record nested
// in itself, many small records, a long string of escapes, many keys, keys
// given twice). It needs tools/python/venv.sh; under CI=true it fails
// without it.
func TestDecodersAreLinearInSize(t *testing.T) {
	cmd := caseScript(t, "kv", "kitchen-sink", "testdata/linear/linear.py")
	log, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("the generated decoders: %v", err)
	}
}
