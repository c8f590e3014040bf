// Package slacksecret reads the Slack bot token from an AWS Secrets
// Manager secret, for the Lambdas: the SecretString is JSON with the key
// botToken (xoxb-…), as in the secret the bot's ECS task reads. The token
// is cached; the Lambdas read it at cold start and again only when Slack
// refuses it (a rotated token).
package slacksecret

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"
)

// API is the part of the Secrets Manager client the Source uses.
type API interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

var _ API = (*secretsmanager.Client)(nil)

// Source gives the bot token kept in one secret. It is safe for
// concurrent use.
type Source struct {
	api      API
	secretID string

	mu    sync.Mutex
	token string
}

// New returns a Source reading the secret secretID (its ARN or name)
// through api. It reads nothing yet.
func New(api API, secretID string) *Source {
	return &Source{api: api, secretID: secretID}
}

// Token returns the bot token: the cached one, or, on the first call or
// with refresh, the one the secret holds now. Errors name the secret and
// what the caller can do, never the secret's value; a failed read keeps
// the cached token.
func (s *Source) Token(ctx context.Context, refresh bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && !refresh {
		return s.token, nil
	}
	token, err := s.read(ctx)
	if err != nil {
		return "", err
	}
	s.token = token
	return token, nil
}

func (s *Source) read(ctx context.Context) (string, error) {
	out, err := s.api.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(s.secretID)})
	if err != nil {
		return "", s.explain(err)
	}
	if out.SecretString == nil {
		return "", fmt.Errorf("read the Slack bot token: secret %s holds no SecretString; store JSON with the key botToken", s.secretID)
	}
	var v struct {
		BotToken *string `json:"botToken"`
	}
	if err := json.Unmarshal([]byte(*out.SecretString), &v); err != nil || v.BotToken == nil {
		return "", fmt.Errorf("read the Slack bot token: the SecretString of secret %s is not JSON with the key botToken", s.secretID)
	}
	if !strings.HasPrefix(*v.BotToken, "xoxb-") {
		return "", fmt.Errorf("read the Slack bot token: botToken in secret %s is not a bot token (xoxb-…)", s.secretID)
	}
	return *v.BotToken, nil
}

// explain turns a GetSecretValue failure into what to do about it.
func (s *Source) explain(err error) error {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return fmt.Errorf("read the Slack bot token from secret %s: %w", s.secretID, err)
	}
	switch api.ErrorCode() {
	case "ResourceNotFoundException":
		return fmt.Errorf("read the Slack bot token: secret %s not found (check SLACK_SECRET_ARN and the Region): %w", s.secretID, err)
	case "AccessDeniedException":
		return fmt.Errorf("read the Slack bot token: not allowed to read secret %s; the function's role needs secretsmanager:GetSecretValue on it (and kms:Decrypt on its key when a customer managed key encrypts it): %w", s.secretID, err)
	case "DecryptionFailure":
		return fmt.Errorf("read the Slack bot token: secret %s could not be decrypted; the function's role needs kms:Decrypt on the secret's KMS key: %w", s.secretID, err)
	}
	return fmt.Errorf("read the Slack bot token from secret %s: %w", s.secretID, err)
}
