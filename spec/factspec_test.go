package spec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/generated/jobs"
)

// The model-driven decoder (package factspec), which jobgen journal uses for
// vocabularies it has no Go code of, must refuse exactly what the generated
// Go decoders refuse, with the same sentinels, and read what they accept as
// they read it. These tests hold it to that over every wire type of both
// vocabularies: the documents of the refusal tables of this directory, and
// random values and random damage to them, for the job, subagent and wire
// vocabularies.

// specVocabulary is the vocabulary of this directory's specs.
func specVocabulary(t testing.TB) *factspec.Vocabulary {
	t.Helper()
	var specs []*gen.Resolved
	for _, name := range []string{"jobs.yaml", "subagents.yaml", "wire.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := gen.Load(name, data)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, r)
	}
	v, err := factspec.New(specs...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sentinels are the errors a caller branches on, in the order kinds names
// them.
var sentinels = []struct {
	name string
	err  error
}{
	{"MissingField", codec.ErrMissingField}, {"InvalidEnum", codec.ErrInvalidEnum},
	{"InvalidID", codec.ErrInvalidID}, {"AmbiguousKey", codec.ErrAmbiguousKey},
	{"UnknownVariant", codec.ErrUnknownVariant}, {"WrongVariant", codec.ErrWrongVariant},
	{"UnknownFact", codec.ErrUnknownFact}, {"UnknownVersion", codec.ErrUnknownVersion},
}

// kinds names the sentinels err wraps: "ok" for no error, "" for an error
// that wraps none (malformed JSON, a value of the wrong type or range).
func kinds(err error) string {
	if err == nil {
		return "ok"
	}
	var out []string
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			out = append(out, s.name)
		}
	}
	return strings.Join(out, "+")
}

// A decodeCase is one wire type of a vocabulary: its package, its name and
// Go's codec of it.
type decodeCase struct {
	pkg   string
	codec tsCodec
}

func allCodecs() []decodeCase {
	var out []decodeCase
	for _, c := range tsCodecs() {
		out = append(out, decodeCase{"jobs", c})
	}
	// Go-only, so not among TypeScript's codecs; still a wire type in Go.
	out = append(out,
		decodeCase{"jobs", union(jobs.DecodeJobStart, jobs.PlainJobStart{}, jobs.RecordingJobStart{})},
		decodeCase{"jobs", plain[jobs.PlainJobStart]("PlainJobStart")},
		decodeCase{"jobs", plain[jobs.RecordingJobStart]("RecordingJobStart")},
	)
	for _, c := range subagentsCodecs() {
		out = append(out, decodeCase{"subagents", c})
	}
	for _, c := range wireCodecs() {
		out = append(out, decodeCase{"wire", c})
	}
	return out
}

// A fataler is what agree needs of a test: a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// agree fails t unless the model decoder and Go refuse doc alike, or read it
// alike: what the model decoder read, written as JSON, reads in Go as doc
// does.
func agree(t fataler, v *factspec.Vocabulary, c decodeCase, doc []byte) {
	t.Helper()
	want, goErr := c.codec.decode(doc)
	got, err := v.Decode(c.pkg, c.codec.name, doc)
	if kinds(err) != kinds(goErr) {
		t.Fatalf("%s.%s %s:\n model decoder: %v (%s)\n Go:            %v (%s)", c.pkg, c.codec.name, doc, err, kinds(err), goErr, kinds(goErr))
	}
	if err != nil {
		return
	}
	again, err := c.codec.decode(rewrite(t, got))
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("%s.%s %s: the model decoder read %#v, which Go reads as %#v (%v), not %#v", c.pkg, c.codec.name, doc, got, again, err, want)
	}
}

// rewrite writes what the model decoder read as JSON again.
func rewrite(t fataler, v any) []byte {
	t.Helper()
	if f, ok := v.(factspec.Fact); ok {
		data, err := json.Marshal(f.Data)
		if err != nil {
			t.Fatal(err)
		}
		return codec.AppendEnvelope(nil, f.Type, f.V, data)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestModelDecoderAgreesWithGoOnRandomValues: every random value of every
// wire type Go writes, the model decoder reads as Go does; damaged at one or
// two random places, it refuses it as Go does, with the same sentinels.
func TestModelDecoderAgreesWithGoOnRandomValues(t *testing.T) {
	v := specVocabulary(t)
	for _, c := range allCodecs() {
		t.Run(c.pkg+"."+c.codec.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				doc, err := c.codec.encode(c.codec.gen.Draw(t, "value"))
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				agree(t, v, c, doc)
				d := json.NewDecoder(bytes.NewReader(doc))
				d.UseNumber()
				var tree any
				if err := d.Decode(&tree); err != nil {
					t.Fatalf("decode %s: %v", doc, err)
				}
				for range rapid.IntRange(1, 2).Draw(t, "mutations") {
					tree = mutate(t, tree)
				}
				damaged, err := json.Marshal(tree)
				if err != nil {
					t.Fatal(err)
				}
				agree(t, v, c, damaged)
			})
		})
	}
}

