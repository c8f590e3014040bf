// Command approvals-archive is the Lambda function an event source mapping
// invokes with the approvals table's stream records of audit records: it
// writes one JSON line per change to stdout, which Lambda sends to the
// archive's log group (see lambdas/archive), serving the Lambda Runtime
// API named by AWS_LAMBDA_RUNTIME_API.
//
// Build it for the provided.al2023 runtime:
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -o bootstrap ./cmd/approvals-archive
//
// Environment: LOG_LEVEL (its own log lines go to stderr). It makes no AWS
// call of its own: Lambda reads the stream with the function's role.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sfnapprovals/approvals/internal/auditstream"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/lambdas/archive"
)

// The handler is served as a raw lambda.Handler: a payload that is not a
// stream event gets a clear error.
var _ lambda.Handler = (*archive.Handler)(nil)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "approvals-archive: %v\n", err)
		os.Exit(1)
	}
}

// run configures the function and serves invocations: archive lines go to
// stdout, log lines to stderr. It returns only when the configuration is
// wrong.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	level, err := logging.ParseLevel(cmp.Or(getenv("LOG_LEVEL"), "info"))
	if err != nil {
		return err
	}
	handler := archive.New(auditstream.Decoder{}, stdout, logging.New(stderr, level))
	lambda.StartWithOptions(handler, lambda.WithContext(ctx))
	return nil
}
