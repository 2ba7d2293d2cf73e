// Package guidetest runs a guide under docs/guides as written, so that a
// guide which drifted from jobgen fails its test instead of its reader.
//
// A guide is Markdown. A fenced block whose info string names a file
// (```yaml file=spec/orders.yaml, ```go file=main.go) writes that file,
// relative to the scratch directory, as the block stands; append=PATH
// appends to it instead. In a ```sh block, each line that starts with "$ "
// is a command, run with sh in the scratch directory, and the lines that
// follow it, up to the next command, are what its output (stdout and stderr
// together) must hold, in order; "…" in such a line stands for any text, for
// what differs between runs (ids, times). "  # exit N" at the end of a
// command is the exit status it must have, 0 otherwise. Every other block,
// and every line of a sh block before its first command, is prose for the
// reader and is not run: commands the reader adapts (a DSN, a host name)
// go there.
//
// The blocks run in the order they appear, in one directory, so a guide
// reads as one session at a terminal.
package guidetest
