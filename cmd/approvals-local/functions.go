package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

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
	}
}

// standIns are small local versions of the functions the shipped
// workflows call besides the notifier, so each runs end to end.
func standIns(now func() time.Time) map[string]lambda.Handler {
	items := &itemFailures{seen: map[string]bool{}}
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

// ItemProcessingFailed is process-item's error; Step Functions sees its
// type name as the error name.
type ItemProcessingFailed struct{ Message string }

func (e *ItemProcessingFailed) Error() string { return e.Message }

// itemFailures makes process-item fail an item marked "fail": true the
// first time it sees it, so a batch has a failure to approve a retry of,
// and the retry succeeds.
type itemFailures struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (f *itemFailures) process(_ context.Context, payload []byte) ([]byte, error) {
	var in struct {
		ID   string `json:"id"`
		Fail bool   `json:"fail"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return nil, errors.New("process-item needs an item object, such as {\"id\": \"invoice-1001\"}")
	}
	f.mu.Lock()
	failNow := in.Fail && !f.seen[in.ID]
	f.seen[in.ID] = true
	f.mu.Unlock()
	if failNow {
		return nil, &ItemProcessingFailed{Message: "item " + in.ID + ": the upstream service answered 503 (the stand-in fails an item marked \"fail\" once)"}
	}
	return json.Marshal(map[string]any{"id": in.ID, "done": true})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
