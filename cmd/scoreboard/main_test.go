package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkStartSettlePlain/face-2               	  800000	      1500 ns/op	     400 B/op	       5 allocs/op
BenchmarkStartSettlePlain/face-2               	  800000	      1900 ns/op	     400 B/op	       5 allocs/op
BenchmarkStartSettlePlain/face-2               	  800000	      1700 ns/op	     400 B/op	       7 allocs/op
BenchmarkStartSettlePlain/baseline=mutex-map-2 	 2000000	       850 ns/op	     100 B/op	       2 allocs/op
BenchmarkIdleJobMemory/plain-2                 	       3	   5000000 ns/op	      1200 B/job
BenchmarkStartSettleParallel/starters=1        	 1000000	      2000 ns/op
BenchmarkStartSettleParallel/starters=8-2      	 1000000	      1000 ns/op
BenchmarkStartSettleScaling/registry-2         	     100	      1000 eight-ns/job	      2000 one-ns/job
PASS
`

func TestParseKeepsEveryFigureByBenchmarkAndMetric(t *testing.T) {
	res := results{}
	res.parse("./registry", strings.NewReader(sample))
	face := series{"./registry", "BenchmarkStartSettlePlain/face", "ns/op"}
	if got := res[face]; len(got) != 3 || got[1] != 1900 {
		t.Fatalf("face ns/op = %v", got)
	}
	if m, _ := res.median(face); m != 1700 {
		t.Fatalf("median = %v, want 1700", m)
	}
	if got := res[series{"./registry", "BenchmarkIdleJobMemory/plain", "B/job"}]; len(got) != 1 || got[0] != 1200 {
		t.Fatalf("custom metric = %v", got)
	}
	// A name without the -GOMAXPROCS suffix (GOMAXPROCS=1) keeps its name.
	if _, ok := res.median(series{"./registry", "BenchmarkStartSettleParallel/starters=1", "ns/op"}); !ok {
		t.Fatal("starters=1 not parsed")
	}
}

func TestEvaluateSaysMetMissedAndNotMeasured(t *testing.T) {
	res := results{}
	res.parse("./registry", strings.NewReader(sample))
	byName := func(name string) goal {
		for _, g := range goals {
			if g.name == name {
				return g
			}
		}
		t.Fatalf("no goal %q", name)
		return goal{}
	}
	for _, tc := range []struct {
		goal string
		want []string
		met  bool
	}{
		// 1.7 µs is within 2 µs and the median of 5, 5, 7 allocations within 6.
		{"start→settle, plain job, in-memory", []string{"1.70 µs, 5 allocs", "850.0 ns", "2.00×", "met"}, true},
		{"memory per idle plain job", []string{"1200 B/job", "missed"}, false},
		{"start→settle throughput, 8 starters vs 1", []string{"1.00 µs", "2.00 µs", "2.00×", "met"}, true},
		{"journal intervals, 1,000,000 records", []string{"not measured in this build", "BenchmarkWriteIntervals/json=false", "missed"}, false},
	} {
		line, met := byName(tc.goal).evaluate(res)
		if met != tc.met {
			t.Errorf("%s: met = %v, want %v: %s", tc.goal, met, tc.met, line)
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: line %q lacks %q", tc.goal, line, w)
			}
		}
	}
}

// A ratio pairs each round's figure with its baseline from the same round:
// a round slowed by load as a whole does not move it.
func TestRatioIsTheMedianOfPairedRounds(t *testing.T) {
	a, b := series{"p", "A", "ns/op"}, series{"p", "B", "ns/op"}
	res := results{a: {100, 400, 110}, b: {50, 200, 100}}
	// Rounds: 2.0, 2.0, 1.1 → 2.0; the medians alone would say 110/100.
	if got := res.pairedRatio(a, b); got != 2 {
		t.Fatalf("paired ratio = %v, want 2", got)
	}
	res[b] = res[b][:2] // rounds that do not pair up fall back to the medians
	if got := res.pairedRatio(a, b); got != 110.0/125 {
		t.Fatalf("unpaired ratio = %v, want %v", got, 110.0/125)
	}
}

func TestEveryGoalIsFedByARun(t *testing.T) {
	for _, g := range goals {
		found := false
		for _, r := range runs {
			if r.pkg == g.measured.pkg {
				found = true
			}
		}
		if !found {
			t.Errorf("goal %q: no run covers package %s", g.name, g.measured.pkg)
		}
	}
}
