package spec_test

// The upcast vectors: history written by builds that knew only an older
// version of a fact, one file per old version under testdata/upcast/<vocab>/
// (<fact>-v<N>.jsonl, committed as written and never regenerated), and what
// every decoder must read each line as, the newest version as Go's
// EncodeFact writes it (<fact>-v<N>.want.jsonl). The four decoders — the Go
// package jobgen generates, its TypeScript and Python modules, and factspec
// reading the spec alone — must agree on every line (decision 0173). The
// vocabularies are this project's jobs spec and the golden case that uses
// every declaration (gen/testdata/cases/evolution).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
	"github.com/jobgen/jobgen/gen/golang"
	"github.com/jobgen/jobgen/gen/python"
	"github.com/jobgen/jobgen/gen/typescript"
)

var updateVectors = flag.Bool("update", false, "rewrite the .want.jsonl files of testdata/upcast from what Go's DecodeFact returns")

// A vectorVocab is a vocabulary the vectors are written in, and where its
// generated Go, TypeScript and Python are (committed for jobs; written into a
// scratch directory for the golden case).
type vectorVocab struct {
	dir      string // testdata/upcast/<dir>
	specFile string // the spec, relative to this directory
	goImport string // the Go package, when committed; else it is generated
}

var vectorVocabs = []vectorVocab{
	{dir: "jobs", specFile: "jobs.yaml", goImport: "github.com/jobgen/jobgen/generated/jobs"},
	{dir: "tasks", specFile: "../gen/testdata/cases/evolution/spec.yaml"},
}

