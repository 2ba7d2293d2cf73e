package registry

import (
	"strings"
	"testing"
)

// isASCII finds a byte above 0x7f wherever it sits: in a 32-byte step, an
// 8-byte step or the tail, for every length up to 100.
func TestIsASCIIFindsEveryHighByte(t *testing.T) {
	for n := range 101 {
		b := []byte(strings.Repeat("a", n))
		if !isASCII(string(b)) {
			t.Fatalf("%d ASCII bytes reported not ASCII", n)
		}
		for i := range n {
			b[i] = 0x80
			if isASCII(string(b)) {
				t.Fatalf("length %d: the high byte at %d was missed", n, i)
			}
			b[i] = 0x7f
		}
	}
}
