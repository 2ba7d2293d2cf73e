package spec_test

// A field's bounds (decision 0208) are refused alike by every decoder: the
// tool arguments spec/tools.yaml bounds by its defaults, at the bound and
// one past it, through Go's generated decoder, the TypeScript module and
// the Python one.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/tools"
)

// A boundDocument is a document of a bounded tool argument, and whether it
// is within the bound.
type boundDocument struct {
	typ, doc string
	ok       bool
}

// boundDocuments are the arguments of job_output and job_wait at their
// bounds (maxOutputBytes, maxWaitTimeout in seconds) and past them.
func boundDocuments() []boundDocument {
	id := `"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"`
	out := func(n int) string { return fmt.Sprintf(`{%s,"maxBytes":%d}`, id, n) }
	wait := func(n int) string { return fmt.Sprintf(`{%s,"timeoutSeconds":%d}`, id, n) }
	maxWait := int(tools.DefaultMaxWaitTimeout.Seconds())
	return []boundDocument{
		{"JobOutput", out(0), true},
		{"JobOutput", out(tools.DefaultMaxOutputBytes), true},
		{"JobOutput", out(tools.DefaultMaxOutputBytes + 1), false},
		{"JobOutput", out(1 << 31), false},
		{"JobWait", wait(maxWait), true},
		{"JobWait", wait(maxWait + 1), false},
	}
}

// decodeTool decodes doc as the tools record typ with Go's generated
// decoder.
func decodeTool(typ, doc string) error {
	switch typ {
	case "JobOutput":
		return json.Unmarshal([]byte(doc), new(tools.JobOutput))
	case "JobWait":
		return json.Unmarshal([]byte(doc), new(tools.JobWait))
	}
	return fmt.Errorf("no decoder for %s", typ)
}

// checkBounds holds the answers of another language's decoders to
// boundDocuments against Go's: each accepted or refused alike, a refusal
// of kind invalidValue at the bounded field.
func checkBounds(t *testing.T, lang string, answers []tsAnswer) {
	t.Helper()
	for i, b := range boundDocuments() {
		goErr, a := decodeTool(b.typ, b.doc), answers[i]
		switch {
		case (goErr == nil) != b.ok:
			t.Errorf("Go decodes %s %s with %v, want ok = %v", b.typ, b.doc, goErr, b.ok)
		case a.OK != b.ok:
			t.Errorf("%s decodes %s %s: %+v, want ok = %v", lang, b.typ, b.doc, a, b.ok)
		case !b.ok && (a.Kind != "invalidValue" || !strings.HasPrefix(a.Path, "$.") || a.Path == "$.jobId"):
			t.Errorf("%s refuses %s %s with %s at %s (%s), want invalidValue at the bounded field", lang, b.typ, b.doc, a.Kind, a.Path, a.Msg)
		case !b.ok && !strings.Contains(goErr.Error(), "above its maximum"):
			t.Errorf("Go refuses %s with %v, which does not name the bound", b.doc, goErr)
		}
	}
}

func TestBoundsAreRefusedAlikeInTypeScript(t *testing.T) {
	send := harness(t, "tools")
	var reqs []tsRequest
	for _, b := range boundDocuments() {
		reqs = append(reqs, tsRequest{Type: b.typ, Doc: json.RawMessage(b.doc)})
	}
	checkBounds(t, "TypeScript", send(reqs))
}

func TestBoundsAreRefusedAlikeInPython(t *testing.T) {
	send := pyHarness(t, "tools")
	var reqs []pyRequest
	for _, b := range boundDocuments() {
		reqs = append(reqs, pyRequest{typ: b.typ, doc: []byte(b.doc)})
	}
	checkBounds(t, "Python", send(reqs))
}
