package sfnlocal

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// page returns the slice bounds of one page of n items and the token of
// the next page ("" when this is the last).
func page(n, maxResults int, token string, defaultMax int) (start, end int, next string, err error) {
	if maxResults < 0 || maxResults > 1000 {
		return 0, 0, "", apiErrorf(CodeValidationException, "1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 1000", maxResults)
	}
	if maxResults == 0 {
		maxResults = defaultMax
	}
	if token != "" {
		raw, derr := base64.RawURLEncoding.DecodeString(token)
		offset, cerr := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if derr != nil || cerr != nil || !strings.HasPrefix(string(raw), "offset:") || offset < 0 || offset > n {
			return 0, 0, "", apiErrorf(CodeInvalidToken, "Invalid Token: '%s'", token)
		}
		start = offset
	}
	end = min(start+maxResults, n)
	if end < n {
		next = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	return start, end, next, nil
}

// newID returns a random UUID (version 4).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
