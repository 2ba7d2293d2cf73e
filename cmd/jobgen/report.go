package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/journal"
)

// Exit statuses. A finding is something in the specs, the generated tree or
// a journal that a person must change; a failure is the command being unable
// to do its work at all. CI can tell "the change breaks something" (1) from
// "the check itself did not run" (3). See docs/decisions/0041-exit-codes.md.
const (
	exitOK       = 0
	exitFindings = 1 // invalid spec, breaking finding, stale or conflicting generated file, damaged journal
	exitUsage    = 2 // bad command line or jobgen.yaml: unknown command or flag, missing --against, a --spec matching nothing
	exitFailure  = 3 // could not read or write a file, git failed, internal error
)

const exitText = `Exit status:

	0  success: valid specs, an up-to-date tree, no breaking changes
	1  findings: invalid specs, breaking changes, stale or conflicting
	   generated files, a damaged journal
	2  usage: an unknown command or flag, a missing argument, a --spec
	   that matches no file, a bad jobgen.yaml
	3  failure: a file that cannot be read or written (a missing --against
	   file too), git failing, an internal error
	4  journal check --strict only: every record is intact, but some facts
	   are of a type, version, variant or value this build cannot read
`

// An errorFormat is how findings are printed (--error-format).
type errorFormat string

const (
	formatText          errorFormat = "text"           // file:line:col: message, as go vet prints
	formatJSON          errorFormat = "json"           // one JSON object per line, as buf prints
	formatGitHubActions errorFormat = "github-actions" // ::error file=…,line=…,col=…::message
)

var errorFormats = []errorFormat{formatText, formatJSON, formatGitHubActions}

// registerErrorFormat adds --error-format to fs.
func registerErrorFormat(fs *flag.FlagSet, f *errorFormat) {
	*f = formatText
	fs.Func("error-format", "how to print findings: text, json (one object per line) or github-actions (workflow annotations); json and github-actions go to stdout (default text)", func(s string) error {
		if !slices.Contains(errorFormats, errorFormat(s)) {
			return fmt.Errorf("unknown error format %q (text, json or github-actions)", s)
		}
		*f = errorFormat(s)
		return nil
	})
}

// A diagnostic is one finding: a spec error, a breaking change or a file
// verify or generate objects to.
type diagnostic struct {
	Pos        gen.Pos
	Type       string // SPEC, a breaking rule ID, or STALE, MISSING, ORPHAN, CONFLICT
	Msg        string // without the position
	Element    string // a breaking finding's path in the spec, as allow_breaking names it
	Categories []gen.Category
	Modes      []string // a breaking finding's mode per category: backward, forward, full
	text       string   // the line the text format prints
}

// A reporter prints problems in the chosen format and remembers the worst
// exit status they call for. In the text format each finding goes to the
// stream it always went to; json and github-actions put every finding on
// stdout, for a pipe or the Actions runner to read, and leave summaries and
// failures (which have no file to point at) as text on stderr.
type reporter struct {
	format         errorFormat
	stdout, stderr io.Writer
	code           int
}

func newReporter(format errorFormat, stdout, stderr io.Writer) *reporter {
	if format == "" {
		format = formatText
	}
	return &reporter{format: format, stdout: stdout, stderr: stderr}
}

// raise records an exit status; findings never hide a failure or usage error.
func (r *reporter) raise(code int) {
	if code > r.code {
		r.code = code
	}
}

// info is where a command's progress and summary lines go: stdout, except
// under --error-format=json, whose stdout holds nothing but findings, one
// JSON object a line, for jq.
func (r *reporter) info() io.Writer {
	if r.format == formatJSON {
		return r.stderr
	}
	return r.stdout
}

