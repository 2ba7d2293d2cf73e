package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
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

func TestCheckKeysRefusesOnlyAmbiguousKeys(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += `"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1,`
	}
	cases := []struct {
		name, in  string
		ambiguous bool
	}{
		{"exact keys", `{"jobId":"x","at":1}`, false},
		{"unknown keys are ignored", `{"jobId":"x","legacy":{"jobId":1,"JOBID":2}}`, false},
		{"nested duplicates belong to the nested object", `{"jobId":{"a":1,"a":2}}`, false},
		{"null", `null`, false},
		{"case-folded key", `{"JobId":"x"}`, true},
		{"case-folded by Unicode folding", "{\"\u212at\":1}", true}, // KELVIN SIGN folds to k
		{"escaped spelling of a key is that key", `{"job\u0049d":"x","at":1}`, false},
		{"escaped duplicate", `{"at":1,"\u0061t":2}`, true},
		{"duplicate after strings with quotes and brackets", `{"jobId":"a\"}{,","jobId":"b"}`, true},
		{"duplicate among many keys", many + `"kzz":1,"kab":2}`, true},
		{"many distinct keys", many + `"kzz":1}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckKeys("T", []byte(c.in), "jobId", "at", "kt")
			if got := errors.Is(err, ErrAmbiguousKey); got != c.ambiguous {
				t.Errorf("CheckKeys(%s) = %v, want ambiguous %v", c.in, err, c.ambiguous)
			}
		})
	}
}

// FuzzCheckKeys: CheckKeys is exported and may be handed anything; it must
// return whatever it is handed, and on valid JSON it must agree with a slow
// reference built on encoding/json's own tokenizer.
func FuzzCheckKeys(f *testing.F) {
	for _, seed := range []string{`{"a":1,"A":2}`, `{"a":"\"","b":[{"a":1}]}`, `{"a\`, `{"\u00`, `[`, `{"a":{`, `"`, `{"\u0061":1,"a":2}`, `{"c":1,"c":[]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := errors.Is(CheckKeys("T", data, "a", "b"), ErrAmbiguousKey)
		if !json.Valid(data) {
			return
		}
		if want := ambiguousByTokens(data, "a", "b"); got != want {
			t.Fatalf("CheckKeys(%s) ambiguous = %v, the reference says %v", data, got, want)
		}
	})
}

// ambiguousByTokens is CheckKeys the slow way, for valid JSON.
func ambiguousByTokens(data []byte, fields ...string) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		if seen[key] {
			return true
		}
		seen[key] = true
		if !slices.Contains(fields, key) {
			for _, f := range fields {
				if strings.EqualFold(key, f) {
					return true
				}
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

func TestParseUUIDReadsWhatUUIDParseReads(t *testing.T) {
	for range 1000 {
		want := uuid.New()
		got, err := ParseUUID([]byte(want.String()))
		if err != nil || got != want {
			t.Fatalf("ParseUUID(%s) = %s, %v", want, got, err)
		}
	}
}

// referenceParseUUID is ParseUUID as it was before it read digits through
// a table: each byte checked, then decoded.
func referenceParseUUID(text []byte) (uuid.UUID, bool) {
	if len(text) != 36 {
		return uuid.UUID{}, false
	}
	for i, c := range text {
		hyphen := i == 8 || i == 13 || i == 18 || i == 23
		if hyphen != (c == '-') || (!hyphen && !('0' <= c && c <= '9' || 'a' <= c && c <= 'f')) {
			return uuid.UUID{}, false
		}
	}
	u, err := uuid.ParseBytes(text)
	return u, err == nil && u != uuid.Nil
}

// ParseUUID refuses exactly what the check it replaced refused, for every
// byte at every position of a UUID, and for every length around 36.
func TestParseUUIDRefusesWhatItRefused(t *testing.T) {
	base := []byte(uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8").String())
	check := func(text []byte) {
		want, ok := referenceParseUUID(text)
		got, err := ParseUUID(text)
		if ok != (err == nil) || got != want || err != nil && !errors.Is(err, ErrInvalidID) {
			t.Fatalf("ParseUUID(%q) = %s, %v; want %s, ok %v", text, got, err, want, ok)
		}
	}
	for i := range base {
		for c := range 256 {
			text := bytes.Clone(base)
			text[i] = byte(c)
			check(text)
		}
	}
	for n := range 40 {
		check(bytes.Repeat([]byte("a"), n))
		check(base[:min(n, len(base))])
	}
	check([]byte("00000000-0000-0000-0000-000000000000"))
}
