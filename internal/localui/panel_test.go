package localui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/internal/localui/sfnexec"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// panelUI is the page with its executions panel on the local engine, which has one state
// machine, "sleepy", that waits an hour.
func panelUI(t *testing.T) (*ui, *sfnlocal.Engine, string) {
	t.Helper()
	engine := sfnlocal.New(sfnlocal.Options{})
	t.Cleanup(engine.Close)
	api := httptest.NewServer(sfnapi.NewHandler(engine))
	t.Cleanup(api.Close)
	sm, err := engine.CreateStateMachine(context.Background(), sfnlocal.CreateStateMachineInput{
		Name: "sleepy", RoleArn: "arn:aws:iam::123456789012:role/test",
		Definition: `{"StartAt":"Nap","States":{"Nap":{"Type":"Wait","Seconds":3600,"End":true}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	x := sfnexec.New(stepfunctionstest.NewClient(context.Background(), api.URL), nil)
	return newUI(t, fakeslack.Options{}, localui.Options{Executions: x}), engine, sm.StateMachineArn
}

func TestPanel(t *testing.T) {
	t.Parallel()
	u, engine, machine := panelUI(t)
	if page := u.page(t, "U0BOB", "C0PUBLISH"); !strings.Contains(page, `<option value="`+machine+`" data-samples="[{&#34;Name&#34;:&#34;Empty&#34;,&#34;Input&#34;:&#34;{}&#34;}]">sleepy</option>`) ||
		!strings.Contains(page, "No execution yet.") {
		t.Errorf("the panel does not offer sleepy with its sample, or lists executions:\n%s", page)
	}

	start := func(input string) (int, map[string]any) {
		return u.post(t, "/start", url.Values{"state_machine": {machine}, "name": {"nap-1"}, "input": {input}})
	}
	code, body := start("{\n  \"a\": 1,\n  \"b\": \n}")
	if code != http.StatusBadRequest || !strings.Contains(body["error"].(string), "the input is not JSON: invalid character '}' looking for beginning of value (line 4)") {
		t.Errorf("bad JSON: %d %v", code, body)
	}
	if list, err := engine.ListExecutions(ctxT(t), sfnlocal.ListExecutionsInput{StateMachineArn: machine}); err != nil || len(list.Executions) != 0 {
		t.Fatalf("executions after a start with bad JSON: %+v, %v", list.Executions, err)
	}
	code, body = start(`{"a": 1}`)
	if code != http.StatusOK || !strings.HasSuffix(body["arn"].(string), ":sleepy:nap-1") {
		t.Fatalf("start: %d %v", code, body)
	}
	arn := body["arn"].(string)
	if code, body := start(`{"a": 2}`); code != http.StatusBadRequest || !strings.Contains(body["error"].(string), "ExecutionAlreadyExists") {
		t.Errorf("the same name with another input: %d %v", code, body)
	}
	if page := u.page(t, "U0BOB", "C0PUBLISH"); !strings.Contains(page, `data-status="RUNNING"`) || !strings.Contains(page, "in <strong>Nap</strong>") {
		t.Errorf("the panel does not list the running execution in Nap:\n%s", page)
	}
	if detail := get(t, u.url+"/execution?arn="+url.QueryEscape(arn)); !strings.Contains(detail, "WaitStateEntered") || !strings.Contains(detail, `&#34;a&#34;: 1`) {
		t.Errorf("the detail lacks the history or the input:\n%s", detail)
	}

	if code, body := u.post(t, "/stop", url.Values{"arn": {arn}}); code != http.StatusOK {
		t.Fatalf("stop: %d %v", code, body)
	}
	if x, err := engine.WaitExecution(ctxT(t), arn); err != nil || x.Status != "ABORTED" {
		t.Errorf("after stop: %s %v", x.Status, err)
	}
	if code, _ := u.post(t, "/stop", url.Values{}); code != http.StatusBadRequest {
		t.Errorf("stop without an arn: %d", code)
	}
	if code, body := u.post(t, "/start", url.Values{"input": {"{}"}}); code != http.StatusBadRequest || body["error"] != "choose a state machine" {
		t.Errorf("start without a state machine: %d %v", code, body)
	}
}

func TestNoPanelWithoutExecutions(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	if page := u.page(t, "U0BOB", "C0PUBLISH"); strings.Contains(page, `id="executions"`) {
		t.Error("the page shows a panel without Executions")
	}
	if code, _ := u.post(t, "/start", url.Values{"state_machine": {"x"}}); code != http.StatusNotFound {
		t.Errorf("start without a panel: %d", code)
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
