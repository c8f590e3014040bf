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
