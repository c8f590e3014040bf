package sfnlocal

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// History pages, as GetExecutionHistory documents them: at most
// maxResults events (0 means the default, 100; at most 1000), oldest first
// or, with reverseOrder, newest first; nextToken while more remain. A
// token names the execution, the direction and the id of the next event
// to return, so pages never skip or repeat an event while the execution
// goes on recording, and a token used with another execution or the
// other direction is refused (InvalidToken), as AWS asks callers to keep
// every other argument unchanged.
const (
	defaultHistoryPage = 100
	maxHistoryPage     = 1000
)

// historyPage returns the events of one page of a history of n events
// (ids 1..n) and the next page's token ("" after the last).
func historyPage(arn string, n int, in GetExecutionHistoryInput) (from, to int64, next string, err error) {
	size := in.MaxResults
	switch {
	case size < 0:
		return 0, 0, "", apiErrorf(CodeValidationException, "1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 0", size)
	case size > maxHistoryPage:
		return 0, 0, "", apiErrorf(CodeValidationException, "1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to %d", size, maxHistoryPage)
	case size == 0:
		size = defaultHistoryPage
	}
	first := int64(1) // forward: the first id of the page
	if in.ReverseOrder {
		first = int64(n) // reverse: the newest id of the page
	}
	if in.NextToken != "" {
		if first, err = parseHistoryToken(in.NextToken, arn, in.ReverseOrder, n); err != nil {
			return 0, 0, "", err
		}
	}
	if in.ReverseOrder {
		last := max(first-int64(size)+1, 1)
		if last > 1 {
			next = historyToken(arn, true, last-1)
		}
		return first, last, next, nil
	}
	last := min(first+int64(size)-1, int64(n))
	if last < int64(n) {
		next = historyToken(arn, false, last+1)
	}
	return first, last, next, nil
}

// historyToken is an opaque page token: the direction, the id of the
// page's first event and a digest of the execution ARN.
func historyToken(arn string, reverse bool, id int64) string {
	dir := "f"
	if reverse {
		dir = "r"
	}
	return base64.RawURLEncoding.EncodeToString([]byte("h1|" + dir + "|" + strconv.FormatInt(id, 10) + "|" + arnDigest(arn)))
}

// parseHistoryToken reads a token historyToken made for this execution
// and direction; anything else is InvalidToken.
func parseHistoryToken(token, arn string, reverse bool, n int) (int64, error) {
	invalid := apiErrorf(CodeInvalidToken, "Invalid Token: '%s'", token)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, invalid
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 4 || parts[0] != "h1" || parts[3] != arnDigest(arn) {
		return 0, invalid
	}
	if want := map[bool]string{false: "f", true: "r"}[reverse]; parts[1] != want {
		return 0, invalid
	}
	id, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || id < 1 || id > int64(n) {
		return 0, invalid
	}
	return id, nil
}

func arnDigest(arn string) string {
	sum := sha256.Sum256([]byte(arn))
	return hex.EncodeToString(sum[:8])
}

// pageEvents copies the events with ids from..to (to < from in reverse).
func pageEvents(events []HistoryEvent, from, to int64) []HistoryEvent {
	if from <= to {
		return append([]HistoryEvent(nil), events[from-1:to]...)
	}
	out := make([]HistoryEvent, 0, from-to+1)
	for id := from; id >= to; id-- {
		out = append(out, events[id-1])
	}
	return out
}
