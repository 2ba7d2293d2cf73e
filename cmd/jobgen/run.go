package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // invalid spec, stale tree, failed operation
	exitUsage = 2
)

const usage = `jobgen generates Go types from a job vocabulary spec.

Usage:

	jobgen <command> [flags]

Commands:

	generate   write the Go packages the specs yield
	verify     check that the tree matches what the specs yield
	check      validate the specs only
	journal    read a journal of lifecycle facts: cat, intervals, check

Run "jobgen <command> --help" for a command's flags.
`

// run is the whole command, apart from the process: it reads args, writes to
// stdout and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "generate":
		return cmdGenerate(args[1:], stdout, stderr)
	case "verify":
		return cmdVerify(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "journal":
		return cmdJournal(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "jobgen: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// specFlags are the flags every spec-reading command shares.
type specFlags struct {
	specs []string
	out   string
}

func newFlagSet(name, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("jobgen "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: jobgen %s [flags]\n\n%s\n\nFlags:\n", name, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, returning the exit status to stop with, if any.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) (int, bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, on the stream the outcome calls for
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK, true
	case err != nil:
		fs.Usage()
		return exitUsage, true
	case fs.NArg() > 0:
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return exitUsage, true
	}
	return 0, false
}

func (sf *specFlags) register(fs *flag.FlagSet, withOut bool) {
	fs.Func("spec", "spec file or glob; repeat for several (default spec/*.yaml)", func(s string) error {
		sf.specs = append(sf.specs, s)
		return nil
	})
	if withOut {
		fs.StringVar(&sf.out, "out", "generated", "output root; each spec's package goes in a directory named after it")
	}
}

// load reads, validates and emits every spec. Spec errors are printed to
// stderr; the second result is false when anything failed.
func (sf *specFlags) load(stderr io.Writer) ([]gen.File, bool) {
	patterns := sf.specs
	if len(patterns) == 0 {
		patterns = []string{"spec/*.yaml"}
	}
	var names []string
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			fmt.Fprintf(stderr, "jobgen: bad --spec pattern %q: %v\n", p, err)
			return nil, false
		}
		if len(matches) == 0 {
			fmt.Fprintf(stderr, "jobgen: no spec matches %s\n", p)
			return nil, false
		}
		for _, m := range matches {
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
	}
	var files []gen.File
	ok := true
	owner := map[string]string{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "jobgen: %v\n", err)
			ok = false
			continue
		}
		out, err := gen.Generate(name, data)
		if err != nil {
			printErr(stderr, err)
			ok = false
			continue
		}
		for _, f := range out {
			if prev, dup := owner[f.Path]; dup {
				fmt.Fprintf(stderr, "jobgen: %s and %s both generate %s; give them different package names\n", prev, name, f.Path)
				ok = false
			}
			owner[f.Path] = name
		}
		files = append(files, out...)
	}
	return files, ok
}

// printErr prints a spec ErrorList one problem per line, or any other error.
func printErr(w io.Writer, err error) {
	var list gen.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e)
		}
		return
	}
	fmt.Fprintf(w, "jobgen: %v\n", err)
}

func cmdGenerate(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("generate", "Generate writes the Go package of each spec under the output root.\nIt writes nothing unless every spec is valid, writes each changed file\natomically, and removes generated files the specs no longer yield.", stderr)
	sf.register(fs, true)
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	files, ok := sf.load(stderr)
	if !ok {
		return exitFail
	}
	changes, err := gen.Write(sf.out, files)
	if err != nil {
		fmt.Fprintf(stderr, "jobgen: %v\n", err)
		return exitFail
	}
	for _, c := range changes {
		verb := "wrote"
		if c.Kind == gen.Orphan {
			verb = "removed"
		}
		fmt.Fprintf(stdout, "%s %s\n", verb, filepath.Join(sf.out, filepath.FromSlash(c.Path)))
	}
	fmt.Fprintf(stdout, "jobgen: %d files from %s, %d changed\n", len(files), plural(len(sf.specsOrDefault()), "spec"), len(changes))
	return exitOK
}

func (sf *specFlags) specsOrDefault() []string {
	if len(sf.specs) == 0 {
		return []string{"spec/*.yaml"}
	}
	return sf.specs
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func cmdVerify(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("verify", "Verify regenerates in memory and compares with the output root. It prints a\nunified diff of every stale, missing or orphaned file and exits 1 if there is any.", stderr)
	sf.register(fs, true)
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	files, ok := sf.load(stderr)
	if !ok {
		return exitFail
	}
	changes, err := gen.Compare(sf.out, files)
	if err != nil {
		fmt.Fprintf(stderr, "jobgen: %v\n", err)
		return exitFail
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "jobgen: %s up to date\n", plural(len(files), "generated file"))
		return exitOK
	}
	var names []string
	for _, c := range changes {
		fmt.Fprint(stdout, c.Diff)
		names = append(names, fmt.Sprintf("%s (%s)", filepath.Join(sf.out, filepath.FromSlash(c.Path)), c.Kind))
	}
	fmt.Fprintf(stderr, "jobgen: generated code is out of date: %s\nrun jobgen generate to update it\n", strings.Join(names, ", "))
	return exitFail
}

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("check", "Check validates the specs and reports every problem; it writes nothing.", stderr)
	sf.register(fs, false)
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	if _, ok := sf.load(stderr); !ok {
		return exitFail
	}
	fmt.Fprintln(stdout, "jobgen: specs are valid")
	return exitOK
}
