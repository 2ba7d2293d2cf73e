package golang

import (
	"fmt"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

func BenchmarkGenerate(b *testing.B) {
	b.Run("jobs.yaml", func(b *testing.B) {
		data := gentest.ReadJobsSpec(b)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := Generate(gentest.JobsSpecPath(), data); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			data := gentest.SyntheticSpec(n)
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
	data := gentest.ReadJobsSpec(b)
	dir := b.TempDir()
	for b.Loop() {
		spec, err := gen.Load(gentest.JobsSpecPath(), data)
		if err != nil {
			b.Fatal(err)
		}
		tree, err := gen.Render([]gen.Target{{Backend: Backend{}, Root: dir}}, []*gen.Resolved{spec})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tree.Write(); err != nil {
			b.Fatal(err)
		}
	}
}
