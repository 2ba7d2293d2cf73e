package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

const journalUsage = `Usage: jobgen journal <command> [flags] FILE|postgres://DSN[?schema=NAME]

Read a journal of lifecycle facts: a file, or a PostgreSQL journal
(journal/pgstore; schema jobgen_journal unless the DSN names another). The
facts are those of jobgen's own job and subagent specs and of every spec
--spec names, or else jobgen.yaml lists (and the specs those import): each is
decoded from its spec, as strictly as generated code decodes it.

Commands:

	cat        print the records as JSON lines,
	           {"pos":"MAJOR.MINOR","stream":"S","seq":N,"fact":{…}};
	           --follow, --stream, --type and --after select them
	intervals  print each job's execution interval (--json for JSON lines,
	           --label key=value for the jobs labelled so);
	           a job fact of a newer build shows its job with what this
	           build reads of it; facts no spec declares are skipped and
	           counted on stderr
	check      verify every record and decode its fact; exit 0 when intact
	           (facts this build does not know — a type, version, variant
	           or enum value no spec declares — are kept and reported on
	           stderr), 1 with the offset of the first bad record or fact,
	           3 when there is no journal to read (no such file, a schema
	           without a journal) or it cannot be read, 4 with --strict
	           when every record is intact but some facts are unknown
	repair     --truncate-at OFFSET: cut the file at OFFSET, the offset check
	           named, once you decided the records from there on may go

The operator's commands take a PostgreSQL journal's DSN only:

	migrate    bring the schema to this build's version (--dry-run prints
	           the SQL and changes nothing); hosts that open the journal
	           WithoutMigrate refuse a schema behind them until it ran
	status     print the schema version, streams, records, the oldest and
	           newest positions and the size on disk (--json)
	archive    --before TIME|AGE --to FILE: move the streams whose history is
	           over (their jobs settled, their children disposed, last
	           appended before TIME), through the seq judged, into the
	           journal FILE, verify the copy, then remove them (--dry-run
	           lists them and why others stay)

A position is always the string "MAJOR.MINOR", whatever the backend: a file
counts its records in MINOR ("0.17"); PostgreSQL orders transactions in
MAJOR ("752.1"). cat --after takes it back.
`

// A journalCommand is one of jobgen journal's commands: the summary its
// usage prints, the flags it takes and what it does with its one FILE.
type journalCommand struct {
	summary string
	dsn     bool                                  // it takes a PostgreSQL journal's DSN only, never a file
	flags   func(fs *flag.FlagSet, j *journalRun) // registers its flags; nil when it has none
	run     func(j *journalRun) int
}

// A journalRun is one invocation of a journal command: its file (or DSN),
// its flags, its usage and where it writes.
type journalRun struct {
	path           string
	asJSON         bool       // intervals --json
	labels         labelFlag  // intervals --label: key=value pairs every job shown carries
	strict         bool       // check --strict
	allowUnknown   bool       // check --allow-unknown: the default, accepted for scripts
	truncateAt     int64      // repair --truncate-at, -1 when not given
	ops            journalOps // migrate, status and archive's flags
	usage          func()
	stdout, stderr io.Writer

	sf    specFlags     // --spec and --config: the specs whose facts the journal holds
	flags *flag.FlagSet // the command's flags, which withConfig reads

	// cat's selection: --follow, --stream, --type, --after.
	follow  bool
	streams []journal.Stream
	types   []string
	after   journal.Position
	ctx     context.Context // what ends --follow; nil is context.Background
	poll    time.Duration   // how often --follow reads a file again; 0 is the default
}

