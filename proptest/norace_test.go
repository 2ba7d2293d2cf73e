//go:build !race

package proptest

// defaultChecks is how many checks a property runs by default; see TestMain.
const defaultChecks = 200
