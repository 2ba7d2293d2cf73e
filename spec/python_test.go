package spec_test

// The Python package generated/python/jobgen_vocab is proven equal to the Go
// packages here, as ts_test.go proves the TypeScript modules: Go writes random
// values of every wire type, Python decodes and re-encodes them, and Go
// decodes what Python wrote and compares; random damage to those documents
// and the tables of bad and odd documents are refused and read alike. The
// Python side is tools/python/harness.py, run with the project's venv
// (tools/python/venv.sh). Unlike TypeScript, Python holds every 64-bit
// integer exactly and sees a key given twice, so it has none of
// TypeScript's differences.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/codec"
)

// requirePython returns the venv's python, skipping locally and failing
// under CI=true when it is missing.
func requirePython(t *testing.T) string {
	t.Helper()
	py, _ := filepath.Abs("../tools/python/.venv/bin/python")
	if _, err := os.Stat(py); err == nil {
		return py
	}
	msg := "the Python round trip needs the project's venv: run tools/python/venv.sh"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// A pyRequest is one document for the harness to decode as a type.
type pyRequest struct {
	typ string
	doc []byte
}

// pyHarness returns a function that sends documents to tools/python/harness.py
// running over the module of the generated package.
func pyHarness(t *testing.T, module string) func([]pyRequest) []tsAnswer {
	t.Helper()
	py := requirePython(t)
	root, _ := filepath.Abs("..")
	return func(reqs []pyRequest) []tsAnswer {
		t.Helper()
		var in bytes.Buffer
		for _, r := range reqs {
			if bytes.ContainsAny(r.doc, "\t\n") {
				t.Fatalf("%s document holds a tab or a newline, which the harness's lines cannot: %s", r.typ, r.doc)
			}
			fmt.Fprintf(&in, "%s\t%s\n", r.typ, r.doc)
		}
		cmd := exec.Command(py, filepath.Join(root, "tools/python/harness.py"), module)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "generated/python"), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
		cmd.Stdin = &in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python harness: %v\n%s", err, stderr.String())
		}
		var answers []tsAnswer
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var a tsAnswer
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatalf("harness answer %q: %v", sc.Text(), err)
			}
			answers = append(answers, a)
		}
		if len(answers) != len(reqs) {
			t.Fatalf("harness answered %d of %d documents\n%s", len(answers), len(reqs), stderr.String())
		}
		return answers
	}
}

// TestPythonEqualsGo runs every cross-language check through the harness
// over the jobs vocabulary.
func TestPythonEqualsGo(t *testing.T) {
	send := pyHarness(t, "jobs")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughPython(t, send, tsCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedThroughPython(t, send, tsCodecs()) })
	t.Run("bad documents are refused alike", func(t *testing.T) { badThroughPython(t, send) })
	t.Run("odd but valid documents are read alike", func(t *testing.T) { oddThroughPython(t, send) })
}

// TestSubagentsPythonEqualsGo runs the round trip and the damaged documents
// over the subagents module, which imports jobs for the ids they share.
func TestSubagentsPythonEqualsGo(t *testing.T) {
	send := pyHarness(t, "subagents")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughPython(t, send, subagentsCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedThroughPython(t, send, subagentsCodecs()) })
}

// TestWirePythonEqualsGo runs the round trip and the damaged documents over
// the wire module, what jobhttp answers and clients/python reads.
func TestWirePythonEqualsGo(t *testing.T) {
	send := pyHarness(t, "wire")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughPython(t, send, wireCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedThroughPython(t, send, wireCodecs()) })
}

// goWrites is what Go writes for the value it decoded: the document it was
// given, but for an older fact version, which Go (and Python) read as the
// newest and write so.
func goWrites(t *testing.T, c tsCodec, decoded any) []byte {
	t.Helper()
	doc, err := c.encode(decoded)
	if err != nil {
		t.Fatalf("%s: Go cannot encode what it decoded: %v", c.name, err)
	}
	return doc
}

