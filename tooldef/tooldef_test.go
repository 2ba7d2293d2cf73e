package tooldef_test

import (
	"encoding/json"
	"testing"

	"github.com/jobgen/jobgen/tooldef"
)

// A task support is written as MCP writes it and read back; a tool that
// says nothing is forbidden, and its JSON leaves the member out.
func TestTaskSupportIsWrittenAsMCPWritesIt(t *testing.T) {
	for _, ts := range []tooldef.TaskSupport{tooldef.TaskForbidden, tooldef.TaskOptional, tooldef.TaskRequired} {
		data, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + ts.String() + `"`; string(data) != want {
			t.Errorf("%v: %s, want %s", ts, data, want)
		}
		var back tooldef.TaskSupport
		if err := json.Unmarshal(data, &back); err != nil || back != ts {
			t.Errorf("%s read back as %v (%v)", data, back, err)
		}
	}
	if err := json.Unmarshal([]byte(`"sometimes"`), new(tooldef.TaskSupport)); err == nil {
		t.Error(`"sometimes" read as a task support`)
	}
	if _, err := json.Marshal(tooldef.TaskSupport(7)); err == nil {
		t.Error("TaskSupport(7) written")
	}
	data, err := json.Marshal(tooldef.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"t","description":"","inputSchema":{"type":"object"}}`; string(data) != want {
		t.Errorf("a tool that says nothing more: %s, want %s", data, want)
	}
}

// Only optional and required let a tool run as a task.
func TestOnlyOptionalAndRequiredRunAsTasks(t *testing.T) {
	for ts, want := range map[tooldef.TaskSupport]bool{tooldef.TaskForbidden: false, tooldef.TaskOptional: true, tooldef.TaskRequired: true} {
		if ts.Tasks() != want {
			t.Errorf("%v.Tasks() = %v, want %v", ts, !want, want)
		}
	}
}
