package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
	"github.com/jobgen/jobgen/gen/golang"
	"github.com/jobgen/jobgen/gen/jsonschema"
	"github.com/jobgen/jobgen/gen/markdown"
	"github.com/jobgen/jobgen/gen/python"
	"github.com/jobgen/jobgen/gen/typescript"
)

// An outputKind is one kind of output jobgen writes: a backend, the key
// that names it in jobgen.yaml's outputs and, but for Go's --out, as
// generate's and verify's flag, and what its help calls it. Adding a
// backend to jobgen is adding its row to outputKinds.
type outputKind struct {
	key     string
	what    string // what each spec yields, for help: "Markdown reference"
	backend gen.Backend
	// place is the output of this kind at root when the Go packages go to
	// out, as the config file (nil without one) has it; nil gives it a
	// root of its own.
	place func(out, root string, cfg *config) (output, error)
	note  string // where the output may go, for the flag's help
	// command names the command that writes only this output, under its
	// --out with the default root dflt, and about is its help; "" when
	// there is none.
	command, dflt, about string
}

// outputKinds are the outputs jobgen writes, Go first: the one list that
// generate, verify, check, jobgen.yaml and the output commands read.
var outputKinds = []outputKind{
	{key: "go", what: "Go package", backend: golang.Backend{}},
	{key: "docs", what: "Markdown reference", backend: markdown.Backend{},
		command: "docs", dflt: "docs/reference",
		about: "Docs writes a Markdown reference of each spec as <out>/<package>.md: facts and their versions, unions, records, enums, ids, faces, machines (a transition table and a Mermaid diagram) and defaults. Verify it with jobgen verify --docs."},
	{key: "schema", what: "JSON Schema", backend: jsonschema.Backend{},
		command: "schema", dflt: "schema",
		about: "Schema writes a JSON Schema (draft 2020-12) of each spec's wire types, as <out>/<package>.schema.json: every id, enum, record, union and variant that travels in JSON, each live fact version, and FactEnvelope for any fact. Verify it with jobgen verify --schema."},
	{key: "ts", what: "TypeScript module", backend: typescript.Backend{}, place: tsOutput,
		note: " (beside the Go packages when a directory directly inside --out)"},
	{key: "python", what: "Python package", backend: python.Backend{}, place: pythonOutput,
		note: " (beside the Go packages when a directory directly inside --out)"},
}

// flag is the flag generate and verify set the output's root with.
func (k outputKind) flag() string {
	if k.key == "go" {
		return "out"
	}
	return k.key
}

// outputKindOf is the output jobgen.yaml names key.
func outputKindOf(key string) (outputKind, bool) {
	i := slices.IndexFunc(outputKinds, func(k outputKind) bool { return k.key == key })
	if i < 0 {
		return outputKind{}, false
	}
	return outputKinds[i], true
}

// outputKeys are the keys jobgen.yaml's outputs takes.
func outputKeys() []string {
	var keys []string
	for _, k := range outputKinds {
		keys = append(keys, k.key)
	}
	return keys
}

// An output is a target a command writes or verifies, with the flag that
// set its root. Targets of one flag share its root (a backend that lives
// beside the Go packages, under --out, is listed with flag "out"); roots of
// different flags must not overlap.
type output struct {
	flag string
	gen.Target
}

type outputs []output

// at is the output of kind k at root, with the Go packages at out.
func (k outputKind) at(out, root string, cfg *config) (output, error) {
	if k.place != nil {
		return k.place(out, root, cfg)
	}
	return output{k.flag(), gen.Target{Backend: k.backend, Root: root}}, nil
}

// tsOutput is the TypeScript target of --ts dir: beside the Go packages,
// under --out, when dir is a directory directly inside it (generated/ts), and
// a root of its own anywhere else; the package is as cfg's typescript: key
// says (see tsBackend).
func tsOutput(out, dir string, cfg *config) (output, error) {
	sub, err := besideOut("ts", "TypeScript modules", out, dir)
	if err != nil {
		return output{}, err
	}
	if sub == "" {
		b, err := tsBackend(cfg, dir, "")
		return output{"ts", gen.Target{Backend: b, Root: dir}}, err
	}
	b, err := tsBackend(cfg, out, sub)
	return output{"out", gen.Target{Backend: b, Root: out}}, err
}

