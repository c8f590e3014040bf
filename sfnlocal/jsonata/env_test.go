package jsonata

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// $now() and $millis() answer Env.Now, the engine's clock, and every
// expression of one template sees the same instant.
func TestEnvNow(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	template := decode(t, `{"now": "{% $now() %}", "millis": "{% $millis() %}", "year": "{% $now('[Y0001]') %}",
		"same": "{% $now() = $fromMillis($millis()) %}", "again": ["{% $millis() %}"]}`)
	got, err := Template(t.Context(), template, Env{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `{"now": "2025-01-02T03:04:05.678Z", "millis": 1735787045678, "year": "2025",
		"same": true, "again": [1735787045678]}`)
	if diff := cmp.Diff(want, got, asText); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Without Env.Now an evaluation reads the machine's clock once.
func TestEnvNowDefault(t *testing.T) {
	t.Parallel()
	before := time.Now().UnixMilli()
	got, err := Template(t.Context(), decode(t, `["{% $millis() %}", "{% $millis() %}"]`), Env{})
	after := time.Now().UnixMilli()
	if err != nil {
		t.Fatal(err)
	}
	a := got.([]any)
	first, err := strconv.ParseInt(string(a[0].(json.Number)), 10, 64)
	if err != nil || first < before || first > after || a[1] != a[0] {
		t.Errorf("$millis() = %v, want one instant within [%d, %d]", a, before, after)
	}
}

// An evaluation that never ends on its own stops when its context ends,
// with the context's error rather than a States.QueryEvaluationError.
func TestContextStopsEndlessExpression(t *testing.T) {
	t.Parallel()
	endless := "{% ($f := function($n){ $f($n + 1) }; $f(0)) %}"
	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		want error
	}{
		{"cancelled before", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}, context.Canceled},
		{"deadline passes while running", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := TemplateField(tt.ctx(t), "Output", endless, Env{})
			if !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if _, ok := errors.AsType[*Error](err); ok {
				t.Errorf("error %v is a States.QueryEvaluationError", err)
			}
		})
	}
}
