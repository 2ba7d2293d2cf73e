package main

// The goals of issues 16 and 24, one row each. A row names
// the benchmark (and metric) that measures it and the baseline it is
// compared with in the same run. A row whose benchmark is missing from this
// build prints "not measured in this build": adding the benchmark, under the
// name given here, is all it takes to fill it in.
var goals = []goal{
	{
		name:     "start→settle, plain job, in-memory",
		measured: series{"./registry", "BenchmarkStartSettlePlain/face", "ns/op"},
		baseline: series{"./registry", "BenchmarkStartSettlePlain/baseline=mutex-map", "ns/op"},
		limits:   []limit{{"ns/op", atMost, 2000, "≤ 2 µs"}, {"allocs/op", atMost, 6, "≤ 6 allocs"}},
	},
	{
		name:     "memory per idle plain job",
		measured: series{"./registry", "BenchmarkIdleJobMemory/plain", "B/job"},
		baseline: series{"./registry", "BenchmarkIdleJobMemory/baseline=goroutine", "B/job"},
		limits:   []limit{{"B/job", atMost, 1024, "≤ 1 KiB"}},
	},
	{
		name:     "memory per idle recording job, 100 B written",
		measured: series{"./registry", "BenchmarkIdleJobMemory/recording-100B", "B/job"},
		baseline: series{"./registry", "BenchmarkIdleJobMemory/baseline=goroutine", "B/job"},
		limits:   []limit{{"B/job", atMost, 2048, "≤ 2 KiB"}},
	},
	{
		// Issue 24. The paired rows alternate batches of the measured call
		// and its baseline (thread CPU time on Linux), so load bursts from
		// other processes land on both alike.
		name:     "producer Append 64 B, default clock",
		measured: series{"./registry", "BenchmarkPairedAppend/64B/face", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedAppend/64B/face", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 4, "≤ 4× circbuf"},
	},
	{
		// The floor of the row above: one read of the default chunk clock.
		name:     "one default-clock read, against circbuf 64 B",
		measured: series{"./registry", "BenchmarkPairedClockRead", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedClockRead", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 4, "< 4×, or the row above cannot be met"},
	},
	{
		name:     "producer Append 64 B, WithCoarseChunkClock",
		measured: series{"./registry", "BenchmarkPairedAppend/64B/face-coarse", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedAppend/64B/face-coarse", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 2, "≤ 2× circbuf"},
	},
	{
		name:     "ring append 64 B",
		measured: series{"./registry", "BenchmarkRecordAppend/64B/ring", "ns/op"},
		baseline: series{"./registry", "BenchmarkRecordAppend/64B/circbuf", "ns/op"},
		ratio:    &limit{"", atMost, 1.0, "≤ 1.0× circbuf"},
	},
	{
		name:     "ring append 4 KiB",
		measured: series{"./registry", "BenchmarkPairedAppend/4KiB/ring", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedAppend/4KiB/ring", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 1.05, "≤ 1.05× circbuf"},
	},
	{
		name:     "ReadRecordInto 4 KiB (64 × 64 B chunks)",
		measured: series{"./registry", "BenchmarkPairedReadRecordInto/64x64B", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedReadRecordInto/64x64B", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 2, "≤ 2× memmove"},
		limits:   []limit{{"allocs/op", atMost, 0, "0 allocs"}},
	},
	{
		name:     "ReadRecordInto 4 KiB (one 4 KiB chunk)",
		measured: series{"./registry", "BenchmarkPairedReadRecordInto/1x4KiB", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedReadRecordInto/1x4KiB", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 2, "≤ 2× memmove"},
		limits:   []limit{{"allocs/op", atMost, 0, "0 allocs"}},
	},
	{
		name:     "List, 10 of 10,000 jobs visible",
		measured: series{"./registry", "BenchmarkList10k/10-of-10000", "ns/op"},
		baseline: series{"./registry", "BenchmarkList10k/baseline=10-of-10", "ns/op"},
		ratio:    &limit{"", atMost, 1.5, "≤ 1.5× listing 10 of 10"},
	},
	{
		// The table path of jobhistory's streaming projection; its memory
		// (≤ 64 MB RSS) is a whole process's, measured with /usr/bin/time -v
		// on jobgen journal intervals (decision 0014), not here.
		name:     "journal intervals, 1,000,000 records",
		measured: series{"./jobhistory", "BenchmarkWriteIntervals/json=false", "ns/op"},
		baseline: series{"./jobhistory", "BenchmarkWriteIntervals/check", "ns/op"},
		limits:   []limit{{"ns/op", atMost, 3e9, "≤ 3 s"}},
	},
	{
		// journal-ns/record and baseline-ns/record come from one paired run.
		name:     "journal no-sync append, pre-encoded payload",
		measured: series{"./journal", "BenchmarkAppend/payload", "journal-ns/record"},
		baseline: series{"./journal", "BenchmarkAppend/payload", "baseline-ns/record"},
		ratio:    &limit{"", atLeast, 0.8, "≥ 0.8× the baseline's throughput"},
		inverse:  true,
	},
	{
		// Issue 24: sources that notify their writes (procjob's do).
		name:     "10,000 idle pumps on the shared pacer",
		measured: series{"./registry", "BenchmarkPumpIdle10k/pump-with-pacer", "%core"},
		baseline: series{"./registry", "BenchmarkPumpIdle10k/baseline=ticker", "%core"},
		limits:   []limit{{"%core", atMost, 0.25, "≤ 0.25% of a core"}, {"ms-to-output", atMost, 250, "first output after idle ≤ 250 ms"}},
	},
	{
		// Issue 24: alternating phases of one starter and of eight.
		name:     "start→settle throughput, 8 starters vs 1",
		measured: series{"./registry", "BenchmarkStartSettleScaling/registry", "eight-ns/job"},
		baseline: series{"./registry", "BenchmarkStartSettleScaling/registry", "one-ns/job"},
		ratio:    &limit{"", atLeast, 1.6, "≥ 1.6× one starter"},
		inverse:  true,
	},
	{
		// The ceiling of the row above in the same run: work that shares
		// nothing, so it shows what other processes left of the 2 cores.
		name:     "CPU-only work, 8 goroutines vs 1 (the machine)",
		measured: series{"./registry", "BenchmarkStartSettleScaling/baseline=compute", "eight-ns/job"},
		baseline: series{"./registry", "BenchmarkStartSettleScaling/baseline=compute", "one-ns/job"},
		ratio:    &limit{"", atLeast, 1.6, "≥ 1.6×, or the row above cannot be met"},
		inverse:  true,
	},
}

// runs are the go test invocations that feed the goals, grouped by the
// benchtime their benchmarks need. count is the number of runs whose median
// each figure is.
var runs = []run{
	{pkg: "./registry", bench: "^(BenchmarkStartSettlePlain|BenchmarkStartSettleScaling|BenchmarkRecordAppend|BenchmarkPairedAppend|BenchmarkPairedClockRead|BenchmarkPairedReadRecordInto|BenchmarkList10k)$", benchtime: "300ms"},
	{pkg: "./registry", bench: "^BenchmarkIdleJobMemory$", benchtime: "3x"},
	{pkg: "./registry", bench: "^BenchmarkPumpIdle10k$/^(baseline=ticker|pump-with-pacer)$", benchtime: "2x"},
	{pkg: "./journal", bench: "^BenchmarkAppend$/^payload$", benchtime: "300ms"},
	{pkg: "./jobhistory", bench: "^BenchmarkWriteIntervals$/^(check|json=false)$", benchtime: "1x"},
}
