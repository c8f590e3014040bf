package notifier

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
)

// TestNoErrorOrLogContainsTheToken breaks every dependency with an error
// that quotes the task token and checks the token never comes back out.
func TestNoErrorOrLogContainsTheToken(t *testing.T) {
	t.Parallel()
	leaky := errors.New("upstream failed for token " + token)
	tests := []struct {
		name     string
		breakIt  func(*fixture)
		wantType string
	}{
		{"poster", func(f *fixture) { f.poster.fails = []error{leaky} }, ErrorSlackPostFailed},
		{"store", func(f *fixture) { f.store.SetErr(leaky) }, ErrorStoreUnavailable},
		{"invalid", func(*fixture) {}, ErrorInvalidApprovalRequest},
		{"success", func(*fixture) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tt.breakIt(f)
			p := payload(t, nil)
			if tt.wantType == ErrorInvalidApprovalRequest {
				p = payload(t, func(p map[string]any) { p["approvers"] = []string{"alice"} })
			}

			// Through aws-lambda-go's handler wrapper, as the runtime calls it.
			out, err := lambda.NewHandler(f.handler).Invoke(context.Background(), p)
			got := ""
			if err != nil {
				got = lambdaErrorType(err)
			}
			if got != tt.wantType {
				t.Fatalf("errorType = %q (%v), want %q", got, err, tt.wantType)
			}
			text := string(out) + f.logs.String()
			if err != nil {
				text += err.Error()
			}
			if strings.Contains(text, token) {
				t.Errorf("the task token leaked:\n%s", text)
			}
		})
	}
}