// journalCommands are the journal commands by name.
var journalCommands = map[string]journalCommand{
	"cat": {
		summary: "Cat prints the records of the journal as JSON lines,\n" +
			"{\"pos\":\"MAJOR.MINOR\",\"stream\":\"S\",\"seq\":N,\"fact\":{…}}, their facts as\n" +
			"they are, for jq. A position is the same string for every backend, and\n" +
			"--after takes it back. Damage ends the output with an error naming its\n" +
			"offset; --follow waits for more records until interrupted.",
		flags: catFlags,
		run:   func(j *journalRun) int { return j.open(journalCat) },
	},
	"intervals": {
		summary: "Intervals prints each job's execution interval: registered to settled, or\n" +
			"incomplete when no settled fact exists. Facts of a type or version this build\n" +
			"cannot read are skipped; how many of each is reported on stderr.",
		flags: func(fs *flag.FlagSet, j *journalRun) {
			j.registerVocabulary(fs)
			fs.BoolVar(&j.asJSON, "json", false, "print JSON lines instead of a table")
			fs.Var(&j.labels, "label", "print only the jobs labelled `key=value` (repeat it: a job must carry every one)")
		},
		run: func(j *journalRun) int { return j.open(journalIntervals) },
	},
	"check": {
		summary: "Check verifies every record's framing, sequence and checksum, and decodes\n" +
			"its fact. A fact this build does not know (a type, version, union variant\n" +
			"or enum value no known spec declares: written by a newer jobgen, or of a\n" +
			"vocabulary not named) is kept and reported on stderr, as every reader keeps\n" +
			"it. Exit status: 0 when intact; 1 when a record is damaged or its fact\n" +
			"does not decode, with its offset; 3 when there is no journal to read (no such\n" +
			"file, a schema without a journal) or it cannot be read; 4 when every record is\n" +
			"intact but some facts are unknown, with --strict.",
		flags: func(fs *flag.FlagSet, j *journalRun) {
			j.registerVocabulary(fs)
			fs.BoolVar(&j.strict, "strict", false, "fail (exit 4) when some facts are unknown to every known spec")
			fs.BoolVar(&j.allowUnknown, "allow-unknown", false, "report unknown facts and exit 0: the default, kept for scripts that pass it")
		},
		run: func(j *journalRun) int { return j.open(journalCheck) },
	},
	"migrate": {
		dsn: true,
		summary: "Migrate brings the PostgreSQL journal's schema to this build's version,\n" +
			"creating it when missing, every step in one transaction under the migration\n" +
			"lock. A host that opens the journal WithoutMigrate refuses a schema behind\n" +
			"its build until this ran. --dry-run prints the SQL it would run, as one\n" +
			"script, and changes nothing.",
		flags: migrateFlags,
		run:   journalMigrate,
	},
	"status": {
		dsn: true,
		summary: "Status prints what the PostgreSQL journal holds: its schema version (and\n" +
			"whether this build writes a newer one), streams, records, the oldest and\n" +
			"newest positions with their times, and its size on disk. It changes nothing.",
		flags: statusFlags,
		run:   journalStatus,
	},
	"archive": {
		dsn: true,
		summary: "Archive moves the streams whose history is over out of the PostgreSQL journal\n" +
			"into the journal file --to: a session's stream once every job it registered\n" +
			"settled, a subagent child's once its residencies ended and nothing waits, a\n" +
			"host's heartbeats once its lease ran out, each tree of parent, children and\n" +
			"their pointer streams whole, and only those last appended before --before.\n" +
			"It moves each stream through the seq it judged: a record appended since\n" +
			"(a job registered meanwhile) was not judged and stays, and appends go on\n" +
			"while it runs. It copies them with their seqs and ids, syncs the file,\n" +
			"reads every copy back and compares it, and only then removes them. A later\n" +
			"read of such a stream from its start says which seqs went into which file;\n" +
			"appends go on after them. --dry-run prints the plan and changes nothing.",
		flags: archiveFlags,
		run:   journalArchive,
	},
	"repair": {
		summary: "Repair cuts the journal at --truncate-at OFFSET: what recovery will not do\n" +
			"for you, since a whole record with a bad checksum may have been flushed. It\n" +
			"refuses unless the file before OFFSET is an intact journal ending there.",
		flags: func(fs *flag.FlagSet, j *journalRun) {
			fs.Func("truncate-at", "the byte offset to cut the file at, where a record ends; journal check names it", func(s string) error {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 0 {
					return errors.New("want a byte offset ≥ 0, where a record ends")
				}
				j.truncateAt = n
				return nil
			})
		},
		run: func(j *journalRun) int {
			if j.truncateAt < 0 {
				fmt.Fprintln(j.stderr, "jobgen journal repair: --truncate-at OFFSET is required")
				j.usage()
				return exitUsage
			}
			return j.open(journalRepair)
		},
	},
}

