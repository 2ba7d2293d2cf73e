package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/golang"
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
	version    print jobgen's version and the commit and Go that built it
	help       print a command's help: jobgen help generate

Without --spec, the specs and outputs come from jobgen.yaml in the working
directory or a parent (up to the module root), if there is one:

	version: 1
	specs: [spec/*.yaml]
	outputs: {go: generated, docs: docs/reference, schema: schema}

Run "jobgen help <command>" or "jobgen <command> --help" for a command's flags.

` + exitText

// run is the whole command, apart from the process: it reads args, writes to
// stdout and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "help":
		return cmdHelp(args[1:], stdout, stderr)
	case "version":
		return cmdVersion(args[1:], stdout, stderr)
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

// commands are the commands "jobgen help CMD" knows.
var commands = []string{"generate", "verify", "check", "breaking", "schema", "docs", "journal", "version", "help"}

// cmdHelp prints the help of the command named, as CMD --help does, or the
// top-level usage.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0, args[0] == "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case !slices.Contains(commands, args[0]):
		fmt.Fprintf(stderr, "jobgen help: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	// jobgen help journal cat is jobgen journal cat --help.
	return run(append(slices.Clone(args), "--help"), stdout, stderr)
}

// withConfig reads the config file — --config, else, when no --spec is
// given, the jobgen.yaml found upward — and takes from it the specs and each
// output whose flag is unset. A --spec without --config means the flags say
// everything: the file's outputs belong to its specs. It returns false when
// the file is bad.
func (sf *specFlags) withConfig(flags *flag.FlagSet, r *reporter, outs ...configOutput) bool {
	set := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { set[f.Name] = true })
	name := sf.config
	if name == "" && set["spec"] {
		return true
	}
	if name == "" {
		found, err := findConfig(".")
		if err != nil {
			r.failf(exitFailure, "jobgen: looking for %s: %v", configName, err)
			return false
		}
		name = found
	}
	if name == "" {
		return true
	}
	cfg, err := loadConfig(name)
	if err != nil {
		code := exitUsage
		if errors.Is(err, fs.ErrNotExist) {
			code = exitFailure
		}
		r.failf(code, "jobgen: %v", err)
		return false
	}
	if !set["spec"] {
		for _, p := range cfg.Specs {
			sf.specs = append(sf.specs, cfg.path(p))
		}
	}
	for _, o := range outs {
		if v := o.from(cfg); !set[o.flag] && v != "" {
			*o.dst = cfg.path(v)
		}
	}
	return true
}

// A configOutput is a flag a config's outputs: entry can set.
type configOutput struct {
	flag string
	dst  *string
	from func(*config) string
}

func goFromConfig(dst *string) configOutput {
	return configOutput{"out", dst, func(c *config) string { return c.Outputs.Go }}
}

func docsFromConfig(flag string, dst *string) configOutput {
	return configOutput{flag, dst, func(c *config) string { return c.Outputs.Docs }}
}

func schemaFromConfig(flag string, dst *string) configOutput {
	return configOutput{flag, dst, func(c *config) string { return c.Outputs.Schema }}
}

func tsFromConfig(flag string, dst *string) configOutput {
	return configOutput{flag, dst, func(c *config) string { return c.Outputs.TS }}
}

// specFlags are the flags every spec-reading command shares.
type specFlags struct {
	config  string // --config; "" means the jobgen.yaml found upward, if any
	format  errorFormat
	specs   []string
	out     string
	maxSize int64 // bytes; 0 means gen.DefaultMaxSpecSize
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
	fs.Func("spec", "spec file or glob; repeat for several (default: the specs jobgen.yaml lists, else spec/*.yaml)", func(s string) error {
		sf.specs = append(sf.specs, s)
		return nil
	})
	registerErrorFormat(fs, &sf.format)
	fs.StringVar(&sf.config, "config", "", "read the specs, and the outputs flags leave unset, from this file (default without --spec: "+configName+" in the working directory or a parent, up to the module root)")
	if withOut {
		fs.StringVar(&sf.out, "out", "generated", "output root; each spec's package goes in a directory named after it")
	}
	fs.Func("max-spec-size", fmt.Sprintf("refuse a spec larger than this: bytes, or a number with KiB or MiB (default %s)", sizeText(gen.DefaultMaxSpecSize)), func(s string) error {
		n, err := parseSize(s)
		sf.maxSize = n
		return err
	})
}

// readSpec reads a spec within the size limit.
func (sf *specFlags) readSpec(name string) ([]byte, error) {
	limit := sf.maxSize
	if limit == 0 {
		limit = gen.DefaultMaxSpecSize
	}
	return gen.ReadSpec(name, limit)
}

// parseSize reads a size such as 1048576, 512KiB or 4MiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	num := s
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			num, mult = n, m
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size; write bytes, or a number with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprint(n)
}

// files expands the --spec patterns. The default, spec/*.yaml, is not
// recursive, so spec/baseline/ (the released spec breaking compares with)
// is never generated from.
func (sf *specFlags) files(r *reporter) ([]string, bool) {
	var names []string
	for _, p := range sf.specsOrDefault() {
		matches, err := filepath.Glob(p)
		if err != nil {
			r.failf(exitUsage, "jobgen: bad --spec pattern %q: %v", p, err)
			return nil, false
		}
		if len(matches) == 0 {
			r.failf(exitUsage, "jobgen: no spec matches %s", p)
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

// parseSpecs reads and validates every spec. Spec errors are printed to
// stderr; the second result is false when anything failed.
func (sf *specFlags) parseSpecs(r *reporter) ([]*gen.Resolved, bool) {
	names, ok := sf.files(r)
	if !ok {
		return nil, false
	}
	var specs []*gen.Resolved
	for _, name := range names {
		data, err := sf.readSpec(name)
		if err != nil {
			r.err(err)
			ok = false
			continue
		}
		spec, err := gen.Load(name, data)
		if err != nil {
			r.err(err)
			ok = false
			continue
		}
		specs = append(specs, spec)
	}
	return specs, ok
}

// render reads the specs and runs them through the targets. Problems are
// printed to stderr; the tree is nil when anything failed.
func (sf *specFlags) render(r *reporter, outs outputs) (tree *gen.Tree, nspecs int) {
	targets, roots := outs.targets()
	if err := gen.CheckRoots(roots); err != nil {
		r.failf(exitUsage, "jobgen: %v", err)
		return nil, 0
	}
	specs, ok := sf.parseSpecs(r)
	if !ok {
		return nil, 0
	}
	for _, o := range outs {
		if _, isGo := o.Backend.(golang.Backend); isGo {
			if err := checkPackagePaths(specs, o.Root); err != nil {
				r.err(err)
				return nil, 0
			}
		}
	}
	tree, err := gen.Render(targets, specs)
	if err != nil {
		r.err(err)
		return nil, 0
	}
	return tree, len(specs)
}

// write brings each output's root in line with the specs, printing what it
// changed and a summary.
func (sf *specFlags) write(stdout, stderr io.Writer, targets outputs) int {
	r := newReporter(sf.format, stdout, stderr)
	tree, nspecs := sf.render(r, targets)
	if tree == nil {
		return r.code
	}
	changes, err := tree.Write()
	if err != nil {
		r.err(err)
		return r.code
	}
	total := fileCount(tree, targets)
	for _, c := range changes {
		switch c.Kind {
		case gen.Orphan:
			fmt.Fprintf(r.info(), "removed %s (%s)\n", c.Name(), c.Note)
		default:
			fmt.Fprintf(r.info(), "wrote %s\n", c.Name())
		}
	}
	fmt.Fprintf(r.info(), "jobgen: %s from %s, %d changed\n", plural(total, "file"), plural(nspecs, "spec"), len(changes))
	return exitOK
}

func cmdGenerate(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("generate", "Generate writes the Go package of each spec under the output root, and\nwith --docs and --schema its Markdown reference and JSON Schema. It writes\nnothing unless every spec is valid, writes each changed file atomically, and\nremoves generated files the specs no longer yield.", stderr)
	outs, _, code := sf.parseOutputs(fs, outputHelp{
		docs:   "also write each spec's Markdown reference under this root",
		schema: "also write each spec's JSON Schema under this root",
		ts:     "also write each spec's TypeScript module in this directory (beside the Go packages when directly inside --out)",
	}, args, stdout, stderr)
	if outs == nil {
		return code
	}
	return sf.write(stdout, stderr, outs)
}

func cmdSchema(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("schema", "Schema writes a JSON Schema (draft 2020-12) of each spec's wire types, as\n<out>/<package>.schema.json: every id, enum, record, union and variant, each\nlive fact version, and FactEnvelope for any fact. Verify it with\njobgen verify --schema.", stderr)
	sf.register(fs, false)
	fs.StringVar(&sf.out, "out", "schema", "output root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	if r := newReporter(sf.format, stdout, stderr); !sf.withConfig(fs, r, schemaFromConfig("out", &sf.out)) {
		return r.code
	}
	return sf.write(stdout, stderr, outputs{schemaOutput("out", sf.out)})
}

func cmdDocs(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("docs", "Docs writes a Markdown reference of each spec as <out>/<package>.md: facts\nand their versions, unions, records, enums, ids, faces, machines (a\ntransition table and a Mermaid diagram) and defaults. Verify it with\njobgen verify --docs.", stderr)
	sf.register(fs, false)
	fs.StringVar(&sf.out, "out", "docs/reference", "output root")
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	if r := newReporter(sf.format, stdout, stderr); !sf.withConfig(fs, r, docsFromConfig("out", &sf.out)) {
		return r.code
	}
	return sf.write(stdout, stderr, outputs{docsOutput("out", sf.out)})
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
	fs := newFlagSet("verify", "Verify regenerates in memory and compares with the output root (and, with\n--docs, --schema and --ts, with those). It prints a unified diff of every\nstale, missing or orphaned file and exits 1 if there is any.", stderr)
	targets, r, code := sf.parseOutputs(fs, outputHelp{
		docs:   "also verify the Markdown references under this root",
		schema: "also verify the JSON Schemas under this root",
		ts:     "also verify the TypeScript modules in this directory",
	}, args, stdout, stderr)
	if targets == nil {
		return code
	}
	tree, _ := sf.render(r, targets)
	if tree == nil {
		return r.code
	}
	changes, err := tree.Compare()
	if err != nil {
		r.err(err)
		return r.code
	}
	total := fileCount(tree, targets)
	var names []string
	for _, c := range changes {
		if sf.format != formatText {
			r.finding(changeDiagnostic(c), stderr)
		} else {
			fmt.Fprint(stdout, c.Diff)
		}
		what := string(c.Kind)
		if c.Note != "" {
			what += ": " + c.Note
		}
		names = append(names, fmt.Sprintf("%s (%s)", c.Name(), what))
	}
	if len(names) == 0 {
		fmt.Fprintf(r.info(), "jobgen: %s up to date\n", plural(total, "generated file"))
		return exitOK
	}
	fmt.Fprintf(stderr, "jobgen: generated files are out of date:\n\t%s\nrun jobgen generate to update them\n", strings.Join(names, "\n\t"))
	return exitFindings
}

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("check", "Check validates the specs and reports every problem; it writes nothing.", stderr)
	sf.register(fs, false)
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	r := newReporter(sf.format, stdout, stderr)
	if !sf.withConfig(fs, r) {
		return r.code
	}
	specs, ok := sf.parseSpecs(r)
	for _, spec := range specs {
		for _, b := range backends() {
			if errs := b.Check(spec); len(errs) > 0 {
				r.err(errs)
				ok = false
			}
		}
	}
	if !ok {
		return r.code
	}
	fmt.Fprintln(r.info(), "jobgen: specs are valid")
	return exitOK
}
