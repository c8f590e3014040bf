package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// The Lambda functions approvals-local runs in process, by name. A
// definition names them with the ARN a deployment would give them
// (functionARN), through the same placeholders.
const (
	notifierFunction      = "approvals-notifier"
	eventsFunction        = "approvals-events"
	draftAgentFunction    = "draft-agent"
	publishFunction       = "publish"
	fileRejectionFunction = "file-rejection"
	processItemFunction   = "process-item"
)

// localAccount and localRegion are in the ARNs the local engine mints.
const (
	localRegion  = "us-east-1"
	localAccount = "123456789012"
)

// functionARN is the ARN of an in-process function.
func functionARN(name string) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", localRegion, localAccount, name)
}

// substitutions fill the placeholders of the shipped workflows, and of the
// user's definitions with the user's own -substitute values: the
// channel and approvers, the notifier and the stand-ins for the functions
// the shipped workflows call.
func (c productConfig) substitutions() map[string]string {
	subs := c.ownSubstitutions()
	for k, v := range c.Substitutions {
		if _, ours := subs[k]; !ours {
			subs[k] = v
		}
	}
	return subs
}

// ownSubstitutions are the placeholders approvals-local fills itself.
func (c productConfig) ownSubstitutions() map[string]string {
	return map[string]string{
		definitions.Channel:                  c.Channel,
		definitions.Approvers:                c.Approvers,
		definitions.EscalationApprovers:      c.EscalationApprovers,
		definitions.NotifierFunctionArn:      functionARN(notifierFunction),
		definitions.DraftAgentFunctionArn:    functionARN(draftAgentFunction),
		definitions.PublishFunctionArn:       functionARN(publishFunction),
		definitions.FileRejectionFunctionArn: functionARN(fileRejectionFunction),
		definitions.ProcessItemFunctionArn:   functionARN(processItemFunction),
		definitions.BatchBucket:              batchBucket,
		definitions.WorkerCluster:            "local",
		definitions.WorkerTaskDefinition:     fmt.Sprintf("arn:aws:ecs:%s:%s:task-definition/%s:1", localRegion, localAccount, workerFamily),
		definitions.WorkerContainer:          workerContainer,
		definitions.WorkerSubnets:            "subnet-local",
		definitions.WorkerSecurityGroups:     "sg-local",
	}
}

// The ECS task definition approvals-local runs the batch workflow's
// worker as, in process (itemFailures.worker).
const (
	workerFamily    = "process-item"
	workerContainer = "worker"
)

// standIns are small local versions of the functions the shipped
// workflows call besides the notifier, so each runs end to end; items
// decides how the batch workers fare.
func standIns(now func() time.Time, items *itemFailures) map[string]lambda.Handler {
	return map[string]lambda.Handler{
		draftAgentFunction:    draftAgent,
		publishFunction:       func(_ context.Context, p []byte) ([]byte, error) { return publish(p, now()) },
		fileRejectionFunction: fileRejection,
		processItemFunction:   items.process,
	}
}

