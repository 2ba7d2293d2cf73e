package guidetest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repo is the module's root, seen from this package.
func repo(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// guide is the path of a guide under docs/guides.
func guide(t *testing.T, name string) string {
	return filepath.Join(repo(t), "docs", "guides", name)
}

// scratchBeside makes a scratch directory whose ../jobgen is this
// repository, as a user's module sits beside their clone (the test runs
// offline, so it makes no clone). The link lives in a directory named after
// the repository and kept between runs, so the go command builds jobgen
// there from its cache instead of from nothing in every run.
func scratchBeside(t *testing.T) string {
	t.Helper()
	r := repo(t)
	parent := filepath.Join(os.TempDir(), fmt.Sprintf("jobgen-guide-%x", sha256.Sum256([]byte(r)))[:39])
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "jobgen")
	if target, err := os.Readlink(link); err != nil || target != r {
		os.Remove(link)
		if err := os.Symlink(r, link); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	dir, err := os.MkdirTemp(parent, "module-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// offline is the environment of a guide's commands: the test's own, with
// the go command kept off the network and out of any workspace around it.
func offline(extra ...string) []string {
	env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	return append(env, extra...)
}

// needGo skips under -short: a guide's test runs the go command many times.
func needGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a guide's commands with the go command in a scratch module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("no go command on PATH")
	}
}

// TestTheOwnVocabularyGuideRunsAsWritten follows docs/guides/your-own-vocabulary.md
// from an empty directory: install before a release, a spec, generating, a
// job of the module's own kind recording its own facts, reading them back
// with jobgen journal, and the compatibility checks for CI.
func TestTheOwnVocabularyGuideRunsAsWritten(t *testing.T) {
	needGo(t)
	c := Run{Guide: guide(t, "your-own-vocabulary.md"), Dir: scratchBeside(t), Env: offline()}.Do(t)
	if c.Ran < 15 || c.Wrote != 3 {
		t.Fatalf("the guide ran %d commands and wrote %d files; it walks a whole module (3 files), so it should run more", c.Ran, c.Wrote)
	}
}
