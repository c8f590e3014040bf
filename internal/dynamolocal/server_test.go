package dynamolocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestStartServesAndCloseStops(t *testing.T) {
	ctx := t.Context()
	s := start(t, Options{})
	if !strings.HasPrefix(s.Endpoint(), "http://127.0.0.1:") {
		t.Errorf("Endpoint() = %q, want http://127.0.0.1:PORT", s.Endpoint())
	}
	client, err := Client(ctx, s.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables: %v", err)
	}

	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	if err := syscall.Kill(-s.pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d after Close: kill -0 = %v, want ESRCH", s.pid, err)
	}
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(s.Endpoint(), "http://"), time.Second); err == nil {
		t.Errorf("%s still accepts connections after Close", s.Endpoint())
	}
}

func TestStartWithDBPathKeepsData(t *testing.T) {
	ctx := t.Context()
	opts := Options{DBPath: t.TempDir()}
	first := start(t, opts)
	client, err := Client(ctx, first.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("kept"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, opts)
	client, err = Client(ctx, second.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	if got, want := out.TableNames, []string{"kept"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("tables after restart = %q, want %q", got, want)
	}
}

func TestStartFailsClearlyWithoutJar(t *testing.T) {
	_, err := StartWith(t.Context(), Options{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("StartWith(no jar) error = %v, want one that says to run make tools", err)
	}
}

func TestLaunchReportsPortInUse(t *testing.T) {
	dir, err := findDir("", mustGetwd(t))
	if err != nil {
		t.Fatal(err)
	}
	java, err := findJava()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := launch(t.Context(), []string{java}, dir, l.Addr().(*net.TCPAddr).Port, []string{"-jar", filepath.Join(dir, "DynamoDBLocal.jar")}, []string{"-inMemory"})
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, errPortInUse) {
		t.Fatalf("launch on a taken port: error = %v, want %v", err, errPortInUse)
	}
}

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s, err := StartWith(ctx, opts)
	if err != nil {
		t.Fatalf("StartWith(%+v): %v", opts, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestNiceLowersTheJVMsPriority(t *testing.T) {
	t.Parallel()
	s, err := StartWith(t.Context(), Options{Nice: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		t.Fatal(err)
	}
	// Field 19 of /proc/PID/stat is the nice value; fields after the
	// parenthesised command name are space separated.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	if got := fields[16]; got != "10" {
		t.Errorf("nice = %s, want 10", got)
	}
}
