package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/emf"
)

// emfValues reads the one EMF line an invocation wrote: its metric values
// and its Function dimension.
func emfValues(t *testing.T, out string) (values map[string]float64, function string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d EMF lines, want 1:\n%s", len(lines), out)
	}
	var doc struct {
		AWS struct {
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
	}
	var root map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &doc); err != nil {
		t.Fatalf("%v: %s", err, lines[0])
	}
	_ = json.Unmarshal([]byte(lines[0]), &root)
	d := doc.AWS.CloudWatchMetrics[0]
	if d.Namespace != emf.Namespace || !cmp.Equal(d.Dimensions, [][]string{{"Function"}}) {
		t.Errorf("directive %+v, want namespace %s by Function", d, emf.Namespace)
	}
	values = map[string]float64{}
	for _, m := range d.Metrics {
		values[m.Name], _ = root[m.Name].(float64)
	}
	function, _ = root["Function"].(string)
	return values, function
}

func TestHandleWritesOneEMFLinePerInvocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload func(t *testing.T) []byte
		setup   func(f *fixture)
		want    map[string]float64
	}{
		{
			name:    "posted",
			payload: func(t *testing.T) []byte { return payload(t, nil) },
			want:    map[string]float64{"RequestsPosted": 1},
		},
		{
			name:    "invalid",
			payload: func(t *testing.T) []byte { return payload(t, func(p map[string]any) { delete(p, "channel") }) },
			want:    map[string]float64{"InvalidRequests": 1},
		},
		{
			name:    "slack refused",
			payload: func(t *testing.T) []byte { return payload(t, nil) },
			setup:   func(f *fixture) { f.poster.fails = []error{errors.New("slack chat.postMessage: channel_not_found")} },
			want:    map[string]float64{"SlackFailures": 1},
		},
		{
			name:    "store down",
			payload: func(t *testing.T) []byte { return payload(t, nil) },
			setup:   func(f *fixture) { f.store.SetErr(errors.New("dynamodb: connection refused")) },
			want:    map[string]float64{"StoreFailures": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var out logBuffer
			f.handler.Metrics = emf.New(&out, emf.Namespace, emf.Dimension{Name: "Function", Value: "approvals-notifier"})
			if tt.setup != nil {
				tt.setup(f)
			}
			_, _ = f.handler.Handle(context.Background(), tt.payload(t))
			values, function := emfValues(t, out.String())
			if function != "approvals-notifier" {
				t.Errorf("Function = %q", function)
			}
			if values["Duration"] <= 0 {
				t.Errorf("Duration = %v ms, want the invocation's", values["Duration"])
			}
			delete(values, "Duration")
			want := map[string]float64{"RequestsPosted": 0, "RequestsReplaced": 0, "InvalidRequests": 0, "SlackFailures": 0, "StoreFailures": 0}
			for k, v := range tt.want {
				want[k] = v
			}
			if diff := cmp.Diff(want, values); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			if strings.Contains(out.String(), token) {
				t.Error("the EMF line holds the task token")
			}
		})
	}
}

func TestHandleCountsReplacedRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.poster.lost = 1 // Slack took the first post but its answer was lost
	_, _ = f.attempt(t, token+"-1")
	f.resumer.TimeOut(token + "-1")
	var out logBuffer
	f.handler.Metrics = emf.New(&out, emf.Namespace, emf.Dimension{Name: "Function", Value: "n"})
	if _, err := f.attempt(t, token+"-2"); err != nil {
		t.Fatal(err)
	}
	values, _ := emfValues(t, out.String())
	if values["RequestsReplaced"] != 1 || values["RequestsPosted"] != 1 {
		t.Errorf("metrics = %v, want one posted and one replaced", values)
	}
}
