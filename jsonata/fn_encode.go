package jsonata

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// fnBase64Encode is $base64encode(str). As in jsonata-js (Node's
// "binary" encoding), each UTF-16 code unit of str is one byte: its low
// eight bits.
func fnBase64Encode(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	units := utf16.Encode([]rune(s))
	raw := make([]byte, len(units))
	for i, u := range units {
		raw[i] = byte(u)
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// fnBase64Decode is $base64decode(str), as leniently as Node decodes:
// both alphabets, other characters skipped, decoding stops at the first
// "=", leftover bits dropped. Each byte becomes the character with that
// code (U+0000 to U+00FF).
func fnBase64Decode(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	var out []rune
	var bits, nbits uint
	for _, r := range s {
		if r == '=' {
			break
		}
		v := fnBase64Value(r)
		if v < 0 {
			continue
		}
		bits, nbits = bits<<6|uint(v), nbits+6
		if nbits >= 8 {
			nbits -= 8
			out = append(out, rune(bits>>nbits&0xFF))
		}
	}
	return string(out), nil
}

func fnBase64Value(r rune) int {
	switch {
	case r >= 'A' && r <= 'Z':
		return int(r - 'A')
	case r >= 'a' && r <= 'z':
		return int(r-'a') + 26
	case r >= '0' && r <= '9':
		return int(r-'0') + 52
	case r == '+' || r == '-':
		return 62
	case r == '/' || r == '_':
		return 63
	}
	return -1
}

// The characters JavaScript's encodeURIComponent and encodeURI leave as
// they are.
const (
	fnURIUnreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"
	fnURIReserved   = ";/?:@&=+$,#"
)

// fnEncodeURLComponent is $encodeUrlComponent(str).
func fnEncodeURLComponent(c *Call, args []any) (any, error) {
	return fnEncodeURI(c, "encodeUrlComponent", args[0], fnURIUnreserved)
}

// fnEncodeURL is $encodeUrl(str).
func fnEncodeURL(c *Call, args []any) (any, error) {
	return fnEncodeURI(c, "encodeUrl", args[0], fnURIUnreserved+fnURIReserved)
}

// fnEncodeURI percent-encodes the UTF-8 bytes of every character of v not
// in keep; text that is not valid UTF-8 (a lone surrogate in JavaScript)
// is error D3140.
func fnEncodeURI(c *Call, name string, v any, keep string) (any, error) {
	s, ok := v.(string)
	if !ok {
		return Undefined, nil
	}
	if !utf8.ValidString(s) {
		return nil, fnMalformedURL(c, name, s)
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if ch := s[i]; ch < utf8.RuneSelf && strings.IndexByte(keep, ch) >= 0 {
			b.WriteByte(ch)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[ch>>4])
			b.WriteByte(hex[ch&0xF])
		}
	}
	return b.String(), nil
}

// fnDecodeURLComponent is $decodeUrlComponent(str).
func fnDecodeURLComponent(c *Call, args []any) (any, error) {
	return fnDecodeURI(c, "decodeUrlComponent", args[0], "")
}

// fnDecodeURL is $decodeUrl(str): escapes of reserved characters stay.
func fnDecodeURL(c *Call, args []any) (any, error) {
	return fnDecodeURI(c, "decodeUrl", args[0], fnURIReserved)
}

// fnDecodeURI decodes %XX escapes as UTF-8, as JavaScript's decodeURI and
// decodeURIComponent do, except single-byte escapes of characters in
// keep. A malformed escape or invalid UTF-8 is error D3140.
func fnDecodeURI(c *Call, name string, v any, keep string) (any, error) {
	s, ok := v.(string)
	if !ok {
		return Undefined, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		first, ok := fnHexByte(s, i)
		if !ok {
			return nil, fnMalformedURL(c, name, s)
		}
		if first < utf8.RuneSelf {
			if strings.IndexByte(keep, first) >= 0 {
				b.WriteString(s[i : i+3])
			} else {
				b.WriteByte(first)
			}
			i += 3
			continue
		}
		n := fnUTF8Len(first)
		if n == 0 {
			return nil, fnMalformedURL(c, name, s)
		}
		seq := []byte{first}
		for k := 1; k < n; k++ {
			next, ok := fnHexByte(s, i+3*k)
			if !ok || next&0xC0 != 0x80 {
				return nil, fnMalformedURL(c, name, s)
			}
			seq = append(seq, next)
		}
		if _, size := utf8.DecodeRune(seq); size != n {
			return nil, fnMalformedURL(c, name, s)
		}
		b.Write(seq)
		i += 3 * n
	}
	return b.String(), nil
}

// fnHexByte reads the escape %XX at s[i].
func fnHexByte(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	hi, lo := fnHexDigit(s[i+1]), fnHexDigit(s[i+2])
	if hi < 0 || lo < 0 {
		return 0, false
	}
	return byte(hi<<4 | lo), true
}

func fnHexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// fnUTF8Len is the length of the UTF-8 sequence lead byte b starts, or 0.
func fnUTF8Len(b byte) int {
	switch {
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func fnMalformedURL(c *Call, name, s string) *Error {
	return fnError(c, "D3140", "Malformed URL passed to $"+name+"(): "+js.Quote(s), s)
}
