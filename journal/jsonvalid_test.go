package journal

import (
	"encoding/json"
	"github.com/jobgen/jobgen/generated/jobs"
	"strings"
	"testing"
)

var jsonCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":null}]}`, ` {"a" : true , "b":false } `,
	`"x"`, `"\u00e9\n\"\\\/"`, `"\x"`, `"\u12g4"`, "\"a\x01\"", "\"\xff\xfe\"", `-0`, `-01`, `1.`, `1.5e+10`,
	`1e`, `01`, `-`, `tru`, `true`, `nulls`, `[1,]`, `{"a":1,}`, `{,}`, `[,1]`, `{"a"}`, `{"a":}`,
	`{1:2}`, `[1 2]`, `1 2`, `[`, `]`, `{"a":1}}`, `[[[]]]`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), "\t1\r", `{"type":"job/settled","v":2,"data":{}}`,
}

// validJSON agrees with encoding/json.Valid.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.40q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%.80q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// BenchmarkValidJSON measures the validator on a typical settled fact
// against encoding/json.Valid, the reference it agrees with.
func BenchmarkValidJSON(b *testing.B) {
	p, err := jobs.EncodeFact(benchFact(1))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	b.Run("validJSON", func(b *testing.B) {
		for b.Loop() {
			if !validJSON(p) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("baseline=encoding-json", func(b *testing.B) {
		for b.Loop() {
			if !json.Valid(p) {
				b.Fatal("invalid")
			}
		}
	})
}
