package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installMarker precedes each block of README.md this file runs.
const installMarker = "<!-- tested: TestInstallationStepsOfTheREADME"

// An installBlock is a shell block of README.md that installMarker
// precedes, one command a line, and whether its marker promises that it
// works offline ("offline" in the marker's text) as well as through the
// module proxy.
type installBlock struct {
	lines   []string
	offline bool
}

// installBlocks are README.md's blocks marked with installMarker.
func installBlocks(t *testing.T) []installBlock {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []installBlock
	for _, part := range strings.Split(string(readme), installMarker)[1:] {
		marker, _, _ := strings.Cut(part, "-->")
		_, rest, ok := strings.Cut(part, "```sh\n")
		body, _, closed := strings.Cut(rest, "```")
		if !ok || !closed {
			t.Fatalf("README.md: %s is not followed by a ```sh block", installMarker)
		}
		body = strings.ReplaceAll(body, "\\\n", "") // a line continued with a backslash is one command
		blocks = append(blocks, installBlock{strings.Split(strings.TrimSpace(body), "\n"), strings.Contains(marker, "offline")})
	}
	return blocks
}

// scratchSpec is a user's spec, importing jobgen's job vocabulary by module
// path as README.md says a spec may.
const scratchSpec = `jobgen: 1
package: {name: ship, path: example.com/app/internal/ship}
imports:
  jobs: {module: github.com/jobgen/jobgen, spec: spec/jobs.yaml}
facts:
  ship/shipped:
    versions:
      v1:
        fields: {job: jobs.JobID, owner: jobs.SessionID}
`

// TestInstallationStepsOfTheREADME runs the installation steps README.md
// gives for using jobgen before a release, each in a scratch module beside
// ../jobgen, which stands for the clone (a link to this repository: the test
// makes no clone). Each block runs through the module proxy the machine is
// configured with, where a step that asks the proxy for the unreleased
// version fails as it would for a user, and a block whose marker says it
// works offline runs again with GOPROXY=off (only what the module cache
// holds). Every step must succeed, and the
// last vets the package generated from a spec that imports jobgen's.
func TestInstallationStepsOfTheREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command in scratch modules")
	}
	blocks := installBlocks(t)
	if len(blocks) != 2 {
		t.Fatalf("README.md has %d blocks marked %q, want 2 (replace, workspace)", len(blocks), installMarker)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	configured := goEnv(t, "GOPROXY")
	for i, block := range blocks {
		if configured != "off" {
			runBlock(t, repo, i, block.lines, configured)
		}
		if block.offline {
			runBlock(t, repo, i, block.lines, "off")
		}
	}
}

// goEnv is the go command's value of the variable name.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// runBlock runs block i of README.md's installation steps in a scratch
// module, with GOPROXY set to proxy.
func runBlock(t *testing.T, repo string, i int, block []string, proxy string) {
	t.Run(fmt.Sprintf("block %d GOPROXY=%s", i+1, proxy), func(t *testing.T) {
		gobin := t.TempDir()
		app := scratchBeside(t, repo)
		writeTree(t, app, map[string]string{
			"jobgen.yaml":    "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: internal}\n",
			"spec/ship.yaml": scratchSpec,
		})
		sumdb := "GOSUMDB=off" // offline, nothing to check against
		if proxy != "off" {
			sumdb = "GOSUMDB=" + goEnv(t, "GOSUMDB")
		}
		env := append(os.Environ(), "GOPROXY="+proxy, sumdb, "GOFLAGS=", "GOWORK=", "GOBIN="+gobin,
			"PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
		sh(t, app, env, "go mod init example.com/app")
		for _, line := range block {
			if strings.HasPrefix(line, "git clone ") {
				continue // ../jobgen stands for the clone
			}
			sh(t, app, env, line)
		}
		if _, err := os.Stat(filepath.Join(app, "internal", "ship", "facts.gen.go")); err != nil {
			t.Errorf("the steps generated no package: %v", err)
		}
	})
}

// scratchBeside makes a scratch module directory whose ../jobgen is repo.
// The link lives in a directory named after repo, kept between runs, so the
// go command builds jobgen there from its cache, as it does for a user's
// clone, instead of from nothing in every run.
func scratchBeside(t *testing.T, repo string) string {
	t.Helper()
	parent := filepath.Join(os.TempDir(), fmt.Sprintf("jobgen-readme-%x", sha256.Sum256([]byte(repo)))[:40])
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "jobgen")
	if target, err := os.Readlink(link); err != nil || target != repo {
		os.Remove(link)
		if err := os.Symlink(repo, link); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	app, err := os.MkdirTemp(parent, "app-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(app) })
	return app
}

// sh runs line with sh in dir, failing t unless it succeeds.
func sh(t *testing.T, dir string, env []string, line string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}
