package js

import "strings"

// String is a string as JavaScript's string methods index it, one
// element a character, with JavaScript's clamping of out-of-range
// indexes. JavaScript counts UTF-16 code units; String counts code
// points, which differs only outside the Basic Multilingual Plane.
type String []rune

// String is s as a Go string.
func (s String) String() string { return string(s) }

// IndexOf is s.indexOf(sub, from): the first index at or after from
// where sub starts, or -1.
func (s String) IndexOf(sub String, from int) int {
	from = min(max(from, 0), len(s))
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i : i+len(sub)].Equal(sub) {
			return i
		}
	}
	return -1
}

// LastIndexOf is s.lastIndexOf(sub): the last index where sub starts, or
// -1.
func (s String) LastIndexOf(sub String) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i : i+len(sub)].Equal(sub) {
			return i
		}
	}
	return -1
}

// Contains is s.includes(sub).
func (s String) Contains(sub String) bool { return s.IndexOf(sub, 0) >= 0 }

// Equal is s === t.
func (s String) Equal(t String) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Substring is s.substring(start, end): both clamped to [0, len], swapped
// when start > end.
func (s String) Substring(start, end int) String {
	start, end = min(max(start, 0), len(s)), min(max(end, 0), len(s))
	if start > end {
		start, end = end, start
	}
	return s[start:end]
}

// Substr is s.substr(start, length): a negative start counts from the
// end; a negative length is 0.
func (s String) Substr(start, length int) String {
	if start < 0 {
		start = max(len(s)+start, 0)
	}
	start = min(start, len(s))
	return s[start : start+min(max(length, 0), len(s)-start)]
}

// Slice is s.slice(start, end): negative indexes count from the end.
func (s String) Slice(start, end int) String {
	fix := func(i int) int {
		if i < 0 {
			return max(len(s)+i, 0)
		}
		return min(i, len(s))
	}
	start, end = fix(start), fix(end)
	if start >= end {
		return nil
	}
	return s[start:end]
}

// CharAt is s.charAt(i): empty outside the string.
func (s String) CharAt(i int) String {
	if i < 0 || i >= len(s) {
		return nil
	}
	return s[i : i+1]
}

// Split is s.split(sep); an empty separator splits into characters.
func (s String) Split(sep String) []String {
	if len(sep) == 0 {
		out := make([]String, len(s))
		for i := range s {
			out[i] = s[i : i+1]
		}
		return out
	}
	var out []String
	start := 0
	for {
		i := s.IndexOf(sep, start)
		if i < 0 {
			return append(out, s[start:])
		}
		out = append(out, s[start:i])
		start = i + len(sep)
	}
}

// Repeat is s.repeat(n), empty for n <= 0 (where JavaScript throws for a
// negative n).
func (s String) Repeat(n int) String {
	if n <= 0 {
		return nil
	}
	return String(strings.Repeat(s.String(), n))
}

// Concat is parts[0] + parts[1] + …, always a new String.
func Concat(parts ...String) String {
	var out String
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
