package spec_test

import (
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// FuzzDecodeFact feeds DecodeFact arbitrary bytes, starting from real facts
// and from the ambiguous spellings it must refuse. It must never panic;
// whatever it accepts must come back unchanged through EncodeFact and
// DecodeFact, so no input is read as a value the codec cannot write; and a
// settled fact it accepts is in a terminal status.
func FuzzDecodeFact(f *testing.F) {
	f.Add([]byte(settled(goodID, "completed")))
	f.Add([]byte(`{"type":"job/registered","v":1,"data":{"jobId":"` + goodID + `","at":1,"owner":"s","kind":"bash","label":"x","ordinal":1,"record":true}}`))
	f.Add([]byte(`{"type":"job/settled","v":1,"data":{"jobId":"` + goodID + `","at":2,"status":"killed","producerReported":false,` + registration + `}}`))
	f.Add([]byte(`{"type":"job/settled","v":2,"v":2,"data":{}}`))
	f.Add([]byte(`{"TYPE":"job/settled","v":2,"data":{"JobId":"` + goodID + `"}}`))
	f.Add([]byte(settled("{"+goodID+"}", "running")))
	f.Fuzz(func(t *testing.T, data []byte) {
		fact, err := jobs.DecodeFact(data)
		if err != nil {
			return
		}
		if s, ok := fact.(jobs.JobSettled); ok && !s.Status.Terminal() {
			t.Fatalf("accepted a settled fact in status %q: %s", s.Status, data)
		}
		again, err := jobs.EncodeFact(fact)
		if err != nil {
			t.Fatalf("accepted %s as %+v, which does not encode: %v", data, fact, err)
		}
		back, err := jobs.DecodeFact(again)
		if err != nil {
			t.Fatalf("accepted %s as %+v, whose encoding %s does not decode: %v", data, fact, again, err)
		}
		if !reflect.DeepEqual(back, fact) {
			t.Fatalf("accepted %s as %+v, but its encoding decodes as %+v", data, fact, back)
		}
	})
}
