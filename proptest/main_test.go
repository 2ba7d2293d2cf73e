package proptest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// checksEnv sets how many checks each property runs when neither
// -rapid.checks nor RAPID_CHECKS says; the Makefile sets it for `make test`.
const checksEnv = "JOBGEN_PROPTEST_CHECKS"

// TestMain bounds the properties for a plain `go test ./...`: rapid's own
// default is 100 checks, ours is defaultChecks (fewer under the race
// detector, see race_test.go), so CI time stays predictable. An explicit
// -rapid.checks or RAPID_CHECKS wins, which is how `make proptest` runs
// thousands.
func TestMain(m *testing.M) {
	flag.Parse()
	if !flagGiven("rapid.checks") && os.Getenv("RAPID_CHECKS") == "" {
		n := defaultChecks
		if v := os.Getenv(checksEnv); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n <= 0 {
				fmt.Fprintf(os.Stderr, "proptest: %s=%q is not a positive count\n", checksEnv, v)
				os.Exit(2)
			}
		}
		if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
			fmt.Fprintln(os.Stderr, "proptest:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
