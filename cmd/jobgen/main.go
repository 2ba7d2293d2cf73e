// Command jobgen generates Go, TypeScript, Python, a JSON Schema and a
// Markdown reference from job vocabulary specs and keeps them in step with
// them; it also compares a spec with a released one (breaking), reads
// journals of lifecycle facts (journal cat, intervals, check, repair) and
// operates a PostgreSQL history (journal migrate, status, archive).
//
// Run jobgen help for its commands, jobgen help CMD for one command's flags;
// README.md has the same table. Without --spec, the specs and outputs come
// from the jobgen.yaml found in the working directory or a parent, up to the
// module root. Spec errors are printed one per line as file:line:col:
// message; --error-format=json or github-actions prints every finding as a
// JSON line or a workflow annotation on stdout instead.
//
// Exit status is 0 on success; 1 for findings (invalid specs, breaking
// changes, stale or conflicting generated files, a damaged journal); 2 for
// usage errors (including a --spec that matches nothing); 3 when the command
// could not do its work (a file that cannot be read or written, no journal
// where the argument points, a missing --against file, git failing); and,
// for journal check alone, 4 when every record is intact but some facts are
// of a type or version this build cannot read. See decisions 0041 and 0074.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
