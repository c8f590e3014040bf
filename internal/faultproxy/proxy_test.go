package faultproxy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

var ddbEndpoint string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ddb, err := dynamolocal.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy tests:", err)
		return 1
	}
	defer ddb.Close()
	ddbEndpoint = ddb.Endpoint()
	return m.Run()
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// script decides faults from a list, one per call of op, then passes.
type script struct {
	op string
	mu sync.Mutex
	// kinds are the faults of the next calls of op; every is the fault of
	// every later call.
	kinds  []faultproxy.Kind
	every  faultproxy.Kind
	calls  int
	faults int
}

func (s *script) decide(op string) faultproxy.Kind {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op != s.op {
		return faultproxy.Pass
	}
	s.calls++
	k := s.every
	if len(s.kinds) > 0 {
		k, s.kinds = s.kinds[0], s.kinds[1:]
	}
	if k != faultproxy.Pass {
		s.faults++
	}
	return k
}

// seen returns how many calls of op were decided, and how many of them
// were faults.
func (s *script) seen() (calls, faults int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.faults
}

// retryer is the SDK's standard retryer, as production has it (3
// attempts, the same retryable errors), with short pauses.
func retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
		o.RateLimiter = ratelimit.None
	})
}

var approvalID = regexp.MustCompile(`ap_[a-z0-9]+`)

func subjects(body []byte) []string { return approvalID.FindAllString(string(body), -1) }

func startProxy(t *testing.T, target string, svc faultproxy.Service, s *script) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(faultproxy.Options{Target: target, Service: svc, Decide: s.decide, Subjects: subjects})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func ddbClient(t *testing.T, endpoint string) *dynamodb.Client {
	t.Helper()
	return dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(endpoint),
		Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
		Retryer:                         retryer(),
		DisableValidateResponseChecksum: true,
	})
}

func createTable(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano()) // unique under -count
	_, err := ddbClient(t, ddbEndpoint).CreateTable(testContext(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// The SDK sees DynamoDB's own errors: it retries throttles and 5xx, and
// the last one reaches the caller as DynamoDB's error type; a fault is
// never applied, a lost answer is.
func TestDynamoDBFaultsAsTheSDKSeesThem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		kinds     []faultproxy.Kind
		every     faultproxy.Kind
		wantErr   any // pointer to the error type wanted, or nil
		wantCalls int
		written   bool
	}{
		{"throttled twice, then through", []faultproxy.Kind{faultproxy.Throttle, faultproxy.Throttle}, faultproxy.Pass, nil, 3, true},
		{"always throttled", nil, faultproxy.Throttle, new(*types.ProvisionedThroughputExceededException), 3, false},
		{"server error once", []faultproxy.Kind{faultproxy.ServerError}, faultproxy.Pass, nil, 2, true},
		{"always server errors", nil, faultproxy.ServerError, new(*types.InternalServerError), 3, false},
		// The put is applied and its answer lost: the SDK's retry finds the
		// item there and its condition fails.
		{"answer lost", []faultproxy.Kind{faultproxy.LostAnswer}, faultproxy.Pass, new(*types.ConditionalCheckFailedException), 2, true},
	}
	table := createTable(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &script{op: "PutItem", kinds: tt.kinds, every: tt.every}
			p := startProxy(t, ddbEndpoint, faultproxy.DynamoDB, s)
			id := fmt.Sprintf("ap_case%d", i)
			_, err := ddbClient(t, p.URL()).PutItem(testContext(t), &dynamodb.PutItemInput{
				TableName:           aws.String(table),
				Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}},
				ConditionExpression: aws.String("attribute_not_exists(pk)"),
			})
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("PutItem: %v", err)
			case tt.wantErr != nil && !errors.As(err, tt.wantErr):
				t.Errorf("PutItem error = %v, want %T", err, tt.wantErr)
			}
			calls, faults := s.seen()
			if calls != tt.wantCalls {
				t.Errorf("%d attempts, want %d", calls, tt.wantCalls)
			}
			if n := len(p.Records()); n != faults {
				t.Errorf("%d faults recorded, %d injected", n, faults)
			}
			got, err := ddbClient(t, ddbEndpoint).GetItem(testContext(t), &dynamodb.GetItemInput{
				TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if written := got.Item != nil; written != tt.written {
				t.Errorf("item written = %v, want %v", written, tt.written)
			}
			for _, r := range p.Records() {
				if r.Service != "dynamodb" || r.Op != "PutItem" || len(r.Subjects) != 1 || r.Subjects[0] != id {
					t.Errorf("record %+v: want dynamodb PutItem about %s", r, id)
				}
			}
		})
	}
}

