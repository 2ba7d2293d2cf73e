package python

import (
	"fmt"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// BenchmarkGenerateWithPython measures what the Python backend adds to
// loading the synthetic specs, as BenchmarkGenerateWithTS does for
// TypeScript: "load" is Load, the baseline; "load+python" adds Emit;
// "python" is Emit alone over a loaded spec.
func BenchmarkGenerateWithPython(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		data := gentest.SyntheticSpec(n)
		b.Run(fmt.Sprintf("facts=%d/load", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := gen.Load("synth.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("facts=%d/load+python", n), func(b *testing.B) {
			for b.Loop() {
				spec, err := gen.Load("synth.yaml", data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Emit(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("facts=%d/python", n), func(b *testing.B) {
			spec, err := gen.Load("synth.yaml", data)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Emit(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
