// Command jobgen generates Go types from a job vocabulary spec and keeps them
// in step with it.
//
// Usage:
//
//	jobgen generate [--spec spec/*.yaml] [--out generated]
//	jobgen verify   [--spec spec/*.yaml] [--out generated]
//	jobgen check    [--spec spec/*.yaml]
//
// generate writes the Go package of each spec under the output root, only when
// every spec is valid; verify regenerates in memory and prints a unified diff
// of every stale, missing or orphaned file; check only validates. Spec errors
// are printed one per line as file:line:col: message. Exit status is 0 on
// success, 1 for invalid specs or a stale tree, 2 for usage errors.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
