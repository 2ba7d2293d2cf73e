package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

const journalUsage = `Usage: jobgen journal <command> [flags] FILE

Read a journal of job lifecycle facts.

Commands:

	cat        print every record as a JSON line, {"pos":P,"stream":"S","seq":N,"fact":{…}}
	intervals  print each job's execution interval (--json for JSON lines)
	check      verify every record; exit 0 when intact, 1 with the offset
	           of the first bad record, 3 when the file cannot be read
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
	case "cat", "intervals", "check":
	default:
		fmt.Fprintf(stderr, "jobgen journal: unknown command %q\n\n%s", args[0], journalUsage)
		return exitUsage
	}
	name := args[0]
	summaries := map[string]string{
		"cat":       "Cat prints every record of the journal as a JSON line,\n{\"pos\":P,\"stream\":\"S\",\"seq\":N,\"fact\":{…}},\nfor jq. Damage ends the output with an error naming its offset.",
		"intervals": "Intervals prints each job's execution interval: registered to settled, or\nincomplete when no settled fact exists.",
		"check":     "Check verifies every record's framing, sequence and checksum.",
	}
	fs := newFlagSet("journal "+name, summaries[name], stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: jobgen journal %s [flags] FILE\n\n%s\n", name, summaries[name])
		if name == "intervals" {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	asJSON := false
	if name == "intervals" {
		fs.BoolVar(&asJSON, "json", false, "print JSON lines instead of a table")
	}
	// The file is a positional argument; parse refuses those, so split it off.
	flagArgs, files := splitFiles(args[1:])
	if code, stop := parse(fs, flagArgs, stdout); stop {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "jobgen journal %s: want exactly one FILE, got %d\n", name, len(files))
		fs.Usage()
		return exitUsage
	}
	path := files[0]
	var err error
	switch name {
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
// before or after them.
func splitFiles(args []string) (flags, files []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(files, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
		default:
			files = append(files, a)
		}
	}
	return flags, files
}
