package fakeslack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func TestSlashAndClick(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)

	hello := b.hello.Request
	if hello.NumConnections != 1 || hello.ConnectionInfo.AppID != "A0FAKE" {
		t.Errorf("hello = %+v", hello)
	}

	slashID, err := s.Slash("U1", "C1", "/approvals", "pending")
	if err != nil {
		t.Fatalf("Slash: %v", err)
	}
	ev := b.next(t, socketmode.EventTypeSlashCommand)
	cmd := ev.Data.(slack.SlashCommand)
	if cmd.Command != "/approvals" || cmd.Text != "pending" || cmd.UserID != "U1" || cmd.ChannelID != "C1" || cmd.TriggerID == "" || cmd.ResponseURL == "" {
		t.Errorf("slash command = %+v", cmd)
	}
	if ev.Request.EnvelopeID != slashID || !ev.Request.AcceptsResponsePayload {
		t.Errorf("envelope = %+v, want ID %s accepting a response", ev.Request, slashID)
	}
	b.ack(t, ev.Request, map[string]any{"response_type": "ephemeral", "text": "2 pending"})

	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatal(err)
	}
	var approve2 fakeslack.ButtonRef
	msg, _ := s.Message("C1", ts)
	for _, btn := range fakeslack.ButtonActions(msg.Blocks) {
		if btn.Text == "Approve draft 2" {
			approve2 = btn
		}
	}
	clickID, err := s.Click("U2", "C1", ts, approve2.ActionID, approve2.Value)
	if err != nil {
		t.Fatalf("Click: %v", err)
	}
	ev = b.next(t, socketmode.EventTypeInteractive)
	cb := ev.Data.(slack.InteractionCallback)
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U2" || cb.TriggerID == "" || cb.ResponseURL == "" {
		t.Errorf("callback = type %s user %s trigger %q response_url %q", cb.Type, cb.User.ID, cb.TriggerID, cb.ResponseURL)
	}
	wantContainer := slack.Container{Type: "message", MessageTs: ts, ChannelID: "C1"}
	if diff := cmp.Diff(wantContainer, cb.Container); diff != "" {
		t.Errorf("container (-want +got):\n%s", diff)
	}
	if len(cb.ActionCallback.BlockActions) != 1 {
		t.Fatalf("block actions = %+v", cb.ActionCallback.BlockActions)
	}
	act := cb.ActionCallback.BlockActions[0]
	if act.ActionID != "approve_2" || act.BlockID != "req-42" || act.Value != "req-42:2" {
		t.Errorf("action = %s/%s/%s, want approve_2/req-42/req-42:2", act.ActionID, act.BlockID, act.Value)
	}
	if cb.Message.Timestamp != ts || cb.Message.BotID != "BBOT" {
		t.Errorf("message = ts %s bot %s", cb.Message.Timestamp, cb.Message.BotID)
	}
	b.ack(t, ev.Request, nil)

	ctx := waitCtx(t)
	slashAck, err := s.WaitAck(ctx, slashID)
	if err != nil {
		t.Fatal(err)
	}
	if string(slashAck.Payload) != `{"response_type":"ephemeral","text":"2 pending"}` || slashAck.Latency <= 0 {
		t.Errorf("slash ack = %s after %v", slashAck.Payload, slashAck.Latency)
	}
	if clickAck, err := s.WaitAck(ctx, clickID); err != nil || clickAck.Payload != nil {
		t.Errorf("click ack = %+v, %v; want no payload", clickAck, err)
	}
	if eph := s.Ephemerals("U1"); len(eph) != 1 || eph[0].Text != "2 pending" {
		t.Errorf("Ephemerals(U1) = %+v, want the slash ack shown", eph)
	}
	if f := s.Failures(); len(f) != 0 {
		t.Errorf("Failures = %v", f)
	}
}

func TestClickErrors(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	_, ts, err := newAPI(t, s, s.BotToken()).PostMessage("C1", slack.MsgOptionText("r", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, channel, ts, action, value string
	}{
		{"unknown message", "C1", "1.000001", "reject", ""},
		{"wrong channel", "C2", ts, "reject", ""},
		{"unknown action", "C1", ts, "launch", ""},
		{"value not on the button", "C1", ts, "approve_1", "req-99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Click("U1", tt.channel, tt.ts, tt.action, tt.value); err == nil {
				t.Errorf("Click succeeded")
			}
		})
	}
	if _, err := s.Click("U1", "C1", ts, "reject", ""); !errors.Is(err, fakeslack.ErrNoConnection) {
		t.Errorf("Click with no socket error = %v, want ErrNoConnection", err)
	}
	if got := len(s.Failures()); got != 1 {
		t.Errorf("len(Failures) = %d, want 1 (the click nobody received)", got)
	}
}

