package jsonata

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"math"

	lang "github.com/sfnapprovals/approvals/jsonata"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// library is the function library of every evaluation: JSONata's, with
// the functions Step Functions adds ($random replaces JSONata's own, which
// takes no seed) and without $eval.
var library = lang.NewLibrary([]*lang.Builtin{
	{Name: "partition", Signature: "<xn?:a>", Impl: partition},
	{Name: "range", Signature: "<nnn?:x>", Impl: rangeOf},
	{Name: "hash", Signature: "<ss?:s>", Impl: hashOf},
	{Name: "random", Signature: "<n?:n>", Impl: random},
	{Name: "uuid", Signature: "<:s>", Impl: uuid},
	{Name: "parse", Signature: "<s?:x>", Impl: parse},
}, "eval")

// integer reads a numeric argument (1-based position), truncated towards
// zero as AWS does; a missing one does not match the signature.
func integer(c *lang.Call, v any, position int) (int64, error) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.Abs(f) >= math.MaxInt64 {
		return 0, signatureError(c, position)
	}
	return int64(f), nil
}

// partition implements $partition(array, size): the array in chunks of
// size, the last holding the remainder.
func partition(c *lang.Call, args []any) (any, error) {
	if lang.IsUndefined(args[0]) {
		return lang.Undefined, nil
	}
	array, ok := args[0].([]any)
	if !ok {
		return nil, signatureError(c, 1)
	}
	if len(array) == 0 {
		return lang.Undefined, nil
	}
	if lang.IsUndefined(args[1]) {
		return []any{append([]any(nil), array...)}, nil
	}
	size, err := integer(c, args[1], 2)
	if err != nil {
		return nil, err
	}
	switch {
	case size < 0:
		return nil, functionError(c, "D3137", "Second argument must be zero or greater")
	case size == 0:
		return lang.Undefined, nil
	}
	n := int64(len(array))
	chunks := make([]any, 0, (n+size-1)/size)
	for start := int64(0); start < n; start += size {
		if err := c.Tick(int(min(size, n))); err != nil {
			return nil, err
		}
		// Each chunk is a new array: the evaluator tells arrays apart by
		// where they start, so a chunk must not begin inside array.
		chunks = append(chunks, append([]any(nil), array[start:min(start+size, n)]...))
	}
	return chunks, nil
}

// ticks is how many members a loop builds between two calls of
// lang.Call.Tick, which stops it once the evaluation is stopped.
const ticks = 1 << 14

// maxRange is the largest array $range builds.
const maxRange = 10_000_000

// rangeOf implements $range(start, end, step): start, start+step, … up to
// and including end. A range of one number is that number.
func rangeOf(c *lang.Call, args []any) (any, error) {
	start, err := integer(c, args[0], 1)
	if err != nil {
		return nil, err
	}
	end, err := integer(c, args[1], 2)
	if err != nil {
		return nil, err
	}
	if lang.IsUndefined(args[2]) {
		return lang.Undefined, nil
	}
	step, err := integer(c, args[2], 3)
	if err != nil {
		return nil, err
	}
	if step == 0 || (step > 0 && start > end) || (step < 0 && start < end) {
		return lang.Undefined, nil
	}
	count := (float64(end)-float64(start))/float64(step) + 1
	if count > maxRange {
		return nil, functionError(c, "D2014", "The size of the sequence allocated by $range must not exceed %d. Attempted to allocate %.0f.", maxRange, math.Floor(count))
	}
	out := make([]any, int64(count))
	for i := range out {
		if i%ticks == 0 {
			if err := c.Tick(ticks); err != nil {
				return nil, err
			}
		}
		out[i] = float64(start + int64(i)*step)
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return out, nil
}

// hashes are the algorithms $hash accepts, named as AWS names them.
var hashes = map[string]func() hash.Hash{
	"MD5": md5.New, "SHA-1": sha1.New, "SHA-256": sha256.New, "SHA-384": sha512.New384, "SHA-512": sha512.New,
}

// hashOf implements $hash(value, algorithm): the hex digest of a string.
func hashOf(c *lang.Call, args []any) (any, error) {
	value, ok := args[0].(string)
	if !ok {
		return nil, signatureError(c, 1)
	}
	if lang.IsUndefined(args[1]) {
		return lang.Undefined, nil
	}
	algorithm := args[1].(string)
	newHash, ok := hashes[algorithm]
	if !ok {
		return nil, functionError(c, "D3137", "Hash algorithm '%s' must be one of SHA-1, SHA-384, SHA-256, SHA-512, MD5", algorithm)
	}
	h := newHash()
	io.WriteString(h, value)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// parse implements $parse(json): the value a JSON string holds, which is
// what AWS offers in place of $eval.
func parse(c *lang.Call, args []any) (any, error) {
	if lang.IsUndefined(args[0]) {
		return lang.Undefined, nil
	}
	v, err := jsonvalue.Decode([]byte(args[0].(string)))
	if err == nil {
		v, err = toLang(v)
	}
	if err != nil {
		return nil, functionError(c, "D3137", "Invalid JSON")
	}
	return v, nil
}
