package localui_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/chromedp/chromedp"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/internal/localui/sfnexec"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// The default workspace's people and places.
const (
	alice   = "U0ALICE"
	bob     = "U0BOB"
	mallory = "U0MALLORY"
	editors = "S0EDITORS"
	channel = "C0PUBLISH"
)

// screenshotEnv names a file the walkthrough also writes its README screenshot to (make
// screenshot sets it to docs/stand-in.png).
const screenshotEnv = "STAND_IN_SCREENSHOT"

// TestBrowserWalkthrough drives the page in a real headless Chromium through the README's
// walkthrough, on the whole product running locally (DynamoDB Local, the fake Slack, the bot,
// the notifier, the local Step Functions engine with the shipped publish workflow): start the
// workflow from the panel, see the request, click Approve as the stranger (refused privately),
// list what waits with /approvals pending, ask for changes as the approver in the modal (a
// validation error first), see the redrafted
// request, approve draft 2, see the execution succeed and the message lose its buttons; stop a
// second execution from the panel; hand a fourth request over to the stranger through the
// modal's user picker (Slack's and then the bot's errors first), and have her approve it from
// her App Home. The page is loaded once per person and tab; everything after that arrives live.
func TestBrowserWalkthrough(t *testing.T) {
	chromium := findChromium(t)
	w := startWalkthrough(t)
	shots := t.ArtifactDir()
	t.Logf("screenshots in %s", shots)

	b := startBrowser(t, chromium)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(b, time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(name string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(b, time.Minute)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getAnimations().length === 0`)); err != nil {
			t.Fatalf("screenshot %s: wait for the animations: %v", name, err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(shots, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	poll := func(what, expr string) {
		t.Helper()
		step(what, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Minute))(ctx, tg)
			return err
		}))
	}

	// The modal is rendered again when its view changes (after an answer
	// with errors, say), keeping what was typed; a node chromedp found can
	// be gone by the time it acts on it, so the modal's picker and submit
	// button are driven by one script each, run where they are now.
	pick := func(what, user string) {
		t.Helper()
		poll(what, `(() => { const s = document.querySelector('form.modal select.b-users'); if (!s) return false; s.value = '`+user+`'; return s.value === '`+user+`'; })()`)
	}
	submitModal := func(what string) {
		t.Helper()
		poll(what, `(() => { const b = document.querySelector('form.modal button[type=submit]'); if (!b || b.disabled) return false; b.click(); return true; })()`)
	}
	// menu opens a message's ⋯ menu and picks the option, as a person clicks them, in one script:
	// a live update can render the message again between two of chromedp's steps. choose picks
	// an option of one of its selects, as a person does (the page sends the pick when the select
	// changes).
	menu := func(what, ts, option string) {
		t.Helper()
		poll(what, `(() => { const m = document.querySelector('#`+msgID(ts)+`'); const toggle = m?.querySelector('.b-overflow-toggle'); `+
			`const item = m?.querySelector('.b-menu-item[data-option="`+option+`"]'); if (!toggle || !item || item.disabled) return false; `+
			`if (toggle.nextElementSibling.hidden) toggle.click(); if (toggle.nextElementSibling.hidden) return false; item.click(); return true; })()`)
	}
	// press clicks a message's (or the Home's) button in one script, for the same reason.
	press := func(what, css string) {
		t.Helper()
		poll(what, `(() => { const b = document.querySelector('`+css+`'); if (!b || b.disabled) return false; b.click(); return true; })()`)
	}
	choose := func(what, ts, menuID, option string) {
		t.Helper()
		poll(what, `(() => { const s = document.querySelector('#`+msgID(ts)+` select.b-select[data-menu-id="`+menuID+`"]'); if (!s || s.disabled) return false; `+
			`s.value = '`+option+`'; s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`)
	}

	// Bob starts the publish workflow with its sample input.
	step("open the page as bob",
		chromedp.Navigate(w.url+"/?as="+bob+"&c="+channel),
		chromedp.WaitVisible(chromedp.CSS(`#live.on`)),
		chromedp.WaitVisible(chromedp.CSS(`#samples .sample`)),
	)
	poll("the sample input in the form", `document.querySelector('#input').value.includes('"requestedBy": "U0BOB"')`)
	step("start the execution", chromedp.Click(chromedp.CSS(`#start-button`)))
	step("the request arrives", chromedp.WaitVisible(chromedp.CSS(`article.msg button[data-action-id="approve_draft_0"]`)))
	first := w.request(t, 1)
	poll("the panel shows the execution waiting in Approve",
		`[...document.querySelectorAll('.exec[data-status="RUNNING"] .exec-state')].some(e => e.textContent.includes('waits in Approve'))`)
	shot("01-request.png")

	// Mallory may not decide: only she is told so.
	step("act as mallory", chromedp.Click(chromedp.CSS(`.people a[href*="`+mallory+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	press("mallory clicks Approve draft 1", `#`+msgID(first.TS)+` button[data-action-id="approve_draft_0"]`)
	step("she is told privately", chromedp.WaitVisible(chromedp.CSS(`article.msg.eph`)))
	poll("the refusal names who may decide", `document.querySelector('article.msg.eph').textContent.includes('Who may decide: @alice, @editors')`)
	shot("02-stranger-refused.png")
	if m, _ := w.stack.Slack.Message(channel, first.TS); m.Updates != 0 {
		t.Errorf("mallory's click changed the request (%d updates)", m.Updates)
	}

	// Alice asks for changes; the modal first refuses an empty request as the bot answers.
	step("act as alice", chromedp.Click(chromedp.CSS(`.people a[href*="`+alice+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	if n := w.count(t, b, `article.msg.eph`); n != 0 {
		t.Errorf("alice sees %d ephemeral messages; mallory's refusal is hers alone", n)
	}
	if _, err := chromedp.Run(b, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatalf("mark the page, to see it is never reloaded: %v", err)
	}
	step("alice runs /approvals pending",
		chromedp.SendKeys(chromedp.CSS(`#composer-text`), "/approvals pending"),
		chromedp.Click(chromedp.CSS(`#composer button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`article.msg.eph a.msg-link[href$="#`+msgID(first.TS)+`"]`)),
	)
	poll("the message has at most 5 buttons, the rest in menus",
		`document.querySelectorAll('#`+msgID(first.TS)+` .b-actions > button').length === 5 && !!document.querySelector('#`+msgID(first.TS)+` .b-overflow')`)
	choose("alice picks Other changes… in the changes menu", first.TS, "changes", "revise")
	step("the Request changes modal opens", chromedp.WaitVisible(chromedp.CSS(`form.modal`)))
	step("submit it empty", chromedp.Click(chromedp.CSS(`form.modal button[type=submit]`)))
	poll("the bot's error under the feedback input",
		`document.querySelector('.b-input[data-block-id="feedback"].has-error .b-error')?.textContent === 'Choose a change above or describe what should change.'`)
	shot("03-modal-error.png")
	step("choose Shorter and write a note",
		chromedp.Click(chromedp.CSS(`.b-input[data-block-id="preset"] input[type=radio][value="0"]`)),
		chromedp.SendKeys(chromedp.CSS(`.b-input[data-block-id="feedback"] textarea`), "Lead with the benefit."),
	)
	shot("04-modal.png")
	step("send", chromedp.Click(chromedp.CSS(`form.modal button[type=submit]`)), chromedp.WaitNotPresent(chromedp.CSS(`form.modal`)))

	second := w.request(t, 2)
	step("the redrafted request arrives", chromedp.WaitVisible(chromedp.CSS(`#`+msgID(second.TS)+` button[data-action-id="approve_draft_1"]`)))
	poll("the first request says what alice asked",
		`!document.querySelector('#`+msgID(first.TS)+` button') && document.querySelector('#`+msgID(first.TS)+`').textContent.includes('Changes requested by @alice')`)
	path := shot("05-redrafted.png")
	if dst := os.Getenv(screenshotEnv); dst != "" {
		copyFile(t, path, dst)
	}

	// Alice approves draft 2; the execution succeeds and the message loses its buttons.
	press("alice approves draft 2", `#`+msgID(second.TS)+` button[data-action-id="approve_draft_1"]`)
	poll("the request says it was approved, without buttons",
		`!document.querySelector('#`+msgID(second.TS)+` button') && document.querySelector('#`+msgID(second.TS)+`').textContent.includes('Approved draft 2 by @alice')`)
	step("the execution succeeded", chromedp.WaitVisible(chromedp.CSS(`.exec[data-status="SUCCEEDED"]`)))
	step("open its history",
		chromedp.Click(chromedp.CSS(`.exec[data-status="SUCCEEDED"] .exec-open`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .ev-ExecutionSucceeded`)),
	)
	shot("06-approved.png")
	if ok, err := chromedp.Run(b, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !ok {
		t.Errorf("the page was reloaded (%v, %v): changes must arrive live", ok, err)
	}
	detail, err := chromedp.Run(b, chromedp.OuterHTML(chromedp.CSS(`#detail`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range w.taskTokens(t) {
		if strings.Contains(detail, token) {
			t.Errorf("the execution's history shows a task token")
		}
	}
	if !strings.Contains(detail, sfnexec.Masked) {
		t.Errorf("the history shows no masked task token; is the notifier's payload there?")
	}

	// A second execution, stopped from the panel: its request closes.
	step("start another one", chromedp.Click(chromedp.CSS(`#start-button`)))
	third := w.request(t, 3)
	step("its request arrives", chromedp.WaitVisible(chromedp.CSS(`#`+msgID(third.TS)+` button`)))
	step("stop it from the panel",
		chromedp.Click(chromedp.CSS(`.exec[data-status="RUNNING"] .exec-stop`)),
		chromedp.WaitVisible(chromedp.CSS(`.exec[data-status="ABORTED"]`)),
	)
	poll("its request closes", `!document.querySelector('#`+msgID(third.TS)+` button') && document.querySelector('#`+msgID(third.TS)+`').textContent.includes('Cancelled')`)
	shot("07-stopped.png")

	// A fourth request: Alice hands it to Mallory through the modal's user picker.
	step("start a fourth one", chromedp.Click(chromedp.CSS(`#start-button`)))
	fourth := w.request(t, 4)
	menu("alice picks Hand over in the message's ⋯ menu", fourth.TS, "delegate")
	step("the Hand over modal opens", chromedp.WaitVisible(chromedp.CSS(`form.modal select.b-users`)))
	submitModal("submit it without picking anyone")
	poll("Slack's own error under the picker",
		`document.querySelector('.b-input[data-block-id="delegate"].has-error .b-error')?.textContent === 'Please complete this required field.'`)
	pick("alice picks herself", alice)
	submitModal("and submits")
	poll("the bot's error under the picker",
		`document.querySelector('.b-input[data-block-id="delegate"].has-error .b-error')?.textContent === 'You cannot hand a request to yourself.'`)
	pick("alice picks mallory", mallory)
	shot("08-hand-over.png")
	submitModal("hand over")
	step("the modal closes", chromedp.WaitNotPresent(chromedp.CSS(`form.modal`)))
	poll("the hand-over is a reply in the request's thread",
		`document.querySelector('#`+msgID(fourth.TS)+` .thread')?.textContent.includes('@alice handed this request to @mallory, who may decide it now.')`)

	// Mallory opens the app's Home tab and approves draft 1 from there.
	step("act as mallory, in the app's Home tab",
		chromedp.Click(chromedp.CSS(`.people a[href*="`+mallory+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)),
		chromedp.Click(chromedp.CSS(`#channels a[data-channel="home"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)),
		chromedp.WaitVisible(chromedp.CSS(`#home-view button[data-action-id="approve_draft_0"]`)),
	)
	poll("her Home says the request was handed to her", `document.querySelector('#home-view').textContent.includes('handed to you by @alice')`)
	shot("09-home.png")
	press("mallory approves draft 1 from her Home", `#home-view button[data-action-id="approve_draft_0"]`)
	poll("her Home lists it as decided by her, with nothing left to decide",
		`!document.querySelector('#home-view button') && document.querySelector('#home-view').textContent.includes('✅ Approved draft 1')`)
	shot("10-home-decided.png")
	if m, _ := w.stack.Slack.Message(channel, fourth.TS); len(fakeslack.ButtonActions(m.Blocks)) != 0 {
		t.Errorf("the request approved from the Home keeps its buttons: %s", m.Text)
	}
	step("back in #publishing", chromedp.Click(chromedp.CSS(`#channels a[data-channel="`+channel+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	poll("the request says mallory approved it",
		`!document.querySelector('#`+msgID(fourth.TS)+` button') && document.querySelector('#`+msgID(fourth.TS)+`').textContent.includes('Approved draft 1 by @mallory')`)

	// A fifth request: Alice asks for a shorter one with one click on the preset's button.
	step("act as alice", chromedp.Click(chromedp.CSS(`.people a[href*="`+alice+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	step("start a fifth one", chromedp.Click(chromedp.CSS(`#start-button`)))
	fifth := w.request(t, 5)
	press("alice clicks the Shorter preset", `#`+msgID(fifth.TS)+` button[data-action-id="preset_0"]`)
	poll("the request says alice asked for it shorter, with no form in between",
		`!document.querySelector('form.modal') && document.querySelector('#`+msgID(fifth.TS)+`').textContent.includes('Changes requested by @alice')`)

	// The redraft: Alice fixes one word of draft 2 and approves it as she left it.
	sixth := w.request(t, 6)
	step("the redraft arrives", chromedp.WaitVisible(chromedp.CSS(`#`+msgID(sixth.TS)+` .b-overflow-toggle`)))
	menu("alice picks Edit & approve", sixth.TS, "edit")
	step("the first step asks which draft", chromedp.WaitVisible(chromedp.CSS(`form.modal .b-input[data-block-id="draft"] input[type=radio][value="1"]`)))
	step("alice picks draft 2", chromedp.Click(chromedp.CSS(`form.modal .b-input[data-block-id="draft"] input[type=radio][value="1"]`)))
	submitModal("and goes on")
	poll("draft 2 is in the text box, ready to edit",
		`document.querySelector('form.modal .b-input[data-block-id="edited"] textarea')?.value === 'Approvals in Slack, without a public endpoint.'`)
	poll("alice fixes a word", `(() => { const a = document.querySelector('form.modal .b-input[data-block-id="edited"] textarea'); if (!a) return false; `+
		`a.value = 'Approvals in Slack, with no public endpoint.'; a.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`)
	shot("11-edit.png")
	submitModal("and approves")
	step("the modal closes", chromedp.WaitNotPresent(chromedp.CSS(`form.modal`)))
	poll("the request says she approved draft 2 as edited, and shows her text",
		`!document.querySelector('#`+msgID(sixth.TS)+` button') && document.querySelector('#`+msgID(sixth.TS)+`').textContent.includes('Approved draft 2, edited,') && `+
			`document.querySelector('#`+msgID(sixth.TS)+`').textContent.includes('Approvals in Slack, with no public endpoint.')`)
	shot("12-edited.png")
	if got := w.outputs(t, "published"); !strings.Contains(got, `"text":"Approvals in Slack, with no public endpoint."`) {
		t.Errorf("the edited text was not published: %s", got)
	}

	// A seventh request: Bob, who asked for it, takes it back.
	step("act as bob", chromedp.Click(chromedp.CSS(`.people a[href*="`+bob+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	step("start a seventh one", chromedp.Click(chromedp.CSS(`#start-button`)))
	seventh := w.request(t, 7)
	step("its request arrives", chromedp.WaitVisible(chromedp.CSS(`#`+msgID(seventh.TS)+` .b-overflow-toggle`)))
	menu("bob picks Withdraw request", seventh.TS, "withdraw")
	step("the Withdraw modal opens", chromedp.WaitVisible(chromedp.CSS(`form.modal .b-input[data-block-id="reason"] textarea`)))
	step("bob says why", chromedp.SendKeys(chromedp.CSS(`form.modal .b-input[data-block-id="reason"] textarea`), "The launch moved."))
	shot("13-withdraw.png")
	submitModal("and withdraws it")
	step("the modal closes", chromedp.WaitNotPresent(chromedp.CSS(`form.modal`)))
	poll("the request says bob withdrew it",
		`!document.querySelector('#`+msgID(seventh.TS)+` button') && document.querySelector('#`+msgID(seventh.TS)+`').textContent.includes('Withdrawn by @bob')`)
	if got := w.outputs(t, "withdrawn"); !strings.Contains(got, `"reason":"Withdrawn by U0BOB: The launch moved."`) {
		t.Errorf("the execution did not end withdrawn: %s", got)
	}
	step("bob's direct message from the app tells him",
		chromedp.Click(chromedp.CSS(`#channels a[data-channel="`+fakeslack.DMChannel(bob)+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	poll("one line per request he asked for, with a link", `[...document.querySelectorAll('article.msg')].some(m => m.textContent.includes('Your request') && m.textContent.includes('Withdrawn by @bob'))`)
	shot("14-requester-told.png")

	// An eighth request, in Japanese.
	step("back in #publishing", chromedp.Click(chromedp.CSS(`#channels a[data-channel="`+channel+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	poll("a Japanese input", `(() => { const i = document.querySelector('#input'); if (!i) return false; `+
		`i.value = JSON.stringify({ topic: 'Step Functions のコールバック', requestedBy: '`+bob+`', locale: 'ja' }); return true; })()`)
	step("start the eighth one", chromedp.Click(chromedp.CSS(`#start-button`)))
	eighth := w.request(t, 8)
	step("it arrives in Japanese", chromedp.WaitVisible(chromedp.CSS(`#`+msgID(eighth.TS)+` button[data-action-id="approve_draft_1"]`)))
	poll("its buttons and lines are Japanese",
		`(() => { const m = document.querySelector('#`+msgID(eighth.TS)+`').textContent; return m.includes('案 2 を承認') && m.includes('却下') && m.includes('承認者') && m.includes('依頼者'); })()`)
	shot("15-japanese.png")
	step("act as alice", chromedp.Click(chromedp.CSS(`.people a[href*="`+alice+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#live.on`)))
	press("alice approves draft 2", `#`+msgID(eighth.TS)+` button[data-action-id="approve_draft_1"]`)
	poll("the request says so in Japanese",
		`!document.querySelector('#`+msgID(eighth.TS)+` button') && document.querySelector('#`+msgID(eighth.TS)+`').textContent.includes('案 2 を承認')`)
}

// outputs returns the outputs of the executions that succeeded with the outcome, as JSON.
func (w *walkthrough) outputs(t *testing.T, outcome string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []string
	for {
		list, err := w.sfn.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(w.machine)})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list.Executions {
			d, err := w.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: x.ExecutionArn})
			if err != nil {
				t.Fatal(err)
			}
			if o := aws.ToString(d.Output); strings.Contains(o, `"outcome":"`+outcome+`"`) {
				out = append(out, o)
			}
		}
		if len(out) > 0 {
			return strings.Join(out, "\n")
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// walkthrough is the product running locally with the page in front of it.
type walkthrough struct {
	stack   *devstack.Stack
	sfn     *sfn.Client
	url     string
	machine string
}

func startWalkthrough(t *testing.T) *walkthrough {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ws := localui.DefaultWorkspace()
	bot := slackbot.DefaultConfig()
	bot.SweepInterval = time.Second
	bot.CallTimeout = 30 * time.Second // only stops a hung call: a busy machine makes calls slow
	stack, err := devstack.Start(ctx, devstack.Options{
		Replicas: 1,
		Slack: fakeslack.Options{
			Groups: ws.SlackGroups(),
			Users:  ws.Users(),
			// Slack's 3 s are the bot's contract, tested in slackbot; on a busy machine a late
			// ack would only fail this test for something else.
			AckTimeout: time.Minute,
			TriggerTTL: time.Minute,
		},
		Bot:    bot,
		Engine: true,
		Functions: map[string]lambda.Handler{
			"draft-agent": draftAgent,
			"publish": func(context.Context, []byte) ([]byte, error) {
				return []byte(`{"url":"https://blog.example/p/1"}`), nil
			},
		},
	})
	if err != nil {
		t.Fatalf("start the stack: %v", err)
	}
	t.Cleanup(stack.Close)

	raw, err := definitions.Load(definitions.PublishWithApproval)
	if err != nil {
		t.Fatal(err)
	}
	def, err := host.Substitute(raw, map[string]string{
		definitions.Channel: channel, definitions.Approvers: alice + "," + editors,
		definitions.NotifierFunctionArn: devstack.NotifierFunction, definitions.DraftAgentFunctionArn: "draft-agent", definitions.PublishFunctionArn: "publish",
	})
	if err != nil {
		t.Fatal(err)
	}
	machine, err := stack.CreateStateMachine(ctx, "publish-with-approval", def)
	if err != nil {
		t.Fatal(err)
	}
	client := stepfunctionstest.NewClient(context.Background(), envValue(t, stack.Env(), "AWS_ENDPOINT_URL_SFN"))

	ui := localui.New(localui.Options{Slack: stack.Slack, Executions: sfnexec.New(client, nil), People: ws})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ui.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shut the page's server down: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return &walkthrough{stack: stack, sfn: client, url: "http://" + ln.Addr().String(), machine: machine}
}

// draftAgent writes two drafts, and two new ones when it is given feedback.
func draftAgent(_ context.Context, payload []byte) ([]byte, error) {
	var in struct {
		Feedback string `json:"feedback"`
	}
	_ = json.Unmarshal(payload, &in)
	if in.Feedback == "" {
		return []byte(`{"drafts":["Step Functions can wait for people: here is how callbacks work.","A deep dive into task tokens, heartbeats and timeouts."],"summary":"Two first drafts about *callbacks*."}`), nil
	}
	return []byte(`{"drafts":["Let any workflow wait for a yes from a person.","Approvals in Slack, without a public endpoint."],"summary":"Redrafted: shorter, benefit first."}`), nil
}

// request waits for the n-th request message (one that had buttons when posted) and returns it.
func (w *walkthrough) request(t *testing.T, n int) fakeslack.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var found fakeslack.Message
	err := w.stack.Slack.WaitFor(ctx, func() bool {
		seen := 0
		for _, m := range w.stack.Slack.Messages(channel) {
			if m.ThreadTS != "" && m.ThreadTS != m.TS {
				continue
			}
			if versions := append(w.stack.Slack.History(channel, m.TS), m); len(fakeslack.ButtonActions(versions[0].Blocks)) > 0 {
				if seen++; seen == n {
					found = m
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("request %d never reached Slack: %v", n, err)
	}
	return found
}

func (w *walkthrough) count(t *testing.T, b context.Context, selector string) int {
	t.Helper()
	n, err := chromedp.Run(b, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, selector)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// taskTokens reads the task tokens the engine handed the notifier from the executions' raw
// histories.
func (w *walkthrough) taskTokens(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := w.sfn.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(w.machine)})
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, x := range list.Executions {
		h, err := w.sfn.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: x.ExecutionArn, MaxResults: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range h.Events {
			if d := ev.TaskScheduledEventDetails; d != nil {
				var p struct {
					Payload struct {
						TaskToken string `json:"taskToken"`
					}
				}
				if json.Unmarshal([]byte(aws.ToString(d.Parameters)), &p) == nil && p.Payload.TaskToken != "" {
					tokens = append(tokens, p.Payload.TaskToken)
				}
			}
		}
	}
	if len(tokens) == 0 {
		t.Fatal("no task token in the histories: the check would prove nothing")
	}
	return tokens
}

// findChromium fails the test, saying how to install it, when Chromium is missing: CI installs it.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("Chromium is missing: install it with `apt-get install -y chromium` (Debian's package; .ci/run does)")
	return ""
}

// startBrowser starts a headless Chromium with a fresh profile; cleanup stops it and checks its
// process is gone.
func startBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1480, 940),
		chromedp.Env("TZ=UTC", "LANG=en_US.UTF-8"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first action starts the browser, which lives as long as its context: it cannot have a
	// deadline of its own.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx, chromedp.Navigate("about:blank")) }()
	select {
	case err := <-started:
		if err != nil {
			cancel()
			cancelAlloc()
			t.Fatalf("start Chromium (%s): %v", path, err)
		}
	case <-time.After(2 * time.Minute):
		cancel()
		cancelAlloc()
		<-started
		t.Fatalf("Chromium (%s) did not start within 2 minutes", path)
	}
	process := chromedp.FromContext(ctx).Browser.Process()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		if process != nil {
			if err := process.Signal(syscall.Signal(0)); err == nil {
				t.Errorf("Chromium (pid %d) is still running after the test", process.Pid)
			}
		}
	})
	return ctx
}

func msgID(ts string) string { return "m-" + strings.ReplaceAll(ts, ".", "-") }

func envValue(t *testing.T, env []string, name string) string {
	t.Helper()
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	t.Fatalf("the stack's environment has no %s", name)
	return ""
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatalf("write the README screenshot: %v", err)
	}
	t.Logf("wrote %s", to)
}
