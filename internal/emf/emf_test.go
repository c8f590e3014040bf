package emf

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var at = time.Date(2026, 11, 29, 10, 0, 0, 123_000_000, time.UTC)

func newTestLogger(w *bytes.Buffer) *Logger {
	l := New(w, "SlackApprovals", Dimension{Name: "Function", Value: "approvals-notifier"})
	l.Now = func() time.Time { return at }
	return l
}

func TestFlushWritesExactEMF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		record func(m *Metrics)
		want   string
	}{
		{
			name: "counts and a duration",
			record: func(m *Metrics) {
				m.Count("RequestsPosted", 1)
				m.Count("InvalidRequests", 0)
				m.Duration("Duration", 7500*time.Microsecond)
			},
			want: `{"_aws":{"Timestamp":1795946400123,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function"]],` +
				`"Metrics":[{"Name":"RequestsPosted","Unit":"Count"},{"Name":"InvalidRequests","Unit":"Count"},{"Name":"Duration","Unit":"Milliseconds"}]}]},` +
				`"Function":"approvals-notifier","RequestsPosted":1,"InvalidRequests":0,"Duration":7.5}` + "\n",
		},
		{
			name: "counts by reason go on a line per reason, after the plain line",
			record: func(m *Metrics) {
				m.CountBy("Closures", Dimension{Name: "Reason", Value: "TIMED_OUT"}, 2)
				m.Duration("Duration", 3*time.Millisecond)
				m.CountBy("Closures", Dimension{Name: "Reason", Value: "ABORTED"}, 1)
				m.CountBy("Closures", Dimension{Name: "Reason", Value: "TIMED_OUT"}, 1)
			},
			want: `{"_aws":{"Timestamp":1795946400123,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function","Reason"]],` +
				`"Metrics":[{"Name":"Closures","Unit":"Count"}]}]},"Function":"approvals-notifier","Reason":"TIMED_OUT","Closures":3}` + "\n" +
				`{"_aws":{"Timestamp":1795946400123,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function"]],` +
				`"Metrics":[{"Name":"Duration","Unit":"Milliseconds"}]}]},"Function":"approvals-notifier","Duration":3}` + "\n" +
				`{"_aws":{"Timestamp":1795946400123,"CloudWatchMetrics":[{"Namespace":"SlackApprovals","Dimensions":[["Function","Reason"]],` +
				`"Metrics":[{"Name":"Closures","Unit":"Count"}]}]},"Function":"approvals-notifier","Reason":"ABORTED","Closures":1}` + "\n",
		},
		{
			name:   "nothing recorded writes nothing",
			record: func(*Metrics) {},
			want:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			m := newTestLogger(&out).Begin()
			tt.record(m)
			if err := m.Flush(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("EMF (-want +got):\n%s", diff)
			}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if line != "" && !json.Valid([]byte(line)) {
					t.Errorf("not one JSON object: %s", line)
				}
			}
			out.Reset()
			if err := m.Flush(); err != nil || out.Len() != 0 {
				t.Errorf("a second Flush wrote %q, %v; want nothing", out.String(), err)
			}
		})
	}
}

// Every line must be a document CloudWatch accepts: the metrics named in
// the directive and the dimensions present at the root (EMF specification).
func TestFlushLinesFollowTheSpecification(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	m := newTestLogger(&out).Begin()
	m.Count("SlackFailures", 1)
	m.CountBy("Closures", Dimension{Name: "Reason", Value: "FAILED"}, 1)
	if err := m.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var doc struct {
			AWS struct {
				Timestamp         *int64
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct{ Name, Unit string }
				}
			} `json:"_aws"`
		}
		var root map[string]any
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(line), &root)
		if doc.AWS.Timestamp == nil || *doc.AWS.Timestamp != at.UnixMilli() || len(doc.AWS.CloudWatchMetrics) != 1 {
			t.Fatalf("metadata of %s", line)
		}
		d := doc.AWS.CloudWatchMetrics[0]
		for _, set := range d.Dimensions {
			for _, name := range set {
				if _, ok := root[name].(string); !ok {
					t.Errorf("dimension %s has no string value in %s", name, line)
				}
			}
		}
		for _, metric := range d.Metrics {
			if _, ok := root[metric.Name].(float64); !ok {
				t.Errorf("metric %s has no number in %s", metric.Name, line)
			}
		}
	}
}

func TestFlushRefusesBadNames(t *testing.T) {
	t.Parallel()
	tests := map[string]func(m *Metrics){
		"empty metric name":           func(m *Metrics) { m.Count("", 1) },
		"metric named like dimension": func(m *Metrics) { m.Count("Function", 1) },
		"empty dimension value":       func(m *Metrics) { m.CountBy("Closures", Dimension{Name: "Reason"}, 1) },
		"too many metrics": func(m *Metrics) {
			for i := range maxMetrics + 1 {
				m.Count(strings.Repeat("m", i+1), 1)
			}
		},
	}
	for name, record := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			m := newTestLogger(&out).Begin()
			record(m)
			if err := m.Flush(); err == nil {
				t.Errorf("Flush wrote %q and no error", out.String())
			}
			if out.Len() != 0 {
				t.Errorf("a refused line was written: %q", out.String())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestFlushReportsWriteErrorsAndNilLoggerRecordsNothing(t *testing.T) {
	t.Parallel()
	m := New(failingWriter{}, "SlackApprovals").Begin()
	m.Count("RequestsPosted", 1)
	if err := m.Flush(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Flush = %v, want the write error", err)
	}
	var nilLogger *Logger
	n := nilLogger.Begin()
	n.Count("RequestsPosted", 1)
	if err := n.Flush(); err != nil {
		t.Errorf("nil Logger: %v", err)
	}
}
