// Command jobgen generates Go types from a job vocabulary spec and keeps them
// in step with it.
//
// Usage:
//
//	jobgen generate [--spec spec/*.yaml] [--out generated] [--docs DIR] [--schema DIR] [--ts DIR]
//	jobgen verify   [--spec spec/*.yaml] [--out generated] [--docs DIR] [--schema DIR] [--ts DIR]
//	jobgen check    [--spec spec/*.yaml]
//	jobgen breaking [--spec spec/jobs.yaml] --against OLD [--category durable|wire|goapi]
//	jobgen schema   [--spec spec/*.yaml] [--out schema]
//	jobgen docs     [--spec spec/*.yaml] [--out docs/reference]
//
// generate writes the Go package of each spec under the output root (and,
// with --docs, --schema and --ts, its Markdown reference, JSON Schema and
// TypeScript module), only
// when every spec is valid; verify regenerates in memory and prints a unified
// diff of every stale, missing or orphaned file; check only validates.
// breaking compares a spec with an older one (a file, or git:REF[:path]) and
// prints each change that breaks history, the wire or the Go API as
// file:line:col: RULE_ID: path: message. Spec errors are printed one per line
// as file:line:col: message. Exit status is 0 on success, 1 for invalid
// specs, a stale tree or breaking findings, 2 for usage errors.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
