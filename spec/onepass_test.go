package spec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
)

// referenceDecodeFact is DecodeFact as generated before it read facts in one
// pass: encoding/json for the envelope, its key check, then each fact's
// UnmarshalJSON (which the generated types still have).
func referenceDecodeFact(data []byte) (any, error) {
	var env codec.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	if err := codec.CheckKeys("envelope", data, "type", "v", "data"); err != nil {
		return nil, err
	}
	if env.Data == nil || bytes.Equal(env.Data, []byte("null")) {
		return nil, codec.MissingField("envelope", "data")
	}
	var out any
	switch {
	case env.Type == jobs.JobRegisteredType && env.V == 1:
		out = &jobs.JobRegistered{}
	case env.Type == jobs.JobSettledType && env.V == 1:
		out = &jobs.JobSettledV1{}
	case env.Type == jobs.JobSettledType && env.V == 2:
		out = &jobs.JobSettled{}
	case env.Type == jobs.JobRegisteredType || env.Type == jobs.JobSettledType:
		return nil, codec.ErrUnknownVersion
	default:
		return nil, codec.ErrUnknownFact
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return nil, err
	}
	return reflect.ValueOf(out).Elem().Interface(), nil
}

// FuzzDecodeFactRefusesWhatEncodingJSONRefused: reading facts in one pass
// keeps every refusal of the encoding/json decoders it replaced, and reads
// what they read as they read it; unknown facts stay unknown and damaged
// ones damaged.
func FuzzDecodeFactRefusesWhatEncodingJSONRefused(f *testing.F) {
	for _, s := range []string{
		settled(goodID, "completed"),
		settled(goodID, "running"),
		`{"data":{"jobId":"` + goodID + `","at":1,"owner":"s","kind":"bash","label":"x","ordinal":1,"record":true},"v":1,"type":"job/registered"}`,
		`{"type":"job/registered","v":1,"data":{"jobId":"` + goodID + `","at":1,"owner":null,"kind":"b\u0061sh","label":"x","ordinal":1.0,"record":true,"extra":[1,{"a":null}]}}`,
		`{"type":"job/settled","v":1,"data":{"jobId":"` + goodID + `","at":2,"status":"killed","producerReported":false,` + registration + `}}`,
		`{"type":"job/settled","v":2,"data":{"jobId":"` + goodID + `","at":2,"status":"killed","cause":null,"detail":null,"producerReported":false,"registration":null}}`,
		`{"type":"job/settled","v":9,"data":{"x":[}}`,
		`{"type":"job/paused","v":1,"data":{"a":1,"a":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := jobs.DecodeFact(data)
		want, werr := referenceDecodeFact(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("DecodeFact(%q): err = %v; encoding/json: %v", data, err, werr)
		}
		if errors.Is(err, codec.ErrUnknownFact) != errors.Is(werr, codec.ErrUnknownFact) ||
			errors.Is(err, codec.ErrUnknownVersion) != errors.Is(werr, codec.ErrUnknownVersion) {
			t.Fatalf("DecodeFact(%q): err = %v; encoding/json: %v (unknown and damaged must stay apart)", data, err, werr)
		}
		if err != nil {
			return
		}
		// journal.FileFacts leaves the check that a fact is JSON to its
		// decoder: what DecodeFact reads must be one JSON value.
		if !json.Valid(data) {
			t.Fatalf("DecodeFact(%q) = %+v, but encoding/json says it is not JSON", data, got)
		}
		if v1, ok := want.(jobs.JobSettledV1); ok {
			if s, ok := got.(jobs.JobSettled); !ok || s.JobID != v1.JobID || s.Registration != v1.Registration || s.Status != v1.Status {
				t.Fatalf("DecodeFact(%q) = %+v; encoding/json read %+v", data, got, want)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeFact(%q) = %+v; encoding/json read %+v", data, got, want)
		}
	})
}

// plainSettled is a job/settled fact's shape with no strictness at all: the
// baseline a one-pass decoder is measured against.
type plainSettled struct {
	Type string `json:"type"`
	V    int    `json:"v"`
	Data struct {
		JobID            string `json:"jobId"`
		At               int64  `json:"at"`
		Status           string `json:"status"`
		Detail           string `json:"detail"`
		ProducerReported bool   `json:"producerReported"`
		Registration     struct {
			RegisteredAt int64  `json:"registeredAt"`
			Owner        string `json:"owner"`
			Kind         string `json:"kind"`
			Label        string `json:"label"`
			Ordinal      int    `json:"ordinal"`
			ToolCall     string `json:"toolCall"`
			Record       bool   `json:"record"`
		} `json:"registration"`
		Cause string `json:"cause"`
	} `json:"data"`
}

var benchSettled = []byte(`{"type":"job/settled","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1733000000000,"status":"completed","detail":"exit 0","producerReported":true,"registration":{"registeredAt":1732999990000,"owner":"session-1","kind":"bash","label":"go test ./...","ordinal":3,"record":true},"cause":"producer"}}`)

// BenchmarkDecodeFact is one job/settled fact decoded by DecodeFact (one
// pass), by the encoding/json decoders it replaced, and, the baseline, by
// json.Unmarshal into a plain struct that checks nothing.
//
//	go test ./spec -run '^$' -bench DecodeFact -count 3
func BenchmarkDecodeFact(b *testing.B) {
	b.Run("onepass", func(b *testing.B) {
		for b.Loop() {
			if _, err := jobs.DecodeFact(benchSettled); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-before", func(b *testing.B) {
		for b.Loop() {
			if _, err := referenceDecodeFact(benchSettled); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-plain-unmarshal", func(b *testing.B) {
		for b.Loop() {
			var v plainSettled
			if err := json.Unmarshal(benchSettled, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeFactReadsInOnePass guards one-pass decoding (decision 0045): the
// encoding/json decoders it replaced made 50 allocations for a job/settled
// fact, validating it three to four times; the one-pass decoder makes one
// per string it keeps and a few more. A change that brings encoding/json
// back onto this path fails here.
func TestDecodeFactReadsInOnePass(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := jobs.DecodeFact(benchSettled); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 12 {
		t.Errorf("DecodeFact of a job/settled fact: %v allocations, want at most 12", allocs)
	}
}
