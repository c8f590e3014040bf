package lang

// JavaScript string operations on rune slices, with JavaScript's index
// clamping, for the picture-string code that depends on it. (JavaScript
// counts UTF-16 code units; pictures outside the Basic Multilingual Plane
// are counted in code points here.)

type jsStr []rune

func (s jsStr) String() string { return string(s) }

// indexOf is s.indexOf(sub, from).
func (s jsStr) indexOf(sub jsStr, from int) int {
	from = min(max(from, 0), len(s))
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i : i+len(sub)].equal(sub) {
			return i
		}
	}
	return -1
}

// lastIndexOf is s.lastIndexOf(sub).
func (s jsStr) lastIndexOf(sub jsStr) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i : i+len(sub)].equal(sub) {
			return i
		}
	}
	return -1
}

func (s jsStr) contains(sub jsStr) bool { return s.indexOf(sub, 0) >= 0 }

func (s jsStr) equal(t jsStr) bool {
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

// substring is s.substring(start, end): both clamped to [0, len], swapped
// when start > end.
func (s jsStr) substring(start, end int) jsStr {
	start, end = min(max(start, 0), len(s)), min(max(end, 0), len(s))
	if start > end {
		start, end = end, start
	}
	return s[start:end]
}

// slice is s.slice(start, end): negative indexes count from the end.
func (s jsStr) slice(start, end int) jsStr {
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

// charAt is s.charAt(i) ("" outside the string).
func (s jsStr) charAt(i int) jsStr {
	if i < 0 || i >= len(s) {
		return nil
	}
	return s[i : i+1]
}

// split is s.split(sep); an empty separator splits into characters.
func (s jsStr) split(sep jsStr) []jsStr {
	if len(sep) == 0 {
		out := make([]jsStr, len(s))
		for i := range s {
			out[i] = s[i : i+1]
		}
		return out
	}
	var out []jsStr
	start := 0
	for {
		i := s.indexOf(sep, start)
		if i < 0 {
			return append(out, s[start:])
		}
		out = append(out, s[start:i])
		start = i + len(sep)
	}
}

func jsConcat(parts ...jsStr) jsStr {
	var out jsStr
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
