package intrinsics

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// mathAdd rounds each operand like Java's Math.round and requires operands
// and sum to fit in a 32-bit int, as AWS does.
func mathAdd(args []any, _ []node) (any, error) {
	const fn = "States.MathAdd"
	var sum int64
	for _, a := range args {
		f, ok := jsonvalue.Float(a)
		if !ok {
			return nil, invalid(fn, "expected a number, got "+jsonvalue.TypeName(a))
		}
		r := javaRound(f)
		if r < math.MinInt32 || r > math.MaxInt32 {
			return nil, invalid(fn, fmt.Sprintf("%v does not fit in a 32-bit integer", a))
		}
		sum += int64(r)
	}
	if sum < math.MinInt32 || sum > math.MaxInt32 {
		return nil, invalid(fn, fmt.Sprintf("the sum %d does not fit in a 32-bit integer", sum))
	}
	return jsonvalue.Int(sum), nil
}

// mathRandom returns an integer in [start, end). With a seed it draws from
// java.util.Random, like AWS, so seeded results match AWS's.
func mathRandom(args []any, _ []node) (any, error) {
	const fn = "States.MathRandom"
	start, err := intArg(fn, args[0])
	if err != nil {
		return nil, err
	}
	end, err := intArg(fn, args[1])
	if err != nil {
		return nil, err
	}
	bound := end - start
	if bound <= 0 || bound > math.MaxInt32 {
		return nil, invalid(fn, fmt.Sprintf("start %d must be less than end %d", start, end))
	}
	if len(args) == 2 {
		return jsonvalue.Int(start + rand.Int64N(bound)), nil
	}
	f, ok := jsonvalue.Float(args[2])
	if !ok {
		return nil, invalid(fn, "the seed must be a number, got "+jsonvalue.TypeName(args[2]))
	}
	seed := int64(max(min(math.Trunc(f), math.MaxInt64), math.MinInt64))
	return jsonvalue.Int(start + int64(newJavaRandom(seed).nextInt(int32(bound)))), nil
}

// javaRandom is java.util.Random's linear congruential generator.
type javaRandom struct{ seed int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaMask       = 1<<48 - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + 0xB) & javaMask
	return int32(uint64(r.seed) >> (48 - bits))
}

func (r *javaRandom) nextInt(bound int32) int32 {
	v := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(v)) >> 31)
	}
	for u := v; ; u = r.next(31) {
		v = u % bound
		if u-v+m >= 0 {
			return v
		}
	}
}