// refusalTable holds the documents of this directory's refusal tables
// (TestDecodeRefusesBadInput, TestDecodeFactRefusesAmbiguousInput and the
// TypeScript agreement's badDocuments), by the type they are decoded as.
func refusalTable() []struct{ typ, doc string } {
	settledFact := settled(goodID, "completed")
	return []struct{ typ, doc string }{
		{"FollowFrame", `{"frame":"paused"}`},
		{"FollowFrame", `{"job":{}}`},
		{"FollowFrame", `{"frame":"output","chunks":[]}`},
		{"FollowFrame", `{"FRAME":"output","chunks":[],"next":1}`},
		{"FollowFrame", `{"frame":"status","frame":"output","chunks":[],"next":1}`},
		{"JobStart", `{"kind":"bash","label":"x"}`},
		{"JobStart", `{"record":"yes","kind":"bash","label":"x"}`},
		{"JobStart", `{"record":true,"kind":"bash"}`},
		{"FactEnvelope", `{"type":"job/paused","v":1,"data":{}}`},
		{"FactEnvelope", `{"type":"job/settled","v":9,"data":{}}`},
		{"FactEnvelope", `{"type":"job/settled","v":1}`},
		{"FactEnvelope", `{"type":"job/registered","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}}`},
		{"FactEnvelope", `{"type":"job/registered","v":1,"data":{"jobId":"nope"}}`},
		{"FactEnvelope", `{"type":`},
		{"FactEnvelope", settledFact},
		{"FactEnvelope", strings.Replace(settledFact, `"jobId"`, `"JOBID"`, 1)},
		{"FactEnvelope", strings.Replace(settledFact, `"type"`, `"Type"`, 1)},
		{"FactEnvelope", strings.Replace(settledFact, `"registeredAt"`, `"registeredat"`, 1)},
		{"FactEnvelope", strings.Replace(settledFact, `"at":2,`, `"at":2,"at":3,`, 1)},
		{"FactEnvelope", strings.Replace(settledFact, `"v":2,`, `"v":1,"v":2,`, 1)},
		{"FactEnvelope", strings.Replace(settledFact, `"kind":"bash"`, `"kind":"bash","kind":"sh"`, 1)},
		{"FactEnvelope", settled(strings.ToUpper(goodID), "completed")},
		{"FactEnvelope", settled(strings.ReplaceAll(goodID, "-", ""), "completed")},
		{"FactEnvelope", settled("{"+goodID+"}", "completed")},
		{"FactEnvelope", settled("urn:uuid:"+goodID, "completed")},
		{"FactEnvelope", settled("00000000-0000-0000-0000-000000000000", "completed")},
		{"FactEnvelope", settled(goodID, "running")},
		{"FactEnvelope", settled(goodID, "stopping")},
		{"PlainJobStart", `{"record":true,"kind":"bash","label":"x"}`},
		{"OutputFrame", `{"frame":"opened","next":1}`},
		{"FollowFrame", `{"frame":null}`},
		{"FollowFrame", `{"frame":1}`},
		{"FollowFrame", `[]`},
		{"FollowFrame", `"opened"`},
		{"FollowFrame", `null`},
		{"OutputFrame", `{"frame":"output"}`},
		{"OutputFrame", `{"frame":"output","next":null}`},
		{"OutputFrame", `{"frame":"output","next":1.5}`},
		{"OutputFrame", `{"frame":"output","next":"1"}`},
		{"OutputFrame", `{"frame":"output","next":1,"chunks":{}}`},
		{"OutputFrame", `{"frame":"output","next":1,"chunks":[null]}`},
		{"OutputFrame", `{"frame":"output","next":1,"chunks":[{"offset":0,"at":0,"text":"","channel":""}]}`},
		{"JobSnapshot", strings.Replace(snapshot, `"running"`, `"paused"`, 1)},
		{"JobOutcome", `{"status":"Running"}`},
		{"JobSnapshot", strings.Replace(snapshot, "6ba7b810-9dad", "6ba7b810x9dad", 1)},
		{"JobID", `"6ba7b810-9dad-11d1-80b4-00c04fd430c"`},
		{"JobID", `""`},
		{"JobID", `"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"`},
		{"JobID", `null`},
		{"JobSettled", `{"jobId":"00000000-0000-0000-0000-000000000000","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"","kind":"","label":"","ordinal":0,"record":false}}`},
		{"FollowFrame", `{"frame":"status","Job":` + snapshot + `}`},
		{"FollowFrame", `{"FRAME":"status","job":` + snapshot + `}`},
		{"OutputFrame", `{"frame":"output","next":1,"loſſy":true}`},
		{"JobSnapshot", strings.Replace(snapshot, `"kind"`, `"\u212aind"`, 1)},
		{"StatusFrame", `{"frame":"status","job":` + strings.Replace(snapshot, `"label"`, `"Label"`, 1) + `}`},
		{"FactEnvelope", `{"TYPE":"job/registered","v":1,"data":{}}`},
		{"StatusFrame", `{"frame":"status","job":{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}}`},
		{"JobStart", `{"record":"true","kind":"a","label":"b"}`},
		{"JobStart", `{"record":true,"kind":"a"}`},
		{"JobSnapshot", strings.Replace(snapshot, `"id"`, `"\u0131d"`, 1)},
		{"RecordChunk", `{"offset":0,"at":0,"text":5}`},
		{"RecordChunk", `{"offset":"x","OFFSET":1,"at":0,"text":""}`},
		{"JobSnapshot", strings.Replace(snapshot, `"ordinal":1`, `"ordinal":true`, 1)},
		{"FactEnvelope", `{"type":"job/registered","data":{}}`},
		{"FactEnvelope", `{"type":"job/settled","v":2,"data":null}`},
		{"FactEnvelope", `{"type":"job/settled","v":"2","data":{}}`},
		{"FactEnvelope", `{"type":"job/settled","v":2.5,"data":{}}`},
		{"FactEnvelope", `null`},
		{"JobOutcome", `{"status":"running\ud800"}`},
		{"OutputFrame", `{"frame":"output","next":1,"x":` + nested("[", "]", maxDepth) + `}`},
		{"RecordChunk", `{"offset":0,"at":0,"text":"","x":` + nested(`{"a":`, "}", maxDepth) + `}`},
		{"FollowFrame", `{"frame":"paused","x":` + nested("[", "]", maxDepth) + `}`},
		{"OutputFrame", `{"frame":"output","next":1,"chunks":[{"offset":0,"at":0,"text":"","x":` + nested("[", "]", maxDepth-2) + `}]}`},
		{"FactEnvelope", `{"type":"job/settled","v":2,"x":` + nested(`[{"a":`, "}]", maxDepth/2) + `,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"","kind":"","label":"","ordinal":0,"record":false}}}`},
		{"OutputFrame", `{"frame":"output","next":1,"next":2}`},
		{"OutputFrame", `{"frame":"output","next":9007199254740993}`},
	}
}

