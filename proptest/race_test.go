//go:build race

package proptest

// defaultChecks is smaller under the race detector, which slows the
// properties about tenfold; `make race` still runs every property.
const defaultChecks = 30
