package main

import "strings"

// The performance goals, one row each. A row names
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
		// The paired rows alternate batches of the measured call
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
		name:     "producer Append 64 B, the coarse chunk clock (benchmarks only)",
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
		name:     "buffered record read 4 KiB (64 × 64 B chunks)",
		measured: series{"./registry", "BenchmarkPairedReadRecordInto/64x64B", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedReadRecordInto/64x64B", "baseline-ns/op"},
		ratio:    &limit{"", atMost, 2, "≤ 2× memmove"},
		limits:   []limit{{"allocs/op", atMost, 0, "0 allocs"}},
	},
	{
		name:     "buffered record read 4 KiB (one 4 KiB chunk)",
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
		// Sources that notify their writes (procjob's do).
		name:     "10,000 idle pumps on the shared pacer",
		measured: series{"./registry", "BenchmarkPumpIdle10k/pump-with-pacer", "%core"},
		baseline: series{"./registry", "BenchmarkPumpIdle10k/baseline=ticker", "%core"},
		limits:   []limit{{"%core", atMost, 0.25, "≤ 0.25% of a core"}, {"ms-to-output", atMost, 250, "first output after idle ≤ 250 ms"}},
	},
	{
		// Alternating phases of one starter and of eight.
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
	{
		// Steady state: the benchmark warms up before it times, and the
		// run below makes 30,000,000 appends, so that even the fastest of
		// them spans many flush intervals (and the paired row's blocks,
		// a sixth of them each at most, span several).
		name:     "Append 64 B with 1,000 SSE followers, steady state",
		measured: series{"./jobhttp", "BenchmarkAppendWithFollowers/followers=1000", "ns/op"},
		baseline: series{"./jobhttp", "BenchmarkAppendWithFollowers/followers=0", "ns/op"},
		ratio:    &limit{"", atMost, 1.5, "≤ 1.5× no followers"},
	},
	{
		// What the same windows cost the producer when no server at all
		// sends them, only raw TCP writes: the machine's own limit for the
		// row above (decision 0061).
		name:     "Append 64 B while 1,000 raw TCP peers take the same windows",
		measured: series{"./jobhttp", "BenchmarkAppendWithFollowers/peer=raw-tcp-1000", "ns/op"},
		baseline: series{"./jobhttp", "BenchmarkAppendWithFollowers/followers=0", "ns/op"},
		ratio:    &limit{"", atMost, 1.5, "≤ 1.5× no followers"},
	},
	{
		// Today: 951 frames/s, the median of three runs of this benchmark
		// on main at 8f67886 (decision 0061). The baseline is the raw TCP
		// peer's rate in the same run.
		name:     "frames/s delivered to 1,000 SSE followers",
		measured: series{"./jobhttp", "BenchmarkAppendWithFollowers/followers=1000", "frames/s"},
		baseline: series{"./jobhttp", "BenchmarkAppendWithFollowers/peer=raw-tcp-1000", "frames/s"},
		limits:   []limit{{"frames/s", atLeast, 9510, "≥ 10× today (951/s)"}},
		ratio:    &limit{"", atLeast, 1.0, "≥ 1.0× the raw TCP peer"},
	},
	{
		// The two rows above in alternating blocks of one run
		// (decision 0227), so that load from other processes lands on
		// both alike; the ratio is the frames the followers received over
		// the frames the raw peer's readers received, per second of each.
		name:     "frames/s to 1,000 SSE followers vs 1,000 raw TCP peers, paired blocks",
		measured: series{"./jobhttp", "BenchmarkAppendWithFollowers/paired=sse-vs-raw-tcp-1000", "sse-frames/s"},
		baseline: series{"./jobhttp", "BenchmarkAppendWithFollowers/paired=sse-vs-raw-tcp-1000", "raw-frames/s"},
		ratio:    &limit{"", atLeast, 1.0, "≥ 1.0× the raw TCP peer"},
	},
	{
		name:     "Append 64 B with 1,000 SSE followers vs 1,000 raw TCP peers, paired blocks",
		measured: series{"./jobhttp", "BenchmarkAppendWithFollowers/paired=sse-vs-raw-tcp-1000", "sse-ns/append"},
		baseline: series{"./jobhttp", "BenchmarkAppendWithFollowers/paired=sse-vs-raw-tcp-1000", "raw-ns/append"},
		ratio:    &limit{"", atMost, 1.0, "≤ 1.0× the raw peer's cost"},
	},
	{
		// One client reading ten busy jobs (decision 0198): over one Watch
		// stream with ten follow views, against ten FollowJob streams in
		// the same run. Frames per second is what a tab with ten panes
		// sees; MB/s says whether the one stream carries as much output.
		name:     "one Watch stream carrying ten follows vs ten streams, frames/s",
		measured: series{"./jobhttp", "BenchmarkWatchTenFollows/watch-10", "frames/s"},
		baseline: series{"./jobhttp", "BenchmarkWatchTenFollows/peer=follow-10", "frames/s"},
		ratio:    &limit{"", atLeast, 1.0, "≥ 1.0× ten streams"},
	},
	{
		// The output's bytes over the time from the first append to the
		// client's last byte: the producer's ten appends an op set the pace
		// on both sides, so this says the one stream keeps up, not which
		// is faster.
		name:     "one Watch stream carrying ten follows vs ten streams, MB/s (no goal: both keep the producer's pace)",
		measured: series{"./jobhttp", "BenchmarkWatchTenFollows/watch-10", "MB/s"},
		baseline: series{"./jobhttp", "BenchmarkWatchTenFollows/peer=follow-10", "MB/s"},
	},
	{
		// The generated Python package decoding the follow frames and the
		// facts at their newest version (tools/python/bench.py), against
		// json.loads of the same bytes, in interleaved runs of one process.
		name:     "Python decode of follow frames and facts vs json.loads",
		measured: series{"./clients/python", "BenchmarkPythonDecode", "generated-us/set"},
		baseline: series{"./clients/python", "BenchmarkPythonDecode", "loads-us/set"},
		ratio:    &limit{"", atMost, 2, "≤ 2× json.loads"},
	},
	{
		// An older fact version is validated as written and again as the
		// newest version after its upcasts: the price of old history.
		name:     "Python decode of a job/settled v2 fact, upcast to v3, vs json.loads (no goal: an older version's cost)",
		measured: series{"./clients/python", "BenchmarkPythonDecode", "upcast-generated-us"},
		baseline: series{"./clients/python", "BenchmarkPythonDecode", "upcast-loads-us"},
	},
	{
		// What a pseudo-terminal's line discipline adds to each
		// 64-byte line a program writes, from its write to the job's record.
		name:     "procjob: a 64 B line written under a terminal vs on pipes",
		measured: series{"./procjob", "BenchmarkOutputWrite64B/terminal", "ns/op"},
		baseline: series{"./procjob", "BenchmarkOutputWrite64B/pipes", "ns/op"},
		ratio:    &limit{"", atMost, 4, "≤ 4× pipes"},
	},
	{
		// Registering a running producer (Promote, decision 0192) against
		// a plain Start of the same recording job, each settled and waited
		// for, in alternating batches of one benchmark.
		name:     "a promotion vs a plain start of the same recording job (no goal: the promotion's cost)",
		measured: series{"./registry", "BenchmarkPairedPromote", "measured-ns/op"},
		baseline: series{"./registry", "BenchmarkPairedPromote", "baseline-ns/op"},
	},
}

