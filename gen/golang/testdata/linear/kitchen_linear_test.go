package kitchen

// This test runs in a scratch module beside the package jobgen generates
// from gen/testdata/cases/kitchen-sink/spec.yaml; gen/golang's
// TestGeneratedDecodersAreLinearInSize puts it there.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const dish = `"name":"x","course":"main-course","priceCents":1,"allergens":{}`

// placed is an order/placed fact holding dishes, the JSON of a list's
// elements.
func placed(dishes string) []byte {
	return []byte(`{"type":"order/placed","v":2,"data":{"order":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"dishes":[` + dishes + `]}}`)
}

// shapes are the documents of n units of each shape a decoder must read in
// linear time, and how to decode one.
var shapes = []struct {
	name   string
	unit   int
	doc    func(n int) []byte
	decode func([]byte) error
}{
	{"a fact with a record nested in itself", 1000, func(n int) []byte {
		return placed(strings.Repeat(`{`+dish+`,"parent":`, n) + `{` + dish + `}` + strings.Repeat(`}`, n))
	}, decodeFact},
	{"a record nested in itself", 1000, func(n int) []byte {
		return []byte(strings.Repeat(`{`+dish+`,"parent":`, n) + `{` + dish + `}` + strings.Repeat(`}`, n))
	}, func(doc []byte) error { var d Dish; return json.Unmarshal(doc, &d) }},
	{"a fact with many small records", 8000, func(n int) []byte {
		return placed(strings.TrimSuffix(strings.Repeat(`{`+dish+`},`, n), ","))
	}, decodeFact},
	{"a long string with many escapes", 50000, func(n int) []byte {
		return placed(`{` + strings.Replace(dish, `"x"`, `"`+strings.Repeat(`\n\u00e9\"`, n)+`"`, 1) + `}`)
	}, decodeFact},
	{"many keys", 8000, func(n int) []byte {
		var keys []string
		for i := range n {
			keys = append(keys, fmt.Sprintf(`"k%d":%d`, i, i))
		}
		return placed(`{` + dish + `,` + strings.Join(keys, ",") + `}`)
	}, decodeFact},
}

func decodeFact(doc []byte) error {
	_, err := DecodeFact(doc)
	return err
}

// TestDecodersAreLinearInSize: a document 4 times as large takes about 4
// times as long to decode, not 16 (more than 10 fails: a busy machine has shown 8.5); each cost is the
// process's CPU time, the least of several interleaved runs, so other work
// on a busy machine does not count.
func TestDecodersAreLinearInSize(t *testing.T) {
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			small, large := c.doc(c.unit), c.doc(4*c.unit)
			var s, l time.Duration
			for i := 0; i < 15 && (i == 0 || l < time.Second); i++ { // quadratic code fails in one run
				s = fastest(t, c.decode, small, s)
				l = fastest(t, c.decode, large, l)
			}
			ratio := float64(l) / float64(max(s, time.Microsecond))
			if ratio > 10 {
				t.Errorf("a document 4 times as large (%d bytes) took %.1f times as long to decode: quadratic", len(large), ratio)
			}
		})
	}
}

func fastest(t *testing.T, decode func([]byte) error, doc []byte, prev time.Duration) time.Duration {
	runtime.GC()
	start := cpuTime()
	if err := decode(doc); err != nil {
		t.Fatalf("a document of %d bytes: %.300v", len(doc), err)
	}
	if d := cpuTime() - start; prev == 0 || d < prev {
		return d
	}
	return prev
}

// cpuTime is the CPU time the process has used, its own threads' and the
// runtime's alike.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