// finding prints d, in the text format to textOut, and records a finding.
func (r *reporter) finding(d diagnostic, textOut io.Writer) {
	r.raise(exitFindings)
	switch r.format {
	case formatJSON:
		type jsonDiag struct {
			Path        string         `json:"path"`
			StartLine   int            `json:"start_line,omitempty"`
			StartColumn int            `json:"start_column,omitempty"`
			Type        string         `json:"type"`
			Message     string         `json:"message"`
			Element     string         `json:"element,omitempty"`
			Categories  []gen.Category `json:"categories,omitempty"`
			Modes       []string       `json:"modes,omitempty"`
		}
		line, _ := json.Marshal(jsonDiag{d.Pos.File, d.Pos.Line, d.Pos.Col, d.Type, d.Msg, d.Element, d.Categories, d.Modes})
		fmt.Fprintf(r.stdout, "%s\n", line)
	case formatGitHubActions:
		props := "file=" + escapeProperty(d.Pos.File)
		if d.Pos.Line > 0 {
			props += fmt.Sprintf(",line=%d", d.Pos.Line)
			if d.Pos.Col > 0 {
				props += fmt.Sprintf(",col=%d", d.Pos.Col)
			}
		}
		msg := d.Msg
		if d.Element != "" {
			msg = d.Element + ": " + msg
		}
		if d.Type != "SPEC" {
			msg = d.Type + ": " + msg
		}
		if len(d.Categories) > 0 {
			var names []string
			for i, c := range d.Categories {
				if i < len(d.Modes) {
					names = append(names, string(c)+": "+d.Modes[i])
				} else {
					names = append(names, string(c))
				}
			}
			msg += " [" + strings.Join(names, ", ") + "]"
		}
		fmt.Fprintf(r.stdout, "::error %s::%s\n", props, escapeData(msg))
	default:
		fmt.Fprintln(textOut, d.text)
	}
}

// escapeData escapes an annotation's message as the Actions runner reads it.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes an annotation property such as file=.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// err prints an error, one finding per spec problem for an ErrorList and per
// file for a ConflictError, and records the exit status its kind calls for.
func (r *reporter) err(err error) {
	var list gen.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			r.finding(diagnostic{Pos: e.Pos, Type: "SPEC", Msg: e.Msg, text: e.Error()}, r.stderr)
		}
		return
	}
	var conflict *gen.ConflictError
	if errors.As(err, &conflict) && r.format != formatText {
		for _, c := range conflict.Conflicts {
			r.finding(changeDiagnostic(c), r.stderr)
		}
		return
	}
	fmt.Fprintf(r.stderr, "jobgen: %v\n", err)
	r.raise(classify(err))
}

// changeDiagnostic is a generated file that differs from what the specs yield.
func changeDiagnostic(c gen.Change) diagnostic {
	msg := map[gen.ChangeKind]string{
		gen.Stale:    "generated file is out of date; run jobgen generate",
		gen.Missing:  "generated file is missing; run jobgen generate",
		gen.Orphan:   "generated file is no longer yielded by any spec; run jobgen generate to remove it",
		gen.Conflict: "jobgen must write here but will not replace this file",
	}[c.Kind]
	if c.Note != "" {
		msg += " (" + c.Note + ")"
	}
	return diagnostic{Pos: gen.Pos{File: c.Name()}, Type: strings.ToUpper(string(c.Kind)), Msg: msg}
}

// failf prints a problem that is not a spec's and records code.
func (r *reporter) failf(code int, format string, args ...any) {
	fmt.Fprintf(r.stderr, format+"\n", args...)
	r.raise(code)
}

// classify is the exit status an error other than an ErrorList calls for.
func classify(err error) int {
	var conflict *gen.ConflictError
	var undecodable *journal.DecodeError
	switch {
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, new(noJournalError)):
		return exitFailure
	case errors.As(err, &conflict),
		errors.As(err, &undecodable),
		errors.Is(err, gen.ErrTooLarge),
		errors.Is(err, journal.ErrCorrupt),
		errors.Is(err, journal.ErrTornTail),
		errors.Is(err, journal.ErrNotJournal):
		return exitFindings
	}
	return exitFailure
}
