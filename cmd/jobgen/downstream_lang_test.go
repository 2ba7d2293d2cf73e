package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
	"github.com/jobgen/jobgen/gen/python"
	"github.com/jobgen/jobgen/gen/typescript"
)

// The downstream module's TypeScript and Python packages, used as a front
// end and a Python program use them: beside jobgen's own packages, whose
// runtime is the one both import (decisions 0143 and 0144).

// checkDownstreamTypeScript type-checks the downstream module's TypeScript
// package, which imports jobgen's (@jobgen/jobgen/jobs and its runtime),
// and a front end using both, under every strict flag (its tsconfig.json);
// then installs the two packages with npm as a front end does, offline,
// copied rather than linked, and in Node decodes the journal cat lines of
// lines, the downstream's facts with its package and the job facts with
// jobgen's. A decode error of either package is a DecodeError of jobgen's
// runtime, one class.
func checkDownstreamTypeScript(t *testing.T, dir, lines string) {
	t.Helper()
	tsc := filepath.Join(dir, "..", "..", "tools", "ts", "node_modules", ".bin", "tsc")
	_, nodeErr := exec.LookPath("node")
	_, npmErr := exec.LookPath("npm")
	if _, err := os.Stat(tsc); err != nil || nodeErr != nil || npmErr != nil {
		msg := "the downstream TypeScript needs node, npm and the pinned TypeScript: install Node.js, then run `make ts-deps`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Log(msg)
		return
	}
	cmd := exec.Command(tsc, "-p", "tsconfig.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc in the downstream module: %v\n%s", err, out)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "generated", "ts", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Peers map[string]string `json:"peerDependencies"`
	}
	if err := json.Unmarshal(manifest, &pkg); err != nil || pkg.Peers["@jobgen/jobgen"] != "^0.0.0" {
		t.Errorf("the downstream package.json does not declare @jobgen/jobgen ^0.0.0 as a peer (%v):\n%s", err, manifest)
	}
	for _, runtime := range []string{"runtime.ts", "runtime.mjs", "runtime.d.mts"} {
		if _, err := os.Stat(filepath.Join(dir, "generated", "ts", runtime)); !os.IsNotExist(err) {
			t.Errorf("the downstream package carries a runtime of its own, %s", runtime)
		}
	}
	app := t.TempDir()
	deps, _ := json.Marshal(map[string]any{"name": "front-end", "version": "1.0.0", "private": true, "dependencies": map[string]string{
		"@jobgen/jobgen":    "file:" + filepath.Join(dir, "..", "..", "generated", "ts"),
		"@example/deployer": "file:" + filepath.Join(dir, "generated", "ts"),
	}})
	script := `import { decodeFact } from "@example/deployer/deploy";
import { decodeFact as decodeJobFact } from "@jobgen/jobgen/jobs";
import { DecodeError } from "@jobgen/jobgen/runtime";
import { readFileSync } from "node:fs";
const read = [];
for (const text of readFileSync(0, "utf8").trim().split("\n")) {
  const { fact } = JSON.parse(text);
  const f = fact.type.startsWith("deploy/") ? decodeFact(fact) : decodeJobFact(fact);
  read.push(f.type === "deploy/approved" ? f.type + "=" + f.data.approval.verdict : f.type);
}
const refusal = (decode) => { try { decode({ type: "deploy/approved", v: 1, data: {} }); } catch (err) { return err; } throw new Error("accepted"); };
const mine = refusal(decodeFact), theirs = refusal(decodeJobFact);
console.log(read.sort().join(" "));
console.log(mine instanceof DecodeError, theirs instanceof DecodeError, mine.constructor === theirs.constructor);
`
	for name, text := range map[string][]byte{"package.json": deps, "read.mjs": []byte(script)} {
		if err := os.WriteFile(filepath.Join(app, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// --install-links copies each package, as a registry install would:
	// a package linked from elsewhere resolves its peer from where it lies.
	cmd = exec.Command("npm", "install", "--offline", "--install-links", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts")
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install of the downstream package beside jobgen's: %v\n%s", err, out)
	}
	cmd = exec.Command("node", "read.mjs")
	cmd.Dir, cmd.Stdin = app, strings.NewReader(lines)
	out, err := cmd.CombinedOutput()
	want := "deploy/approved=approved deploy/requested job/registered job/settled\ntrue true true"
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("node reading the journal with both packages: %v\n%s\nwant\n%s", err, out, want)
	}
}

// checkDownstreamPython runs mypy --strict over the downstream module's
// Python package with jobgen's on the path, then decodes the journal cat
// lines of lines with both, the downstream's facts with its package and the
// job facts with jobgen's: a refusal of either is a DecodeError of
// jobgen_vocab.runtime, one class.
func checkDownstreamPython(t *testing.T, dir, lines string) {
	t.Helper()
	py, _ := filepath.Abs(filepath.Join(dir, "..", "..", "tools", "python", ".venv", "bin", "python"))
	if _, err := os.Stat(py); err != nil {
		msg := "the downstream Python needs the project's venv: run tools/python/venv.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Log(msg)
		return
	}
	if _, err := os.Stat(filepath.Join(dir, "generated", "python", "deployer_vocab", "runtime.py")); !os.IsNotExist(err) {
		t.Errorf("the downstream Python package carries a runtime of its own")
	}
	path := filepath.Join(dir, "..", "..", "generated", "python") + string(os.PathListSeparator) + filepath.Join(dir, "generated", "python")
	env := append(os.Environ(), "PYTHONPATH="+path, "PYTHONDONTWRITEBYTECODE=1")
	cmd := exec.Command(py, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", filepath.Join(t.TempDir(), "mypy"), "deployer_vocab")
	cmd.Dir, cmd.Env = filepath.Join(dir, "generated", "python"), env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mypy --strict over the downstream package: %v\n%s", err, out)
	}
	script := `import json, sys
from deployer_vocab import deploy
from jobgen_vocab import jobs
from jobgen_vocab.runtime import DecodeError

read = []
for text in sys.stdin.read().split("\n"):
    if text:
        fact = json.dumps(json.loads(text)["fact"])
        f = deploy.decode_fact(fact) if '"deploy/' in fact[:20] else jobs.decode_fact(fact)
        read.append(f.type + "=" + f.data.approval.verdict if isinstance(f, deploy.DeployApprovedEnvelope) else f.type)


def refusal(decode):
    try:
        decode('{"type":"deploy/approved","v":1,"data":{}}')
    except DecodeError as err:
        return err
    raise AssertionError("accepted")


mine, theirs = refusal(deploy.decode_fact), refusal(jobs.decode_fact)
print(" ".join(sorted(read)))
print(type(mine) is type(theirs) is DecodeError, mine.kind, theirs.kind)
`
	cmd = exec.Command(py, "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdin = t.TempDir(), env, strings.NewReader(lines)
	out, err := cmd.CombinedOutput()
	want := "deploy/approved=approved deploy/requested job/registered job/settled\nTrue missingField unknownFact"
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("python reading the journal with both packages: %v\n%s\nwant\n%s", err, out, want)
	}
	checkDownstreamPythonClient(t, dir, py, env)
}

// approverScript is a Python approver of the downstream module's own
// route, through the client generated from its spec: a release that was
// not requested is refused with the deployer's own refusal record, and the
// approval of the printed one is recorded, asynchronously.
const approverScript = `import asyncio, sys
from deployer_vocab import deploy
from deployer_vocab.deploy_client import AsyncClient, Client
from jobgen_vocab.runtime import WireError

url, release = sys.argv[1], deploy.ReleaseID(sys.argv[2])
decision = deploy.Approval(approver="py-approver", verdict="approved", note="from python")
with Client(url) as c:
    try:
        c.approve(deploy.ReleaseID("0b8a5c35-7b38-4b8e-8a57-3b1e6b0e2a11"), decision)
    except WireError as e:
        print(e.status, e.reason)


async def main() -> None:
    async with AsyncClient(url) as c:
        print((await c.approve(release, decision)).verdict)


asyncio.run(main())
`

// checkDownstreamPythonClient runs the deployer with an approver outside
// (-approver listen) and approves its release with approverScript; the
// journal records the Python approver's decision.
func checkDownstreamPythonClient(t *testing.T, dir, py string, env []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "approved.journal")
	deployer := exec.Command("go", "run", "./cmd/deployer", "-journal", path, "-approver", "listen")
	deployer.Dir = dir
	deployer.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
	stdout, err := deployer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	deployer.Stderr = &stderr
	if err := deployer.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var release, url string
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "approve ") {
		deployer.Process.Kill()
		deployer.Wait()
		t.Fatalf("the deployer printed no approval to make: %q\n%s", lines.Text(), stderr.String())
	}
	release, url, _ = strings.Cut(strings.TrimPrefix(lines.Text(), "approve "), " at ")
	cmd := exec.Command(py, "-c", approverScript, url, release)
	cmd.Dir, cmd.Env = t.TempDir(), env
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "404 no such release\napproved" {
		deployer.Process.Kill()
		deployer.Wait()
		t.Fatalf("the Python approver: %v\n%s", err, out)
	}
	for lines.Scan() {
	}
	if err := deployer.Wait(); err != nil {
		t.Fatalf("the deployer with a Python approver: %v\n%s", err, stderr.String())
	}
	code, approved, _ := jobgen(t, "journal", "cat", "--type", "deploy/approved", path)
	if code != exitOK || !strings.Contains(approved, `"approver":"py-approver"`) {
		t.Errorf("the journal does not hold the Python approver's decision: exit %d\n%s", code, approved)
	}
}

