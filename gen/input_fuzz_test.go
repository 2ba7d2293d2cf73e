package gen

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"
)

// naiveAdded follows every alias for real, as a loader that knew no budget
// would, and returns how many nodes the aliases add, stopping past limit;
// cycle reports an alias met again inside its own expansion.
func naiveAdded(root *yaml.Node, limit int) (added int, cycle bool) {
	var visit func(n *yaml.Node, inside map[*yaml.Node]bool, viaAlias bool) bool
	visit = func(n *yaml.Node, inside map[*yaml.Node]bool, viaAlias bool) bool {
		if added > limit || cycle {
			return false
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return true
			}
			if inside[n.Alias] {
				cycle = true
				return false
			}
			return visit(n.Alias, inside, true)
		}
		if viaAlias {
			added++
		}
		inside[n] = true
		defer delete(inside, n)
		for _, c := range n.Content {
			if !visit(c, inside, viaAlias) {
				return false
			}
		}
		return true
	}
	visit(root, map[*yaml.Node]bool{}, false)
	// An alias node itself is written out; what it adds is its expansion
	// less the one node it replaces.
	var aliases func(n *yaml.Node)
	aliases = func(n *yaml.Node) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			added--
		}
		for _, c := range n.Content {
			aliases(c)
		}
	}
	if !cycle && added <= limit {
		aliases(root)
	}
	return added, cycle
}

// FuzzLoadAliases feeds the loader specs full of anchors and aliases. The
// loader must never panic and must return a model or positioned errors; and
// the alias budget, computed once per node, must refuse exactly the specs
// whose aliases, followed for real, add more nodes than the budget or
// never end.
func FuzzLoadAliases(f *testing.F) {
	for _, seed := range []string{
		aliasBomb(3),
		aliasBomb(120),
		"jobgen: 1\npackage: {name: p}\nrecords: &x {A: *x}\n",
		"jobgen: 1\npackage: {name: p}\na: &a [x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b, *b]\n",
		"jobgen: 1\npackage: &p {name: p}\nrecords:\n  A: {fields: &f {a: string, b: &t int64}}\n  B: {fields: *f}\n  C: {fields: {c: *t}}\n",
		"jobgen: 1\npackage: {name: p}\nenums:\n  E: {values: &v {a: {}, b: {}}}\n  F: {values: *v}\nfaces:\n  X: {methods: {M: &m \"func()\"}}\n  Y: {embeds: [X], methods: {N: *m}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		loadFuzzed(t, data, true)
		if checkText("fuzz.yaml", data) != nil {
			return
		}
		var doc yaml.Node
		if yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc) != nil || len(doc.Content) == 0 {
			return
		}
		root := doc.Content[0]
		budget := max(minAliasBudget, countNodes(root))
		added, cycle := naiveAdded(root, budget)
		refused := checkAliases("fuzz.yaml", root)
		want := cycle || added > budget
		if (len(refused) > 0) != want {
			t.Fatalf("checkAliases refused=%v (%v), but following the aliases adds %d nodes (budget %d, cycle %v)", len(refused) > 0, refused, added, budget, cycle)
		}
		if len(refused) > 0 && !strings.Contains(refused[0].Msg, "YAML alias *") {
			t.Fatalf("refusal does not name the alias: %v", refused[0])
		}
	})
}

// loadFuzzed loads data as the spec fuzz.yaml and fails t unless the loader
// returns exactly one of a spec and an error, the error a non-empty
// ErrorList whose every error is in fuzz.yaml at a line from 1 (and, with
// col, a column from 1).
func loadFuzzed(t *testing.T, data []byte, col bool) (*Resolved, error) {
	t.Helper()
	spec, err := LoadFS(fstest.MapFS{}, "fuzz.yaml", data)
	if (spec == nil) == (err == nil) {
		t.Fatalf("LoadFS returned spec=%v err=%v; want exactly one", spec != nil, err)
	}
	if err != nil {
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a non-empty ErrorList: %v", err)
		}
		for _, e := range list {
			if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 || (col && e.Pos.Col < 1) {
				t.Fatalf("error without a position: %v", e)
			}
		}
	}
	return spec, err
}
