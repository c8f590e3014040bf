package intrinsics

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"unicode/utf16"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// maxEncodeChars is AWS's input limit for Base64Encode, Base64Decode and
// Hash, counted in UTF-16 code units as Java's String.length does.
const maxEncodeChars = 10000

var hashes = map[string]func() hash.Hash{
	"MD5":     md5.New,
	"SHA-1":   sha1.New,
	"SHA-256": sha256.New,
	"SHA-384": sha512.New384,
	"SHA-512": sha512.New,
}

func limitedString(fn string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", invalid(fn, "expected a string, got "+jsonvalue.TypeName(v))
	}
	if n := len(utf16.Encode([]rune(s))); n > maxEncodeChars {
		return "", invalid(fn, fmt.Sprintf("the input has %d characters, more than %d", n, maxEncodeChars))
	}
	return s, nil
}

func base64Encode(args []any, _ []node) (any, error) {
	s, err := limitedString("States.Base64Encode", args[0])
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

// base64Decode is lenient like AWS: characters outside the alphabet are
// skipped, decoding stops at the first '=', and missing padding is fine.
func base64Decode(args []any, _ []node) (any, error) {
	s, err := limitedString("States.Base64Decode", args[0])
	if err != nil {
		return nil, err
	}
	var out []byte
	acc, bits := 0, 0
	for i := 0; i < len(s) && s[i] != '='; i++ {
		v := sextet(s[i])
		if v < 0 {
			continue
		}
		acc, bits = acc<<6|v, bits+6
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
			acc &= 1<<bits - 1
		}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

func sextet(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+' || c == '-':
		return 62
	case c == '/' || c == '_':
		return 63
	}
	return -1
}

func hashFn(args []any, _ []node) (any, error) {
	const fn = "States.Hash"
	data := args[0]
	if _, ok := data.(string); !ok {
		data = jsonvalue.Encode(data) // AWS hashes other values as their JSON text
	}
	s, err := limitedString(fn, data)
	if err != nil {
		return nil, err
	}
	alg, _ := args[1].(string)
	newHash, ok := hashes[alg]
	if !ok {
		return nil, invalid(fn, fmt.Sprintf("unsupported algorithm %s; use MD5, SHA-1, SHA-256, SHA-384 or SHA-512", jsonvalue.Encode(args[1])))
	}
	h := newHash()
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil)), nil
}
