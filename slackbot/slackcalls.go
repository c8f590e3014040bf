package slackbot

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// SlackTransport wraps next so that every Slack Web API call is counted in
// approvals_slack_api_calls_total by method and status. The method is the
// last element of the URL path (a command's response URL counts as
// "response_url"); the status is "ok" or Slack's error code from the
// answer's top-level "ok" and "error" members, "ratelimited" for HTTP 429,
// "http_<code>" for other non-200 answers, "transport_error" when no answer
// came, and "unreadable" when the body was not one JSON object (or was not
// read). Nothing else is taken from the request or the answer: no token, no
// parameter, no message. With a nil Metrics it returns next.
func (m *Metrics) SlackTransport(next http.RoundTripper) http.RoundTripper {
	if m == nil {
		return next
	}
	return &countingTransport{next: next, m: m}
}

type countingTransport struct {
	next http.RoundTripper
	m    *Metrics
}

// isMethodName reports whether s looks like a Slack Web API method:
// lower-case letters, then one or more dot-separated words of letters
// (chat.update, usergroups.users.list, chat.postMessage).
func isMethodName(s string) bool {
	first, rest, ok := strings.Cut(s, ".")
	if !ok || !onlyBytes(first, func(c byte) bool { return 'a' <= c && c <= 'z' }) {
		return false
	}
	for word := range strings.SplitSeq(rest, ".") {
		if !onlyBytes(word, func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }) {
			return false
		}
	}
	return true
}

// isErrorCode reports whether s looks like one of Slack's error codes: 1
// to 64 of a-z, 0-9 and _ (anything else, such as text with a token in
// it, is not used as a label).
func isErrorCode(s string) bool {
	return len(s) <= 64 && onlyBytes(s, func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' })
}

// onlyBytes reports whether s is not empty and every byte of it is ok.
func onlyBytes(s string, ok func(byte) bool) bool {
	for i := range len(s) {
		if !ok(s[i]) {
			return false
		}
	}
	return s != ""
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	method := path.Base(req.URL.Path)
	if !isMethodName(method) {
		method = "response_url"
	}
	resp, err := t.next.RoundTrip(req)
	switch {
	case err != nil:
		t.m.slackCall(method, "transport_error")
	case resp.StatusCode == http.StatusTooManyRequests:
		t.m.slackCall(method, "ratelimited")
	case resp.StatusCode != http.StatusOK:
		t.m.slackCall(method, "http_"+strconv.Itoa(resp.StatusCode))
	default:
		resp.Body = &answerBody{ReadCloser: resp.Body, done: func(status string) { t.m.slackCall(method, status) }}
	}
	return resp, err
}

// maxAnswer bounds the part of an answer kept to read "ok" and "error"
// from; Slack's answers to the bot's calls are far smaller.
const maxAnswer = 256 << 10

// answerBody keeps a copy of what the client reads, and once the client
// has read it all or closed it, reports the answer's status.
type answerBody struct {
	io.ReadCloser
	done func(status string)

	buf  bytes.Buffer
	over bool
	once sync.Once
}

func (b *answerBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.over {
		if b.buf.Len()+n > maxAnswer {
			b.over = true
		} else {
			b.buf.Write(p[:n])
		}
	}
	if err == io.EOF {
		b.report()
	}
	return n, err
}

func (b *answerBody) Close() error {
	err := b.ReadCloser.Close()
	b.report()
	return err
}

func (b *answerBody) report() {
	b.once.Do(func() {
		status := answerStatus(b.buf.Bytes(), b.over)
		b.buf = bytes.Buffer{}
		b.done(status)
	})
}

// answerStatus reads the top-level "ok" and "error" of a Web API answer.
func answerStatus(body []byte, truncated bool) string {
	if truncated {
		return "unreadable"
	}
	var answer struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&answer); err != nil || answer.OK == nil {
		return "unreadable"
	}
	switch {
	case *answer.OK:
		return "ok"
	case isErrorCode(answer.Error):
		return answer.Error
	}
	return "unreadable"
}