// The goals that the journal and its peers measure: each peer
// runs in the same process as jobgen's side, paired in alternating blocks
// (bench/peers, a module of its own, and journal/pgstore's peer
// benchmarks).
func init() {
	for _, n := range []string{"1", "16", "128"} {
		durable := "./bench/peers BenchmarkDurable/committers=" + n
		goals = append(goals, goal{
			name:     "durable file append vs etcd WAL (writer goroutine), " + n + " committers",
			measured: peerSeries(durable, "jobgen-ns/commit"),
			baseline: peerSeries(durable, "etcd-writer-ns/commit"),
			ratio:    &limit{"", atLeast, 1.0, "≥ 1.0× etcd"},
			inverse:  true,
		}, goal{
			name:     "durable file append vs etcd WAL Save(N), " + n + " committers",
			measured: peerSeries(durable, "jobgen-ns/commit"),
			baseline: peerSeries(durable, "etcd-saveN-ns/commit"),
			ratio:    &limit{"", atLeast, 0.8, "≥ 0.8× etcd Save(N)"},
			inverse:  true,
		})
	}
	for _, n := range []string{"16", "128"} {
		batch := "./bench/peers BenchmarkBatch/n=" + n
		goals = append(goals, goal{
			name:     "file AppendBatch of " + n + " vs etcd WAL Save(" + n + ")",
			measured: peerSeries(batch, "jobgen-ns/commit"),
			baseline: peerSeries(batch, "etcd-saveN-ns/commit"),
			ratio:    &limit{"", atLeast, 1.0, "≥ 1.0× etcd Save(N)"},
			inverse:  true,
		})
	}
	goals = append(goals, goal{
		name:     "no-sync append of a generated encoder's payload vs bufio + crc32c framing",
		measured: series{"./journal", "BenchmarkAppend/payload-encoded", "journal-ns/record"},
		baseline: series{"./journal", "BenchmarkAppend/payload-encoded", "baseline-ns/record"},
		ratio:    &limit{"", atLeast, 0.5, "≥ 0.5× the baseline's throughput"},
		inverse:  true,
	})
	goals = append(goals, intervalsGoals...)
	goals = append(goals, goal{
		name:     "pgstore vs raw INSERT, 1 committer",
		measured: series{"./journal/pgstore", "BenchmarkPeerInsert", "pgstore-ns/fact"},
		baseline: series{"./journal/pgstore", "BenchmarkPeerInsert", "insert-ns/fact"},
		ratio:    &limit{"", atLeast, 0.9, "≥ 0.9× raw INSERT"},
		inverse:  true,
		needs:    "JOBGEN_TEST_POSTGRES",
	}, goal{
		name:     "pgstore vs raw unnest, 128 committers",
		measured: series{"./journal/pgstore", "BenchmarkPeerUnnest", "pgstore-ns/fact"},
		baseline: series{"./journal/pgstore", "BenchmarkPeerUnnest", "unnest-ns/fact"},
		ratio:    &limit{"", atLeast, 0.8, "≥ 0.8× raw unnest"},
		inverse:  true,
		needs:    "JOBGEN_TEST_POSTGRES",
	}, goal{
		name:     "pgstore tail latency p50 vs INSERT + pg_notify",
		measured: series{"./journal/pgstore", "BenchmarkPeerTail", "pgstore-p50-µs"},
		baseline: series{"./journal/pgstore", "BenchmarkPeerTail", "notify-p50-µs"},
		ratio:    &limit{"", atMost, 1.2, "≤ 1.2× the peer"},
		needs:    "JOBGEN_TEST_POSTGRES",
	}, goal{
		name:     "pgstore vs River Insert, 1 committer (no goal: the peer's figure)",
		measured: peerSeries("./bench/peers BenchmarkRiver/insert", "pgstore-ns/fact"),
		baseline: peerSeries("./bench/peers BenchmarkRiver/insert", "river-ns/fact"),
		inverse:  true,
		needs:    "JOBGEN_TEST_POSTGRES",
	}, goal{
		name:     "pgstore vs River InsertMany, 128 committers (no goal: the peer's figure)",
		measured: peerSeries("./bench/peers BenchmarkRiver/insert-many", "pgstore-ns/fact"),
		baseline: peerSeries("./bench/peers BenchmarkRiver/insert-many", "river-ns/fact"),
		inverse:  true,
		needs:    "JOBGEN_TEST_POSTGRES",
	})
	runs = append(runs,
		run{pkg: "./journal", bench: "^BenchmarkAppend$/^payload-encoded$", benchtime: "300ms"},
		run{pkg: "./bench/peers", module: "bench/peers", bench: "^BenchmarkDurable$", benchtime: "1s"},
		run{pkg: "./bench/peers", module: "bench/peers", bench: "^BenchmarkBatch$", benchtime: "1s"},
		run{pkg: "./bench/peers", module: "bench/peers", bench: "^BenchmarkIntervals$", benchtime: "1x"},
		run{pkg: "./journal/pgstore", bench: "^(BenchmarkPeerInsert|BenchmarkPeerUnnest)$", benchtime: "2s", needs: "JOBGEN_TEST_POSTGRES"},
		run{pkg: "./journal/pgstore", bench: "^BenchmarkPeerTail$", benchtime: "300x", needs: "JOBGEN_TEST_POSTGRES"},
		run{pkg: "./bench/peers", module: "bench/peers", bench: "^BenchmarkRiver$", benchtime: "1s", needs: "JOBGEN_TEST_POSTGRES"},
	)
}

