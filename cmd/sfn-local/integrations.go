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
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/mock"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/s3"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/sqs"
)

// outboundTimeout bounds each call to Lambda or SQS: a function runs for
// at most 15 minutes.
const outboundTimeout = 16 * time.Minute

// wired are the integrations newRouter wires.
type wired struct {
	router *integrations.Router
	// fns delivers the status change events too.
	fns *lambda.Integration
	// tasks runs the -ecs-task stand-ins; close it to stop those running.
	tasks *ecs.Integration
}

// newRouter wires the integrations: the mock configuration
// (SFN_MOCK_CONFIG) first, then Lambda, SQS and S3 (a distributed Map's
// ItemReader and ResultWriter, and aws-sdk:s3:getObject) through the AWS
// SDK, and ECS tasks on the -ecs-task commands. It makes no network calls.
func newRouter(ctx context.Context, cfg config, getenv func(string) string, log *zap.Logger) (wired, error) {
	mocks, err := mock.FromEnv(getenv)
	if err != nil {
		return wired{}, err
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
		return wired{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	fns := lambda.New(awslambda.NewFromConfig(awsCfg, func(o *awslambda.Options) {
		o.BaseEndpoint = endpoint(getenv, "AWS_ENDPOINT_URL_LAMBDA", o.BaseEndpoint)
	}))
	queues := sqs.New(awssqs.NewFromConfig(awsCfg, func(o *awssqs.Options) {
		o.BaseEndpoint = endpoint(getenv, "AWS_ENDPOINT_URL_SQS", o.BaseEndpoint)
	}))
	objects := s3.New(awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		o.BaseEndpoint = endpoint(getenv, "AWS_ENDPOINT_URL_S3", o.BaseEndpoint)
		// A local S3 (MinIO, LocalStack, approvals-local's) answers
		// path-style requests on an address of its own.
		o.UsePathStyle = o.BaseEndpoint != nil
	}))
	tasks := ecs.New(ecs.Options{Logger: log})
	for _, t := range cfg.ECSTasks {
		if err := tasks.Register(ecs.TaskDefinition{Family: t.Family, Container: t.Container, Run: ecs.CommandRunner(t.Command...)}); err != nil {
			return wired{}, err
		}
	}
	w := wired{fns: fns, tasks: tasks}
	if mocks == nil {
		// An untyped nil, so the Router sees that no mock config is loaded.
		w.router = integrations.NewRouter(nil, fns, queues, tasks, objects)
	} else {
		w.router = integrations.NewRouter(mocks, fns, queues, tasks, objects)
	}
	return w, nil
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
