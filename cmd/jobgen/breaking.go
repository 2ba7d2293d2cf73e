package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/breaking"
)

// cmdBreaking runs jobgen breaking: it compares the spec with the one
// --against names and prints what breaks.
func cmdBreaking(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	var against string
	var only []gen.Category
	fs := newFlagSet("breaking", `Breaking compares the spec with an older one and prints each change that
breaks history (durable), the wire (wire) or the generated Go API (goapi), one
per line as file:line:col: RULE_ID: path: message [categories]. A deletion
points into the old spec when OLD is a file; against git:REF, whose old spec
no editor can open, it points at the declaration in the new spec that held
what was deleted, and names the old line. It exits 1 when any finding remains after the
spec's allow_breaking entries, 0 otherwise, and 3 when OLD cannot be read.

OLD is a spec file, or git:REF[:path] to read it with git show; the path
defaults to the --spec file's path in its repository.`, stderr)
	sf.register(fs, false)
	fs.StringVar(&against, "against", "", "the older spec: a file or git:REF[:path] (required)")
	fs.Func("category", "report only this category: durable, wire or goapi; repeat for several (default all)", func(s string) error {
		c := gen.Category(s)
		if !slices.Contains(gen.Categories(), c) {
			return fmt.Errorf("unknown category %q (durable, wire or goapi)", s)
		}
		only = append(only, c)
		return nil
	})
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	if against == "" {
		fmt.Fprintln(stderr, "jobgen breaking: --against is required")
		fs.Usage()
		return exitUsage
	}
	r := newReporter(sf.format, stdout, stderr)
	if !sf.withConfig(fs, r) {
		return r.code
	}
	names, ok := sf.files(r)
	if !ok {
		return r.code
	}
	if len(names) != 1 {
		fmt.Fprintf(stderr, "jobgen breaking: compares one spec at a time, and %s matches %d; name one with --spec\n", strings.Join(sf.specsOrDefault(), " "), len(names))
		return exitUsage
	}
	oldName, oldSpec, newSpec, ok := loadBreakingPair(&sf, r, against, names[0])
	if !ok {
		return r.code
	}
	report := breaking.Compare(oldSpec, newSpec, only...)
	return printBreaking(report, r, against, oldName, stdout, stderr)
}

// loadBreakingPair reads and loads the spec newName and the older one
// against names. It reports what fails through r and returns false then;
// the old spec's name is the one its positions are reported under.
func loadBreakingPair(sf *specFlags, r *reporter, against, newName string) (oldName string, old, new *gen.Spec, ok bool) {
	newData, err := sf.readSpec(newName)
	if err != nil {
		r.err(err)
		return "", nil, nil, false
	}
	oldName, oldData, err := readAgainst(against, newName, sf.readSpec)
	if err != nil {
		// The older spec could not be read at all: not a finding, since
		// nothing was compared.
		r.failf(exitFailure, "jobgen breaking: %v", err)
		return "", nil, nil, false
	}
	// Both specs are compared as models; their sources (upcaster bodies)
	// play no part, and the old spec's may not even be at hand.
	oldSpec, oldErr := gen.LoadFS(nil, oldName, oldData)
	newSpec, newErr := gen.LoadFS(nil, newName, newData)
	if oldErr != nil || newErr != nil {
		for _, err := range []error{oldErr, newErr} {
			if err != nil {
				r.err(err)
			}
		}
		return "", nil, nil, false
	}
	return oldName, oldSpec.Spec(), newSpec.Spec(), true
}

// printBreaking prints the findings of report, one a line, and a summary,
// and returns jobgen breaking's exit code: exitFindings when any remain.
func printBreaking(report breaking.Report, r *reporter, against, oldName string, stdout, stderr io.Writer) int {
	for _, f := range report.Findings {
		if strings.HasPrefix(against, "git:") {
			f = openable(f, oldName)
		}
		r.finding(diagnostic{Pos: f.Pos, Type: string(f.Rule), Msg: f.Msg, Element: f.Path, Categories: f.Categories, text: f.String()}, stdout)
	}
	allowed := ""
	if n := len(report.Allowed); n > 0 {
		allowed = fmt.Sprintf(" (%s accepted by allow_breaking)", plural(n, "change"))
	}
	if len(report.Findings) > 0 {
		fmt.Fprintf(stderr, "jobgen: %s against %s%s\n", plural(len(report.Findings), "breaking finding"), against, allowed)
		return exitFindings
	}
	fmt.Fprintf(r.info(), "jobgen: no breaking changes against %s%s\n", against, allowed)
	return exitOK
}

// readAgainst reads the older spec named by --against (a file with read,
// which keeps the size limit) and returns the name its positions are
// reported under.
func readAgainst(against, newName string, read func(string) ([]byte, error)) (string, []byte, error) {
	rest, isGit := strings.CutPrefix(against, "git:")
	if !isGit {
		data, err := read(against)
		return against, data, err
	}
	ref, path, hasPath := strings.Cut(rest, ":")
	if ref == "" {
		return "", nil, fmt.Errorf("%s: name a git revision, as in git:main or git:v1.2.0:spec/jobs.yaml", against)
	}
	dir := filepath.Dir(newName)
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", nil, err
	}
	top = strings.TrimSpace(top)
	if !hasPath || path == "" {
		abs, err := filepath.Abs(newName)
		if err != nil {
			return "", nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if real, err := filepath.EvalSymlinks(top); err == nil {
			top = real
		}
		rel, err := filepath.Rel(top, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "", nil, fmt.Errorf("%s is outside the git repository at %s; give the path as git:REF:path", newName, top)
		}
		path = filepath.ToSlash(rel)
	}
	data, err := git(top, "show", ref+":"+path)
	if err != nil {
		return "", nil, err
	}
	return ref + ":" + path, []byte(data), nil
}

// git runs git in dir and returns its standard output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// openable moves a finding about something deleted from the old spec read
// from git (REF:path, which no editor opens) to the place in the new spec
// that held it, naming the old line in the message.
func openable(f breaking.Finding, oldName string) breaking.Finding {
	if f.Pos.File != oldName || f.Near.File == "" {
		return f
	}
	f.Msg += fmt.Sprintf(" (deleted from %s line %d)", oldName, f.Pos.Line)
	f.Pos = f.Near
	return f
}
