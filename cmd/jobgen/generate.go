package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/golang"
)

// render reads the specs and runs them through the targets. Problems are
// printed to stderr; the tree is nil when anything failed.
func (sf *specFlags) render(r *reporter, outs outputs) (tree *gen.Tree, nspecs int) {
	_, roots := outs.targets()
	if err := gen.CheckRoots(roots); err != nil {
		r.failf(exitUsage, "jobgen: %v", err)
		return nil, 0
	}
	specs, ok := sf.parseSpecs(r)
	if !ok {
		return nil, 0
	}
	// The packages declare the other modules' packages their specs import.
	targets, _ := withImportedPackages(outs, specs).targets()
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
	fs := newFlagSet("generate", outputsSummary("Generate writes the Go package of each spec under the output root, and",
		"It writes nothing unless every spec is valid, writes each changed file atomically, and removes generated files the specs no longer yield."), stderr)
	outs, _, code := sf.parseOutputs(fs, "write", args, stdout, stderr)
	if outs == nil {
		return code
	}
	return sf.write(stdout, stderr, outs)
}

func cmdVerify(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("verify", outputsSummary("Verify regenerates in memory and compares with the output root, and",
		"It prints a unified diff of every stale, missing or orphaned file and exits 1 if there is any."), stderr)
	targets, r, code := sf.parseOutputs(fs, "verify", args, stdout, stderr)
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
		for _, k := range outputKinds {
			if errs := k.backend.Check(spec); len(errs) > 0 {
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
