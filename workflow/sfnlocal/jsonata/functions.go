package jsonata

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	mathrand "math/rand/v2"
	"reflect"
	"slices"
	"strconv"

	lib "github.com/blues/jsonata-go"
	"github.com/blues/jsonata-go/jlib"
	"github.com/blues/jsonata-go/jtypes"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// stepFunctions are the functions Step Functions adds to JSONata. $random
// replaces JSONata's own, which takes no seed. Each takes its arguments
// as reflect.Values so it sees undefined ones (invalid Values) and can
// fail the way AWS does rather than with the library's generic errors.
var stepFunctions = map[string]lib.Extension{
	"partition": {Func: libFunc("partition", partition)},
	"range":     {Func: libFunc("range", rangeOf)},
	"hash":      {Func: libFunc("hash", hashOf)},
	"random":    {Func: libFunc("random", random)},
	"uuid":      {Func: libFunc("uuid", uuid)},
	"parse":     {Func: libFunc("parse", parse)},
	// Go maps have no order, so the library's $keys answers in a new
	// order on every call; sorted is at least the same every time.
	"keys": {Func: sortedKeys, UndefinedHandler: jtypes.ArgUndefined(0), EvalContextHandler: jtypes.ArgCountEquals(0)},
}

// undefined is what a function returns for "no value".
var undefined = errors.New("undefined")

// libFunc adapts fn, which works on engine JSON values (nil for an
// undefined argument is told apart by the defined flags), to the library.
func libFunc(name string, fn func(args []arg) (any, error)) func(...reflect.Value) (any, error) {
	return func(values ...reflect.Value) (any, error) {
		args := make([]arg, len(values))
		for i, v := range values {
			x, ok, err := fromLib(v, nil)
			if err != nil {
				return nil, signatureError(name, i+1)
			}
			args[i] = arg{x, ok}
		}
		out, err := fn(args)
		if errors.Is(err, undefined) {
			return nil, jtypes.ErrUndefined
		}
		if err != nil {
			return nil, err
		}
		return toLib(out, nil)
	}
}

// arg is one argument: its value and whether it was defined.
type arg struct {
	value   any
	defined bool
}

func argAt(args []arg, i int) arg {
	if i < len(args) {
		return args[i]
	}
	return arg{}
}

func tooMany(name string, args []arg, max int) error {
	if len(args) > max {
		return signatureError(name, max+1)
	}
	return nil
}

// integer reads a numeric argument, truncated towards zero as AWS does.
func integer(name string, a arg, position int) (int64, error) {
	n, ok := a.value.(json.Number)
	if !a.defined || !ok {
		return 0, signatureError(name, position)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) >= math.MaxInt64 {
		return 0, signatureError(name, position)
	}
	return int64(f), nil
}

// partition implements $partition(array, size): the array in chunks of
// size, the last holding the remainder.
func partition(args []arg) (any, error) {
	if err := tooMany("partition", args, 2); err != nil {
		return nil, err
	}
	a := argAt(args, 0)
	if !a.defined {
		return nil, undefined
	}
	array, ok := a.value.([]any)
	if !ok {
		return nil, signatureError("partition", 1)
	}
	if len(array) == 0 {
		return nil, undefined
	}
	if !argAt(args, 1).defined {
		return []any{array}, nil
	}
	size, err := integer("partition", argAt(args, 1), 2)
	if err != nil {
		return nil, err
	}
	switch {
	case size < 0:
		return nil, &codedError{"D3137", "Second argument must be zero or greater"}
	case size == 0:
		return nil, undefined
	}
	chunks := make([]any, 0, (int64(len(array))+size-1)/size)
	for start := int64(0); start < int64(len(array)); start += size {
		end := min(start+size, int64(len(array)))
		chunks = append(chunks, append([]any(nil), array[start:end]...))
	}
	return chunks, nil
}

// maxRange is the largest array $range builds, the limit JSONata puts on
// its own range operator.
const maxRange = 10_000_000

