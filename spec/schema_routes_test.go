package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// compileWireDef compiles one $def of the committed wire schema, which
// refers to the job schema beside it.
func compileWireDef(t testing.TB, def string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range []string{"jobs", "wire"} {
		data, err := os.ReadFile("../schema/" + name + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("https://jobgen.test/"+name+".schema.json", doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("https://jobgen.test/wire.schema.json#/$defs/" + def)
	if err != nil {
		t.Fatalf("compile %s: %v", def, err)
	}
	return s
}

// eventData is the data line of an encoded event.
func eventData(t *rapid.T, ev httproute.Event) []byte {
	_, data, ok := strings.Cut(string(ev.Bytes()), "\ndata: ")
	if !ok {
		t.Fatalf("event %q has no data", ev.Bytes())
	}
	return []byte(strings.TrimSuffix(data, "\n\n"))
}

// TestTheWiresAnswersValidateAgainstTheRouteSchemas: what a fleet's roster
// (each job with its placement) and a follow's events carry, as the
// generated Go writes them, satisfies the schemas the JSON Schema backend
// writes for the routes; a placement's key of the wrong type does not.
func TestTheWiresAnswersValidateAgainstTheRouteSchemas(t *testing.T) {
	roster, opened, output := compileWireDef(t, "ListJobs.response"), compileWireDef(t, "FollowJob.opened"), compileWireDef(t, "FollowJob.output")
	rapid.Check(t, func(t *rapid.T) {
		var list []httproute.With[jobs.JobSnapshot, wire.FleetPlacement]
		for i := range rapid.IntRange(0, 3).Draw(t, "jobs") {
			w := httproute.With[jobs.JobSnapshot, wire.FleetPlacement]{Item: genSnapshot().Draw(t, "snapshot")}
			if rapid.Bool().Draw(t, "placed") {
				w.Extra = wire.FleetPlacement{Host: jobs.JobHost{Name: "h", Incarnation: jobs.NewIncarnationID()}, Lost: i%2 == 0}
			}
			list = append(list, w)
		}
		data, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(roster, data); err != nil {
			t.Fatalf("the roster %s does not satisfy ListJobs.response: %v", data, err)
		}
		f := genFrame().Draw(t, "frame")
		ev, err := wire.NewFollowJobEvent(f)
		if err != nil {
			t.Fatal(err)
		}
		s := map[string]*jsonschema.Schema{"opened": opened, "output": output}[frameName(f)]
		if s != nil {
			if err := validate(s, eventData(t, ev.Event)); err != nil {
				t.Fatalf("the event %q does not satisfy its schema: %v", ev.Bytes(), err)
			}
		}
	})
	job := `{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","name":"a-1","kind":"a","label":"","ordinal":1,"owner":"","record":false,"status":"running","startedAt":1,"producerReported":false`
	if err := validate(roster, []byte("["+job+`,"lost":true}]`)); err != nil {
		t.Fatalf("ListJobs.response refuses a placed job: %v", err)
	}
	if err := validate(roster, []byte("["+job+`,"lost":"yes"}]`)); err == nil {
		t.Error("ListJobs.response accepts a placement whose lost is a string")
	}
}

// frameName is a frame's event name, its tag.
func frameName(f jobs.FollowFrame) string {
	switch f.(type) {
	case jobs.OpenedFrame:
		return jobs.OpenedFrameTag
	case jobs.OutputFrame:
		return jobs.OutputFrameTag
	}
	return jobs.StatusFrameTag
}
