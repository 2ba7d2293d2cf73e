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
//	jobgen journal  cat|intervals|check FILE
//	jobgen version
//	jobgen help     [CMD]
//
// generate writes the Go package of each spec under the output root (and,
// with --docs, --schema and --ts, its Markdown reference, JSON Schema and
// TypeScript module), only
// when every spec is valid; verify regenerates in memory and prints a unified
// diff of every stale, missing or orphaned file; check only validates.
// Without --spec, the specs and outputs come from the jobgen.yaml found in
// the working directory or a parent, up to the module root.
//
// breaking compares a spec with an older one (a file, or git:REF[:path]) and
// prints each change that breaks history, the wire or the Go API as
// file:line:col: RULE_ID: path: message. Spec errors are printed one per line
// as file:line:col: message; --error-format=json or github-actions prints
// every finding as a JSON line or a workflow annotation on stdout instead.
//
// Exit status is 0 on success; 1 for findings (invalid specs, breaking
// changes, stale or conflicting generated files, a damaged journal); 2 for
// usage errors (including a --spec that matches nothing); 3 when the command
// could not do its work (a file that cannot be read or written, a missing
// --against file, git failing); and, for journal check alone, 4 when every
// record is intact but some facts are of a type or version this build cannot
// read.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