// cmdJournal picks the journal command args name, parses its flags and its
// one FILE, and runs it.
func cmdJournal(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, journalUsage)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, journalUsage)
		return exitOK
	}
	cmd, ok := journalCommands[name]
	if !ok {
		fmt.Fprintf(stderr, "jobgen journal: unknown command %q\n\n%s", name, journalUsage)
		return exitUsage
	}
	j := &journalRun{truncateAt: -1, stdout: stdout, stderr: stderr}
	fs := newFlagSet("journal "+name, cmd.summary, stderr)
	fs.Usage = func() {
		arg := "FILE|postgres://DSN"
		if cmd.dsn {
			arg = "postgres://DSN[?schema=NAME]"
		}
		fmt.Fprintf(fs.Output(), "Usage: jobgen journal %s [flags] %s\n\n%s\n", name, arg, cmd.summary)
		if cmd.flags != nil {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	j.usage = fs.Usage
	if cmd.flags != nil {
		cmd.flags(fs, j)
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
	j.path = files[0]
	return cmd.run(j)
}

// fail reports err as the journal commands do and returns the exit status it calls for.
func (j *journalRun) fail(err error) int {
	r := newReporter(formatText, j.stdout, j.stderr)
	r.err(err)
	return r.code
}

// open opens the journal j names, a file or a PostgreSQL journal, once,
// and runs do on it; do returns the exit status, or an error to report.
func (j *journalRun) open(do func(j *journalRun, store journalStore) (int, error)) int {
	store, err := openJournal(context.Background(), j.path, j.stderr)
	if err != nil {
		return j.fail(err)
	}
	defer store.close()
	code, err := do(j, store)
	if err != nil {
		return j.fail(err)
	}
	return code
}

// journalIntervals prints the intervals of the jobs, counting on stderr the
// facts it could not read. The vocabulary is loaded first, so that a spec
// that does not load fails the command before it reads, and then let go:
// job facts decode with this build's job vocabulary, and the specs are
// loaded again only for a fact that is not a job fact. Held through the
// read, they would cost a million-record journal a megabyte or two of its
// peak memory, the heap their loading grew, fragmented by what it kept.
func journalIntervals(j *journalRun, store journalStore) (int, error) {
	if v, code := j.vocabulary(); v == nil {
		return code, nil
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(intervalsGCPercent))
	}
	vocabulary := sync.OnceValues(func() (*factspec.Vocabulary, error) {
		v, err := j.loadVocabulary()
		if err != nil {
			return nil, fmt.Errorf("jobgen journal intervals: the specs no longer load: %w", err)
		}
		return v, nil
	})
	var unknown codec.UnknownFacts
	var opts []jobhistory.WriteOption
	if j.asJSON {
		opts = append(opts, jobhistory.WithJSON())
	}
	if len(j.labels) > 0 {
		opts = append(opts, jobhistory.WithKeep(func(iv jobhistory.Interval) bool { return iv.HasLabels(j.labels) }))
	}
	err := jobhistory.WriteIntervals(j.stdout, store.jobFacts(projectable(vocabulary, &unknown)), opts...)
	if unknown.Total() > 0 {
		fmt.Fprintf(j.stderr, "jobgen journal intervals: %s: read in part or skipped %s\n", store.name(), &unknown)
	}
	return exitOK, err
}

// intervalsGCPercent is the collector's GOGC while journal intervals reads,
// unless GOGC is set: the projection's live heap is a megabyte or two
// whatever the journal's length, and at half the default the heap it
// grows between collections is half as large, 1.8 MB less of the peak RSS
// of a million records, for a tenth more CPU (decision 0189).
const intervalsGCPercent = 50

// journalCheck verifies the records, then decodes their facts tolerantly:
// facts no known spec declares are reported, and fail it with
// exitUnknownFacts only with --strict.
func journalCheck(j *journalRun, store journalStore) (int, error) {
	v, code := j.vocabulary()
	if v == nil {
		return code, nil
	}
	intact, err := store.check()
	if err != nil {
		return 0, err
	}
	var unknown codec.UnknownFacts
	if err := decodeFacts(store.records(), v, &unknown); err != nil {
		return 0, err
	}
	if unknown.Total() > 0 && j.strict {
		fmt.Fprintf(j.stderr, "jobgen journal check: %s: every record is intact, but %s (--strict)\n", store.name(), &unknown)
		return exitUnknownFacts, nil
	}
	fmt.Fprintln(j.stdout, intact)
	if unknown.Total() > 0 {
		fmt.Fprintf(j.stderr, "jobgen journal check: %s: kept %s (--strict fails on them)\n", store.name(), &unknown)
	}
	return exitOK, nil
}

// journalRepair cuts a journal at --truncate-at.
func journalRepair(j *journalRun, store journalStore) (int, error) {
	kept, err := store.truncateAt(j.truncateAt)
	if err != nil {
		return 0, err
	}
	fmt.Fprintln(j.stdout, kept)
	return exitOK, nil
}

// exitUnknownFacts is journal check --strict's exit status for a journal
// whose records are intact but hold facts this build cannot read.
const exitUnknownFacts = 4

// decodeFacts reads the fact of every record with v, tolerantly, counting
// in unknown those no spec of v knows (a type, version, variant or enum
// value). A damaged record, or a fact that does not decode for another
// reason, ends it with an error naming the record.
func decodeFacts(records iter.Seq2[journal.Record, error], v *factspec.Vocabulary, unknown *codec.UnknownFacts) error {
	for f, err := range journal.Facts(records, v.ReadFact) {
		if err != nil {
			return err
		}
		if f.Unknown != nil {
			unknown.Keep(*f.Unknown)
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

// A labelFlag is the key=value pairs of repeated --label flags.
type labelFlag map[string]string

func (l *labelFlag) String() string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(*l)) {
		pairs = append(pairs, k+"="+(*l)[k])
	}
	return strings.Join(pairs, ",")
}

func (l *labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	if *l == nil {
		*l = labelFlag{}
	}
	(*l)[k] = v
	return nil
}
