package js

import (
	"sort"
	"strconv"
)

// KeyOrder orders object keys as JavaScript enumerates them: array-index
// keys ("0", "17", up to 2^32-2) first in ascending order, then the
// others in insertion order. keys is left as it is (and returned when it
// needs no reordering).
func KeyOrder(keys []string) []string {
	var ints, rest []string
	for _, k := range keys {
		if isArrayIndex(k) {
			ints = append(ints, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(ints) == 0 {
		return keys
	}
	sort.Slice(ints, func(i, j int) bool {
		a, _ := strconv.ParseUint(ints[i], 10, 64)
		b, _ := strconv.ParseUint(ints[j], 10, 64)
		return a < b
	})
	return append(ints, rest...)
}

// ArrayIndex returns the array index a property name k denotes, and
// false when k names an ordinary property.
func ArrayIndex(k string) (uint64, bool) {
	if !isArrayIndex(k) {
		return 0, false
	}
	n, _ := strconv.ParseUint(k, 10, 64)
	return n, true
}

// isArrayIndex reports whether k is the canonical text of an integer in
// [0, 2^32-2], which JavaScript objects order before other keys.
func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (k[0] == '0' && k != "0") {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}
