package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/breaking"
)

// cmdBreaking runs jobgen breaking: it compares the specs with the older
// ones --against names and prints what breaks.
func cmdBreaking(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	var against string
	var opts []breaking.Option
	fs := newFlagSet("breaking", `Breaking compares the specs with older ones and prints each change that
breaks history (durable), the wire (wire) or the generated Go API (goapi), one
per line as file:line:col: RULE_ID: path: message [categories]. A deletion
points into the old spec when OLD is a file; against git:REF, whose old spec
no editor can open, it points at the declaration in the new spec that held
what was deleted, and names the old line. It exits 1 when any finding remains
after the specs' allow_breaking entries, 0 otherwise, and 3 when OLD cannot be
read.

OLD is a directory, git:REF, a spec file or git:REF:path. Against a directory
or git:REF, every spec --spec or jobgen.yaml names is compared in one run: with
the file of the same name in the directory (spec/baseline/jobs.yaml for
spec/jobs.yaml), or at the same path in REF. A spec OLD lacks is new, and
breaks nothing; one OLD has that no spec matches was deleted, and its facts and
types are findings. The specs they import are read on both sides, so a change
to an imported type is durable (or wire) where an importing spec's facts (or
unions) reach it. A file or git:REF:path is one older spec, for one --spec.
Without --against, breaking compares with the last release: the newest tag
vX.Y.Z of the repository, as git:TAG, or, when there is none, the directory
baseline beside the specs (spec/baseline), saying which on stderr. Against
git:REF, the specs the old ones import from other modules are read as REF's
go.mod resolves them, not through today's module graph.

--mode says which compatibility a durable or wire finding must keep:
backward (a reader of the new specs reads what the old ones wrote), forward
(a reader of the old specs reads what the new ones write: hosts of two
builds on one history) or full (both). Without it, durable findings are
checked full and wire findings backward; goapi findings are always backward
(forward reports none). Each finding's bracket names the mode it breaks per
category: [durable: forward, goapi: backward].`, stderr)
	sf.register(fs, false)
	fs.StringVar(&against, "against", "", "the older specs: a directory, git:REF, or, for one spec, a file or git:REF:path (default: the last release tag, else spec/baseline)")
	fs.Func("category", "report only this category: durable, wire or goapi; repeat for several (default all)", func(s string) error {
		c := gen.Category(s)
		if !slices.Contains(gen.Categories(), c) {
			return fmt.Errorf("unknown category %q (durable, wire or goapi)", s)
		}
		opts = append(opts, breaking.WithOnly(c))
		return nil
	})
	fs.Func("mode", "the compatibility to check durable and wire findings in: backward, forward or full (default full for durable, backward for wire)", func(s string) error {
		m, err := breaking.ParseMode(s)
		opts = append(opts, breaking.WithMode(m))
		return err
	})
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	r := newReporter(sf.format, stdout, stderr)
	if !sf.withConfig(fs, r) {
		return r.code
	}
	names, ok := sf.files(r)
	if !ok {
		return r.code
	}
	if against == "" {
		var note string
		var err error
		if against, note, err = lastRelease(names[0]); err != nil {
			r.failf(exitUsage, "jobgen breaking: %v", err)
			return r.code
		}
		fmt.Fprintln(stderr, note)
	}
	pairs, ok := sf.breakingPairs(r, against, names)
	if !ok {
		return r.code
	}
	specs := make([]breaking.Pair, len(pairs))
	for i, p := range pairs {
		specs[i] = breaking.Pair{Old: p.old, New: p.new}
	}
	reports := breaking.CompareAll(specs, opts...)
	return printBreaking(pairs, reports, r, against, stdout, stderr)
}

// printBreaking prints the findings of each report, one a line, and a
// summary, and returns jobgen breaking's exit code: exitFindings when any
// remain.
func printBreaking(pairs []breakingPair, reports []breaking.Report, r *reporter, against string, stdout, stderr io.Writer) int {
	found, allowed, compared := 0, 0, 0
	for i, report := range reports {
		p := pairs[i]
		if p.old == nil {
			fmt.Fprintf(r.info(), "jobgen: %s is new against %s: nothing to compare\n", p.newName, against)
			continue
		}
		compared++
		for _, f := range report.Findings {
			if strings.HasPrefix(against, "git:") {
				f = openable(f, p.oldName)
			}
			d := diagnostic{Pos: f.Pos, Type: string(f.Rule), Msg: f.Msg, Element: f.Path, Categories: f.Categories, text: f.String()}
			for _, c := range f.Categories {
				d.Modes = append(d.Modes, f.BreaksIn(c).String())
			}
			r.finding(d, stdout)
		}
		found += len(report.Findings)
		allowed += len(report.Allowed)
	}
	where := "against " + against
	if len(pairs) > 1 {
		where = "in " + plural(compared, "spec") + " against " + against
	}
	accepted := ""
	if allowed > 0 {
		accepted = fmt.Sprintf(" (%s accepted by allow_breaking)", plural(allowed, "change"))
	}
	if found > 0 {
		fmt.Fprintf(stderr, "jobgen: %s %s%s\n", plural(found, "breaking finding"), where, accepted)
		return exitFindings
	}
	fmt.Fprintf(r.info(), "jobgen: no breaking changes %s%s\n", where, accepted)
	return exitOK
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
