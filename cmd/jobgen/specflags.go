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
	"github.com/jobgen/jobgen/gen/gomod"
)

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
	sf.cfg = cfg
	if !set["spec"] {
		for _, p := range cfg.Specs {
			sf.specs = append(sf.specs, cfg.path(p))
		}
	}
	for _, o := range outs {
		if v := cfg.Outputs[o.key]; !set[o.flag] && v != "" {
			*o.dst = cfg.path(v)
		}
	}
	return true
}

// A configOutput is a flag that the entry key of a config's outputs can
// set, and where its value goes.
type configOutput struct {
	flag, key string
	dst       *string
}

// specFlags are the flags every spec-reading command shares.
type specFlags struct {
	config  string // --config; "" means the jobgen.yaml found upward, if any
	format  errorFormat
	specs   []string
	out     string
	maxSize int64   // bytes; 0 means gen.DefaultMaxSpecSize
	cfg     *config // the config file read, if any

	modules map[string]gen.Modules // by the directory of the specs that import through them
}

// modulesOf finds the modules the spec in file imports specs of: the go
// command's view of the module holding it, asked once per directory.
func (sf *specFlags) modulesOf(file string) gen.Modules {
	dir := filepath.Dir(file)
	if sf.modules == nil {
		sf.modules = map[string]gen.Modules{}
	}
	if m, ok := sf.modules[dir]; ok {
		return m
	}
	m := namedPackages{gomod.New(dir)}
	sf.modules[dir] = m
	return m
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
		spec, err := gen.Load(name, data, gen.WithModules(sf.modulesOf(name)))
		if err != nil {
			r.err(err)
			ok = false
			continue
		}
		specs = append(specs, spec)
	}
	return specs, ok
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
