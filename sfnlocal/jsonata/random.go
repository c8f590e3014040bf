package jsonata

import (
	"crypto/rand"
	"encoding/hex"

	lang "github.com/sfnapprovals/approvals/jsonata"
)

// random implements $random([seed]): a number in [0, 1). With a seed it
// is the first nextDouble of java.util.Random, which is what AWS returns
// ($random(42) is 0.7275636800328681); without one it comes from the
// evaluation's source.
func random(c *lang.Call, args []any) (any, error) {
	if lang.IsUndefined(args[0]) {
		return c.Random(), nil
	}
	seed, err := integer(c, args[0], 1)
	if err != nil {
		return nil, err
	}
	return javaRandom(seed), nil
}

// javaRandom is new java.util.Random(seed).nextDouble().
func javaRandom(seed int64) float64 {
	const multiplier, addend, mask = 0x5DEECE66D, 0xB, 1<<48 - 1
	s := (seed ^ multiplier) & mask
	next := func(bits uint) int64 {
		s = (s*multiplier + addend) & mask
		return s >> (48 - bits)
	}
	high := next(26)
	return float64(high<<27+next(27)) / (1 << 53)
}

// uuid implements $uuid(): a random version 4 UUID.
func uuid(*lang.Call, []any) (any, error) {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}
