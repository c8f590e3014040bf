package jsonpath

import (
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// equal is JSON value equality: numbers by value (1 == 1.0), objects by
// content whatever their member order.
func equal(a, b any) bool { return jsonvalue.Equal(a, b) }

// compare orders two numbers or two strings.
func compare(a, b any) (int, bool) {
	if c, ok := jsonvalue.CompareNumbers(a, b); ok {
		return c, true
	}
	x, ok := a.(string)
	y, ok2 := b.(string)
	if !ok || !ok2 {
		return 0, false
	}
	return strings.Compare(x, y), true
}
