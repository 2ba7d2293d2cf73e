package main

import (
	"fmt"
	"io"
	"strings"
)

// A command is one of jobgen's commands: its name, the line the usage
// lists it with, and what it runs.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

// commands are jobgen's commands, in the order the usage lists them: the
// one list run, help and the usage read.
func commands() []command {
	return []command{
		{"generate", "write the Go packages the specs yield (and, with flags, the other outputs)", cmdGenerate},
		{"verify", "check that the tree matches what the specs yield", cmdVerify},
		{"check", "validate the specs only", cmdCheck},
		{"breaking", "report changes that break history, the wire or the Go API", cmdBreaking},
		{"schema", "write a JSON Schema of each spec's wire types", outputCommand("schema")},
		{"docs", "write a Markdown reference of each spec", outputCommand("docs")},
		{"journal", "read a journal of lifecycle facts (cat, intervals, check, repair) and operate a PostgreSQL one (migrate, status, archive)", cmdJournal},
		{"console", "serve the jobs console read-only over a journal, an archive or a PostgreSQL history", cmdConsole},
		{"version", "print jobgen's version and the commit and Go that built it", cmdVersion},
		{"help", "print a command's help: jobgen help generate", cmdHelp},
	}
}

// lookup is the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is jobgen's own help: its commands, the config file and the exit
// statuses.
func usage() string {
	var b strings.Builder
	b.WriteString("jobgen generates Go types from a job vocabulary spec.\n\nUsage:\n\n\tjobgen <command> [flags]\n\nCommands:\n\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Without --spec, the specs and outputs come from jobgen.yaml in the working
directory or a parent (up to the module root), if there is one:

	version: 1
	specs: [spec/*.yaml]
	outputs: {go: generated, docs: docs/reference, schema: schema, ts: generated/ts}

Run "jobgen help <command>" or "jobgen <command> --help" for a command's flags.

`)
	return b.String() + exitText
}

// run is the whole command, apart from the process: it reads args, writes to
// stdout and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "jobgen: unknown command %q\n\n%s", args[0], usage())
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

// cmdHelp prints the help of the command named, as CMD --help does, or the
// top-level usage.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprint(stdout, usage())
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "jobgen help: unknown command %q\n\n%s", args[0], usage())
		return exitUsage
	}
	// jobgen help journal cat is jobgen journal cat --help.
	return c.run(append(args[1:len(args):len(args)], "--help"), stdout, stderr)
}
