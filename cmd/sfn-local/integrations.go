package main

import (
	"context"
	"fmt"
	"os"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/mock"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/sqs"
)

// outboundTimeout bounds each call to Lambda or SQS: a function runs for
// at most 15 minutes.
const outboundTimeout = 16 * time.Minute

// newRouter wires the Task state integrations: the mock configuration
// (SFN_MOCK_CONFIG) first, then Lambda and SQS through the AWS SDK. It
// also returns the Lambda integration, which delivers the status change
// events too. It makes no network calls.
func newRouter(ctx context.Context, cfg config, getenv func(string) string) (*integrations.Router, *lambda.Integration, error) {
	mocks, err := mock.FromEnv(getenv)
	if err != nil {
		return nil, nil, err
	}
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithDefaultRegion(cfg.Region),
		awsconfig.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(outboundTimeout)),
	}
	if !credentialsConfigured(getenv) {
		// Local stand-ins accept any signature; without this the SDK would
		// look for credentials on the instance metadata service.
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("sfn-local", "sfn-local", "")))
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	fns := lambda.New(awslambda.NewFromConfig(awsCfg, func(o *awslambda.Options) {
		o.BaseEndpoint = endpoint(getenv, "AWS_ENDPOINT_URL_LAMBDA", o.BaseEndpoint)
	}))
	queues := sqs.New(awssqs.NewFromConfig(awsCfg, func(o *awssqs.Options) {
		o.BaseEndpoint = endpoint(getenv, "AWS_ENDPOINT_URL_SQS", o.BaseEndpoint)
	}))
	if mocks == nil {
		// An untyped nil, so the Router sees that no mock config is loaded.
		return integrations.NewRouter(nil, fns, queues), fns, nil
	}
	return integrations.NewRouter(mocks, fns, queues), fns, nil
}

// endpoint is the service endpoint getenv names, else the one the SDK
// found (it reads the same variables from the process environment).
func endpoint(getenv func(string) string, variable string, found *string) *string {
	if v := getenv(variable); v != "" {
		return &v
	}
	return found
}

// credentialsConfigured reports whether the environment or the shared
// files configure AWS credentials.
func credentialsConfigured(getenv func(string) string) bool {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		if getenv(v) != "" {
			return true
		}
	}
	files := map[string]string{
		"AWS_SHARED_CREDENTIALS_FILE": awsconfig.DefaultSharedCredentialsFilename(),
		"AWS_CONFIG_FILE":             awsconfig.DefaultSharedConfigFilename(),
	}
	for v, path := range files {
		if p := getenv(v); p != "" {
			path = p
		}
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}