// TestAPackageNeedsJobgensModule: a module's TypeScript or Python package
// imports its runtime from jobgen's, so a module that does not require
// jobgen cannot generate one (the error says so), and a package named as
// jobgen's own is refused; jobgen's own module and a directory in no
// module carry the runtime themselves.
func TestAPackageNeedsJobgensModule(t *testing.T) {
	for _, c := range []struct {
		why, gomod, config, want string
	}{
		{"TypeScript, jobgen not required", "module example.com/down\n\ngo 1.25\n", "outputs: {ts: web}\n",
			"jobgen: the TypeScript package: the generated packages import their runtime from jobgen's, of the github.com/jobgen/jobgen the module requires"},
		{"Python, jobgen not required", "module example.com/down\n\ngo 1.25\n", "outputs: {python: py}\n",
			"jobgen: the Python package: the generated packages import their runtime from jobgen's, of the github.com/jobgen/jobgen the module requires"},
		{"TypeScript, named as jobgen's", downstreamGoMod(t), "outputs: {ts: web}\ntypescript: {package: \"@jobgen/jobgen\"}\n",
			"jobgen: the TypeScript package is named @jobgen/jobgen, as jobgen's, whose runtime it imports"},
		{"Python, named as jobgen's", downstreamGoMod(t), "outputs: {python: py}\npython: {package: jobgen_vocab}\n",
			"jobgen: the Python package is named jobgen_vocab, as jobgen's, whose runtime it imports"},
	} {
		t.Run(c.why, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"go.mod": c.gomod, "jobgen.yaml": "version: 1\nspecs: [spec/*.yaml]\n" + c.config, "spec/demo.yaml": validSpec})
			t.Chdir(dir)
			t.Setenv("GOFLAGS", "")
			t.Setenv("GOWORK", "off")
			if code, _, stderr := jobgen(t, "generate"); code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, c.want, stderr)
			}
		})
	}
	if _, ok, err := runtimePackages(filepath.Join("..", "..", "generated")); ok || err != nil {
		t.Errorf("jobgen's own packages import a runtime from elsewhere (%v)", err)
	}
	if _, ok, err := runtimePackages(t.TempDir()); ok || err != nil {
		t.Errorf("a directory in no module imports a runtime from elsewhere (%v)", err)
	}
}

