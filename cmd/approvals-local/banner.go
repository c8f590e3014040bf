package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// banner prints every address and port, the data folder, where the
// state machines are and what survives a restart.
func (p *product) banner() {
	var b strings.Builder
	data, _ := filepath.Abs(p.cfg.Data)
	logs, _ := filepath.Abs(p.cfg.LogPath)
	sfnURL := p.eng.api.URL()
	fmt.Fprintln(&b, "\napprovals-local is running. Ctrl-C stops everything.")
	fmt.Fprintln(&b)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if p.slack != nil {
		fmt.Fprintf(w, "  Slack stand-in\thttp://%s\topen it in a browser, act as a person of the workspace, click\n", p.page.addr)
		fmt.Fprintf(w, "  fake Slack API\t%s\tWeb API and Socket Mode of the stand-in, which the bot and the notifier call\n", p.slack.APIURL())
	} else {
		fmt.Fprintf(w, "  Slack\tyour workspace\trequests are posted in %s (invite the bot there: /invite @approvals); click in Slack\n", p.cfg.Channel)
	}
	fmt.Fprintf(w, "  Step Functions API\t%s\texport AWS_ENDPOINT_URL_SFN=%s AWS_REGION=%s (any credentials)\n", sfnURL, sfnURL, localRegion)
	fmt.Fprintf(w, "  S3\t%s\tbucket %s (the batch workflows' items and results) in %s; aws s3api --endpoint-url %s …\n", p.s3.URL(), batchBucket, filepath.Join(data, "s3"), p.s3.URL())
	fmt.Fprintf(w, "  approvals bot\thttp://%s/readyz\talso /healthz and /metrics\n", p.bot.HTTPAddr())
	fmt.Fprintf(w, "  DynamoDB Local\t%s\ttable %s, pid %d\n", p.ddb.Endpoint(), approvalsTable, p.ddb.PID())
	if ok, why := p.ddb.LoopbackOnly(); !ok {
		fmt.Fprintf(w, "  \t\tWARNING: it listens on every interface, so other machines may reach it: %s\n", why)
	}
	fmt.Fprintf(w, "  data folder\t%s\tapprovals and the stand-in's messages survive a restart; logs in %s\n", data, logs)
	fmt.Fprintf(w, "  audit archive\t%s\tevery audit record as first written, one JSON line each (deployed: a log group)\n", filepath.Join(data, archiveFile))
	fmt.Fprintf(w, "  executions\tin memory\tthey end when approvals-local stops; their open requests are closed at the next start\n")
	_ = w.Flush()

	fmt.Fprintf(&b, "\nState machines (start one from the page, or: aws stepfunctions start-execution --state-machine-arn ARN --input file://input.json):\n")
	w = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range p.eng.shipped {
		fmt.Fprintf(w, "  %s\t%s\n", r.Name, r.ARN)
	}
	for _, r := range p.eng.yours {
		if r.Err == nil && !r.Removed {
			fmt.Fprintf(w, "  %s\t%s\tfrom %s\n", r.Name, r.ARN, r.Path)
		}
	}
	_ = w.Flush()
	if p.cfg.Definitions == "" {
		fmt.Fprintln(&b, "  Yours: pass -definitions FOLDER (*.asl.json files, updated when they change; name the notifier ${NotifierFunctionArn}).")
	} else {
		fmt.Fprintf(&b, "  Yours: *.asl.json in %s, updated when a file changes.\n", p.cfg.Definitions)
		for _, r := range p.eng.yours {
			if r.Err != nil {
				fmt.Fprintf(&b, "  %s\n", describeResult(r))
			}
		}
	}
	fmt.Fprintln(&b)
	if p.slack != nil {
		fmt.Fprintf(&b, "Workspace: #publishing (%s). alice (%s) and @editors (%s: carol, %s) approve; bob (%s) asks; mallory (%s) may not decide.\n",
			standInChannel, alice, editors, carol, bob, mallory)
	} else {
		fmt.Fprintf(&b, "Workspace: yours. Requests go to %s; %s approve (%s for escalations).\n", p.cfg.Channel, p.cfg.Approvers, p.cfg.EscalationApprovers)
	}
	if p.restored > 0 {
		fmt.Fprintf(&b, "Restored %d %s of the stand-in from %s.\n", p.restored, plural(p.restored, "message", "messages"), filepath.Join(data, slackFile))
	}
	if p.closedAtStart > 0 {
		fmt.Fprintf(&b, "Closed %d open %s whose execution ended with the last run.\n", p.closedAtStart, plural(p.closedAtStart, "request", "requests"))
	}
	p.say("%s", strings.TrimRight(b.String(), "\n"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
