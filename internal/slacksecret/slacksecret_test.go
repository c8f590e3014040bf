package slacksecret_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sfnapprovals/approvals/internal/fakesecrets"
	"github.com/sfnapprovals/approvals/internal/slacksecret"
)

// newFake starts a fake Secrets Manager and returns it with a real SDK
// client pointed at it.
func newFake(t *testing.T) (*fakesecrets.Server, *secretsmanager.Client) {
	t.Helper()
	fake, err := fakesecrets.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	client := secretsmanager.New(secretsmanager.Options{
		Region:       fakesecrets.Region,
		BaseEndpoint: aws.String(fake.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	return fake, client
}

func TestTokenIsReadOnceAndAgainOnRefresh(t *testing.T) {
	t.Parallel()
	fake, client := newFake(t)
	arn := fake.Put("approvals/slack", `{"botToken":"xoxb-first","appToken":"xapp-app"}`)
	src := slacksecret.New(client, arn)
	ctx := context.Background()
	for range 3 {
		if got, err := src.Token(ctx, false); err != nil || got != "xoxb-first" {
			t.Fatalf("Token = %q, %v; want xoxb-first", got, err)
		}
	}
	if n := fake.Reads(); n != 1 {
		t.Errorf("%d reads for three tokens, want 1 (cached)", n)
	}
	fake.Put("approvals/slack", `{"botToken":"xoxb-rotated","appToken":"xapp-app"}`)
	if got, err := src.Token(ctx, true); err != nil || got != "xoxb-rotated" {
		t.Fatalf("refreshed Token = %q, %v; want xoxb-rotated", got, err)
	}
	if got, _ := src.Token(ctx, false); got != "xoxb-rotated" || fake.Reads() != 2 {
		t.Errorf("Token after refresh = %q after %d reads; want the rotated token, cached", got, fake.Reads())
	}

	fake.Refuse("AccessDeniedException", "not authorized")
	if _, err := src.Token(ctx, true); err == nil {
		t.Fatal("a refused refresh succeeded")
	}
	if got, err := src.Token(ctx, false); err != nil || got != "xoxb-rotated" {
		t.Errorf("Token after a failed refresh = %q, %v; want the cached token", got, err)
	}
}

// The secret is found by name, full ARN or partial ARN, as Secrets Manager
// finds it.
func TestTokenBySecretID(t *testing.T) {
	t.Parallel()
	fake, client := newFake(t)
	arn := fake.Put("approvals/slack", `{"botToken":"xoxb-1"}`)
	for _, id := range []string{arn, arn[:len(arn)-7], "approvals/slack"} {
		if got, err := slacksecret.New(client, id).Token(context.Background(), false); err != nil || got != "xoxb-1" {
			t.Errorf("Token(%s) = %q, %v", id, got, err)
		}
	}
}

func TestTokenErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	const value = "xoxb-do-not-show"
	tests := []struct {
		name          string
		secret        string // stored SecretString; "" stores none
		id            string // SecretId; "" is the stored secret's ARN
		refuse, msg   string // an error every read gets
		want          string
		wantAPIErrMsg bool
	}{
		{name: "no such secret", id: "approvals/nope", want: "secret approvals/nope not found (check SLACK_SECRET_ARN"},
		{name: "access denied", secret: `{"botToken":"` + value + `"}`, refuse: "AccessDeniedException",
			msg:  "User: arn:aws:sts::123456789012:assumed-role/notifier/x is not authorized to perform: secretsmanager:GetSecretValue",
			want: "needs secretsmanager:GetSecretValue on it (and kms:Decrypt", wantAPIErrMsg: true},
		{name: "key not usable", secret: `{"botToken":"` + value + `"}`, refuse: "DecryptionFailure",
			msg: "Access to KMS is not allowed", want: "needs kms:Decrypt on the secret's KMS key", wantAPIErrMsg: true},
		{name: "marked for deletion", secret: `{"botToken":"` + value + `"}`, refuse: "InvalidRequestException",
			msg: "You can't perform this operation on the secret because it was marked for deletion.", want: "InvalidRequestException", wantAPIErrMsg: true},
		{name: "not JSON", secret: value, want: "is not JSON with the key botToken"},
		{name: "no botToken", secret: `{"token":"` + value + `"}`, want: "is not JSON with the key botToken"},
		{name: "an app token", secret: `{"botToken":"xapp-` + value + `"}`, want: "is not a bot token (xoxb-…)"},
		{name: "botToken not a string", secret: `{"botToken":12}`, want: "is not JSON with the key botToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake, client := newFake(t)
			id := tt.id
			if tt.secret != "" {
				id = fake.Put("approvals/slack", tt.secret)
			}
			fake.Refuse(tt.refuse, tt.msg)
			_, err := slacksecret.New(client, id).Token(context.Background(), false)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), id) {
				t.Fatalf("Token error = %v, want one naming %s and containing %q", err, id, tt.want)
			}
			if tt.wantAPIErrMsg && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks AWS's message %q", err, tt.msg)
			}
			if strings.Contains(err.Error(), value) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line without the secret's value", err)
			}
		})
	}
}