// TestAPackageDeclaresThePackagesItsSpecsImport: the TypeScript and
// Python packages declare the package of every other module a spec of the
// run imports from, directly or through a spec of its own module, each
// once: as a peer with the version that module's package declares, and as
// a requirement.
func TestAPackageDeclaresThePackagesItsSpecsImport(t *testing.T) {
	mods := gentest.BaseModule()
	mods["example.com/base"].Files.(fstest.MapFS)[configName] = &fstest.MapFile{Data: []byte("version: 1\nspecs: [spec/*.yaml]\ntypescript: {package: \"@base/vocab\", version: 2.1.0}\n")}
	files := fstest.MapFS{
		"app.yaml":  {Data: []byte(gentest.ImportingBase)},
		"near.yaml": {Data: []byte("jobgen: 1\npackage: {name: near}\nimports:\n  app: {spec: app.yaml}\nids: {NearID: {kind: string}}\n")},
	}
	var specs []*gen.Resolved
	for _, name := range []string{"app.yaml", "near.yaml"} {
		r, err := gen.LoadFS(files, name, files[name].Data, gen.WithModules(namedPackages{mods}))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, r)
	}
	plain := outputs{{"ts", gen.Target{Backend: typescript.Backend{Package: "@app/app"}}}, {"python", gen.Target{Backend: python.Backend{Package: "app_vocab"}}}}
	outs := withImportedPackages(plain, specs[1:]) // near.yaml, through app.yaml
	ts, py := outs[0].Backend.(typescript.Backend), outs[1].Backend.(python.Backend)
	if want := []typescript.Peer{{Name: "@base/vocab", Version: "2.1.0"}}; !slices.Equal(ts.Peers, want) {
		t.Errorf("TypeScript peers = %v, want %v", ts.Peers, want)
	}
	if want := []string{"base_vocab"}; !slices.Equal(py.Requires, want) {
		t.Errorf("Python requires %v, want %v", py.Requires, want)
	}
	if plain[0].Backend.(typescript.Backend).Peers != nil {
		t.Error("withImportedPackages changed the outputs it was given")
	}
	outs = withImportedPackages(plain, specs)
	if ts := outs[0].Backend.(typescript.Backend); len(ts.Peers) != 1 {
		t.Errorf("the second spec importing base adds a peer again: %v", ts.Peers)
	}
}
