package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireGit fails under CI without git, else skips.
func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; breaking against a release cannot be tested")
		}
		t.Skip("no git in PATH; install git to test breaking against a release")
	}
}

// gitIn runs git in dir, as a user who may commit.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A spec of one fact, at one version (v1) or two (v2 adds optional note).
func releaseSpec(versions int) string {
	s := "jobgen: 1\npackage: {name: app, path: example.com/rel/generated/app}\nfacts:\n  app/did:\n    versions:\n      v1:\n        fields: {at: int64}\n"
	if versions > 1 {
		s += "      v2:\n        fields:\n          at: {type: int64, since: v1}\n          note: {type: string, optional: true}\n"
	}
	return s
}

// TestBreakingComparesWithTheLastReleaseByDefault: without --against,
// breaking compares with the newest vX.Y.Z tag (not a tag of another shape,
// not an older release), and says so.
func TestBreakingComparesWithTheLastReleaseByDefault(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":        "module example.com/rel\n\ngo 1.25\n",
		"jobgen.yaml":   "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: generated}\n",
		"spec/app.yaml": releaseSpec(2),
	})
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "v1.2.0")
	gitIn(t, dir, "tag", "v1.2.0")
	writeTree(t, dir, map[string]string{"spec/app.yaml": releaseSpec(1)})
	gitIn(t, dir, "commit", "-qam", "v1.10.0: v2 is gone again")
	gitIn(t, dir, "tag", "v1.10.0")
	gitIn(t, dir, "tag", "nightly")
	writeTree(t, dir, map[string]string{"spec/app.yaml": releaseSpec(2)})
	t.Chdir(dir)
	code, stdout, stderr := jobgen(t, "breaking")
	if !strings.Contains(stderr, "comparing with the last release, v1.10.0") || code != exitFindings || !strings.Contains(stdout, "FACT_VERSION_ADDED: facts.app/did.versions.v2") || !strings.Contains(stdout, "[durable: forward]") {
		t.Fatalf("breaking: exit %d\n%s%s\nwant FACT_VERSION_ADDED against v1.10.0, the newest release by version", code, stdout, stderr)
	}
	if code, stdout, stderr := jobgen(t, "breaking", "--mode", "backward"); code != exitOK || !strings.Contains(stdout, "no breaking changes against git:v1.10.0") {
		t.Fatalf("breaking --mode backward: exit %d\n%s%s\nwant nothing: history of v1 reads as v2", code, stdout, stderr)
	}
}

// TestBreakingFallsBackToTheBaselineWithoutARelease: a repository with no
// release tag (or no repository) compares with spec/baseline, and says so.
func TestBreakingFallsBackToTheBaselineWithoutARelease(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":                 "module example.com/rel\n\ngo 1.25\n",
		"jobgen.yaml":            "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: generated}\n",
		"spec/app.yaml":          releaseSpec(2),
		"spec/baseline/app.yaml": releaseSpec(1),
	})
	t.Chdir(dir)
	code, stdout, stderr := jobgen(t, "breaking", "--mode", "forward")
	if code != exitFindings || !strings.Contains(stderr, "comparing with "+filepath.Join("spec", "baseline")) || !strings.Contains(stdout, "FACT_VERSION_ADDED") {
		t.Fatalf("breaking: exit %d\n%s%s\nwant FACT_VERSION_ADDED against spec/baseline", code, stdout, stderr)
	}
	if err := os.RemoveAll(filepath.Join(dir, "spec", "baseline")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := jobgen(t, "breaking"); code != exitUsage || !strings.Contains(stderr, "--against") {
		t.Fatalf("breaking with neither a release nor a baseline: exit %d, want %d saying to name --against: %s", code, exitUsage, stderr)
	}
}

// TestBreakingReadsTheOldSidesImportsAtTheOldRef: the old spec imports a
// spec of another module (replaced by a directory of the repository), which
// has since renamed the type the old spec uses. Read through today's module
// graph the old spec would not even load; read at the release, as the
// release's go.mod and files have it, it does, and the change of the fact's
// field is the finding.
func TestBreakingReadsTheOldSidesImportsAtTheOldRef(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	app := func(owner string) string {
		return "jobgen: 1\npackage: {name: app, path: example.com/rel/generated/app}\nimports:\n  base: {module: example.com/base, spec: spec/base.yaml}\nfacts:\n  app/did:\n    versions:\n      v1:\n        fields: {owner: base." + owner + "}\n"
	}
	base := func(owner string) string {
		return "jobgen: 1\npackage: {name: base, path: example.com/base/generated/base}\nids:\n  " + owner + ": {kind: string}\n"
	}
	writeTree(t, dir, map[string]string{
		"go.mod":              "module example.com/rel\n\ngo 1.25\n\nrequire example.com/base v0.0.0\n\nreplace example.com/base => ./base\n",
		"jobgen.yaml":         "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: generated}\n",
		"spec/app.yaml":       app("Owner"),
		"base/go.mod":         "module example.com/base\n\ngo 1.25\n",
		"base/spec/base.yaml": base("Owner"),
	})
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "release")
	gitIn(t, dir, "tag", "v1.0.0")
	writeTree(t, dir, map[string]string{"spec/app.yaml": app("OwnerID"), "base/spec/base.yaml": base("OwnerID")})
	t.Chdir(dir)
	code, stdout, stderr := jobgen(t, "breaking")
	if code != exitFindings || !strings.Contains(stdout, "FIELD_TYPE_CHANGED: facts.app/did.versions.v1.fields.owner: type changed from base.Owner to base.OwnerID") {
		t.Fatalf("breaking: exit %d\n%s%s\nwant the old spec loaded with the release's base and FIELD_TYPE_CHANGED", code, stdout, stderr)
	}
}

// TestAnOldGoModIsReadForItsRequiresAndReplaces: what a refModules reads of
// a go.mod at a revision — single lines and blocks, quoted paths, comments —
// and how it spells a path in the module cache.
func TestAnOldGoModIsReadForItsRequiresAndReplaces(t *testing.T) {
	m := parseGoMod(`module "example.com/App" // the app

go 1.25

require example.com/one v1.2.3
require (
	example.com/Two v0.4.0 // indirect
	example.com/three v1.0.0
)

replace example.com/three => example.com/fork v1.0.1
replace (
	example.com/one => ../one
)
`)
	if m.module != "example.com/App" || m.require["example.com/one"] != "v1.2.3" || m.require["example.com/Two"] != "v0.4.0" || m.require["example.com/three"] != "v1.0.0" {
		t.Errorf("module and requires: %+v", m)
	}
	if m.replace["example.com/three"] != (replacement{"example.com/fork", "v1.0.1"}) || m.replace["example.com/one"] != (replacement{"../one", ""}) {
		t.Errorf("replaces: %+v", m.replace)
	}
	if got := escapeModulePath("github.com/BurntSushi/toml"); got != "github.com/!burnt!sushi/toml" {
		t.Errorf("escapeModulePath = %s", got)
	}
}