// TestUpcastVectorsReadAlikeInEveryDecoder: each line of each history file
// decodes, in Go, TypeScript, Python and factspec, as the newest version
// the .want.jsonl file holds.
func TestUpcastVectorsReadAlikeInEveryDecoder(t *testing.T) {
	for _, vv := range vectorVocabs {
		t.Run(vv.dir, func(t *testing.T) {
			r := loadVectorSpec(t, vv.specFile)
			histories, err := filepath.Glob(filepath.Join("testdata", "upcast", vv.dir, "*-v[0-9]*.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			var wantFiles []string
			var counts []int
			for _, h := range histories {
				if strings.HasSuffix(h, ".want.jsonl") {
					continue
				}
				got := readLines(t, h)
				lines = append(lines, got...)
				wantFiles = append(wantFiles, strings.TrimSuffix(h, ".jsonl")+".want.jsonl")
				counts = append(counts, len(got))
			}
			if len(lines) == 0 {
				t.Fatalf("no history under testdata/upcast/%s", vv.dir)
			}
			goRead := goDecoder(t, vv, r)
			fromGo := goRead(lines)
			if *updateVectors {
				at := 0
				for i, f := range wantFiles {
					if err := os.WriteFile(f, []byte(strings.Join(fromGo[at:at+counts[i]], "\n")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					at += counts[i]
				}
				return
			}
			var want []string
			for _, f := range wantFiles {
				want = append(want, readLines(t, f)...)
			}
			if len(want) != len(lines) {
				t.Fatalf("%d lines of history and %d wanted; run with -update after adding history", len(lines), len(want))
			}
			readers := []struct {
				name string
				read func(t *testing.T) []string
			}{
				{"Go", func(*testing.T) []string { return fromGo }},
				{"factspec", func(t *testing.T) []string { return goRead(factspecDecoder(t, r, lines)) }},
				{"TypeScript", func(t *testing.T) []string {
					node, _ := requireNode(t)
					return goRead(tsDecoder(t, node, vv, r, lines))
				}},
				{"Python", func(t *testing.T) []string { return goRead(pyDecoder(t, requirePython(t), vv, r, lines)) }},
			}
			for _, rd := range readers {
				t.Run(rd.name, func(t *testing.T) {
					got := rd.read(t)
					for i := range lines {
						if got[i] != want[i] {
							t.Errorf("%s reads\n  %s\nas\n  %s\nwant\n  %s", rd.name, lines[i], got[i], want[i])
						}
					}
					t.Logf("%d facts of %d histories read as the vectors say", len(lines), len(wantFiles))
				})
			}
		})
	}
}

func loadVectorSpec(t *testing.T, file string) *gen.Resolved {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gen.LoadFS(os.DirFS(filepath.Dir(file)), filepath.Base(file), data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// vectorProgram reads a fact a line and writes what DecodeFact returns as
// EncodeFact writes it, or "error: " and the error: how each decoder's
// output is brought to Go's own form, and how Go reads the history.
const vectorProgram = `package main

import (
	"bufio"
	"fmt"
	"os"

	vocab %q
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f, err := vocab.DecodeFact(sc.Bytes())
		if err == nil {
			var out []byte
			if out, err = vocab.EncodeFact(f); err == nil {
				fmt.Printf("%%s\n", out)
				continue
			}
		}
		fmt.Printf("error: %%v\n", err)
	}
}
`

// goDecoder builds the vector program over the vocabulary's Go package (the
// committed one, or one generated into an overlay of this module) and
// returns a function running it over lines.
func goDecoder(t *testing.T, vv vectorVocab, r *gen.Resolved) func([]string) []string {
	t.Helper()
	root, _ := filepath.Abs("..")
	scratch := t.TempDir()
	overlay := map[string]string{}
	put := func(rel string, content []byte) {
		p := filepath.Join(scratch, strings.ReplaceAll(rel, "/", "_"))
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(root, rel)] = p
	}
	imp := vv.goImport
	if imp == "" {
		files, err := golang.Emit(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			put("internal/upcastvectors/"+f.Path, f.Content)
		}
		imp = "github.com/jobgen/jobgen/internal/upcastvectors/" + r.Spec().Package.Name
	}
	put("internal/upcastvectors/main.go", fmt.Appendf(nil, vectorProgram, imp))
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovFile := filepath.Join(scratch, "overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(scratch, "vectors")
	build := exec.Command("go", "build", "-overlay", ovFile, "-o", bin, "./internal/upcastvectors")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the Go decoder: %v\n%s", err, out)
	}
	return func(lines []string) []string {
		return runLines(t, exec.Command(bin), lines)
	}
}

// runLines feeds lines to cmd and returns its lines of output, one each.
func runLines(t *testing.T, cmd *exec.Cmd, lines []string) []string {
	t.Helper()
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%s answered %d of %d lines\n%s%s", cmd.Path, len(got), len(lines), out, stderr.String())
	}
	return got
}

// tsDecoder reads the lines with the vocabulary's TypeScript module's
// decodeFact and writes them back with encodeFact.
func tsDecoder(t *testing.T, node string, vv vectorVocab, r *gen.Resolved, lines []string) []string {
	t.Helper()
	module, _ := filepath.Abs("../generated/ts/" + r.Spec().Package.Name + ".mjs")
	if vv.goImport == "" {
		dir := t.TempDir()
		files, err := typescript.Emit(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range append(files, typescript.RuntimeFiles()...) {
			gentest.WriteFile(t, filepath.Join(dir, f.Path), f.Content)
		}
		module = filepath.Join(dir, r.Spec().Package.Name+".mjs")
	}
	script := fmt.Sprintf(`import { readFileSync } from "node:fs";
const m = await import(%q);
const out = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (line === "") continue;
  try { out.push(JSON.stringify(m.encodeFact(m.decodeFact(JSON.parse(line))))); }
  catch (e) { out.push("error: " + e.message); }
}
process.stdout.write(out.join("\n") + "\n");
`, "file://"+module)
	return runLines(t, exec.Command(node, "--input-type=module", "-e", script), lines)
}

// pyDecoder reads the lines with the vocabulary's Python module's
// decode_fact and writes them back with encode.
func pyDecoder(t *testing.T, py string, vv vectorVocab, r *gen.Resolved, lines []string) []string {
	t.Helper()
	path, _ := filepath.Abs("../generated/python")
	pkg := python.DefaultPackage
	if vv.goImport == "" {
		path = t.TempDir()
		pkg = "vectors_vocab"
		b := python.Backend{Package: pkg}
		files, err := b.Files(r, gen.BesideSpec(r.Spec()))
		if err != nil {
			t.Fatal(err)
		}
		own, err := b.PackageFiles()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range own {
			files = append(files, f.File)
		}
		for _, f := range files {
			gentest.WriteFile(t, filepath.Join(path, f.Path), f.Content)
		}
	}
	script := fmt.Sprintf(`import sys
from %s import %s as m
for line in sys.stdin.read().splitlines():
    if not line:
        continue
    try:
        print(m.decode_fact(line).encode().decode())
    except Exception as e:
        print("error: " + str(e))
`, pkg, r.Spec().Package.Name)
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+path, "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
	return runLines(t, cmd, lines)
}

// factspecDecoder reads the lines with factspec, from the spec alone, and
// writes each fact's envelope with its data as JSON.
func factspecDecoder(t *testing.T, r *gen.Resolved, lines []string) []string {
	t.Helper()
	v, err := factspec.New(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range lines {
		f, err := v.DecodeFact([]byte(line))
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		env, err := json.Marshal(map[string]any{"type": f.Type, "v": f.V, "data": f.Data})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(env))
	}
	return out
}
