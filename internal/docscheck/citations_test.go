package docscheck

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// citedKinds are the files whose text a reader of the repository reads as
// its explanation: code comments, the clients' sources, the docs, the specs
// and the scripts.
var citedKinds = []string{".go", ".mts", ".py", ".md", ".yaml", ".sh"}

// notCited are the paths the citation rule leaves alone: the decision
// records, which their own test holds to it; this package, whose patterns
// would match themselves; and what the project does not write. The
// changelog is held to the rule like any doc: a reader follows its
// citations as they follow a comment's.
func notCited(rel string) bool {
	return strings.HasPrefix(rel, "docs/decisions/") || notWritten(rel)
}

// notWritten are the paths no rule of this package reads: this package,
// and what the project does not write.
func notWritten(rel string) bool {
	if strings.HasPrefix(rel, "internal/docscheck/") {
		return true
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "node_modules" || part == ".venv" || part == ".git" || part == "__pycache__" {
			return true
		}
	}
	return false
}

// TestNothingCitesWhatIsNotInTheRepository holds every comment, doc and
// spec to the rule the decision records keep: cite a decision record or a
// package doc, never an issue number, the design document or notes that
// are not in the repository, so that every pointer a reader follows leads
// somewhere they can open.
func TestNothingCitesWhatIsNotInTheRepository(t *testing.T) {
	scanned := eachLine(t, notCited, func(rel string, n int, line string) {
		for _, o := range outside {
			if o.re.MatchString(line) {
				t.Errorf("%s:%d cites %s: cite a decision record or a package doc instead\n\t%s", rel, n, o.what, strings.TrimSpace(line))
			}
		}
	})
	if scanned < 300 {
		t.Fatalf("scanned %d files; the module has more, so the walk is wrong", scanned)
	}
}

// TestEveryCitedRecordExists holds every comment, doc, spec, script, the
// changelog and the records themselves to the records that exist: a
// citation such as "decision 0131", "decisions 0132–0135", "amends 0109" or
// docs/decisions/0120 names a record file, so that a record folded into a
// package doc and deleted leaves no pointer to nothing.
func TestEveryCitedRecordExists(t *testing.T) {
	records, _, _ := readRecords(t)
	eachLine(t, notWritten, func(rel string, n int, line string) {
		for _, num := range citedRecords(line) {
			if _, ok := records[num]; !ok {
				t.Errorf("%s:%d cites record %s, which docs/decisions does not hold: cite the package doc or record that says it now\n\t%s", rel, n, num, strings.TrimSpace(line))
			}
		}
	})
}

// recordCitation is a citation of decision records by number: after
// "decision(s)", "amends", "supersedes", "amended by" or "superseded by", a
// number, or a list or range of them; or a path into docs/decisions.
var recordCitation = regexp.MustCompile(`(?i)(?:\b(?:decisions?|amends|supersedes|amended by|superseded by)\s+|docs/decisions/)(\d{4}\b(?:(?:\s*[–-]\s*|,\s*|,?\s+and\s+)\d{4}\b)*)`)

// citedRecords returns the record numbers a line cites (a range by its
// ends).
func citedRecords(line string) []string {
	var nums []string
	for _, m := range recordCitation.FindAllStringSubmatch(line, -1) {
		nums = append(nums, number.FindAllString(m[1], -1)...)
	}
	return nums
}

// eachLine calls fn with every line of the module's files of citedKinds
// (and its Makefile) whose path skip does not leave out, and returns how
// many files it read.
func eachLine(t *testing.T, skip func(rel string) bool, fn func(rel string, n int, line string)) int {
	t.Helper()
	scanned := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Name() != "Makefile" && !hasKind(d.Name()) {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
		for n := 1; sc.Scan(); n++ {
			fn(rel, n, sc.Text())
		}
		scanned++
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return scanned
}

// hasKind reports whether a file name ends in one of citedKinds.
func hasKind(name string) bool {
	for _, k := range citedKinds {
		if strings.HasSuffix(name, k) {
			return true
		}
	}
	return false
}

// TestCitedRecordsReadsTheFormsOfACitation holds citedRecords to the ways
// the docs cite records, so that the check above cannot pass by reading
// nothing, and to what is no citation.
func TestCitedRecordsReadsTheFormsOfACitation(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"see decision 0131.", []string{"0131"}},
		{"(decisions 0108, 0110, 0111)", []string{"0108", "0110", "0111"}},
		{"reads (decisions 0078–0081).", []string{"0078", "0081"}},
		{"### The wire declared in the spec (decisions 0167-0170)", []string{"0167", "0170"}},
		{"decisions 0127, 0128 and 0147", []string{"0127", "0128", "0147"}},
		{"Amends 0109. A truncated rune", []string{"0109"}},
		{"Status: amended by 0054, 0055", []string{"0054", "0055"}},
		{"Supersedes 0112.", []string{"0112"}},
		{"see docs/decisions/0120.", []string{"0120"}},
		{"Decision 0112 bound each session", []string{"0112"}},
		{"stamps of the years 1970–9999", nil},
		{"the decision 12345 is no record number", nil},
		{"a hash 9f1d0131e2 and escape \\u0131", nil},
	} {
		if got := citedRecords(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("citedRecords(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
