// Package upgradetest proves a rolling upgrade on one history: two builds
// of a runtime host (cmd host), one from this module's vocabulary and one
// from a newer version of it, run as processes on one PostgreSQL history
// under a fleet (jobhttp.Fleet) while the hosts are upgraded one by one, and
// every reader keeps to the tolerant reading rule (decision 0174). It holds
// only the host program and the test; see rolling_test.go for what is
// checked.
package upgradetest
