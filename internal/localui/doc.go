// Package localui is the local Slack stand-in's web page: the fake Slack (slackbot/fakeslack)
// made visible and usable in a browser, with a panel of Step Functions executions beside it.
//
// A person picks who they act as from the workspace (Workspace, DefaultWorkspace), reads the
// channels, their own direct message with the app (its Messages tab; nobody else sees it) and
// threads with the messages the app posts (Block Kit rendered on the server:
// header, section text and fields, context, divider, buttons with their styles; mrkdwn with
// mentions shown by name and <!date^…> tokens in the viewer's time zone), and clicks. Clicks,
// modal submissions and slash commands reach the app as the fake's Socket Mode envelopes, sent
// as that person; the modal shown is the view the app opened (views.open), and the errors of a
// response_action "errors" ack show under its inputs; a users_select offers the workspace's
// people. Opening the app's Home tab sends app_home_opened as that person, and shows the Home
// the app published for them (views.publish), whose buttons click from the Home (a block_actions
// whose container is the view). Ephemeral messages show only to the
// person they were sent to. The page follows changes without reloading, through server-sent
// events.
//
// The executions panel starts a registered state machine with a sample input or any JSON, lists
// executions with their status and the state a running one is in, shows an execution's history
// and stops one (Executions; sfnexec implements it over the Step Functions API).
//
// # HTTP API
//
// Every route is served only to requests whose Host is a loopback name (127.0.0.1, [::1],
// localhost; any port), against DNS rebinding; others get 403. Routes that change anything are
// POST only and refused (403) to cross-origin browser requests (http.CrossOriginProtection).
// POST bodies are form-encoded; answers are JSON: {"ok": true, …} or {"error": "…"} with a 4xx
// or 5xx status, and for a modal, "errors" by block_id. as is the acting person's user ID and
// must be one of the workspace's people.
//
//	GET  /?as=U…&c=C…      the page, acting as a person (default the first one) in a channel;
//	                       c=home is the app's Home tab, c=D<user ID> the person's direct
//	                       message with the app (anyone else's is shown as their own)
//	GET  /events?as=&c=    server-sent events, each {"key": …, "html": …} for one part of the page:
//	                       "channels", "messages" (or "home"), "modal", "machines", "executions"
//	GET  /execution?arn=   an execution's detail and history (HTML)
//	GET  /static/…         the page's script and style sheet
//	POST /click            as, channel, ts, action_id, value, ephemeral ("true"): a button click;
//	                       as, container=home, action_id, value: a click on the person's Home
//	POST /home             as, tab ("home" or "messages"): the person opens the app's tab
//	POST /submit           as, view_id, hash, in-<block index>…: submit the open modal
//	POST /close            as, view_id: close the open modal
//	POST /message          as, channel, text: a slash command ("/approvals pending") or a message
//	POST /start            state_machine (ARN), name (optional), input (JSON): start an execution
//	POST /stop             arn: stop an execution
//
// A click, submission or command answers once the app acked it (or failed to, which is an
// error as Slack shows one), so what it changed is on the page when the answer arrives.
package localui