func TestPingKeepsConnection(t *testing.T) {
	s := newServer(t, fakeslack.Options{PingInterval: 50 * time.Millisecond})
	startBot(t, s, socketmode.OptionPingInterval(400*time.Millisecond))
	// 20 PONGs span about 1s, more than two of the client's watchdog intervals.
	if err := s.WaitFor(waitCtx(t), func() bool { return s.Pongs() >= 20 }); err != nil {
		t.Fatalf("waiting for PONGs: %v (got %d)", err, s.Pongs())
	}
	if got := s.Opens(); got != 1 {
		t.Errorf("Opens = %d, want 1: the connection should have stayed up", got)
	}
}

func TestWithoutPingsTheClientReconnects(t *testing.T) {
	s := newServer(t, fakeslack.Options{PingInterval: time.Hour})
	startBot(t, s, socketmode.OptionPingInterval(100*time.Millisecond))
	if err := s.WaitFor(waitCtx(t), func() bool { return s.Opens() >= 2 }); err != nil {
		t.Fatalf("client never reconnected: %v", err)
	}
}

func TestDisconnectReconnects(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	startBot(t, s)
	s.Disconnect(fakeslack.ReasonRefreshRequested)
	err := s.WaitFor(waitCtx(t), func() bool { return s.Opens() == 2 && s.Connections() == 1 })
	if err != nil {
		t.Fatalf("waiting for reconnect: %v (opens %d, connections %d)", err, s.Opens(), s.Connections())
	}
}

func TestRefuseConnections(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	s.RefuseConnections(fakeslack.ReasonTooManyWebsockets)
	api := newAPI(t, s, s.BotToken())
	cli := socketmode.New(api)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = cli.RunContext(ctx)
	}()
	go func() {
		for {
			select {
			case <-cli.Events:
			case <-stopped:
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-stopped })

	// slack-go reconnects after a disconnect without backoff: this is the storm a bot must guard against.
	if err := s.WaitFor(waitCtx(t), func() bool { return s.Opens() >= 5 }); err != nil {
		t.Fatalf("waiting for reconnects: %v", err)
	}
	if got := s.Connections(); got != 0 {
		t.Errorf("Connections = %d while refusing", got)
	}
	s.RefuseConnections("")
	if err := s.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatalf("waiting for a connection after accepting again: %v", err)
	}
}

func TestUnackedInteractiveIsAFailure(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: 100 * time.Millisecond})
	b := startBot(t, s)
	id, err := s.Slash("U1", "C1", "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	b.next(t, socketmode.EventTypeSlashCommand)
	if err := s.WaitFor(waitCtx(t), func() bool { return len(s.Failures()) == 1 }); err != nil {
		t.Fatalf("waiting for the failure: %v", err)
	}
	if diff := cmp.Diff([]string{id}, s.Failures()); diff != "" {
		t.Errorf("Failures (-want +got):\n%s", diff)
	}
	select {
	case e := <-b.events:
		t.Errorf("unexpected redelivery: %+v", e.Request)
	default:
	}
}

func TestUnackedEventIsRedelivered(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: 100 * time.Millisecond})
	b := startBot(t, s)
	id, err := s.SendEvent("app_mention", map[string]any{"user": "U1", "text": "<@UBOT> hi", "channel": "C1", "ts": "1.000001"})
	if err != nil {
		t.Fatal(err)
	}
	first := b.next(t, socketmode.EventTypeEventsAPI)
	if first.Request.RetryAttempt != 0 || first.Request.RetryReason != "" {
		t.Errorf("first delivery retry = %d %q", first.Request.RetryAttempt, first.Request.RetryReason)
	}
	if inner := first.Data.(slackevents.EventsAPIEvent).InnerEvent.Data; inner == nil {
		t.Errorf("inner event not parsed")
	}
	retry := b.next(t, socketmode.EventTypeEventsAPI)
	if retry.Request.EnvelopeID != id || retry.Request.RetryAttempt != 1 || retry.Request.RetryReason != "timeout" {
		t.Errorf("redelivery = %s attempt %d reason %q, want %s 1 timeout",
			retry.Request.EnvelopeID, retry.Request.RetryAttempt, retry.Request.RetryReason, id)
	}
	b.ack(t, retry.Request, nil)
	if _, err := s.WaitAck(waitCtx(t), id); err != nil {
		t.Fatal(err)
	}
	if f := s.Failures(); len(f) != 0 {
		t.Errorf("Failures = %v", f)
	}
}

