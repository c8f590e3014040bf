// Package lambdatest is what the tests of each Lambda binary share: the
// binary, built once as the provided.al2023 runtime runs it, and one
// DynamoDB Local. Each test then serves the binary a Runtime API emulator
// of its own (internal/lambdaruntime) and makes a table of its own.
package lambdatest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
)

// Harness is filled in by Main for the tests it runs.
type Harness struct {
	// Binary is the function's bootstrap, built from the package in the
	// working directory with -tags lambda.norpc -trimpath, CGO off.
	Binary string
	DDB    *dynamolocal.Server
	// Admin is a DynamoDB client of DDB, for tables and seeding.
	Admin *dynamodb.Client
}

// Main builds the function, starts DynamoDB Local, runs m and stops it; it
// returns m's exit code, or 1 (saying why on stderr) when either fails.
// Use it as TestMain's os.Exit(lambdatest.Main(m, "notifier", &h)).
func Main(m *testing.M, name string, h *Harness) int {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", name+"-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	h.Binary = filepath.Join(dir, "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", h.Binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
		return 1
	}
	if h.DDB, err = dynamolocal.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "start DynamoDB Local (run make tools): %v\n", err)
		return 1
	}
	defer h.DDB.Close()
	if h.Admin, err = dynamolocal.Client(ctx, h.DDB.Endpoint()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
