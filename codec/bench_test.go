package codec

import (
	"encoding/json"
	"testing"
)

// settledData is the data of a job/settled fact, nested registration included.
var settledData = []byte(`{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1733000000000,"status":"completed","detail":"exit 0","producerReported":true,"registration":{"registeredAt":1732999990000,"owner":"session-1","kind":"bash","label":"go test ./...","ordinal":3,"record":true},"cause":"producer"}`)

// BenchmarkCheckKeys is the price strict decoding adds per object: compare it
// with BenchmarkUnmarshalBaseline, the decode it follows, in the same run.
func BenchmarkCheckKeys(b *testing.B) {
	for b.Loop() {
		if err := CheckKeys("T", settledData, "jobId", "at", "status", "detail", "producerReported", "registration", "cause"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalBaseline(b *testing.B) {
	var v struct {
		JobID            *string         `json:"jobId"`
		At               *int64          `json:"at"`
		Status           *string         `json:"status"`
		Detail           string          `json:"detail"`
		ProducerReported *bool           `json:"producerReported"`
		Registration     json.RawMessage `json:"registration"`
		Cause            string          `json:"cause"`
	}
	for b.Loop() {
		if err := json.Unmarshal(settledData, &v); err != nil {
			b.Fatal(err)
		}
	}
}