// intervalsGoals are the rows of the jobgen command's intervals of a
// million records against the peer, bench/peers' BenchmarkIntervals.
var intervalsGoals = []goal{
	{
		// The jobgen command as a user runs it, its own peak RSS (VmHWM as
		// it exits, decision 0190).
		name:     "intervals of 1,000,000 records, a process, vs bufio + json.Unmarshal",
		measured: peerSeries("./bench/peers BenchmarkIntervals", "jobgen-ns/op"),
		baseline: peerSeries("./bench/peers BenchmarkIntervals", "peer-ns/op"),
		limits: []limit{{"jobgen-ns/op", atMost, 1.5e9, "≤ 1.5 s"}, {"jobgen-MB-rss", atMost, 24, "≤ 24 MB RSS"},
			{"jobgen-cores", atLeast, 1.5, "both cores (≥ 1.5 busy)"}},
		inverse: true,
	},
	{
		// The row above's time without the load: 1.5 s on both cores is
		// at most 3 s of CPU, a figure other processes sway less than the
		// wall time (decision 0190).
		name:     "intervals of 1,000,000 records, CPU (user+sys) of the process",
		measured: peerSeries("./bench/peers BenchmarkIntervals", "jobgen-cpu-ns/op"),
		baseline: peerSeries("./bench/peers BenchmarkIntervals", "peer-cpu-ns/op"),
		limits:   []limit{{"jobgen-cpu-ns/op", atMost, 3e9, "≤ 3 s, two cores for 1.5 s"}},
		inverse:  true,
	},
}

