package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// token is shaped like a Step Functions task token: long and opaque.
var token = "AQCEAAAAKgAAAAMAAAAAAAAAAfake" + strings.Repeat("Zm9vYmFy", 40)

func payload(t *testing.T, edit func(map[string]any)) []byte {
	t.Helper()
	p := map[string]any{
		"taskToken":       token,
		"executionArn":    "arn:aws:states:us-east-1:123456789012:execution:publish:run-1",
		"stateName":       "Approve",
		"channel":         "C0123ABCD",
		"approvers":       []string{"U0123ABCD", "S0456ABCD"},
		"requestedBy":     "U0999ABCD",
		"title":           "Publish the post for 2026-11-29",
		"summary":         "*mrkdwn* body",
		"fields":          map[string]string{"Theme": "Step Functions"},
		"drafts":          []string{"first draft", "second draft"},
		"revisionPresets": []string{"Shorter"},
		"allowSkip":       true,
		"timeoutSeconds":  3600,
	}
	if edit != nil {
		edit(p)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lambdaErrorType is the errorType aws-lambda-go v1.55.1 reports for a
// handler error (lambda/errors.go, lambdaErrorResponse).
func lambdaErrorType(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		return t.Elem().Name()
	}
	return t.Name()
}

func TestHandlePostsOnceAndRetriesReturnTheSameAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	first, err := f.handler.Handle(ctx, payload(t, nil))
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if !strings.HasPrefix(first.ApprovalID, "ap_") || first.Channel != "C0123ABCD" || first.TS == "" {
		t.Fatalf("Handle = %+v, want an ap_ ID, channel C0123ABCD and a ts", first)
	}
	for i := range 2 {
		again, err := f.handler.Handle(ctx, payload(t, nil))
		if err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("retry %d response (-first +retry):\n%s", i+1, diff)
		}
	}
	if got, want := f.poster.count(), 1; got != want {
		t.Errorf("posts = %d, want %d", got, want)
	}
	stored := f.stored(t)
	if len(stored) != 1 || stored[0].ID != first.ApprovalID || stored[0].MessageTS != first.TS {
		t.Errorf("stored = %+v, want one approval %s with ts %s", stored, first.ApprovalID, first.TS)
	}
	if got, want := len(f.logs.lines()), 3; got != want {
		t.Errorf("log lines = %d, want %d (one per invocation)", got, want)
	}
	for _, line := range f.logs.lines() {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if entry["approval_id"] != first.ApprovalID || entry["channel"] != "C0123ABCD" || entry["execution_arn"] == "" {
			t.Errorf("log line %s lacks approval_id, channel or execution_arn", line)
		}
	}
}

func TestHandleRetriesAfterFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		breakIt   func(*fixture)
		wantType  string
		wantInErr string
		wantPosts int // after the failed call and one successful retry
	}{
		{
			name:      "slack refuses",
			breakIt:   func(f *fixture) { f.poster.fails = []error{errors.New("slack: not_in_channel")} },
			wantType:  ErrorSlackPostFailed,
			wantInErr: "not_in_channel",
			wantPosts: 1,
		},
		{
			name:      "store down before posting",
			breakIt:   func(f *fixture) { f.store.SetErr(errors.New("dynamodb: connection refused")) },
			wantType:  ErrorStoreUnavailable,
			wantInErr: "could not store",
			wantPosts: 1,
		},
		{
			// Slack has no idempotent post: a failure to record the post
			// means the retry posts again. This pins that known window.
			name: "store down after posting",
			breakIt: func(f *fixture) {
				f.poster.onPost = func(workflow.Approval) { f.store.SetErr(errors.New("dynamodb: throttled")) }
			},
			wantType:  ErrorStoreUnavailable,
			wantInErr: "but could not record it",
			wantPosts: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ctx := context.Background()
			tt.breakIt(f)

			_, err := f.handler.Handle(ctx, payload(t, nil))
			if got := lambdaErrorType(err); err == nil || got != tt.wantType {
				t.Fatalf("Handle error = %v (errorType %q), want errorType %q", err, got, tt.wantType)
			}
			if !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("error %q does not say %q", err, tt.wantInErr)
			}

			f.store.SetErr(nil)
			f.poster.onPost = nil
			resp, err := f.handler.Handle(ctx, payload(t, nil))
			if err != nil {
				t.Fatalf("retry: %v", err)
			}
			if got := f.poster.count(); got != tt.wantPosts {
				t.Errorf("posts = %d, want %d", got, tt.wantPosts)
			}
			stored := f.stored(t)
			if len(stored) != 1 || stored[0].ID != resp.ApprovalID || stored[0].MessageTS != resp.TS {
				t.Errorf("stored = %+v, want one approval matching %+v", stored, resp)
			}
		})
	}
}

// A request without a locale takes the notifier's (APPROVALS_LOCALE); its
// own locale wins.
func TestHandleDefaultsTheLocale(t *testing.T) {
	t.Parallel()
	tests := []struct{ handler, request, want string }{
		{"", "", ""},
		{"ja", "", "ja"},
		{"ja", "en", "en"},
		{"", "ja", "ja"},
	}
	for _, tt := range tests {
		f := newFixture(t)
		f.handler.Locale = tt.handler
		resp, err := f.handler.Handle(context.Background(), payload(t, func(p map[string]any) {
			if tt.request != "" {
				p["locale"] = tt.request
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		a, err := f.store.Get(context.Background(), resp.ApprovalID)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Locale; got != tt.want {
			t.Errorf("notifier %q, request %q: locale %q, want %q", tt.handler, tt.request, got, tt.want)
		}
	}
}
