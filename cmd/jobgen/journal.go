package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

const journalUsage = `Usage: jobgen journal <command> [flags] FILE|postgres://DSN[?schema=NAME]

Read a journal of job lifecycle facts: a file, or a PostgreSQL journal
(journal/pgstore; schema jobgen_journal unless the DSN names another).

Commands:

	cat        print every record as a JSON line, {"pos":P,"stream":"S","seq":N,"fact":{…}}
	intervals  print each job's execution interval (--json for JSON lines);
	           facts this build cannot read are skipped and counted on stderr
	check      verify every record and decode its fact; exit 0 when intact,
	           1 with the offset of the first bad record, 3 when the journal
	           cannot be read, 4 when every record is intact but some facts
	           are of a type or version this build cannot read
	           (--allow-unknown accepts them)
	repair     --truncate-at OFFSET: cut the file at OFFSET, the offset check
	           named, once you decided the records from there on may go
`

func cmdJournal(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, journalUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, journalUsage)
		return exitOK
	case "cat", "intervals", "check", "repair":
	default:
		fmt.Fprintf(stderr, "jobgen journal: unknown command %q\n\n%s", args[0], journalUsage)
		return exitUsage
	}
	name := args[0]
	summaries := map[string]string{
		"cat": "Cat prints every record of the journal as a JSON line,\n{\"pos\":P,\"stream\":\"S\",\"seq\":N,\"fact\":{…}},\nfor jq. Damage ends the output with an error naming its offset.",
		"intervals": "Intervals prints each job's execution interval: registered to settled, or\n" +
			"incomplete when no settled fact exists. Facts of a type or version this build\n" +
			"cannot read are skipped; how many of each is reported on stderr.",
		"check": "Check verifies every record's framing, sequence and checksum, and decodes\n" +
			"its fact. Exit status: 0 when intact; 1 when a record is damaged or its fact\n" +
			"does not decode, with its offset; 3 when every record is intact but some facts\n" +
			"are of a type or version this build cannot read (written by a newer jobgen or\n" +
			"another vocabulary), unless --allow-unknown accepts them.",
		"repair": "Repair cuts the journal at --truncate-at OFFSET: what recovery will not do\n" +
			"for you, since a whole record with a bad checksum may have been flushed. It\n" +
			"refuses unless the file before OFFSET is an intact journal ending there.",
	}
	fs := newFlagSet("journal "+name, summaries[name], stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: jobgen journal %s [flags] FILE\n\n%s\n", name, summaries[name])
		if name == "intervals" || name == "repair" || name == "check" {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	asJSON := false
	if name == "intervals" {
		fs.BoolVar(&asJSON, "json", false, "print JSON lines instead of a table")
	}
	allowUnknown := false
	if name == "check" {
		fs.BoolVar(&allowUnknown, "allow-unknown", false, "accept facts this build cannot read: exit 0 and report them on stderr")
	}
	truncateAt := int64(-1)
	if name == "repair" {
		fs.Int64Var(&truncateAt, "truncate-at", -1, "the byte offset to cut the file at (required)")
	}
	// The file is a positional argument; parse refuses those, so split it off.
	flagArgs, files := splitFiles(fs, args[1:])
	if code, stop := parse(fs, flagArgs, stdout); stop {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "jobgen journal %s: want exactly one FILE, got %d\n", name, len(files))
		fs.Usage()
		return exitUsage
	}
	path := files[0]
	if name == "repair" && truncateAt < 0 {
		fmt.Fprintln(stderr, "jobgen journal repair: --truncate-at OFFSET is required")
		fs.Usage()
		return exitUsage
	}
	if name == "repair" {
		if isPostgres(path) {
			fmt.Fprintln(stderr, "jobgen: journal repair: a PostgreSQL journal has no torn tail to cut; its rows are immutable and its commits atomic")
			return exitUsage
		}
		sum, cut, err := journal.TruncateAt(path, truncateAt)
		if err != nil {
			r := newReporter(formatText, stdout, stderr)
			r.err(err)
			return r.code
		}
		fmt.Fprintf(stdout, "%s: cut %d bytes at offset %d; kept %s\n", path, cut, truncateAt, plural(sum.Records, "record"))
		return exitOK
	}
	src := fileSource(path)
	if isPostgres(path) {
		var err error
		if src, err = pgSource(context.Background(), path); err != nil {
			r := newReporter(formatText, stdout, stderr)
			r.err(err)
			return r.code
		}
	}
	defer src.close()
	var unknown codec.UnknownFacts
	var err error
	switch name {
	case "cat":
		// Cat prints every payload as it is, without decoding: it skips nothing.
		err = journal.Cat(stdout, src.records())
	case "intervals":
		err = jobhistory.WriteIntervals(stdout, journal.Facts(src.records(), codec.CountUnknown(jobs.DecodeFact, &unknown)), asJSON)
		if unknown.Total() > 0 {
			fmt.Fprintf(stderr, "jobgen journal intervals: %s: skipped %s\n", src.name, &unknown)
		}
	case "check":
		var intact string
		intact, err = src.check()
		if err == nil {
			err = decodeFacts(src.records(), &unknown)
		}
		if err != nil {
			break
		}
		if unknown.Total() > 0 && !allowUnknown {
			fmt.Fprintf(stderr, "jobgen journal check: %s: every record is intact, but %s (--allow-unknown accepts them)\n", src.name, &unknown)
			return exitUnknownFacts
		}
		fmt.Fprintln(stdout, intact)
		if unknown.Total() > 0 {
			fmt.Fprintf(stderr, "jobgen journal check: %s: accepted %s\n", src.name, &unknown)
		}
	}
	if err != nil {
		r := newReporter(formatText, stdout, stderr)
		r.err(err)
		return r.code
	}
	return exitOK
}

