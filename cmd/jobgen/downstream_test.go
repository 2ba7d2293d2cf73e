package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/typescript"
)

// goIn runs the go command in dir, offline: whatever it needs is in the
// module cache (.ci/run downloads this module's graph) or in this
// repository, which the downstream module replaces jobgen with.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestDownstreamModule is a user's module: a module of its own,
// examples/downstream, whose spec imports jobgen's spec/jobs.yaml by module
// path and declares its own job kind and facts. What it generates is what is
// committed there; it vets; its runtime records a deploy job and its own
// facts into a journal, which jobgen journal check, run in the module,
// passes: jobgen.yaml names the vocabulary, the import brings jobgen's. Its
// TypeScript and Python packages read the journal's facts beside jobgen's
// packages, with jobgen's one runtime.
func TestDownstreamModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module of its own")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "downstream"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, cmd := range []string{"check", "verify"} {
		if code, stdout, stderr := jobgen(t, cmd); code != exitOK {
			t.Fatalf("jobgen %s in the downstream module: exit %d\n%s%s", cmd, code, stdout, stderr)
		}
	}
	goIn(t, dir, "vet", "./...")
	path := filepath.Join(t.TempDir(), "deploy.journal")
	if out := goIn(t, dir, "run", "./cmd/deployer", "-journal", path); !strings.Contains(out, "deploy-1 completed") {
		t.Fatalf("the deployer did not ship: %s", out)
	}
	code, stdout, stderr := jobgen(t, "journal", "check", path)
	if code != exitOK || !strings.Contains(stdout, "intact: 4 records") {
		t.Fatalf("jobgen journal check in the downstream module: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = jobgen(t, "journal", "cat", "--type", "deploy/approved", path)
	if code != exitOK || !strings.Contains(stdout, `"verdict":"approved"`) || strings.Count(stdout, "\n") != 1 {
		t.Errorf("journal cat --type deploy/approved: exit %d:\n%s", code, stdout)
	}
	approved := stdout
	code, all, _ := jobgen(t, "journal", "cat", path)
	if code != exitOK || strings.Count(all, "\n") != 4 {
		t.Fatalf("journal cat: exit %d:\n%s", code, all)
	}
	checkDownstreamTypeScript(t, dir, all)
	checkDownstreamPython(t, dir, all)
	checkDownstreamSchema(t, dir, approved)

	// Elsewhere, without the module's jobgen.yaml, its facts are unknown:
	// kept and reported, and a failure with --strict.
	t.Chdir(t.TempDir())
	if code, _, stderr := jobgen(t, "journal", "check", path); code != exitOK || !strings.Contains(stderr, "deploy/approved v1 (1), deploy/requested v1 (1)") {
		t.Errorf("jobgen journal check outside the module: exit %d, want 0 and what it kept: %s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "check", "--strict", path); code != exitUnknownFacts {
		t.Errorf("jobgen journal check --strict outside the module: exit %d, want %d: %s", code, exitUnknownFacts, stderr)
	}
}

// TestAnotherModulesPackagesAreTheOnesItsConfigNames: a module imported
// from is named as jobgen generate names its packages in that module: its
// jobgen.yaml's typescript.package and typescript.version and its
// python.package, read even beside keys this jobgen does not know, else the
// names its path gives and version 0.0.0.
func TestAnotherModulesPackagesAreTheOnesItsConfigNames(t *testing.T) {
	for _, c := range []struct {
		config string
		want   modulePackages
	}{
		{"version: 1\nspecs: [spec/*.yaml]\ntypescript: {package: \"@acme/vocab\", version: 1.4.0}\npython: {package: acme}\nfuture: {key: 1}\n", modulePackages{typescript.Peer{Name: "@acme/vocab", Version: "1.4.0"}, "acme"}},
		{"version: 1\nspecs: [spec/*.yaml]\n", modulePackages{typescript.Peer{Name: "@acme/deploy-tool", Version: "0.0.0"}, "deploy_tool_vocab"}},
		{"", modulePackages{typescript.Peer{Name: "@acme/deploy-tool", Version: "0.0.0"}, "deploy_tool_vocab"}},
	} {
		files := fstest.MapFS{}
		if c.config != "" {
			files[configName] = &fstest.MapFile{Data: []byte(c.config)}
		}
		if got := packagesOf(&gen.Module{Path: "github.com/Acme/Deploy-Tool/v2", Files: files}); got != c.want {
			t.Errorf("config %q: packages %+v, want %+v", c.config, got, c.want)
		}
	}
}

// checkDownstreamSchema validates the fact of line, a journal cat line,
// against the downstream module's JSON Schema, with jobgen's job schema
// where the downstream schema refers to it: below it, at the job package's
// import path (decision 0090).
func checkDownstreamSchema(t *testing.T, dir, line string) {
	t.Helper()
	const base = "https://deployer.test/schema/"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for url, file := range map[string]string{
		base + "deploy.schema.json":                                  filepath.Join(dir, "schema", "deploy.schema.json"),
		base + "github.com/jobgen/jobgen/generated/jobs.schema.json": filepath.Join(dir, "..", "..", "schema", "jobs.schema.json"),
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(base + "deploy.schema.json#/$defs/FactEnvelope")
	if err != nil {
		t.Fatalf("compile the downstream schema: %v", err)
	}
	var cat struct{ Fact json.RawMessage }
	if err := json.Unmarshal([]byte(line), &cat); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct {
		fact string
		ok   bool
	}{
		{string(cat.Fact), true},
		{strings.Replace(string(cat.Fact), `"status":"completed"`, `"status":"paused"`, 1), false}, // jobs.JobStatus, from jobgen's schema
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc.fact))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); (err == nil) != doc.ok {
			t.Errorf("the downstream schema on %s: %v, want valid %v", doc.fact, err, doc.ok)
		}
	}
}

