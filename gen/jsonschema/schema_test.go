package jsonschema

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestEmitTakesOnlyAValidatedSpec: the zero Resolved, which Validate
// never returns, is refused.
func TestEmitTakesOnlyAValidatedSpec(t *testing.T) {
	if _, err := Emit(nil); !errors.Is(err, gen.ErrNotResolved) {
		t.Errorf("Emit(nil): err = %v, want ErrNotResolved", err)
	}
}

// TestOnlyWhatTravelsHasASchema: the schema declares what gen.Index.OnWire
// puts on the wire and nothing Go keeps to itself: jobs.yaml's Hooks (funcs)
// and the JobStart union (its variants carry a Run func) have no
// definition, while the records the facts hold do (decision 0104).
func TestOnlyWhatTravelsHasASchema(t *testing.T) {
	spec, err := gen.Load(gentest.JobsSpecPath(), gentest.ReadJobsSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Emit(spec)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(f.Content, &doc); err != nil {
		t.Fatal(err)
	}
	for _, goOnly := range []string{"Hooks", "JobStart", "JobStartCommon", "PlainJobStart", "RecordingJobStart"} {
		if _, ok := doc.Defs[goOnly]; ok {
			t.Errorf("the schema declares %s, which is Go's alone", goOnly)
		}
	}
	for _, wire := range []string{"JobID", "JobSnapshot", "JobStatus", "FactEnvelope"} {
		if _, ok := doc.Defs[wire]; !ok {
			t.Errorf("the schema lacks %s, which travels", wire)
		}
	}
}
