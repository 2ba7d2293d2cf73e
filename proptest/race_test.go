//go:build race

package proptest

// defaultChecks is smaller under the race detector, which slows the
// properties down; `make race` still runs every property, 100 checks each.
const defaultChecks = 100
