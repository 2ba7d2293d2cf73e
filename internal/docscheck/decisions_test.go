package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dir holds the decision records and their index.
const dir = "../../docs/decisions"

var (
	// recordFile is a record's file name: its number and a short title.
	recordFile = regexp.MustCompile(`^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$`)
	// titleLine is a record's first line.
	titleLine = regexp.MustCompile(`^# (\d{4}) — (\S.*)$`)
	// statusLine is the first line after the title, in one of three forms.
	statusLine = regexp.MustCompile(`^Status: (accepted|superseded by \d{4}|amended by \d{4}(?:, \d{4})*)$`)
	// number is a record number inside a status.
	number = regexp.MustCompile(`\d{4}`)
	// indexRow is a row of one of the index's tables: number, title, status.
	indexRow = regexp.MustCompile(`^\| \[(\d{4})\]\(([^)]+)\) \| (.+) \| (.+) \|$`)
	// statusLink is a record number linked to its file in an index status.
	statusLink = regexp.MustCompile(`\[(\d{4})\]\(([^)]+)\)`)
)

// outside are the ways a text points at what is not in the repository.
var outside = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)\bissues?\s+#?\d`), "an issue number"},
	{regexp.MustCompile(`(?i)\bthe issue\b`), `"the issue"`},
	{regexp.MustCompile(`DESIGN`), "the design document, which is not in the repository"},
	{regexp.MustCompile(`\.\./shared`), "../shared, which is not in the repository"},
	{regexp.MustCompile(`(?i)\bseed notes?\b`), "the seed notes"},
	{regexp.MustCompile(`(?i)\bwaves?\b`), "a wave of work"},
}

// A record is what the index must say about one record file.
type record struct {
	file, number, title, status string
	refs                        []string // the numbers its status names
}

// parseRecord reads a record's title and status line from its text.
func parseRecord(file, text string) (record, []string) {
	r := record{file: file}
	var problems []string
	m := recordFile.FindStringSubmatch(file)
	if m == nil {
		return r, []string{"the file name is not NNNN-short-title.md"}
	}
	r.number = m[1]
	lines := strings.Split(text, "\n")
	t := titleLine.FindStringSubmatch(lines[0])
	switch {
	case t == nil:
		problems = append(problems, fmt.Sprintf("the first line %q is not `# %s — Title`", lines[0], r.number))
	case t[1] != r.number:
		problems = append(problems, fmt.Sprintf("the title's number %s is not the file's", t[1]))
	case strings.Contains(t[2], "|"):
		problems = append(problems, "the title holds a |, which would break the index's table")
	default:
		r.title = t[2]
	}
	status := ""
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) != "" {
			status = l
			break
		}
	}
	s := statusLine.FindStringSubmatch(status)
	if s == nil {
		problems = append(problems, fmt.Sprintf("the line after the title, %q, is not a status line (Status: accepted, superseded by NNNN, or amended by NNNN, NNNN)", status))
		return r, problems
	}
	r.status = s[1]
	r.refs = number.FindAllString(r.status, -1)
	return r, problems
}

// pointsOutside lists what a text cites that the repository does not hold.
func pointsOutside(text string) []string {
	var found []string
	for i, line := range strings.Split(text, "\n") {
		for _, o := range outside {
			if m := o.re.FindString(line); m != "" {
				found = append(found, fmt.Sprintf("line %d: %q is %s", i+1, m, o.what))
			}
		}
	}
	return found
}

// readRecords reads every record file of dir, by number, with the
// problems of their form.
func readRecords(t *testing.T) (records map[string]record, texts map[string]string, problems []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	records, texts = map[string]record{}, map[string]string{}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		r, ps := parseRecord(e.Name(), string(b))
		for _, p := range ps {
			problems = append(problems, e.Name()+": "+p)
		}
		if other, ok := records[r.number]; ok && r.number != "" {
			problems = append(problems, fmt.Sprintf("%s and %s share the number %s", other.file, e.Name(), r.number))
		}
		records[r.number], texts[e.Name()] = r, string(b)
	}
	if len(records) < 100 {
		t.Fatalf("found only %d records in %s: the test is not seeing them", len(records), dir)
	}
	return records, texts, problems
}