// Step Functions' throttle and 5xx reach the SDK as the API sends them:
// retried, never applied; the task stays open until a call gets through.
func TestStepFunctionsFaultsAsTheSDKSeesThem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kinds    []faultproxy.Kind
		every    faultproxy.Kind
		wantCode string
		closed   bool
	}{
		{"throttled once", []faultproxy.Kind{faultproxy.Throttle}, faultproxy.Pass, "", true},
		{"always throttled", nil, faultproxy.Throttle, "ThrottlingException", false},
		{"5xx twice, then through", []faultproxy.Kind{faultproxy.ServerError, faultproxy.ServerError}, faultproxy.Pass, "", true},
		{"always 5xx", nil, faultproxy.ServerError, "InternalFailure", false}, // the third of 500, 503, 500
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			double := stepfunctionstest.NewServer()
			t.Cleanup(double.Close)
			s := &script{op: "SendTaskSuccess", kinds: tt.kinds, every: tt.every}
			p := startProxy(t, double.URL(), faultproxy.StepFunctions, s)
			token := double.StartTask("", "Approve")
			client := sfn.New(sfn.Options{
				Region:       "us-east-1",
				BaseEndpoint: aws.String(p.URL()),
				Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
				Retryer:      retryer(),
			})
			_, err := client.SendTaskSuccess(testContext(t), &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"action":"approved"}`)})
			var apiErr smithy.APIError
			switch {
			case tt.wantCode == "" && err != nil:
				t.Errorf("SendTaskSuccess: %v", err)
			case tt.wantCode != "" && (!errors.As(err, &apiErr) || apiErr.ErrorCode() != tt.wantCode):
				t.Errorf("SendTaskSuccess error = %v, want %s", err, tt.wantCode)
			}
			if closed := double.Outcome(token).State == stepfunctionstest.StateSucceeded; closed != tt.closed {
				t.Errorf("task closed = %v, want %v", closed, tt.closed)
			}
			wantForwarded := 0
			if tt.closed {
				wantForwarded = 1
			}
			if got := double.Calls("SendTaskSuccess"); got != wantForwarded {
				t.Errorf("the double saw %d calls, want %d: faults are not forwarded", got, wantForwarded)
			}
			for _, r := range p.Records() {
				if len(r.Subjects) != 0 {
					t.Errorf("record %+v names subjects; a task token is no approval ID", r)
				}
			}
		})
	}
}

func TestStartChecksItsOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []faultproxy.Options{
		{Target: "", Service: faultproxy.DynamoDB},
		{Target: "127.0.0.1:8000", Service: faultproxy.DynamoDB},
		{Target: "http://127.0.0.1:8000", Service: faultproxy.Service{Name: "x"}},
	} {
		if p, err := faultproxy.Start(opts); err == nil {
			p.Close()
			t.Errorf("Start(%+v) succeeded", opts)
		}
	}
}

// Before holds a request, as a slow service does: released, it is applied;
// its client gone meanwhile, it is not.
func TestBeforeHoldsRequests(t *testing.T) {
	t.Parallel()
	table := createTable(t)
	var mu sync.Mutex
	holds := map[string]chan struct{}{} // by approval ID in the request
	held := make(chan string, 2)
	p, err := faultproxy.Start(faultproxy.Options{Target: ddbEndpoint, Service: faultproxy.DynamoDB, Before: func(ctx context.Context, op string, body []byte) {
		if op != "PutItem" {
			return
		}
		for _, id := range subjects(body) {
			mu.Lock()
			h := holds[id]
			mu.Unlock()
			if h != nil {
				held <- id
				select {
				case <-h:
				case <-ctx.Done():
				}
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	put := func(ctx context.Context, id string) error {
		_, err := ddbClient(t, p.URL()).PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}},
		})
		return err
	}
	written := func(id string) bool {
		got, err := ddbClient(t, ddbEndpoint).GetItem(testContext(t), &dynamodb.GetItemInput{
			TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return got.Item != nil
	}
	for _, id := range []string{"ap_gone", "ap_released"} {
		holds[id] = make(chan struct{})
	}

	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() { done <- put(ctx, "ap_gone") }()
	<-held
	cancel() // the client goes away while its request is held (never released)
	if err := <-done; err == nil {
		t.Fatal("a put whose client went away succeeded")
	}

	go func() { done <- put(testContext(t), "ap_released") }()
	<-held
	if written("ap_released") {
		t.Fatal("a held put was applied")
	}
	close(holds["ap_released"])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !written("ap_released") {
		t.Error("a released put was not applied")
	}
	if written("ap_gone") {
		t.Error("the put whose client went away was applied")
	}
}