// rangeOf implements $range(start, end, step): start, start+step, … up to
// and including end.
func rangeOf(args []arg) (any, error) {
	if err := tooMany("range", args, 3); err != nil {
		return nil, err
	}
	start, err := integer("range", argAt(args, 0), 1)
	if err != nil {
		return nil, err
	}
	end, err := integer("range", argAt(args, 1), 2)
	if err != nil {
		return nil, err
	}
	if !argAt(args, 2).defined {
		return nil, undefined
	}
	step, err := integer("range", argAt(args, 2), 3)
	if err != nil {
		return nil, err
	}
	if step == 0 || (step > 0 && start > end) || (step < 0 && start < end) {
		return nil, undefined
	}
	count := (float64(end)-float64(start))/float64(step) + 1
	if count > maxRange {
		return nil, &codedError{"D2014", fmt.Sprintf("The size of the sequence allocated by $range must not exceed %d. Attempted to allocate %.0f.", maxRange, math.Floor(count))}
	}
	out := make([]any, 0, int(count))
	for i := range int64(count) {
		out = append(out, json.Number(strconv.FormatInt(start+i*step, 10)))
	}
	if len(out) == 1 {
		return out[0], nil // a sequence of one is its only value, as on AWS
	}
	return out, nil
}

// hashes are the algorithms $hash accepts, named as AWS names them.
var hashes = map[string]func() hash.Hash{
	"MD5": md5.New, "SHA-1": sha1.New, "SHA-256": sha256.New, "SHA-384": sha512.New384, "SHA-512": sha512.New,
}

// hashOf implements $hash(value, algorithm): the hex digest of a string.
func hashOf(args []arg) (any, error) {
	if err := tooMany("hash", args, 2); err != nil {
		return nil, err
	}
	value, ok := argAt(args, 0).value.(string)
	if !ok {
		return nil, signatureError("hash", 1)
	}
	a := argAt(args, 1)
	if !a.defined {
		return nil, undefined
	}
	algorithm, ok := a.value.(string)
	if !ok {
		return nil, signatureError("hash", 2)
	}
	newHash, ok := hashes[algorithm]
	if !ok {
		return nil, &codedError{"D3137", fmt.Sprintf("Hash algorithm '%s' must be one of SHA-1, SHA-384, SHA-256, SHA-512, MD5", algorithm)}
	}
	h := newHash()
	io.WriteString(h, value)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// random implements $random([seed]): a number in [0, 1). With a seed it
// is the first nextDouble of java.util.Random, which is what AWS returns
// ($random(42) is 0.7275636800328681).
func random(args []arg) (any, error) {
	if err := tooMany("random", args, 1); err != nil {
		return nil, err
	}
	if !argAt(args, 0).defined {
		return number(mathrand.Float64())
	}
	seed, err := integer("random", argAt(args, 0), 1)
	if err != nil {
		return nil, err
	}
	return number(javaRandom(seed))
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
func uuid(args []arg) (any, error) {
	if err := tooMany("uuid", args, 0); err != nil {
		return nil, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// sortedKeys is JSONata's $keys with the keys sorted.
func sortedKeys(obj reflect.Value) (any, error) {
	keys, err := jlib.Keys(obj)
	if names, ok := keys.([]string); ok {
		names = slices.Clone(names)
		slices.Sort(names)
		return names, err
	}
	return keys, err
}

// parse implements $parse(json): the value a JSON string holds, which is
// what AWS offers in place of $eval.
func parse(args []arg) (any, error) {
	if err := tooMany("parse", args, 1); err != nil {
		return nil, err
	}
	a := argAt(args, 0)
	if !a.defined {
		return nil, undefined
	}
	text, ok := a.value.(string)
	if !ok {
		return nil, signatureError("parse", 1)
	}
	v, err := jsonvalue.Decode([]byte(text))
	if err != nil {
		return nil, &codedError{"D3137", "Invalid JSON"}
	}
	return v, nil
}