// TestEveryRecordHasATitleAndAStatusNamingRecordsThatExist holds each
// record to the form the index describes.
func TestEveryRecordHasATitleAndAStatusNamingRecordsThatExist(t *testing.T) {
	records, _, problems := readRecords(t)
	for _, p := range problems {
		t.Error(p)
	}
	for n, r := range records {
		for _, ref := range r.refs {
			if ref == n {
				t.Errorf("%s: its status names itself", r.file)
			} else if _, ok := records[ref]; !ok {
				t.Errorf("%s: its status names %s, which is no record", r.file, ref)
			}
		}
	}
}

// TestTheIndexListsEveryRecordOnceAsItsFileSays reads the index's tables
// against the record files.
func TestTheIndexListsEveryRecordOnceAsItsFileSays(t *testing.T) {
	records, _, _ := readRecords(t)
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatalf("the index: %v", err)
	}
	seen := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		m := indexRow.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "| [") {
				t.Errorf("README.md:%d: a row that is not `| [NNNN](file) | title | status |`", i+1)
			}
			continue
		}
		n, file, title, status := m[1], m[2], m[3], m[4]
		where := fmt.Sprintf("README.md:%d", i+1)
		seen[n]++
		r, ok := records[n]
		if !ok {
			t.Errorf("%s: %s names no record file", where, n)
			continue
		}
		if file != r.file {
			t.Errorf("%s: %s links to %s, want %s", where, n, file, r.file)
		}
		if title != r.title {
			t.Errorf("%s: %s's title is %q, the file says %q", where, n, title, r.title)
		}
		for _, l := range statusLink.FindAllStringSubmatch(status, -1) {
			if ref, ok := records[l[1]]; !ok || l[2] != ref.file {
				t.Errorf("%s: %s's status links %s to %s, which is not its file", where, n, l[1], l[2])
			}
		}
		if plain := statusLink.ReplaceAllString(status, "$1"); plain != r.status {
			t.Errorf("%s: %s's status is %q, the file says %q", where, n, plain, r.status)
		}
	}
	for n, r := range records {
		if seen[n] != 1 {
			t.Errorf("%s is in the index %d times, want once", r.file, seen[n])
		}
	}
}

// TestNoRecordPointsOutsideTheRepository reads every record and the index
// for citations a reader of the repository cannot follow.
func TestNoRecordPointsOutsideTheRepository(t *testing.T) {
	_, texts, _ := readRecords(t)
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err == nil {
		texts["README.md"] = string(b)
	}
	for file, text := range texts {
		for _, f := range pointsOutside(text) {
			t.Errorf("%s: %s", file, f)
		}
	}
}

// TestTheChecksCatchWhatTheyMustAndNoMore holds the checks themselves to
// the rules, so that a check that sees nothing cannot pass the records.
func TestTheChecksCatchWhatTheyMustAndNoMore(t *testing.T) {
	for _, tt := range []struct {
		text    string
		outside bool
	}{
		{"Issue 24 measured it", true},
		{"as issue #7 asks", true},
		{"what the issue describes", true},
		{"DESIGN §3 says", true},
		{"see ../shared/reference", true},
		{"the seed notes say", true},
		{"gen/ belongs to other helpers this wave", true},
		{"by design, and at issue here", false},
		{"decision 0137 and spec/README.md", false},
	} {
		if got := len(pointsOutside(tt.text)) > 0; got != tt.outside {
			t.Errorf("pointsOutside(%q) found something: %v, want %v", tt.text, got, tt.outside)
		}
	}
	for _, tt := range []struct {
		file, text string
		bad        bool
	}{
		{"0001-a.md", "# 0001 — A\n\nStatus: accepted\n", false},
		{"0002-b.md", "# 0002 — B\n\nStatus: amended by 0003, 0004\n", false},
		{"0003-c.md", "# 0003 — C\n\nStatus: superseded by 0004\n", false},
		{"0004-d.md", "# 0004 — D\n\n## Problem\n", true},
		{"0005-e.md", "# 0005 — E\n\nStatus: accepted (2026-12-01)\n", true},
		{"0006-f.md", "# 0006 — F\n\nStatus: superseded by 0004, 0005\n", true},
		{"0007-g.md", "# 0008 — G\n\nStatus: accepted\n", true},
		{"notes.md", "# Notes\n", true},
	} {
		_, problems := parseRecord(tt.file, tt.text)
		if got := len(problems) > 0; got != tt.bad {
			t.Errorf("parseRecord(%s) problems %v, want bad=%v", tt.file, problems, tt.bad)
		}
	}
}
