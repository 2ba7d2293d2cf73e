package breaking

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
)

// loadTree loads name from files, reading the specs it imports there.
func loadTree(t *testing.T, files fstest.MapFS, name string) *gen.Spec {
	t.Helper()
	r, err := gen.LoadFS(files, name, files[name].Data)
	if err != nil {
		t.Fatal(err)
	}
	return r.Spec()
}

// treeOf is a tree of three specs: app's fact holds a mid.Hop, whose field
// is a base.Owner; base itself has no fact.
func treeOf(ownerKind string) fstest.MapFS {
	return fstest.MapFS{
		"base.yaml": {Data: []byte("jobgen: 1\npackage: {name: base, path: example.com/base}\nids:\n  Owner: {kind: " + ownerKind + "}\n")},
		"mid.yaml":  {Data: []byte("jobgen: 1\npackage: {name: mid, path: example.com/mid}\nimports: {base: {spec: base.yaml}}\nrecords:\n  Hop: {fields: {owner: base.Owner}}\n")},
		"app.yaml":  {Data: []byte("jobgen: 1\npackage: {name: app, path: example.com/app}\nimports: {mid: {spec: mid.yaml}}\nfacts:\n  app/did:\n    versions:\n      v1:\n        fields: {hop: mid.Hop}\n")},
	}
}

func categories(r Report, rule gen.RuleID) string {
	for _, f := range r.Findings {
		if f.Rule == rule {
			var names []string
			for _, c := range f.Categories {
				names = append(names, string(c))
			}
			return strings.Join(names, ",")
		}
	}
	return "none"
}

// TestCompareAllReachesThroughImports: a change to a type is durable when a
// fact of any spec compared reaches it, through imports two deep, though
// no fact of the spec declaring it does.
func TestCompareAllReachesThroughImports(t *testing.T) {
	old, new := treeOf("string"), treeOf("uuid")
	var pairs []Pair
	for _, name := range []string{"base.yaml", "mid.yaml", "app.yaml"} {
		pairs = append(pairs, Pair{Old: loadTree(t, old, name), New: loadTree(t, new, name)})
	}
	if got := categories(Compare(pairs[0].Old, pairs[0].New), gen.RuleIDKindChanged); got != "goapi" {
		t.Errorf("base alone: ID_KIND_CHANGED is %s, want goapi: nothing of base reaches it", got)
	}
	reports := CompareAll(pairs)
	if got := categories(reports[0], gen.RuleIDKindChanged); got != "durable,goapi" {
		t.Errorf("base among the specs importing it: ID_KIND_CHANGED is %s, want durable,goapi: app's fact holds it through mid", got)
	}
	if len(reports[1].Findings) != 0 || len(reports[2].Findings) != 0 {
		t.Errorf("mid and app changed nothing: %v %v", reports[1].Findings, reports[2].Findings)
	}
}

func TestCompareAllNewAndDeletedSpecs(t *testing.T) {
	tree := treeOf("string")
	app := loadTree(t, tree, "app.yaml")
	reports := CompareAll([]Pair{{Old: nil, New: app}, {Old: app, New: nil}})
	if len(reports[0].Findings) != 0 {
		t.Errorf("a new spec: %v, want nothing to compare", reports[0].Findings)
	}
	if got := categories(reports[1], gen.RuleFactDeleted); got != "durable" {
		t.Errorf("a deleted spec: FACT_DELETED is %s, want durable: its history no longer decodes (%v)", got, reports[1].Findings)
	}
}