func TestEventGivesUpAfterItsRetries(t *testing.T) {
	// Slack's schedule, shortened: as many retries as pauses, then a failure.
	s := newServer(t, fakeslack.Options{AckTimeout: 50 * time.Millisecond, EventRetries: []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond}})
	b := startBot(t, s)
	id, err := s.SendEvent("app_mention", map[string]any{"user": "U1", "text": "hi", "channel": "C1", "ts": "1.000001"})
	if err != nil {
		t.Fatal(err)
	}
	for want := range 4 {
		if got := b.next(t, socketmode.EventTypeEventsAPI).Request.RetryAttempt; got != want {
			t.Errorf("delivery %d has retry_attempt %d", want, got)
		}
	}
	if err := s.WaitFor(waitCtx(t), func() bool { return len(s.Failures()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if got := s.Failures()[0]; got != id {
		t.Errorf("Failures = %v, want [%s]", s.Failures(), id)
	}
	if got := len(s.Deliveries(id)); got != 4 {
		t.Errorf("%d deliveries recorded, want 4", got)
	}
}

func TestSlackRetriesEventsThreeTimesOverFiveMinutes(t *testing.T) {
	t.Parallel()
	want := []time.Duration{0, time.Minute, 5 * time.Minute}
	if !slices.Equal(fakeslack.SlackEventRetries, want) {
		t.Errorf("SlackEventRetries = %v, want Slack's %v", fakeslack.SlackEventRetries, want)
	}
}

// An event whose socket closed before it was acked is delivered again on a socket still open.
func TestUnackedEventIsRedeliveredOnAnotherSocket(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: 100 * time.Millisecond})
	api := newAPI(t, s, s.BotToken())
	first, _ := dialRaw(t, api)
	readRequest(t, first) // hello
	id, err := s.SendEvent("app_home_opened", map[string]any{"user": "U1", "tab": "home"})
	if err != nil {
		t.Fatal(err)
	}
	if req := readRequest(t, first); req.EnvelopeID != id {
		t.Fatalf("first socket got %+v", req)
	}
	_ = first.Close()
	second, _ := dialRaw(t, api)
	readRequest(t, second) // hello
	req := readRequest(t, second)
	if req.EnvelopeID != id || req.RetryAttempt != 1 || req.RetryReason != "timeout" {
		t.Fatalf("second socket got %s attempt %d %q, want %s attempt 1 timeout", req.EnvelopeID, req.RetryAttempt, req.RetryReason, id)
	}
	if err := second.WriteJSON(map[string]string{"envelope_id": id}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitAck(waitCtx(t), id); err != nil {
		t.Fatal(err)
	}
	sockets := s.Sockets()
	d := s.Deliveries(id)
	if len(sockets) != 2 || len(d) != 2 || d[0].Socket != sockets[0].ID || d[1].Socket != sockets[1].ID {
		t.Errorf("deliveries %+v, sockets %+v: want one on each socket, in order", d, sockets)
	}
}

// ClickVia delivers to the chosen socket; Sockets tells which is which.
func TestClickViaChosenSocket(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatal(err)
	}
	var conns []*websocket.Conn
	for range 2 {
		ws, _ := dialRaw(t, api)
		readRequest(t, ws) // hello
		conns = append(conns, ws)
	}
	for socket, ws := range []*websocket.Conn{conns[0], conns[1], conns[0]} {
		id, err := s.ClickVia(socket, "U1", "C1", ts, "reject", "")
		if err != nil {
			t.Fatal(err)
		}
		if req := readRequest(t, ws); req.EnvelopeID != id {
			t.Errorf("ClickVia(%d) reached another socket: %+v", socket, req)
		}
		if d := s.Deliveries(id); len(d) != 1 || d[0].Socket != s.Sockets()[socket%2].ID {
			t.Errorf("ClickVia(%d) deliveries = %+v, sockets %+v", socket, d, s.Sockets())
		}
	}
	for _, sock := range s.Sockets() {
		if sock.Remote == "" || sock.Opened.IsZero() || !sock.Closed.IsZero() {
			t.Errorf("socket %+v: want its remote address, opened, not closed", sock)
		}
	}
}