// peerSeries is the metric of "PKG BenchmarkName".
func peerSeries(pkgBench, metric string) series {
	pkg, bench, _ := strings.Cut(pkgBench, " ")
	return series{pkg, bench, metric}
}

// runs are the go test invocations that feed the goals, grouped by the
// benchtime their benchmarks need. count is the number of runs whose median
// each figure is.
var runs = []run{
	{pkg: "./registry", bench: "^(BenchmarkStartSettlePlain|BenchmarkStartSettleScaling|BenchmarkRecordAppend|BenchmarkPairedAppend|BenchmarkPairedClockRead|BenchmarkPairedReadRecordInto|BenchmarkList10k|BenchmarkPairedPromote)$", benchtime: "300ms"},
	{pkg: "./registry", bench: "^BenchmarkIdleJobMemory$", benchtime: "3x"},
	{pkg: "./registry", bench: "^BenchmarkPumpIdle10k$/^(baseline=ticker|pump-with-pacer)$", benchtime: "2x"},
	{pkg: "./journal", bench: "^BenchmarkAppend$/^payload$", benchtime: "300ms"},
	{pkg: "./jobhistory", bench: "^BenchmarkWriteIntervals$/^(check|json=false)$", benchtime: "1x"},
	{pkg: "./jobhttp", bench: "^BenchmarkAppendWithFollowers$", benchtime: "30000000x"},
	{pkg: "./jobhttp", bench: "^BenchmarkWatchTenFollows$", benchtime: "200000x"},
	{pkg: "./procjob", bench: "^BenchmarkOutputWrite64B$", benchtime: "300000x"},
	{pkg: "./clients/python", bench: "^BenchmarkPythonDecode$", benchtime: "1x"},
}

// The MCP rows: a tools/call over streamable HTTP against the Go SDK's
// own minimal tool server, and a task-augmented call against a plain one,
// each pair timed in alternating batches of one benchmark
// (agenttools/mcpserver's pairedCalls), whole requests on loopback.
func init() {
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		vsSDK := "./agenttools/mcpserver BenchmarkToolCallVsSDK/" + v
		task := "./agenttools/mcpserver BenchmarkToolCall/paired-" + v
		goals = append(goals, goal{
			name:     "MCP tool call (job_list, HTTP, " + v + ") vs the SDK's minimal tool",
			measured: peerSeries(vsSDK, "jobgen-ns/op"),
			baseline: peerSeries(vsSDK, "peer-ns/op"),
			ratio:    &limit{"", atMost, 1.2, "≤ 1.2× the SDK's"},
		}, goal{
			name:     "MCP task-augmented call vs a plain one (job_wait, HTTP, " + v + "; no goal: the task's cost)",
			measured: peerSeries(task, "task-ns/op"),
			baseline: peerSeries(task, "plain-ns/op"),
		})
	}
	runs = append(runs, run{pkg: "./agenttools/mcpserver", bench: "^(BenchmarkToolCallVsSDK|BenchmarkToolCall)$/^(2026-07-28|2025-11-25|paired-2026-07-28|paired-2025-11-25)$", benchtime: "60x"})
}
