package spec_test

// The tool table is the same data in every language (decision 0207): the
// TypeScript module's tools and the Python module's TOOLS say of each tool
// what the Go package's Tools says, schemas and all.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/tools"
)

// A tableTool is a tool as the test compares it across languages.
type tableTool struct {
	Name, Title, Description, Input, Result string
	InputSchema, OutputSchema               any
	Hints                                   [4]bool // read-only, destructive, idempotent, open world
	TaskSupport                             string
}

// goTable is the Go package's table as tableTools.
func goTable(t *testing.T) []tableTool {
	var out []tableTool
	for _, tool := range tools.Tools() {
		tt := tableTool{Name: tool.Name, Title: tool.Title, Description: tool.Description, Input: tool.Input, Result: tool.Result, TaskSupport: tool.TaskSupport.String()}
		if err := json.Unmarshal(tool.InputSchema, &tt.InputSchema); err != nil {
			t.Fatal(err)
		}
		if tool.OutputSchema != nil {
			if err := json.Unmarshal(tool.OutputSchema, &tt.OutputSchema); err != nil {
				t.Fatal(err)
			}
		}
		if a := tool.Annotations; a != nil {
			tt.Hints = [4]bool{a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld}
		}
		out = append(out, tt)
	}
	return out
}

// otherTable reads the table another language prints: a JSON list of
// {name, title, description, input, result, inputSchema, outputSchema,
// annotations: {readOnlyHint, …}, taskSupport}.
func otherTable(t *testing.T, lang string, cmd *exec.Cmd) []tableTool {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("%s: %v\n%s", lang, err, stderr)
	}
	var raw []struct {
		Name, Title, Description, Input, Result string
		InputSchema, OutputSchema               any
		Annotations                             struct{ ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint bool }
		TaskSupport                             string
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("%s printed %s: %v", lang, out, err)
	}
	var table []tableTool
	for _, r := range raw {
		a := r.Annotations
		table = append(table, tableTool{r.Name, r.Title, r.Description, r.Input, r.Result, r.InputSchema, r.OutputSchema,
			[4]bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint}, r.TaskSupport})
	}
	return table
}

func compareTables(t *testing.T, lang string, got []tableTool) {
	t.Helper()
	want := goTable(t)
	if len(got) != len(want) {
		t.Fatalf("%s lists %d tools, Go %d", lang, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s's %s differs from Go's:\n got %+v\nwant %+v", lang, want[i].Name, got[i], want[i])
		}
	}
}

func TestTypeScriptToolTableIsGos(t *testing.T) {
	node, _ := requireNode(t)
	module, _ := filepath.Abs("../generated/ts/tools.mjs")
	cmd := exec.Command(node, "--input-type=module", "-e", `import { tools } from "file://`+module+`"; process.stdout.write(JSON.stringify(tools));`)
	compareTables(t, "TypeScript", otherTable(t, "TypeScript", cmd))
}

func TestPythonToolTableIsGos(t *testing.T) {
	py := requirePython(t)
	root, _ := filepath.Abs("..")
	cmd := exec.Command(py, "-c", `import json, sys
from jobgen_vocab.tools import TOOLS
json.dump([{"name": t.name, "title": t.title or "", "description": t.description, "input": t.input, "result": t.result or "",
  "inputSchema": t.input_schema, "outputSchema": t.output_schema, "taskSupport": t.task_support,
  "annotations": {"readOnlyHint": t.annotations.read_only_hint, "destructiveHint": t.annotations.destructive_hint,
    "idempotentHint": t.annotations.idempotent_hint, "openWorldHint": t.annotations.open_world_hint}} for t in TOOLS], sys.stdout)`)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "generated/python"), "PYTHONDONTWRITEBYTECODE=1")
	compareTables(t, "Python", otherTable(t, "Python", cmd))
}
