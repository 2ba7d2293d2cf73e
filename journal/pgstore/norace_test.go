//go:build !race

package pgstore

// raceDetector says the tests run under the race detector; see race_test.go.
const raceDetector = false
