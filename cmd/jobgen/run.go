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

	generate   write the Go packages the specs yield (and, with flags, docs and schemas)
	verify     check that the tree matches what the specs yield
	check      validate the specs only
	breaking   report changes that break history, the wire or the Go API
	schema     write a JSON Schema of each spec's wire types
	docs       write a Markdown reference of each spec
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
	case "breaking":
		return cmdBreaking(args[1:], stdout, stderr)
	case "schema":
		return cmdSchema(args[1:], stdout, stderr)
	case "docs":
		return cmdDocs(args[1:], stdout, stderr)
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

// files expands the --spec patterns. The default, spec/*.yaml, is not
// recursive, so spec/baseline/ (the released spec breaking compares with)
// is never generated from.
func (sf *specFlags) files(stderr io.Writer) ([]string, bool) {
	var names []string
	for _, p := range sf.specsOrDefault() {
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
	return names, true
}

// An output is one kind of file jobgen writes from a spec, under its own root.
type output struct {
	root string
	emit func(*gen.Spec) ([]gen.File, error)
}

func goOutput(root string) output { return output{root, gen.Emit} }

func schemaOutput(root string) output {
	return output{root, func(s *gen.Spec) ([]gen.File, error) {
		f, err := gen.EmitSchema(s)
		return []gen.File{f}, err
	}}
}

// tsOutput is the TypeScript module of each spec; see gen.EmitTS.
func tsOutput(root string) output {
	return output{root, func(s *gen.Spec) ([]gen.File, error) {
		f, err := gen.EmitTS(s)
		return []gen.File{f}, err
	}}
}

func docsOutput(root string) output {
	return output{root, func(s *gen.Spec) ([]gen.File, error) {
		f, err := gen.EmitDocs(s)
		return []gen.File{f}, err
	}}
}

// load reads and validates every spec and emits each output from it,
// returning the files of outputs[i] in files[i]. Spec errors are printed to
// stderr; the second result is false when anything failed.
func (sf *specFlags) load(stderr io.Writer, outputs ...output) (files [][]gen.File, ok bool) {
	names, ok := sf.files(stderr)
	if !ok {
		return nil, false
	}
	files = make([][]gen.File, len(outputs))
	owner := make([]map[string]string, len(outputs))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "jobgen: %v\n", err)
			ok = false
			continue
		}
		spec, err := gen.Parse(name, data)
		if err != nil {
			printErr(stderr, err)
			ok = false
			continue
		}
		for i, o := range outputs {
			out, err := o.emit(spec)
			if list := (gen.ErrorList{}); errors.As(err, &list) {
				printErr(stderr, list) // a target's own naming rules, at their positions
				ok = false
				continue
			}
			if err != nil {
				fmt.Fprintf(stderr, "jobgen: %s: %v\n", name, err)
				ok = false
				continue
			}
			if owner[i] == nil {
				owner[i] = map[string]string{}
			}
			for _, f := range out {
				if prev, dup := owner[i][f.Path]; dup {
					fmt.Fprintf(stderr, "jobgen: %s and %s both generate %s; give them different package names\n", prev, name, f.Path)
					ok = false
				}
				owner[i][f.Path] = name
			}
			files[i] = append(files[i], out...)
		}
	}
	return files, ok
}