func roundTripThroughPython(t *testing.T, send func([]pyRequest) []tsAnswer, codecs []tsCodec) {
	type sent struct {
		codec tsCodec
		doc   []byte
	}
	var cases []sent
	var reqs []pyRequest
	for _, c := range codecs {
		for i := range rtChecks() {
			v := c.gen.Example(i)
			doc, err := c.encode(v)
			if err != nil {
				t.Fatalf("%s: Go cannot encode %#v: %v", c.name, v, err)
			}
			cases = append(cases, sent{c, doc})
			reqs = append(reqs, pyRequest{c.name, doc})
		}
	}
	answers := send(reqs)
	wide := 0
	for i, a := range answers {
		c := cases[i]
		if !a.OK {
			t.Errorf("%s: Python refused what Go wrote: %s (%s)\n%s", c.codec.name, a.Msg, a.Kind, c.doc)
			continue
		}
		want, err := c.codec.decode(c.doc)
		if err != nil {
			t.Fatalf("%s: Go cannot decode what it wrote: %v\n%s", c.codec.name, err, c.doc)
		}
		got, err := c.codec.decode(a.Out)
		switch {
		case err != nil:
			t.Errorf("%s: Go refuses what Python wrote: %v\n Go wrote %s\n Py wrote %s", c.codec.name, err, c.doc, a.Out)
		case !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)):
			t.Errorf("%s: the round trip through Python changed the value\n Go wrote %s\n Py wrote %s", c.codec.name, c.doc, a.Out)
		case !sameJSON(goWrites(t, c.codec, want), a.Out):
			t.Errorf("%s: Python writes the value otherwise than Go\n Go wrote %s\n Py wrote %s", c.codec.name, c.doc, a.Out)
		case hasUnsafeInteger(c.doc):
			wide++
		}
	}
	t.Logf("%d values round-tripped through Python and were written as Go writes them, %d of them with integers beyond ±(2^53-1)", len(answers), wide)
	if len(answers) == 0 || wide == 0 {
		t.Fatal("nothing round-tripped, or no value held a wide integer")
	}
}

func damagedThroughPython(t *testing.T, send func([]pyRequest) []tsAnswer, codecs []tsCodec) {
	type sent struct {
		codec tsCodec
		doc   []byte
	}
	var cases []sent
	var reqs []pyRequest
	for _, c := range codecs {
		g := rapid.Custom(func(t *rapid.T) []byte {
			doc, err := c.encode(c.gen.Draw(t, "value"))
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			d := json.NewDecoder(bytes.NewReader(doc))
			d.UseNumber()
			var tree any
			if err := d.Decode(&tree); err != nil {
				t.Fatalf("decode %s: %v", doc, err)
			}
			for range rapid.IntRange(1, 2).Draw(t, "mutations") {
				tree = mutate(t, tree)
			}
			out, err := json.Marshal(tree)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			return out
		})
		for i := range 2 * rtChecks() {
			doc := g.Example(i)
			cases = append(cases, sent{c, doc})
			reqs = append(reqs, pyRequest{c.name, doc})
		}
	}
	answers := send(reqs)
	refused, accepted, sameKind := 0, 0, 0
	for i, a := range answers {
		c := cases[i]
		want, goErr := c.codec.decode(c.doc)
		switch {
		case goErr != nil && a.OK:
			t.Errorf("%s: Go refuses (%v) what Python accepts\n doc %s\n Py wrote %s", c.codec.name, goErr, c.doc, a.Out)
		case goErr == nil && !a.OK:
			t.Errorf("%s: Python refuses (%s: %s) what Go accepts\n doc %s", c.codec.name, a.Kind, a.Msg, c.doc)
		case goErr == nil:
			accepted++
			if !goRoundTrips(c.codec, want) {
				continue // Go reads null as a zero it cannot write: nothing to compare
			}
			if got, err := c.codec.decode(a.Out); err != nil || !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
				t.Errorf("%s: Python read a damaged document differently from Go (%v)\n doc %s\n Py wrote %s", c.codec.name, err, c.doc, a.Out)
			}
		default:
			// Which refusal comes first when a document has several is
			// encoding/json's order, not the vocabulary's: only the tables
			// hold the kinds to Go's.
			refused++
			if goKind(goErr) == "" || goKind(goErr) == a.Kind {
				sameKind++
			}
		}
	}
	t.Logf("%d damaged documents refused by both sides (%d with the kind Go reports, or none Go names), %d accepted by both and read alike", refused, sameKind, accepted)
}