// exitUnknownFacts is journal check's exit status for a journal whose
// records are intact but hold facts this build cannot read.
const exitUnknownFacts = 4

// A journalSource is what the journal commands read: a file or a PostgreSQL
// journal.
type journalSource struct {
	name    string                                  // the file, or the schema, for messages
	records func() iter.Seq2[journal.Record, error] // every record, in journal order
	check   func() (string, error)                  // verifies the records; the line saying they are intact
	close   func()
}

func fileSource(path string) journalSource {
	return journalSource{
		name:    path,
		records: func() iter.Seq2[journal.Record, error] { return journal.ReadFile(path) },
		check: func() (string, error) {
			sum, err := journal.Check(path)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s: intact: %s", path, plural(sum.Records, "record"))
			if sum.Records > 0 {
				fmt.Fprintf(&b, " in %s, positions %d to %d", plural(sum.Streams, "stream"), sum.FirstPos, sum.LastPos)
			}
			if sum.Version == 1 {
				fmt.Fprint(&b, " (version 1: opening it for writing rewrites it as version 2)")
			}
			return b.String(), nil
		},
		close: func() {},
	}
}

// decodeFacts decodes the fact of every record, counting in unknown those of a
// type or version this build cannot read. A damaged record, or a fact that
// does not decode for another reason, ends it with an error naming the
// record.
func decodeFacts(records iter.Seq2[journal.Record, error], unknown *codec.UnknownFacts) error {
	for _, err := range journal.Facts(records, codec.CountUnknown(jobs.DecodeFact, unknown)) {
		if err != nil && !errors.Is(err, codec.ErrUnknownFact) {
			return err
		}
	}
	return nil
}

// splitFiles separates positional arguments from flags, so the file may come
// before or after them. A flag of fs that takes a value and is given without
// "=" takes the next argument with it.
func splitFiles(fs *flag.FlagSet, args []string) (flags, files []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(files, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if f := fs.Lookup(name); f != nil && !strings.Contains(name, "=") && !isBoolFlag(f) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			files = append(files, a)
		}
	}
	return flags, files
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
