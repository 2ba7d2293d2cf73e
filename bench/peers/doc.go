// Package peers holds the benchmarks that pit jobgen against what a user
// would otherwise pick for the same job, each peer in the same process and
// run as jobgen's side, paired in alternating blocks:
//
//   - the durable file journal against etcd's write-ahead log
//     (go.etcd.io/etcd/server/v3/storage/wal), fed by a writer goroutine
//     batching Save and by Save(N) alone;
//   - `jobgen journal intervals` of a million-record journal, the command
//     built as a user builds it, against a plain bufio + encoding/json
//     scan, each as a process of its own, for its wall time, CPU and peak
//     RSS;
//   - journal/pgstore against River's Insert and InsertMany (with
//     JOBGEN_TEST_POSTGRES).
//
// It is a module of its own so that the peers never become dependencies of
// jobgen's. `make peers` runs it; `make scoreboard` prints its rows beside
// jobgen's own.
//
//	cd bench/peers && go test -run '^$' -bench . -benchtime 2s
package peers
