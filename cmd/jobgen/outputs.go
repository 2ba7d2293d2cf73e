package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/golang"
	"github.com/jobgen/jobgen/gen/jsonschema"
	"github.com/jobgen/jobgen/gen/markdown"
	"github.com/jobgen/jobgen/gen/typescript"
)

// An output is a target a command writes or verifies, with the flag that
// set its root. Targets of one flag share its root (a backend that lives
// beside the Go packages, under --out, is listed with flag "out"); roots of
// different flags must not overlap.
type output struct {
	flag string
	gen.Target
}

type outputs []output

func goOutput(root string) output {
	return output{"out", gen.Target{Backend: golang.Backend{}, Root: root}}
}

func schemaOutput(flag, root string) output {
	return output{flag, gen.Target{Backend: jsonschema.Backend{}, Root: root}}
}

// tsOutput is the TypeScript target of --ts dir: beside the Go packages,
// under --out, when dir is a directory directly inside it (generated/ts), and
// a root of its own anywhere else.
func tsOutput(out, dir string) (output, error) {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return output{}, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return output{}, err
	}
	rel, err := filepath.Rel(absOut, absDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return output{"ts", gen.Target{Backend: typescript.Backend{}, Root: dir}}, nil
	}
	if rel == "." || strings.ContainsRune(rel, filepath.Separator) {
		return output{}, fmt.Errorf("--ts %s: inside --out %s, the TypeScript modules go in a directory directly under it, such as %s", dir, out, filepath.Join(out, "ts"))
	}
	return output{"out", gen.Target{Backend: typescript.Backend{Dir: filepath.ToSlash(rel)}, Root: out}}, nil
}

func docsOutput(flag, root string) output {
	return output{flag, gen.Target{Backend: markdown.Backend{}, Root: root}}
}

// targets are the outputs' targets, and the root of each flag.
func (o outputs) targets() (targets []gen.Target, roots []string) {
	var flags []string
	for _, out := range o {
		targets = append(targets, out.Target)
		if !slices.Contains(flags, out.flag) {
			flags = append(flags, out.flag)
			roots = append(roots, out.Root)
		}
	}
	return targets, roots
}

// outputHelp is what --docs, --schema and --ts say in a command's usage.
type outputHelp struct{ docs, schema, ts string }

// parseOutputs is the setup generate and verify share: it registers the
// spec flags and --docs, --schema and --ts on fs, parses args, fills in
// what jobgen.yaml sets and returns the outputs they name with the
// command's reporter. When the command is to stop instead (help, a usage
// error), outs is nil and code is its exit status.
func (sf *specFlags) parseOutputs(fs *flag.FlagSet, help outputHelp, args []string, stdout, stderr io.Writer) (outs outputs, r *reporter, code int) {
	var docs, schema, ts string
	sf.register(fs, true)
	fs.StringVar(&docs, "docs", "", help.docs)
	fs.StringVar(&schema, "schema", "", help.schema)
	fs.StringVar(&ts, "ts", "", help.ts)
	if code, stop := parse(fs, args, stdout); stop {
		return nil, nil, code
	}
	r = newReporter(sf.format, stdout, stderr)
	if !sf.withConfig(fs, r, goFromConfig(&sf.out), docsFromConfig("docs", &docs), schemaFromConfig("schema", &schema), tsFromConfig("ts", &ts)) {
		return nil, r, r.code
	}
	outs, err := sf.outputs(docs, schema, ts)
	if err != nil {
		r.failf(exitUsage, "jobgen: %v", err)
		return nil, r, r.code
	}
	return outs, r, exitOK
}

// outputs is the Go output plus the docs, schema and TypeScript outputs
// that are set.
func (sf *specFlags) outputs(docs, schema, ts string) (outputs, error) {
	out := outputs{goOutput(sf.out)}
	if docs != "" {
		out = append(out, docsOutput("docs", docs))
	}
	if schema != "" {
		out = append(out, schemaOutput("schema", schema))
	}
	if ts != "" {
		o, err := tsOutput(sf.out, ts)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// fileCount is how many files tree holds for the outputs.
func fileCount(tree *gen.Tree, outs outputs) int {
	total := 0
	for i := range outs {
		total += len(tree.Files(i))
	}
	return total
}

// backends are the targets jobgen ships; check runs each one's Check.
func backends() []gen.Backend {
	return []gen.Backend{golang.Backend{}, jsonschema.Backend{}, markdown.Backend{}, typescript.Backend{}}
}