// pythonOutput is the Python target of --python dir, placed as tsOutput
// places TypeScript (generated/python beside the Go packages); the package
// is as cfg's python: key says (see pyBackend).
func pythonOutput(out, dir string, cfg *config) (output, error) {
	sub, err := besideOut("python", "Python modules", out, dir)
	if err != nil {
		return output{}, err
	}
	root := out
	if sub == "" {
		root = dir
	}
	b, err := pyBackend(cfg, root, sub)
	if sub == "" {
		return output{"python", gen.Target{Backend: b, Root: dir}}, err
	}
	return output{"out", gen.Target{Backend: b, Root: out}}, err
}

// besideOut says where the output of --flag dir goes when the Go packages
// go to out: "" when dir is outside out, a root of its own, or else the
// directory directly inside out that dir names, slash-separated; what is
// the output, for the error when dir is out itself or deeper inside it.
func besideOut(flag, what, out, dir string) (string, error) {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absOut, absDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil
	}
	if rel == "." || strings.ContainsRune(rel, filepath.Separator) {
		return "", fmt.Errorf("--%s %s: inside --out %s, the %s go in a directory directly under it, such as %s", flag, dir, out, what, filepath.Join(out, flag))
	}
	return filepath.ToSlash(rel), nil
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

// outputsSummary is the help of generate or verify: lead says what it does
// with the Go packages, then each other output is named with its flag,
// then tail.
func outputsSummary(lead, tail string) string {
	var flags, whats []string
	for _, k := range outputKinds[1:] {
		flags = append(flags, "--"+k.flag())
		whats = append(whats, k.what)
	}
	return wrap(lead + " with " + list(flags) + ", its " + list(whats) + ". " + tail)
}

// list joins words as a sentence does: "a, b and c".
func list(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// wrap refills text to lines of at most 76 columns, as help reads best.
func wrap(text string) string { return strings.Join(doctext.Wrap(text, 76), "\n") }

// parseOutputs is the setup generate and verify share: it registers the
// spec flags and a flag for each output on fs, parses args, fills in what
// jobgen.yaml sets and returns the outputs they name with the command's
// reporter; verb ("write", "verify") is what the flags' help says the
// command does. When the command is to stop instead (help, a usage error),
// outs is nil and code is its exit status.
func (sf *specFlags) parseOutputs(fs *flag.FlagSet, verb string, args []string, stdout, stderr io.Writer) (outs outputs, r *reporter, code int) {
	sf.register(fs, true)
	roots := make([]string, len(outputKinds))
	fromConfig := []configOutput{{"out", "go", &sf.out}}
	for i, k := range outputKinds[1:] {
		fs.StringVar(&roots[i+1], k.flag(), "", fmt.Sprintf("also %s each spec's %s under this root%s", verb, k.what, k.note))
		fromConfig = append(fromConfig, configOutput{k.flag(), k.key, &roots[i+1]})
	}
	if code, stop := parse(fs, args, stdout); stop {
		return nil, nil, code
	}
	r = newReporter(sf.format, stdout, stderr)
	if !sf.withConfig(fs, r, fromConfig...) {
		return nil, r, r.code
	}
	roots[0] = sf.out
	for i, k := range outputKinds {
		if roots[i] == "" {
			continue
		}
		o, err := k.at(sf.out, roots[i], sf.cfg)
		if err != nil {
			r.failf(exitUsage, "jobgen: %v", err)
			return nil, r, r.code
		}
		outs = append(outs, o)
	}
	return outs, r, exitOK
}

// outputCommand is the command that writes only the output key names
// (jobgen schema, jobgen docs), under its own --out.
func outputCommand(key string) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		k, _ := outputKindOf(key)
		var sf specFlags
		fs := newFlagSet(k.command, wrap(k.about), stderr)
		sf.register(fs, false)
		fs.StringVar(&sf.out, "out", k.dflt, "output root")
		if code, stop := parse(fs, args, stdout); stop {
			return code
		}
		if r := newReporter(sf.format, stdout, stderr); !sf.withConfig(fs, r, configOutput{"out", k.key, &sf.out}) {
			return r.code
		}
		return sf.write(stdout, stderr, outputs{{"out", gen.Target{Backend: k.backend, Root: sf.out}}})
	}
}

// fileCount is how many files tree holds for the outputs.
func fileCount(tree *gen.Tree, outs outputs) int {
	total := 0
	for i := range outs {
		total += len(tree.Files(i))
	}
	return total
}
