package factspec_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/factspec"
)

// Hostile journals are as large as a fact may be, so decoding a fact must
// take time linear in its size whatever its shape. Each case builds a fact
// of n and of 4n units and compares the two decode costs in one run: a
// linear decoder takes about 4 times as long, a quadratic one about 16
// times; more than 10 times fails (a busy machine has shown 8.5 on linear code). Each cost is the process's CPU time, the
// least of several interleaved runs, so other work on a busy machine does
// not count.

// sampleOf is a Sample with fields given as JSON members, or none.
func sampleOf(members string) string {
	if members == "" {
		return `{"value":0,"count":0}`
	}
	return `{"value":0,"count":0,` + members + `}`
}

// nestedSamples is n Samples, each in the field of the one around it: the
// member's text is what comes before the inner Sample, close what after.
func nestedSamples(n int, open, close string) string {
	return strings.Repeat(`{"value":0,"count":0,"note":"pad pad pad",`+open, n) + sampleOf("") + strings.Repeat(close+"}", n)
}

// shapes are the facts of n units of each shape a decoder must read in
// linear time.
var shapes = []struct {
	name string
	unit int // n for the smaller fact
	fact func(n int) string
}{
	{"a record nested through a pointer", 2000, func(n int) string { return nestedSamples(n, `"next":`, "") }},
	{"a record nested through a list", 1200, func(n int) string { return nestedSamples(n, `"kids":[`, "]") }},
	{"a list of many small records", 8000, func(n int) string {
		return `{"sample":` + sampleOf("") + `,"samples":[` + strings.TrimSuffix(strings.Repeat(sampleOf("")+",", n), ",") + `]}`
	}},
	{"a long string with many escapes", 50000, func(n int) string {
		return `{"sample":` + sampleOf(`"note":"`+strings.Repeat(`\n\u00e9\"`, n)+`"`) + `}`
	}},
	{"many keys", 8000, func(n int) string {
		var keys []string
		for i := range n {
			keys = append(keys, fmt.Sprintf(`"k%d":%d`, i, i))
		}
		return `{"sample":` + sampleOf(strings.Join(keys, ",")) + `}`
	}},
	{"many keys of any JSON", 8000, func(n int) string {
		var keys []string
		for i := range n {
			keys = append(keys, fmt.Sprintf(`"x%d":%d`, i, i))
		}
		return `{"sample":` + sampleOf(`"byLevel":{"low":1},"host":{`+strings.Join(keys, ",")+`}`) + `}`
	}},
}

func TestDecodeFactIsLinearInSize(t *testing.T) {
	v, err := factspec.New(load(t, "metrics.yaml", metrics))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			data := func(n int) []byte {
				d := c.fact(n)
				if !strings.HasPrefix(d, `{"sample":`) {
					d = `{"sample":` + d + `}`
				}
				return []byte(`{"type":"metric/sampled","v":1,"data":` + d + `}`)
			}
			small, large := data(c.unit), data(4*c.unit)
			decode := func(doc []byte) time.Duration {
				start := cpuTime()
				if _, err := v.DecodeFact(doc); err != nil {
					t.Fatalf("a fact of %d bytes: %.300v", len(doc), err)
				}
				return cpuTime() - start
			}
			ratio := costRatio(decode, small, large)
			// Linear is 4, quadratic 16: 10 leaves room for a busy machine
			// (a parallel make test measured 8.5) and still fails quadratic code.
			if ratio > 10 {
				t.Errorf("a fact 4 times as large (%d bytes) took %.1f times as long to decode: quadratic", len(large), ratio)
			}
		})
	}
}

// costRatio is how many times longer decode takes on large than on small,
// each the least of several interleaved runs.
func costRatio(decode func([]byte) time.Duration, small, large []byte) float64 {
	best := func(d, prev time.Duration) time.Duration {
		if prev == 0 || d < prev {
			return d
		}
		return prev
	}
	var s, l time.Duration
	for i := 0; i < 15 && (i == 0 || l < time.Second); i++ { // quadratic code fails in one run
		s = best(decode(small), s)
		l = best(decode(large), l)
	}
	return float64(l) / float64(max(s, time.Microsecond))
}

// deepFact is a metric/sampled fact of 952 KiB whose Sample nests 9,990
// deep through next: within the 1 MiB a journal record may hold and the
// 10,000 levels Go decodes.
func deepFact() []byte {
	const depth, size = 9990, 952 << 10
	pad := strings.Repeat("p", size/depth-len(`{"value":0,"count":0,"note":"","next":}`))
	fact := `{"type":"metric/sampled","v":1,"data":{"sample":` +
		strings.Repeat(`{"value":0,"count":0,"note":"`+pad+`","next":`, depth) + sampleOf("") + strings.Repeat("}", depth) + `}}`
	return []byte(fact)
}

// BenchmarkDecodeDeepFact is the hostile fact jobgen journal check once
// took 11 to 15 seconds to read.
//
//	go test ./factspec -run '^$' -bench DecodeDeepFact -count 5
func BenchmarkDecodeDeepFact(b *testing.B) {
	v, err := factspec.New(load(b, "metrics.yaml", metrics))
	if err != nil {
		b.Fatal(err)
	}
	fact := deepFact()
	b.SetBytes(int64(len(fact)))
	for b.Loop() {
		if _, err := v.DecodeFact(fact); err != nil {
			b.Fatalf("%.300v", err)
		}
	}
}
