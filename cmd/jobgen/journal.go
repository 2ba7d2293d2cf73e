package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

const journalUsage = `Usage: jobgen journal <command> [flags] FILE|postgres://DSN[?schema=NAME]

Read a journal of job lifecycle facts: a file, or a PostgreSQL journal
(journal/pgstore; schema jobgen_journal unless the DSN names another).

Commands:

	cat        print every record as a JSON line, {"pos":P,"stream":"S","seq":N,"fact":{…}}
	intervals  print each job's execution interval (--json for JSON lines)
	check      verify every record; exit 0 when intact, 1 with the offset
	           of the first bad record, 3 when the file cannot be read
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
		"cat":       "Cat prints every record of the journal as a JSON line,\n{\"pos\":P,\"stream\":\"S\",\"seq\":N,\"fact\":{…}},\nfor jq. Damage ends the output with an error naming its offset.",
		"intervals": "Intervals prints each job's execution interval: registered to settled, or\nincomplete when no settled fact exists.",
		"check":     "Check verifies every record's framing, sequence and checksum.",
		"repair": "Repair cuts the journal at --truncate-at OFFSET: what recovery will not do\n" +
			"for you, since a whole record with a bad checksum may have been flushed. It\n" +
			"refuses unless the file before OFFSET is an intact journal ending there.",
	}
	fs := newFlagSet("journal "+name, summaries[name], stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: jobgen journal %s [flags] FILE\n\n%s\n", name, summaries[name])
		if name == "intervals" || name == "repair" {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	asJSON := false
	if name == "intervals" {
		fs.BoolVar(&asJSON, "json", false, "print JSON lines instead of a table")
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
	if isPostgres(path) {
		if err := pgJournal(context.Background(), name, path, asJSON, stdout); err != nil {
			r := newReporter(formatText, stdout, stderr)
			r.err(err)
			return r.code
		}
		return exitOK
	}
	var err error
	switch name {
	case "repair":
		var sum journal.Summary
		var cut int64
		sum, cut, err = journal.TruncateAt(path, truncateAt)
		if err == nil {
			fmt.Fprintf(stdout, "%s: cut %d bytes at offset %d; kept %s\n", path, cut, truncateAt, plural(sum.Records, "record"))
		}
	case "cat":
		err = journal.Cat(stdout, journal.ReadFile(path))
	case "intervals":
		err = jobhistory.WriteIntervals(stdout, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), asJSON)
	case "check":
		var sum journal.Summary
		sum, err = journal.Check(path)
		if err == nil {
			fmt.Fprintf(stdout, "%s: intact: %s", path, plural(sum.Records, "record"))
			if sum.Records > 0 {
				fmt.Fprintf(stdout, " in %s, positions %d to %d", plural(sum.Streams, "stream"), sum.FirstPos, sum.LastPos)
			}
			if sum.Version == 1 {
				fmt.Fprint(stdout, " (version 1: opening it for writing rewrites it as version 2)")
			}
			fmt.Fprintln(stdout)
		}
	}
	if err != nil {
		r := newReporter(formatText, stdout, stderr)
		r.err(err)
		return r.code
	}
	return exitOK
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
