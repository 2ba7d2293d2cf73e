package breaking

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// TestWhatARouteCarriesIsWire: a required field added to a record only a
// route's body carries, or to one only its events carry through a list,
// breaks old clients: REQUIRED_FIELD_ADDED in the wire category, as for a
// record a union reaches.
func TestWhatARouteCarriesIsWire(t *testing.T) {
	oldData, err := os.ReadFile("testdata/cases/ROUTE_ADDED/old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old, err := gen.LoadFS(nil, "old.yaml", oldData)
	if err != nil {
		t.Fatal(err)
	}
	newText := strings.Replace(string(oldData), "Note: {fields: {text: {type: string, optional: true}}}", "Note: {fields: {text: {type: string, optional: true}, by: string}}", 1)
	newText = strings.Replace(newText, "Order: {fields: {id: OrderID, size: Size}}", "Order: {fields: {id: OrderID, size: Size, total: int64}}", 1)
	new, err := gen.LoadFS(nil, "new.yaml", []byte(newText))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]gen.Category{}
	for _, f := range Compare(old.Spec(), new.Spec()).Findings {
		if f.Rule == gen.RuleRequiredFieldAdded {
			found[f.Path] = f.Categories
		}
	}
	for _, path := range []string{"records.Note.fields.by", "records.Order.fields.total"} {
		if !slices.Contains(found[path], gen.Wire) {
			t.Errorf("%s: REQUIRED_FIELD_ADDED in %v, want it in wire (found %v)", path, found[path], found)
		}
	}
}
