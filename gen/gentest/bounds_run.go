package gentest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// A BoundAnswer is what another language's decoder made of a
// BoundDocument: whether it took it, and the kind and path of a refusal.
type BoundAnswer struct {
	OK   bool   `json:"ok"`
	Kind string `json:"kind"`
	Path string `json:"path"`
	Msg  string `json:"msg"`
}

// CheckBounds runs cmd, a script over another language's decoders of the
// tools-table case, with BoundDocuments on its stdin as a JSON list of
// {type, text}, and holds its answers to Go's: each document taken or
// refused alike, a refusal of kind invalidValue below the document's root.
func CheckBounds(t *testing.T, lang string, cmd *exec.Cmd) {
	t.Helper()
	type request struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	docs := BoundDocuments()
	var reqs []request
	for _, d := range docs {
		reqs = append(reqs, request{d.Type, string(d.Doc)})
	}
	in, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s over the bound documents: %v\n%s", lang, err, stderr.String())
	}
	var answers []BoundAnswer
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(docs) {
		t.Fatalf("%s answered %d of %d documents (%v):\n%s", lang, len(answers), len(docs), err, out)
	}
	for i, d := range docs {
		switch a := answers[i]; {
		case a.OK != d.OK:
			t.Errorf("%s: %s %s: %+v, want ok = %v as Go", lang, d.Type, d.Doc, a, d.OK)
		case !a.OK && (a.Kind != "invalidValue" || len(a.Path) < 3):
			t.Errorf("%s: %s %s refused with %s at %q (%s), want invalidValue at the bounded field", lang, d.Type, d.Doc, a.Kind, a.Path, a.Msg)
		}
	}
}
