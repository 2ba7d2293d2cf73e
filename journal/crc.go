package journal

import "hash/crc32"

// Shifting a CRC-32C over zero bytes without reading them, as zlib's
// crc32_combine does: recovery checks every candidate record inside a long
// damaged line, and each candidate's fact runs to the end of the line, so it
// takes the checksum of each suffix from checksums of prefixes, at O(log n)
// per candidate rather than O(n).

const castagnoliReflected = 0x82f63b78

// multModP multiplies a and b modulo the Castagnoli polynomial, both in the
// reflected bit order of the CRC.
func multModP(a, b uint32) uint32 {
	m := uint32(1) << 31
	var p uint32
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				break
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ castagnoliReflected
		} else {
			b >>= 1
		}
	}
	return p
}

// x2nTable[k] is x^(2^k) modulo the polynomial.
var x2nTable = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for n := 1; n < 32; n++ {
		p = multModP(p, p)
		t[n] = p
	}
	return t
}()

// shiftBytes is x^(8n) modulo the polynomial.
func shiftBytes(n int) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; k++ {
		if n&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		n >>= 1
	}
	return p
}

// suffixCRC returns the CRC-32C of b[i:], given whole, the CRC-32C of b,
// and prefix, the CRC-32C of b[:i].
func suffixCRC(whole, prefix uint32, suffixLen int) uint32 {
	return whole ^ multModP(shiftBytes(suffixLen), prefix)
}

// A prefixCRCs computes the CRC-32C of growing prefixes of one buffer in a
// single pass.
type prefixCRCs struct {
	b   []byte
	at  int
	crc uint32
}

// upTo returns the CRC-32C of b[:i]; i never decreases between calls.
func (p *prefixCRCs) upTo(i int) uint32 {
	p.crc = crc32.Update(p.crc, castagnoli, p.b[p.at:i])
	p.at = i
	return p.crc
}
