package events

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/emf"
)

// startClock returns a clock that reads at on its first call and 12.5 ms
// later on every call after, so an invocation lasts 12.5 ms.
func startClock(at time.Time) func() time.Time {
	var mu sync.Mutex
	calls := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return at
		}
		return at.Add(12500 * time.Microsecond)
	}
}

func TestHandleWritesEMFLines(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // 1796115600000 ms
	const head = `{"_aws":{"Timestamp":1796115600000,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function"]],` +
		`"Metrics":[{"Name":"MalformedEvents","Unit":"Count"},{"Name":"SlackFailures","Unit":"Count"},{"Name":"StoreFailures","Unit":"Count"},{"Name":"Duration","Unit":"Milliseconds"}]}]},` +
		`"Function":"approvals-events",`
	closed := func(reason string, n string) string {
		return `{"_aws":{"Timestamp":1796115600000,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function","Reason"]],` +
			`"Metrics":[{"Name":"RequestsClosed","Unit":"Count"}]}]},"Function":"approvals-events","Reason":"` + reason + `","RequestsClosed":` + n + "}\n"
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) []byte
		want  string
	}{
		{"aborted, two requests closed", func(t *testing.T, f *fixture) []byte {
			f.request(t, execution, "")
			f.request(t, execution, "")
			return event(t, execution, "ABORTED", time.Now())
		}, head + `"MalformedEvents":0,"SlackFailures":0,"StoreFailures":0,"Duration":12.5}` + "\n" + closed("ABORTED", "2")},
		{"timed out, nothing open", func(t *testing.T, f *fixture) []byte {
			return event(t, execution, "TIMED_OUT", time.Now())
		}, head + `"MalformedEvents":0,"SlackFailures":0,"StoreFailures":0,"Duration":12.5}` + "\n" + closed("TIMED_OUT", "0")},
		{"failed, Slack refuses the update and the reply", func(t *testing.T, f *fixture) []byte {
			f.request(t, execution, "")
			f.poster.updateErr = errors.New("slack chat.update: channel_not_found")
			return event(t, execution, "FAILED", time.Now())
		}, head + `"MalformedEvents":0,"SlackFailures":1,"StoreFailures":0,"Duration":12.5}` + "\n" + closed("FAILED", "1")},
		{"succeeded, the reply fails", func(t *testing.T, f *fixture) []byte {
			f.request(t, execution, "")
			f.poster.replyErr = errors.New("slack chat.postMessage: not_in_channel")
			return event(t, execution, "SUCCEEDED", time.Now())
		}, head + `"MalformedEvents":0,"SlackFailures":1,"StoreFailures":0,"Duration":12.5}` + "\n" + closed("SUCCEEDED", "1")},
		{"store down", func(t *testing.T, f *fixture) []byte {
			f.request(t, execution, "")
			f.store.SetErr(errors.New("RequestLimitExceeded"))
			return event(t, execution, "ABORTED", time.Now())
		}, head + `"MalformedEvents":0,"SlackFailures":0,"StoreFailures":1,"Duration":12.5}` + "\n" + closed("ABORTED", "0")},
		{"malformed", func(t *testing.T, f *fixture) []byte {
			return []byte("not json " + secretInput)
		}, head + `"MalformedEvents":1,"SlackFailures":0,"StoreFailures":0,"Duration":12.5}` + "\n"},
		{"running", func(t *testing.T, f *fixture) []byte {
			return event(t, execution, "RUNNING", time.Time{})
		}, head + `"MalformedEvents":0,"SlackFailures":0,"StoreFailures":0,"Duration":12.5}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			payload := tt.setup(t, f)
			var out logBuffer
			f.handler.Metrics = emf.New(&out, emf.Namespace, emf.Dimension{Name: "Function", Value: "approvals-events"})
			f.handler.Metrics.Now = func() time.Time { return at }
			f.handler.now = startClock(at)
			_, _ = f.handler.Handle(context.Background(), payload)
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("EMF lines (-want +got):\n%s", diff)
			}
			if strings.Contains(out.String(), secretInput) {
				t.Error("the EMF lines hold the event's content")
			}
		})
	}
}