// TestModelDecoderAgreesWithGoOnTheRefusalTables: every document the
// refusal tables hold, the model decoder refuses or reads as Go does.
func TestModelDecoderAgreesWithGoOnTheRefusalTables(t *testing.T) {
	v := specVocabulary(t)
	byName := map[string]decodeCase{}
	for _, c := range allCodecs() {
		if _, dup := byName[c.codec.name]; !dup {
			byName[c.codec.name] = c
		}
	}
	for _, row := range refusalTable() {
		c, ok := byName[row.typ]
		if !ok {
			t.Fatalf("no codec %s", row.typ)
		}
		agree(t, v, c, []byte(row.doc))
	}
}

// BenchmarkModelDecodeFact is one job/settled fact decoded from the spec
// model (what jobgen journal check does for every fact) beside the generated
// one-pass decoder, the baseline in the same run.
//
//	go test ./spec -run '^$' -bench ModelDecodeFact -count 5
func BenchmarkModelDecodeFact(b *testing.B) {
	v := specVocabulary(b)
	b.Run("generated", func(b *testing.B) {
		for b.Loop() {
			if _, err := jobs.DecodeFact(benchSettled); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("model", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.DecodeFact(benchSettled); err != nil {
				b.Fatal(err)
			}
		}
	})
}