// draftAgent stands in for a drafting agent: two drafts on the topic, or
// two redrafts once it gets feedback.
func draftAgent(_ context.Context, payload []byte) ([]byte, error) {
	var in struct {
		Topic    string `json:"topic"`
		Feedback string `json:"feedback"`
	}
	_ = json.Unmarshal(payload, &in)
	topic := in.Topic
	if topic == "" {
		topic = "Step Functions callbacks"
	}
	out := map[string]any{
		"drafts": []string{
			fmt.Sprintf("%s: how a workflow waits for a person.", topic),
			fmt.Sprintf("A deep dive into %s: task tokens, heartbeats and timeouts.", topic),
		},
		"summary": "Two first drafts.",
	}
	if in.Feedback != "" {
		out = map[string]any{
			"drafts": []string{
				fmt.Sprintf("%s: let any workflow wait for a yes from a person.", topic),
				fmt.Sprintf("%s: approvals in Slack, without a public endpoint.", topic),
			},
			"summary": "Redrafted after: " + firstLine(in.Feedback),
		}
	}
	return json.Marshal(out)
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// publish stands in for publishing: it answers where the post would be.
func publish(payload []byte, now time.Time) ([]byte, error) {
	var in struct {
		Topic string `json:"topic"`
	}
	_ = json.Unmarshal(payload, &in)
	slug := strings.Trim(notSlug.ReplaceAllString(strings.ToLower(in.Topic), "-"), "-")
	return json.Marshal(map[string]string{
		"url":         fmt.Sprintf("https://blog.example/%s/%s", now.UTC().Format("2006/01/02"), slug),
		"publishedAt": now.UTC().Format(time.RFC3339),
	})
}

// fileRejection stands in for filing a rejection: it answers a ticket.
func fileRejection(_ context.Context, payload []byte) ([]byte, error) {
	var in struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(payload, &in)
	return json.Marshal(map[string]any{"filed": true, "ticket": "REJ-1", "reason": in.Reason})
}

// ItemFailed is process-item's business failure: the item is wrong.
// Step Functions sees its type name as the error name, which the Lambda
// batch workflow offers people to retry instead of retrying it.
type ItemFailed struct{ Message string }

func (e *ItemFailed) Error() string { return e.Message }

// UpstreamUnavailable is process-item's technical failure, which Retry
// retries.
type UpstreamUnavailable struct{ Message string }

func (e *UpstreamUnavailable) Error() string { return e.Message }

// itemFailures decides how the batch workers (the process-item function
// and the ECS stand-in alike) fare with an item, so a batch shows every
// path: "fail": true is rejected (a business failure) the first time
// and processed when people retry it, "fail": "always" is rejected every
// time, and "flaky": true breaks (a technical failure) the first time,
// which Retry retries without asking anybody. "The first time" is every
// odd attempt, so the sample shows the same story each time it runs.
type itemFailures struct {
	mu       sync.Mutex
	attempts map[string]int
}

func newItemFailures() *itemFailures { return &itemFailures{attempts: map[string]int{}} }

type itemOutcome int

const (
	itemProcessed itemOutcome = iota
	itemRejected
	itemBroke
)

// batchItem is an item as the stand-ins read it.
type batchItem struct {
	ID    string `json:"id"`
	Fail  any    `json:"fail"`
	Flaky bool   `json:"flaky"`
}

func (f *itemFailures) decide(in batchItem) itemOutcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts[in.ID]++
	first := f.attempts[in.ID]%2 == 1
	switch {
	case in.Fail == "always", in.Fail == true && first:
		return itemRejected
	case in.Flaky && first:
		return itemBroke
	}
	return itemProcessed
}

// process is the process-item Lambda function.
func (f *itemFailures) process(_ context.Context, payload []byte) ([]byte, error) {
	var in batchItem
	if err := json.Unmarshal(payload, &in); err != nil || in.ID == "" {
		return nil, &ItemFailed{Message: "process-item needs an item object with an id, such as {\"id\": \"invoice-1001\"}"}
	}
	switch f.decide(in) {
	case itemRejected:
		return nil, &ItemFailed{Message: "item " + in.ID + ": the invoice total does not match its lines (the stand-in rejects an item marked \"fail\")"}
	case itemBroke:
		return nil, &UpstreamUnavailable{Message: "item " + in.ID + ": the ledger answered 503 (the stand-in breaks on an item marked \"flaky\" once)"}
	}
	return json.Marshal(map[string]any{"id": in.ID, "done": true})
}

// worker is the ECS stand-in: it reads the item from ITEM and exits 0
// when it processed it, 3 when it rejects it, 1 when it breaks.
func (f *itemFailures) worker(_ context.Context, c ecs.Container) (int, error) {
	var in batchItem
	if err := json.Unmarshal([]byte(c.Environment["ITEM"]), &in); err != nil || in.ID == "" {
		fmt.Fprintf(c.Stdout, "ITEM is not an item object with an id: %q\n", c.Environment["ITEM"])
		return 3, nil
	}
	switch f.decide(in) {
	case itemRejected:
		fmt.Fprintf(c.Stdout, "item %s: the invoice total does not match its lines\n", in.ID)
		return 3, nil
	case itemBroke:
		fmt.Fprintf(c.Stdout, "item %s: the ledger answered 503\n", in.ID)
		return 1, nil
	}
	fmt.Fprintf(c.Stdout, "item %s: processed\n", in.ID)
	return 0, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
