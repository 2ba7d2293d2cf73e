package spec_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The committed JSON Schema (schema/jobs.schema.json, which jobgen verify
// --schema keeps in step with the spec) is checked here with an independent
// validator against what the generated Go code really writes.

const schemaURL = "https://jobgen.test/jobs.schema.json"

// compileDef compiles one $def of the committed schema, with formats
// (uuid, date-time) asserted rather than only annotated.
func compileDef(t testing.TB, def string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile("../schema/jobs.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemaURL + "#/$defs/" + def)
	if err != nil {
		t.Fatalf("compile %s: %v", def, err)
	}
	return s
}

func validate(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestEncodingsValidateAgainstTheSchema draws random values of the wire
// types (JobStart, whose variants carry a Run func, has no schema: it is
// Go's alone) and requires the generated encoding of each to satisfy its schema.
func TestEncodingsValidateAgainstTheSchema(t *testing.T) {
	frame, fact, snapshot := compileDef(t, "FollowFrame"), compileDef(t, "FactEnvelope"), compileDef(t, "JobSnapshot")
	rapid.Check(t, func(t *rapid.T) {
		check := func(what string, s *jsonschema.Schema, data []byte, err error) {
			if err != nil {
				t.Fatalf("encode %s: %v", what, err)
			}
			if err := validate(s, data); err != nil {
				t.Fatalf("%s %s does not satisfy its schema: %v", what, data, err)
			}
		}
		f := genFrame().Draw(t, "frame")
		data, err := json.Marshal(f)
		check("FollowFrame", frame, data, err)
		fa := genFact().Draw(t, "fact")
		data, err = jobs.EncodeFact(fa)
		check("fact", fact, data, err)
		sn := genSnapshot().Draw(t, "snapshot")
		data, err = json.Marshal(sn)
		check("JobSnapshot", snapshot, data, err)
	})
}

// TestV1HistorySatisfiesTheEnvelopeSchema: the schema admits every version
// DecodeFact still reads, not only the one EncodeFact writes.
func TestV1HistorySatisfiesTheEnvelopeSchema(t *testing.T) {
	fact := compileDef(t, "FactEnvelope")
	f, err := os.Open("testdata/settled-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		if err := validate(fact, lines.Bytes()); err != nil {
			t.Errorf("line %d: %v", n, err)
		}
	}
}

// TestSchemaRejectsWhatTheDecodersRefuse: each bad document is refused by
// the schema and by the generated decoder alike, so a non-Go consumer that
// validates sees the same vocabulary as Go.
func TestSchemaRejectsWhatTheDecodersRefuse(t *testing.T) {
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	const reg = `"registration":{"registeredAt":0,"owner":"s","kind":"k","label":"l","ordinal":1,"record":false}`
	decodeFrame := func(b []byte) error { _, err := jobs.DecodeFollowFrame(b); return err }
	decodeFact := func(b []byte) error { _, err := jobs.DecodeFact(b); return err }
	cases := []struct {
		name   string
		def    string
		decode func([]byte) error
		doc    string
	}{
		{"missing required field", "FollowFrame", decodeFrame, `{"frame":"output","chunks":[]}`},
		{"unknown enum value", "FactEnvelope", decodeFact, `{"type":"job/settled","v":2,"data":{"jobId":"` + id + `","at":1,"status":"paused","producerReported":true,` + reg + `}}`},
		{"unknown cause", "FactEnvelope", decodeFact, `{"type":"job/settled","v":2,"data":{"jobId":"` + id + `","at":1,"status":"killed","producerReported":false,"cause":"meteor",` + reg + `}}`},
		{"wrong discriminator", "FollowFrame", decodeFrame, `{"frame":"paused","job":{}}`},
		{"discriminator of the wrong kind", "FollowFrame", decodeFrame, `{"frame":true,"job":{}}`},
		{"unknown fact version", "FactEnvelope", decodeFact, `{"type":"job/settled","v":9,"data":{}}`},
		{"unknown fact type", "FactEnvelope", decodeFact, `{"type":"job/paused","v":1,"data":{}}`},
		{"id that is not a UUID", "FactEnvelope", decodeFact, `{"type":"job/registered","v":1,"data":{"jobId":"nope","at":1,"owner":"s","kind":"k","label":"l","ordinal":1,"record":true}}`},
	}
	good := compileDef(t, "FactEnvelope")
	ok := `{"type":"job/settled","v":2,"data":{"jobId":"` + id + `","at":1,"status":"killed","producerReported":false,"cause":"kill",` + reg + `}}`
	if err := validate(good, []byte(ok)); err != nil {
		t.Fatalf("a good fact is refused, so the bad cases prove nothing: %v", err)
	}
	if err := decodeFact([]byte(ok)); err != nil {
		t.Fatalf("the decoder refuses the good fact: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := validate(compileDef(t, c.def), []byte(c.doc)); err == nil {
				t.Errorf("the schema accepts %s", c.doc)
			}
			if err := c.decode([]byte(c.doc)); err == nil {
				t.Errorf("the decoder accepts %s", c.doc)
			}
		})
	}
}
