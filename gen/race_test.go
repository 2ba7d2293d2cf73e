//go:build race

package gen

// raceEnabled reports a -race build, whose timings a test must not hold.
const raceEnabled = true
