//go:build race

package pgstore

// raceDetector says the tests run under the race detector, whose shadow
// memory makes the resident set no measure of the store's.
const raceDetector = true
