package golang

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestGeneratedDecodersRefuseWhatIsBeyondABound runs the golden output of
// the tools-table case over gentest.BoundDocuments, the table every
// backend's decoders are held to (decision 0208): each record's
// UnmarshalJSON and DecodeFact's one-pass decoder take a value at its
// bound and refuse one past it, naming the field, and count a string's
// characters as runes.
func TestGeneratedDecodersRefuseWhatIsBeyondABound(t *testing.T) {
	goBin, scratch := goldenModule(t)
	table, err := json.Marshal(gentest.BoundDocuments())
	if err != nil {
		t.Fatal(err)
	}
	gentest.WriteFile(t, filepath.Join(scratch, "tools-table", "waiter", "bounds_test.go"), []byte(`package waiter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"goldencompile/tools-table/waiter"
)

func TestBounds(t *testing.T) {
	var docs []struct {
		Type string
		Doc  json.RawMessage
		OK   bool
	}
	if err := json.Unmarshal([]byte(`+strconv.Quote(string(table))+`), &docs); err != nil {
		t.Fatal(err)
	}
	decode := map[string]func([]byte) error{
		"ListOrders":   func(b []byte) error { return json.Unmarshal(b, new(waiter.ListOrders)) },
		"CookOrder":    func(b []byte) error { return json.Unmarshal(b, new(waiter.CookOrder)) },
		"Order":        func(b []byte) error { return json.Unmarshal(b, new(waiter.Order)) },
		"FactEnvelope": func(b []byte) error { _, err := waiter.DecodeFact(b); return err },
	}
	for _, d := range docs {
		err := decode[d.Type](d.Doc)
		switch {
		case (err == nil) != d.OK:
			t.Errorf("%s %s: %v, want ok = %v", d.Type, d.Doc, err, d.OK)
		case err != nil && !strings.Contains(err.Error(), "maximum") && !strings.Contains(err.Error(), "minimum"):
			t.Errorf("%s %s: %v names no bound", d.Type, d.Doc, err)
		}
	}
}
`))
	cmd := exec.Command(goBin, "test", "./tools-table/waiter")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated decoders over the bound documents: %v\n%s", err, out)
	}
}