// write brings each output's root in line with the specs, printing what it
// changed and a summary.
func (sf *specFlags) write(stdout, stderr io.Writer, outputs ...output) int {
	sets, ok := sf.load(stderr, outputs...)
	if !ok {
		return exitFail
	}
	total, changed := 0, 0
	for i, o := range outputs {
		changes, err := gen.Write(o.root, sets[i])
		if err != nil {
			fmt.Fprintf(stderr, "jobgen: %v\n", err)
			return exitFail
		}
		for _, c := range changes {
			verb := "wrote"
			if c.Kind == gen.Orphan {
				verb = "removed"
			}
			fmt.Fprintf(stdout, "%s %s\n", verb, filepath.Join(o.root, filepath.FromSlash(c.Path)))
		}
		total += len(sets[i])
		changed += len(changes)
	}
	fmt.Fprintf(stdout, "jobgen: %d files from %s, %d changed\n", total, plural(len(sf.specsOrDefault()), "spec"), changed)
	return exitOK
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
	var docs, schema, ts string
	fs := newFlagSet("generate", "Generate writes the Go package of each spec under the output root, and\nwith --docs and --schema its Markdown reference and JSON Schema. It writes\nnothing unless every spec is valid, writes each changed file atomically, and\nremoves generated files the specs no longer yield.", stderr)
	sf.register(fs, true)
	fs.StringVar(&docs, "docs", "", "also write each spec's Markdown reference under this root")
	fs.StringVar(&schema, "schema", "", "also write each spec's JSON Schema under this root")
	fs.StringVar(&ts, "ts", "", "also write each spec's TypeScript module under this root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	return sf.write(stdout, stderr, sf.outputs(docs, schema, ts)...)
}

// outputs is the Go output plus the docs, schema and TypeScript roots that
// are set.
func (sf *specFlags) outputs(docs, schema, ts string) []output {
	out := []output{goOutput(sf.out)}
	if docs != "" {
		out = append(out, docsOutput(docs))
	}
	if schema != "" {
		out = append(out, schemaOutput(schema))
	}
	if ts != "" {
		out = append(out, tsOutput(ts))
	}
	return out
}

func cmdSchema(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("schema", "Schema writes a JSON Schema (draft 2020-12) of each spec's wire types, as\n<out>/<package>.schema.json: every id, enum, record, union and variant, each\nlive fact version, and FactEnvelope for any fact. Verify it with\njobgen verify --schema.", stderr)
	sf.register(fs, false)
	fs.StringVar(&sf.out, "out", "schema", "output root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	return sf.write(stdout, stderr, schemaOutput(sf.out))
}

func cmdDocs(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("docs", "Docs writes a Markdown reference of each spec as <out>/<package>.md: facts\nand their versions, unions, records, enums, ids, faces, machines (a\ntransition table and a Mermaid diagram) and defaults. Verify it with\njobgen verify --docs.", stderr)
	sf.register(fs, false)
	fs.StringVar(&sf.out, "out", "docs/reference", "output root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	return sf.write(stdout, stderr, docsOutput(sf.out))
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
	var docs, schema, ts string
	fs := newFlagSet("verify", "Verify regenerates in memory and compares with the output root (and, with\n--docs and --schema, with those roots). It prints a unified diff of every\nstale, missing or orphaned file and exits 1 if there is any.", stderr)
	sf.register(fs, true)
	fs.StringVar(&docs, "docs", "", "also verify the Markdown references under this root")
	fs.StringVar(&schema, "schema", "", "also verify the JSON Schemas under this root")
	fs.StringVar(&ts, "ts", "", "also verify the TypeScript modules under this root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	outputs := sf.outputs(docs, schema, ts)
	sets, ok := sf.load(stderr, outputs...)
	if !ok {
		return exitFail
	}
	var names []string
	total := 0
	for i, o := range outputs {
		total += len(sets[i])
		changes, err := gen.Compare(o.root, sets[i])
		if err != nil {
			fmt.Fprintf(stderr, "jobgen: %v\n", err)
			return exitFail
		}
		for _, c := range changes {
			fmt.Fprint(stdout, c.Diff)
			names = append(names, fmt.Sprintf("%s (%s)", filepath.Join(o.root, filepath.FromSlash(c.Path)), c.Kind))
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(stdout, "jobgen: %s up to date\n", plural(total, "generated file"))
		return exitOK
	}
	fmt.Fprintf(stderr, "jobgen: generated files are out of date: %s\nrun jobgen generate to update them\n", strings.Join(names, ", "))
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
