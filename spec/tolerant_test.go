package spec_test

// Tolerant reading, one rule in every language (decision 0174): a reader
// meeting a fact type, version, union variant or enum value its build does
// not know keeps it as an unknown — type, version, why and the bytes as read
// — and everything else that does not decode is damage. testdata/tolerant
// holds facts a newer build (or damage) wrote, and how each must be read.

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/generated/jobs"
)

// classify says how a tolerant reader took one fact, as want.txt does.
func classify(typ string, v int, why string, err error) string {
	switch {
	case err != nil:
		return "damaged"
	case why != "":
		return fmt.Sprintf("unknown %s v%d: %s", typ, v, why)
	}
	return fmt.Sprintf("fact %s v%d", typ, v)
}

func TestReadFactKeepsWhatTheBuildDoesNotKnowAndRefusesDamage(t *testing.T) {
	lines := readLines(t, "testdata/tolerant/jobs.jsonl")
	want := readLines(t, "testdata/tolerant/jobs.want.txt")
	var counted codec.UnknownFacts
	read := codec.CountUnknown(jobs.ReadFact, &counted)
	kept := 0
	for i, line := range lines {
		f, err := read([]byte(line))
		var got string
		switch u, ok := f.(jobs.UnknownFact); {
		case err != nil:
			got = classify("", 0, "", err)
			if codec.IsUnknown(err) {
				t.Errorf("line %d: ReadFact returned an unknown as an error: %v", i+1, err)
			}
		case ok:
			kept++
			got = classify(u.Type, u.V, string(u.Why), nil)
			if !bytes.Equal(u.Raw, []byte(line)) {
				t.Errorf("line %d: kept %s, not the bytes read", i+1, u.Raw)
			}
			if out, err := jobs.EncodeFact(u); err != nil || string(out) != line {
				t.Errorf("line %d: EncodeFact of the unknown = %s, %v; want the bytes read", i+1, out, err)
			}
			if !errors.Is(u.Err, codec.ErrUnknownFact) && !errors.Is(u.Err, codec.ErrInvalidEnum) && !errors.Is(u.Err, codec.ErrUnknownVariant) {
				t.Errorf("line %d: the unknown's error %v says nothing unknown", i+1, u.Err)
			}
		default:
			got = classify(f.FactType(), f.FactVersion(), "", nil)
		}
		if got != want[i] {
			t.Errorf("line %d: ReadFact read %s; want %s", i+1, got, want[i])
		}
		if _, serr := jobs.DecodeFact([]byte(line)); (serr == nil) != strings.HasPrefix(want[i], "fact") {
			t.Errorf("line %d: DecodeFact, the strict decoder, returned %v; it refuses all but what it knows", i+1, serr)
		}
	}
	if counted.Total() != kept || kept == 0 {
		t.Errorf("CountUnknown counted %d unknowns (%s); ReadFact kept %d", counted.Total(), &counted, kept)
	}
}

// TestTolerantReadingIsOneRuleInEveryLanguage: TypeScript's readFact,
// Python's read_fact and factspec's ReadFact take each fact as Go's
// ReadFact does.
func TestTolerantReadingIsOneRuleInEveryLanguage(t *testing.T) {
	node, _ := requireNode(t)
	py := requirePython(t)
	lines := readLines(t, "testdata/tolerant/jobs.jsonl")
	want := readLines(t, "testdata/tolerant/jobs.want.txt")
	check := func(who string, got []string) {
		for i := range lines {
			if got[i] != want[i] {
				t.Errorf("%s read line %d as %q; want %q\n%s", who, i+1, got[i], want[i], lines[i])
			}
		}
	}
	module := "file://" + mustAbs(t, "../generated/ts/jobs.mjs")
	check("TypeScript", runLines(t, exec.Command(node, "--input-type=module", "-e", fmt.Sprintf(`import { readFileSync } from "node:fs";
const m = await import(%q);
const out = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (line === "") continue;
  try {
    const f = m.readFact(JSON.parse(line));
    if (f.unknown === true && JSON.stringify(f.raw) !== JSON.stringify(JSON.parse(line))) throw new Error("raw rewritten");
    out.push(f.unknown === true ? "unknown " + f.type + " v" + f.v + ": " + f.why : "fact " + f.type + " v" + f.v);
  } catch (e) {
    out.push(e.name === "DecodeError" ? "damaged" : "crash: " + e.message);
  }
}
process.stdout.write(out.join("\n") + "\n");
`, module)), lines))
	cmd := exec.Command(py, "-c", `import sys
from jobgen_vocab import jobs
from jobgen_vocab.runtime import DecodeError, UnknownFact
for line in sys.stdin.read().splitlines():
    if not line:
        continue
    try:
        f = jobs.read_fact(line)
    except DecodeError:
        print("damaged")
        continue
    if isinstance(f, UnknownFact):
        assert f.raw == line.encode(), "raw rewritten"
        print(f"unknown {f.type} v{f.v}: {f.why}")
    else:
        print(f"fact {f.type} v{f.v}")
`)
	cmd.Env = append(cmd.Environ(), "PYTHONPATH="+mustAbs(t, "../generated/python"), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
	check("Python", runLines(t, cmd, lines))
	v, err := factspec.New(loadVectorSpec(t, "jobs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var fromSpec []string
	for _, line := range lines {
		f, err := v.ReadFact([]byte(line))
		why := ""
		if f.Unknown != nil {
			why = string(f.Unknown.Why)
		}
		fromSpec = append(fromSpec, classify(f.Type, f.V, why, err))
	}
	check("factspec", fromSpec)
}

// TestSalvageReadsWhatANewerBuildWroteThatThisBuildKnows: a fact of a known
// type at a newer version, or holding an enum value this build does not
// know, gives every field of the newest version this build knows that
// decodes, and names the rest; a type it does not know gives nothing.
func TestSalvageReadsWhatANewerBuildWroteThatThisBuildKnows(t *testing.T) {
	lines := readLines(t, "testdata/tolerant/jobs.jsonl")
	salvage := func(line string) (jobs.Fact, []string) {
		t.Helper()
		f, err := jobs.ReadFact([]byte(line))
		u, ok := f.(jobs.UnknownFact)
		if err != nil || !ok {
			t.Fatalf("ReadFact(%s) = %v, %v; want an UnknownFact", line, f, err)
		}
		return u.Salvage()
	}
	f, missing := salvage(lines[0])
	reg, ok := f.(jobs.JobRegistered)
	if !ok || reg.JobID.String() != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" || reg.Kind != "bash" || reg.Ordinal != 1 || !reg.Record || reg.Label != "" {
		t.Errorf("job/registered v9 salvaged as %+v; want every v3 field but the label v9 renamed", f)
	}
	if !reflect.DeepEqual(missing, []string{"label"}) {
		t.Errorf("missing = %v; want [label], which v9 no longer writes", missing)
	}
	f, missing = salvage(lines[1])
	if s, ok := f.(jobs.JobSettled); !ok || s.Status != jobs.JobStatusKilled || s.Registration.Label != "build" || s.Cause != "" {
		t.Errorf("job/settled with an unknown cause salvaged as %+v", f)
	}
	if !reflect.DeepEqual(missing, []string{"cause"}) {
		t.Errorf("missing = %v; want [cause], whose value this build does not know", missing)
	}
	if f, missing := salvage(lines[2]); f != nil || missing != nil {
		t.Errorf("a type this build does not know salvaged as %v, %v; want nothing", f, missing)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
