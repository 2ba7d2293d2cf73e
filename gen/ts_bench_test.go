package gen

import (
	"fmt"
	"testing"
)

// BenchmarkGenerateWithTS measures what the TypeScript backend adds to
// generation on the synthetic specs: "go" is Parse and Emit, the baseline;
// "go+ts" adds EmitTS; "ts" is EmitTS alone over a parsed spec.
func BenchmarkGenerateWithTS(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		data := syntheticSpec(n)
		b.Run(fmt.Sprintf("facts=%d/go", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Generate("synth.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("facts=%d/go+ts", n), func(b *testing.B) {
			for b.Loop() {
				spec, err := Load("synth.yaml", data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Emit(spec); err != nil {
					b.Fatal(err)
				}
				if _, err := EmitTS(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("facts=%d/ts", n), func(b *testing.B) {
			spec, err := Load("synth.yaml", data)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := EmitTS(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
