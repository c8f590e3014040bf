package stepfunctionstest

import (
	"crypto/rand"
	"encoding/base64"
)

// tokenPrefix is how AWS task tokens begin.
const tokenPrefix = "AQCEAAAAKgAAAAMAAAAAAAAAA"

// newTaskToken returns a fresh opaque token of about 700 characters of
// standard base64, like the tokens AWS issues (with '+', '/' and '=' that
// callers must not mangle).
func newTaskToken() string {
	b := make([]byte, 500)
	_, _ = rand.Read(b) // never fails (crypto/rand docs)
	return tokenPrefix + base64.StdEncoding.EncodeToString(b)
}

// newRequestID returns a random request ID in UUID form.
func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}