func TestDisconnectOneLeavesTheOthers(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	var conns []*websocket.Conn
	for range 3 {
		ws, _ := dialRaw(t, api)
		readRequest(t, ws) // hello
		conns = append(conns, ws)
	}
	id := s.DisconnectOne(fakeslack.ReasonRefreshRequested)
	if got := s.Connections(); got != 2 {
		t.Errorf("Connections = %d, want 2", got)
	}
	for i, sock := range s.Sockets() {
		if closed := !sock.Closed.IsZero(); closed != (sock.ID == id) {
			t.Errorf("socket %d closed = %v after DisconnectOne closed %d", sock.ID, closed, id)
		}
		if sock.ID != id {
			continue
		}
		if req := readRequest(t, conns[i]); req.Type != "disconnect" || req.Reason != fakeslack.ReasonRefreshRequested {
			t.Errorf("disconnected socket got %+v", req)
		}
	}
	s.Disconnect(fakeslack.ReasonWarning)
	if got := s.DisconnectOne(fakeslack.ReasonWarning); got != 0 {
		t.Errorf("DisconnectOne with no socket = %d, want 0", got)
	}
}

func TestMalformedFrameKeepsTheClient(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	b := startBot(t, s)
	for _, raw := range []string{`{not json`, `{"type":"surprise","envelope_id":"x"}`} {
		if err := s.SendRaw([]byte(raw)); err != nil {
			t.Fatalf("SendRaw: %v", err)
		}
	}
	if _, err := s.Slash("U1", "C1", "/approvals", "pending"); err != nil {
		t.Fatal(err)
	}
	b.next(t, socketmode.EventTypeSlashCommand)
	if got := s.Opens(); got != 1 {
		t.Errorf("Opens = %d, want 1", got)
	}
}

// dialRaw opens a socket with gorilla directly, as slack-go would, without its reconnect loop.
func dialRaw(t *testing.T, api *slack.Client) (*websocket.Conn, string) {
	t.Helper()
	_, u, err := api.StartSocketModeContext(waitCtx(t))
	if err != nil {
		t.Fatalf("apps.connections.open: %v", err)
	}
	ws, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"https://api.slack.com"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, u
}

func readRequest(t *testing.T, ws *websocket.Conn) socketmode.Request {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(waitTimeout))
	var req socketmode.Request
	if err := ws.ReadJSON(&req); err != nil {
		t.Fatalf("read: %v", err)
	}
	return req
}

func TestTooManyWebsockets(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	for i := 1; i <= 10; i++ {
		ws, _ := dialRaw(t, api)
		if hello := readRequest(t, ws); hello.Type != "hello" || hello.NumConnections != i {
			t.Fatalf("connection %d got %+v", i, hello)
		}
	}
	ws, _ := dialRaw(t, api)
	if got := readRequest(t, ws); got.Type != "disconnect" || got.Reason != "too_many_websockets" {
		t.Errorf("11th connection got %+v, want disconnect too_many_websockets", got)
	}
	if _, _, err := ws.ReadMessage(); err == nil {
		t.Errorf("11th connection still open")
	}
	if got := s.Connections(); got != 10 {
		t.Errorf("Connections = %d, want 10", got)
	}
}

func TestTicketIsSingleUse(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	_, u := dialRaw(t, newAPI(t, s, s.BotToken()))
	_, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"https://api.slack.com"}})
	if err == nil {
		t.Fatalf("second dial with the same ticket succeeded")
	}
	if resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("second dial response = %v, want 401", resp)
	}
}

func TestConnectionsOpenAuth(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	tests := []struct {
		name, appToken, want string
	}{
		{"wrong app token", "xapp-wrong", "invalid_auth"},
		{"bot token", s.BotToken(), "not_allowed_token_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := slack.New(s.BotToken(), slack.OptionAppLevelToken(tt.appToken), slack.OptionAPIURL(s.APIURL()))
			if _, _, err := api.StartSocketModeContext(waitCtx(t)); err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
		})
	}
	if got := s.Opens(); got != 0 {
		t.Errorf("Opens = %d, want 0", got)
	}
}

func TestEnvelopeIsRecorded(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	startBot(t, s)
	id, err := s.Slash("U1", "C1", "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	env, ok := s.Envelope(id)
	var payload map[string]any
	if !ok || env.Type != "slash_commands" || json.Unmarshal(env.Payload, &payload) != nil || payload["command"] != "/approvals" {
		t.Errorf("Envelope(%s) = %+v, %v", id, env, ok)
	}
}