// TestModuleImportErrorsThroughTheGoCommand: the errors of a module import,
// found by the go command, are positioned at the import, and a name the
// required version lacks at its use.
func TestModuleImportErrorsThroughTheGoCommand(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(name string) string {
		return strings.Replace(scratchSpec, "fields: {job: jobs.JobID, owner: jobs.SessionID}", "fields: {job: jobs."+name+"}", 1)
	}
	cases := []struct {
		why, gomod, spec, want string
	}{
		{"a module go.mod does not require", "module example.com/app\n\ngo 1.25\n", spec("JobID"),
			"spec/ship.yaml:4:18: imports.jobs.module: github.com/jobgen/jobgen is not required by the module in"},
		{"a name the required version does not declare", "module example.com/app\n\ngo 1.25\n\nrequire github.com/jobgen/jobgen v0.0.0\n\nreplace github.com/jobgen/jobgen => " + repo + "\n", spec("JobIdentity"),
			"spec/ship.yaml:9:23: jobs.JobIdentity: spec/jobs.yaml of github.com/jobgen/jobgen (" + repo + "), the copy the build uses, declares no JobIdentity"},
		{"a spec the module does not have", "module example.com/app\n\ngo 1.25\n\nrequire github.com/jobgen/jobgen v0.0.0\n\nreplace github.com/jobgen/jobgen => " + repo + "\n", strings.Replace(spec("JobID"), "spec/jobs.yaml", "spec/job.yaml", 1),
			"spec/ship.yaml:4:50: imports.jobs.spec: github.com/jobgen/jobgen (" + repo + ") has no spec spec/job.yaml; did you mean spec/jobs.yaml?"},
	}
	for _, c := range cases {
		t.Run(c.why, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"go.mod": c.gomod, "jobgen.yaml": "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: internal}\n", "spec/ship.yaml": c.spec})
			t.Chdir(dir)
			t.Setenv("GOFLAGS", "")
			t.Setenv("GOWORK", "off")
			code, _, stderr := jobgen(t, "check")
			if code != exitFindings || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, want %d with\n%s\ngot\n%s", code, exitFindings, c.want, stderr)
			}
		})
	}
}
