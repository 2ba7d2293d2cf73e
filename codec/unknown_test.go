package codec

import (
	"errors"
	"fmt"
	"testing"
)

// decodeKnown is a stand-in for a generated DecodeFact that knows a/x v1 only.
func decodeKnown(data []byte) (string, error) {
	env, err := DecodeEnvelope(data)
	if err != nil {
		return "", err
	}
	switch {
	case env.Type == "a/x" && env.V == 1:
		return "x", nil
	case env.Type == "a/x":
		return "", fmt.Errorf("decode %s v%d: %w", env.Type, env.V, ErrUnknownVersion)
	}
	return "", fmt.Errorf("decode %q v%d: %w", env.Type, env.V, ErrUnknownFact)
}

func TestUnknownFactsAreCountedByTypeAndVersion(t *testing.T) {
	var u UnknownFacts
	decode := CountUnknown(decodeKnown, &u)
	for _, in := range []string{
		`{"type":"a/x","v":1,"data":{}}`,
		`{"type":"a/x","v":9,"data":{}}`,
		`{"type":"b/y","v":2,"data":{}}`,
		`{"type":"a/x","v":9,"data":{}}`,
		`{"type":"a/x","v":9,"data":{}}`,
		`not json`,             // damaged: an error, but not unknown
		`{"type":"a/x","v":1}`, // damaged: no data
	} {
		decode([]byte(in))
	}
	if u.Total() != 4 {
		t.Errorf("Total = %d, want 4 (damaged facts are not unknown ones)", u.Total())
	}
	if got, want := u.String(), "4 facts this build cannot read: a/x v9 (3), b/y v2 (1)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestCountUnknownPassesErrorsThrough(t *testing.T) {
	var u UnknownFacts
	_, err := CountUnknown(decodeKnown, &u)([]byte(`{"type":"a/x","v":2,"data":{}}`))
	if !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("err = %v, want the decoder's ErrUnknownVersion", err)
	}
	if got := (&UnknownFacts{}).String(); got != "0 facts this build cannot read" {
		t.Errorf("empty String = %q", got)
	}
}
