package codec

import (
	"errors"
	"testing"
)

func TestUnknownVersionIsAnUnknownFact(t *testing.T) {
	if !errors.Is(ErrUnknownVersion, ErrUnknownFact) {
		t.Error("ErrUnknownVersion does not wrap ErrUnknownFact; a tool skipping unknown facts would stop at a newer version")
	}
	if errors.Is(ErrUnknownFact, ErrUnknownVersion) {
		t.Error("ErrUnknownFact matches ErrUnknownVersion; an unknown type would pass for a known one")
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	data := AppendEnvelope(nil, "order/placed", 12, []byte(`{"id":1}`))
	if string(data) != `{"type":"order/placed","v":12,"data":{"id":1}}` {
		t.Fatalf("AppendEnvelope = %s", data)
	}
	env, err := DecodeEnvelope(data)
	if err != nil {
		t.Fatal(err)
	}
	if env.Type != "order/placed" || env.V != 12 || string(env.Data) != `{"id":1}` {
		t.Errorf("DecodeEnvelope = %+v", env)
	}
}

func TestEnvelopeWithoutDataIsRefused(t *testing.T) {
	for _, in := range []string{`{"type":"a","v":1}`, `{"type":"a","v":1,"data":null}`} {
		if _, err := DecodeEnvelope([]byte(in)); !errors.Is(err, ErrMissingField) {
			t.Errorf("DecodeEnvelope(%s): err = %v, want ErrMissingField", in, err)
		}
	}
}
