package docscheck

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// citedKinds are the files whose text a reader of the repository reads as
// its explanation: code comments, the clients' sources, the docs, the specs
// and the scripts.
var citedKinds = []string{".go", ".mts", ".py", ".md", ".yaml", ".sh"}

// notCited are the paths the citation rule leaves alone: the decision
// records, which their own test holds to it; the changelog, which is
// history; this package, whose patterns would match themselves; and what
// the project does not write.
func notCited(rel string) bool {
	switch {
	case strings.HasPrefix(rel, "docs/decisions/"), rel == "CHANGELOG.md", strings.HasPrefix(rel, "internal/docscheck/"):
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
		if rel != "." && notCited(rel) {
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
			for _, o := range outside {
				if o.re.MatchString(sc.Text()) {
					t.Errorf("%s:%d cites %s: cite a decision record or a package doc instead\n\t%s", rel, n, o.what, strings.TrimSpace(sc.Text()))
				}
			}
		}
		scanned++
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 300 {
		t.Fatalf("scanned %d files; the module has more, so the walk is wrong", scanned)
	}
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
