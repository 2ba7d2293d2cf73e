package agenttools_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the current tools")

// golden compares got, indented, with testdata/name, or rewrites it.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s differs from what the tools give; if the change is meant, run go test -update and read the diff.\ngot:\n%s", path, data)
	}
}

// allTools are the tools of an agent of a subagent service: every
// built-in tool.
func allTools(t *testing.T) []agenttools.Tool {
	sf := newSubFixture(t)
	return sf.tools.ForAgent(sf.lead).Tools()
}

// Each tool's definition — its description and both schemas — is golden:
// a change to what a model is shown is a change to review.
func TestToolDefinitionsAreGolden(t *testing.T) {
	for _, tool := range allTools(t) {
		t.Run(tool.Name, func(t *testing.T) {
			golden(t, filepath.Join("tools", tool.Name+".json"), tool)
		})
	}
}

func TestModelAPIRenderingsAreGolden(t *testing.T) {
	all := allTools(t)
	golden(t, "input_schema_tools.json", agenttools.InputSchemaTools(all))
	golden(t, "function_tools.json", agenttools.FunctionTools(all))
}

// compile compiles a tool's schema with formats asserted.
func compile(t *testing.T, name string, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "https://jobgen.test/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func valid(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// The schemas a model is shown accept the arguments a call accepts and
// describe the results a call returns: every tool is called with an
// example, both sides are validated, and arguments the schema refuses are
// refused by the call too.
func TestSchemasValidateTheToolsOwnExamples(t *testing.T) {
	sf := newSubFixture(t)
	j := sf.start(jobSpec{owner: "lead", consuming: true})
	j.write("hello\n")
	lead := sf.tools.ForAgent(sf.lead)
	child := decode[tools.SubagentStartResult](t, call(t, lead, "subagent_start", map[string]any{"label": "l", "prompt": "p"})).ChildID
	next(t, sf.childGot)
	next(t, sf.received)
	id := j.snap.ID.String()
	examples := map[string][]string{
		"job_list":       {`{}`, `{"activeOnly": true}`},
		"job_output":     {`{"jobId": "` + id + `", "maxBytes": 3}`, `{"jobId": "` + id + `"}`},
		"job_wait":       {`{"jobId": "` + id + `", "timeoutSeconds": 1}`},
		"job_kill":       {`{"jobId": "` + id + `", "reason": "enough"}`, `{"jobIds": ["` + id + `"], "reason": "enough"}`},
		"subagent_start": {`{"label": "check the docs", "prompt": "read README.md", "provider": "researcher"}`},
		"send_message":   {`{"to": "` + string(child) + `", "message": "go on"}`},
	}
	refused := map[string][]string{
		"job_list":       {`{"activeOnly": 1}`},
		"job_output":     {`{}`, `{"jobId": "sh-1"}`, `{"jobId": "00000000-0000-0000-0000-000000000000"}`, `{"jobId": "` + id + `", "maxBytes": -1}`},
		"job_wait":       {`{"jobId": "` + id + `", "timeoutSeconds": 1.5}`},
		"job_kill":       {`{"jobIds": "` + id + `"}`, `{"jobIds": ["sh-1"]}`},
		"subagent_start": {`{"prompt": "p"}`},
		"send_message":   {`{"to": "x"}`},
		"report":         {`{"message": "m", "delivery": "loud"}`},
	}
	for _, tool := range lead.Tools() {
		in, out := compile(t, tool.Name+"-in", tool.InputSchema), compile(t, tool.Name+"-out", tool.OutputSchema)
		for _, args := range examples[tool.Name] {
			if err := valid(in, []byte(args)); err != nil {
				t.Errorf("%s: the input schema refuses %s: %v", tool.Name, args, err)
			}
			res := call(t, lead, tool.Name, args)
			if err := valid(out, res); err != nil {
				t.Errorf("%s: the output schema refuses %s: %v", tool.Name, res, err)
			}
		}
		for _, args := range refused[tool.Name] {
			if valid(in, []byte(args)) == nil {
				t.Errorf("%s: the input schema accepts %s", tool.Name, args)
			}
			if e := callErr(t, lead, tool.Name, args); e.Code != tools.ErrorCodeInvalidArguments {
				t.Errorf("%s(%s): %v, want invalidArguments", tool.Name, args, e)
			}
		}
	}
	// report is a child's: its result is checked with a report the
	// ReportResult decoder reads back, as a child would get it.
	var reportOut json.RawMessage
	for _, tool := range lead.Tools() {
		if tool.Name == "report" {
			reportOut = tool.OutputSchema
		}
	}
	report := compile(t, "report-out", reportOut)
	if err := valid(report, []byte(`{"messageId": "`+jobs.NewJobID().String()+`"}`)); err != nil {
		t.Errorf("report's output schema refuses a result: %v", err)
	}
}

// The error a failed call answers with is a tools.ToolError, as the
// generated schema describes it.
func TestErrorsAreToolErrors(t *testing.T) {
	data, err := os.ReadFile("../schema/tools.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://jobgen.test/tools.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://jobgen.test/tools.schema.json#/$defs/ToolError")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	e := callErr(t, f.tools.For("a"), "job_output", `{}`)
	if err := valid(s, e.JSON()); err != nil {
		t.Errorf("%s is no ToolError: %v", e.JSON(), err)
	}
	back := decode[tools.ToolError](t, e.JSON())
	if back.Code != e.Code || back.Message != e.Message {
		t.Errorf("decoded %+v, want %+v", back, e)
	}
}