// badThroughPython sends the table of bad documents, and the documents with
// a key given twice and with wide integers, where TypeScript differs from
// Go by design and Python must not.
func badThroughPython(t *testing.T, send func([]pyRequest) []tsAnswer) {
	bad := badDocumentTable()
	var reqs []pyRequest
	for _, b := range bad {
		reqs = append(reqs, pyRequest{b.typ, []byte(b.doc)})
	}
	// Python's fast path parses with pydantic-core, which keeps a repeated
	// key's last value, and counts keys in the bytes to see one: these hide
	// it from a count of `":` (white space, an escape, a colon in a string).
	repeated := []string{`{"frame":"output","next":1,"next":2}`, `{"frame":"output","frame":"output","next":1}`,
		`{"frame":"output","next":1,"next" :2}`, "{\"frame\":\"output\",\"next\":1,\"next\"\r:2}", `{"frame":"output","next":1,"\u006eext":2}`,
		`{"frame":"output","chunks":[{"offset":0,"at":0,"text":"a:b","text":"c"}],"next":1}`,
		`{"frame":"output","chunks":[{"offset":0,"at":0,"text":"a\":b"}],"next":1,"next":1}`}
	for _, doc := range repeated {
		reqs = append(reqs, pyRequest{"OutputFrame", []byte(doc)})
	}
	// Beyond an int64, where Go refuses too (with no sentinel error).
	overflow := []string{`{"frame":"output","next":9223372036854775808}`, `{"frame":"output","next":-9223372036854775809}`}
	for _, doc := range overflow {
		reqs = append(reqs, pyRequest{"OutputFrame", []byte(doc)})
	}
	answers := send(reqs)
	i := 0
	for _, b := range bad {
		a := answers[i]
		i++
		_, goErr := codecNamed(t, b.typ).decode([]byte(b.doc))
		switch {
		case goErr == nil:
			t.Errorf("%s: Go accepts %s %s", b.why, b.typ, b.doc)
		case a.OK:
			t.Errorf("%s: Python accepts %s %.200s, writing %s", b.why, b.typ, b.doc, a.Out)
		case a.Kind != b.kind:
			t.Errorf("%s: Python refused %.200s with %s (%s), want %s", b.why, b.doc, a.Kind, a.Msg, b.kind)
		}
	}
	for _, doc := range repeated {
		if _, err := codecNamed(t, "OutputFrame").decode([]byte(doc)); !errors.Is(err, codec.ErrAmbiguousKey) {
			t.Errorf("Go answered %v for %s, which repeats a key", err, doc)
		}
		if a := answers[i]; a.OK || a.Kind != "ambiguousKey" {
			t.Errorf("Python answered %+v for %s, which repeats a key; want ambiguousKey, as Go", a, doc)
		}
		i++
	}
	for _, doc := range overflow {
		if _, err := codecNamed(t, "OutputFrame").decode([]byte(doc)); err == nil {
			t.Errorf("Go accepts %s", doc)
		}
		if a := answers[i]; a.OK || a.Kind != "invalidValue" || a.Path != "$.next" {
			t.Errorf("Python answered %+v for %s, beyond an int64; want invalidValue at $.next", a, doc)
		}
		i++
	}
	t.Logf("%d bad documents refused by both sides with the same kind", i)
}

// oddThroughPython sends the table of odd documents: Python must read each
// as Go does and write what Go writes for it.
func oddThroughPython(t *testing.T, send func([]pyRequest) []tsAnswer) {
	odd := oddDocumentTable()
	wide := []oddDocument{
		{why: "the largest int64", typ: "OutputFrame", doc: `{"frame":"output","next":9223372036854775807}`},
		{why: "the smallest int64", typ: "OutputFrame", doc: `{"frame":"output","next":-9223372036854775808}`},
		{why: "2^53", typ: "OutputFrame", doc: `{"frame":"output","next":9007199254740992}`},
	}
	odd = append(odd, wide...)
	var reqs []pyRequest
	for _, o := range odd {
		reqs = append(reqs, pyRequest{o.typ, []byte(o.doc)})
	}
	answers := send(reqs)
	for i, o := range odd {
		a := answers[i]
		c := codecNamed(t, o.typ)
		want, goErr := c.decode([]byte(o.doc))
		if goErr != nil {
			t.Errorf("%s: Go refuses %.200s: %v", o.why, o.doc, goErr)
			continue
		}
		if !a.OK {
			t.Errorf("%s: Python refuses %.200s: %s (%s)", o.why, o.doc, a.Msg, a.Kind)
			continue
		}
		got, err := c.decode(a.Out)
		if err != nil || !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
			t.Errorf("%s: Python read %.200s as %s (%v)", o.why, o.doc, a.Out, err)
			continue
		}
		if o.upcast {
			continue
		}
		if goOut, err := c.encode(want); err != nil || !sameText(goOut, a.Out) {
			t.Errorf("%s: Python writes what it read from %.200s otherwise than Go (%v)\n Py wrote %s\n Go wrote %s", o.why, o.doc, err, a.Out, goOut)
		}
	}
	if !t.Failed() {
		t.Logf("%d odd documents read and written alike", len(odd))
	}
}
