package gen

import (
	"fmt"
	"strings"
	"testing"
)

// syntheticSpec returns a valid spec with n facts of six fields each, plus
// the records and enums they use, for measuring how generation scales.
func syntheticSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("jobgen: 1\npackage: {name: synth}\nids:\n  ThingID: {kind: uuid}\n  OwnerID: {kind: string}\n")
	b.WriteString("enums:\n  State:\n    values: {a: {}, b: {}, c: {}}\n")
	b.WriteString("records:\n  Detail:\n    fields: {note: string, size: {type: int64, optional: true}}\n")
	b.WriteString("facts:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  thing/event%d:\n    doc: A thing/event%d fact is synthetic.\n    versions:\n      v1:\n        fields:\n", i, i)
		b.WriteString("          thingId: ThingID\n          at: int64\n          owner: {type: OwnerID, optional: true}\n")
		b.WriteString("          state: State\n          detail: Detail\n          tags: \"[]string\"\n")
	}
	return []byte(b.String())
}

func BenchmarkGenerate(b *testing.B) {
	b.Run("jobs.yaml", func(b *testing.B) {
		data := readJobsSpec(b)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := Generate(jobsSpecPath, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			data := syntheticSpec(n)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Generate("synth.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGenerateAndWrite is what `jobgen generate` does for the shipped
// spec: generate, compare with the tree and write what changed.
func BenchmarkGenerateAndWrite(b *testing.B) {
	data := readJobsSpec(b)
	dir := b.TempDir()
	for b.Loop() {
		spec, err := Load(jobsSpecPath, data)
		if err != nil {
			b.Fatal(err)
		}
		tree, err := Render([]Target{{GoBackend{}, dir}}, []*Resolved{spec})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tree.Write(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSuggest is "did you mean" for 1,000 misspelt names against 1,000
// declared ones: the suggester against the naive search it must agree with.
func BenchmarkSuggest(b *testing.B) {
	var names, typos []string
	for i := range 1000 {
		names = append(names, fmt.Sprintf("Record%d", i))
		typos = append(typos, fmt.Sprintf("Recrod%dx", i))
	}
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			for _, s := range typos {
				naiveSuggest(s, names)
			}
		}
	})
	b.Run("suggester", func(b *testing.B) {
		for b.Loop() {
			g := newSuggester(names)
			for _, s := range typos {
				g.suggest(s)
			}
		}
	})
}
