package devstack_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/s3local"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	s3integ "github.com/sfnapprovals/approvals/sfnlocal/integrations/s3"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// The batch workflow end to end, as its design runs it: the items come
// from S3 and each runs as an ECS task; one breaks once and is retried by
// Retry without anybody being asked; two are rejected by the worker, so a
// person is asked in Slack (the count and a sample in the message),
// approves the retry by clicking, and the bot resumes the execution; one
// of them is rejected again and, the retry limit reached, the execution
// succeeds reporting it in failedWorkersFinal.
func TestBatchWorkflowEndToEnd(t *testing.T) {
	t.Parallel()
	store, err := s3local.Start(s3local.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	objects := awss3.New(awss3.Options{Region: "us-east-1", BaseEndpoint: aws.String(store.URL()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})

	var mu sync.Mutex
	attempts := map[string]int{}
	var calls []string
	workers := ecs.New(ecs.Options{})
	t.Cleanup(workers.Close)
	err = workers.Register(ecs.TaskDefinition{Family: "process-item", Container: "worker", Run: func(_ context.Context, c ecs.Container) (int, error) {
		var item struct {
			ID    string `json:"id"`
			Fail  any    `json:"fail"`
			Flaky bool   `json:"flaky"`
		}
		if err := json.Unmarshal([]byte(c.Environment["ITEM"]), &item); err != nil {
			return 1, nil
		}
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, item.ID)
		attempts[item.ID]++
		first := attempts[item.ID] == 1
		switch {
		case item.Fail == "always", item.Fail == true && first:
			return 3, nil // rejected: a business failure
		case item.Flaky && first:
			return 1, nil // broke: a technical failure
		}
		return 0, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 1, func(o *devstack.Options) {
		o.Engine = true
		o.Integrations = []task.Integration{workers, s3integ.New(objects)}
	})
	ctx := e.ctx()
	if _, err := objects.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String("approvals-batch")}); err != nil {
		t.Fatal(err)
	}
	items := `[{"id":"a"},{"id":"b","flaky":true},{"id":"c","fail":true},{"id":"d","fail":"always"}]`
	if _, err := objects.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String("approvals-batch"), Key: aws.String("in/2026-11-30.json"), Body: strings.NewReader(items)}); err != nil {
		t.Fatal(err)
	}
	raw, err := definitions.Load(definitions.BatchWithApprovedRetries)
	if err != nil {
		t.Fatal(err)
	}
	def, err := host.Substitute(raw, map[string]string{
		definitions.Channel: channel, definitions.Approvers: alice, definitions.NotifierFunctionArn: devstack.NotifierFunction,
		definitions.BatchBucket: "approvals-batch", definitions.WorkerCluster: "local", definitions.WorkerTaskDefinition: "process-item",
		definitions.WorkerContainer: "worker", definitions.WorkerSubnets: "subnet-local", definitions.WorkerSecurityGroups: "sg-local",
	})
	if err != nil {
		t.Fatal(err)
	}
	machine, err := e.stack.CreateStateMachine(ctx, "batch-with-approved-retries", def)
	if err != nil {
		t.Fatal(err)
	}
	arn, err := e.stack.StartExecution(ctx, machine, "invoices-2026-11-30", map[string]any{
		"itemsKey": "in/2026-11-30.json", "requestedBy": bob, "retryLimit": 1,
	})
	if err != nil {
		t.Fatal(err)
	}

	request := e.requestWithButtons(channel)
	text := string(request.Blocks)
	for _, want := range []string{"Retry the 2 failed items?", "2 (2 rejected by the worker, 0 technical after automatic retries)", `{\"id\":\"c\",\"fail\":true}: ItemFailed`, "0 of 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the request does not show %s:\n%s", want, text)
		}
	}
	var approve fakeslack.ButtonRef
	for _, b := range fakeslack.ButtonActions(request.Blocks) {
		if b.Text == "Approve" {
			approve = b
		}
	}
	if approve.ActionID == "" {
		t.Fatalf("no Approve button in %s", request.Blocks)
	}
	id, err := e.stack.Slack.Click(alice, channel, request.TS, approve.ActionID, approve.Value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(ctx, id); err != nil {
		t.Fatal(err)
	}

	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil || ex.Status != "SUCCEEDED" {
		t.Fatalf("execution = %s %s %s, %v", ex.Status, ex.Error, ex.Cause, err)
	}
	var out struct {
		Outcome string
		Counts  map[string]int
		Final   []struct {
			Item  map[string]any
			Error string
		} `json:"failedWorkersFinal"`
	}
	if err := json.Unmarshal([]byte(ex.Output), &out); err != nil {
		t.Fatal(err)
	}
	if out.Outcome != "retries-exhausted" || out.Counts["failedFirstRound"] != 2 || out.Counts["failedFinal"] != 1 || out.Counts["businessFinal"] != 1 ||
		len(out.Final) != 1 || out.Final[0].Item["id"] != "d" || out.Final[0].Error != "ItemFailed" {
		t.Errorf("output %s", ex.Output)
	}
	mu.Lock()
	got := slices.Clone(calls)
	mu.Unlock()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "b", "c", "c", "d", "d"}) {
		t.Errorf("worker runs %q: want b again (Retry), c and d again (the approved retry)", got)
	}
	e.waitFor("the request to show it was approved", func() bool {
		m, _ := e.stack.Slack.Message(channel, request.TS)
		return m.Updates > 0 && len(fakeslack.ButtonActions(m.Blocks)) == 0
	})
}
