package fakeslack

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const writeTimeout = 5 * time.Second

// Disconnect reasons Slack sends.
const (
	ReasonWarning           = "warning"
	ReasonRefreshRequested  = "refresh_requested"
	ReasonLinkDisabled      = "link_disabled"
	ReasonTooManyWebsockets = "too_many_websockets"
)

type conn struct {
	id       int
	ws       *websocket.Conn
	wmu      sync.Mutex
	stop     chan struct{}
	stopOnce sync.Once
}

func (c *conn) write(frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	return c.ws.WriteMessage(websocket.TextMessage, frame)
}

// writeStamped is write, calling stamp just before the frame goes out.
func (c *conn) writeStamped(frame []byte, stamp func()) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	stamp()
	return c.ws.WriteMessage(websocket.TextMessage, frame)
}

func (c *conn) close() {
	c.stopOnce.Do(func() {
		close(c.stop)
		_ = c.ws.Close()
	})
}

// disconnect sends Slack's disconnect message and a close frame, then closes the socket.
func (c *conn) disconnect(reason string) {
	frame, _ := json.Marshal(map[string]any{
		"type":       "disconnect",
		"reason":     reason,
		"debug_info": map[string]any{"host": "fakeslack"},
	})
	if c.write(frame) == nil {
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(writeTimeout))
	}
	c.close()
}

// Socket is one Socket Mode connection an app opened: its ID (as in Delivery), the app's address
// as the fake saw it, when it opened and, once it has, when it closed.
type Socket struct {
	ID             int
	Remote         string
	Opened, Closed time.Time
}

type socketState struct {
	history   []*Socket // every accepted socket, in the order they opened
	tickets   map[string]bool
	opens     int
	conns     map[int]*conn
	connSeq   int
	refuse    string
	pongs     int
	envelopes map[string]*envelope
	acks      []Ack
	failures  []string
}

func (st *socketState) init() {
	st.tickets = map[string]bool{}
	st.conns = map[int]*conn{}
	st.envelopes = map[string]*envelope{}
}

func (st *socketState) liveLocked() []*conn {
	ids := slices.Sorted(maps.Keys(st.conns))
	out := make([]*conn, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.conns[id])
	}
	return out
}

// connectionsOpen hands out a single-use WebSocket URL with an unguessable
// ticket.
func (s *Server) connectionsOpen(*apiRequest) (map[string]any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.socket.opens++
	ticket := unguessable()
	s.socket.tickets[ticket] = true
	s.notifyLocked()
	return map[string]any{"url": "ws" + strings.TrimPrefix(s.base, "http") + "/link/?ticket=" + ticket}, nil
}

// Opens counts apps.connections.open calls that succeeded.
func (s *Server) Opens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket.opens
}

// Connections counts live sockets.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.socket.conns)
}

// Pongs counts PONGs received for the server's PINGs, over all sockets.
func (s *Server) Pongs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket.pongs
}

// WaitConnections waits until exactly n sockets are live.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.WaitFor(ctx, func() bool { return s.Connections() == n })
}

// RefuseConnections makes every new socket get {"type":"disconnect","reason":reason} instead of
// hello, and be closed. An empty reason accepts sockets again.
func (s *Server) RefuseConnections(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.socket.refuse = reason
}

// Sockets returns every socket accepted so far, live or closed, in the order they opened.
func (s *Server) Sockets() []Socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Socket, 0, len(s.socket.history))
	for _, h := range s.socket.history {
		out = append(out, *h)
	}
	return out
}

// DisconnectOne sends {"type":"disconnect","reason":reason} to one live socket chosen at random and
// closes it, as Slack refreshes an app's connections one at a time. It returns the socket's ID, or
// 0 when none was live.
func (s *Server) DisconnectOne(reason string) int {
	s.mu.Lock()
	live := s.socket.liveLocked()
	if len(live) == 0 {
		s.mu.Unlock()
		return 0
	}
	c := live[rand.IntN(len(live))]
	delete(s.socket.conns, c.id)
	s.closedLocked(c.id)
	s.notifyLocked()
	s.mu.Unlock()
	c.disconnect(reason)
	return c.id
}

// closedLocked stamps the close time of socket id in its history.
func (s *Server) closedLocked(id int) {
	for _, h := range s.socket.history {
		if h.ID == id && h.Closed.IsZero() {
			h.Closed = time.Now()
		}
	}
}

// Disconnect sends {"type":"disconnect","reason":reason} to every live socket and closes it.
func (s *Server) Disconnect(reason string) {
	s.mu.Lock()
	conns := s.socket.liveLocked()
	clear(s.socket.conns)
	for _, c := range conns {
		s.closedLocked(c.id)
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.disconnect(reason)
	}
}

func (s *Server) handleLink(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	if s.closed || !s.socket.tickets[ticket] {
		s.mu.Unlock()
		http.Error(w, "invalid ticket", http.StatusUnauthorized)
		return
	}
	delete(s.socket.tickets, ticket)
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &conn{ws: ws, stop: make(chan struct{})}

	s.mu.Lock()
	refuse := s.socket.refuse
	if refuse == "" && len(s.socket.conns) >= s.opts.MaxConnections {
		refuse = ReasonTooManyWebsockets
	}
	if s.closed || refuse != "" {
		s.mu.Unlock()
		c.disconnect(refuse)
		return
	}
	s.socket.connSeq++
	c.id = s.socket.connSeq
	s.socket.conns[c.id] = c
	s.socket.history = append(s.socket.history, &Socket{ID: c.id, Remote: r.RemoteAddr, Opened: time.Now()})
	n := len(s.socket.conns)
	s.notifyLocked()
	s.mu.Unlock()

	defer func() {
		c.close()
		s.mu.Lock()
		if s.socket.conns[c.id] == c {
			delete(s.socket.conns, c.id)
			s.closedLocked(c.id)
			s.notifyLocked()
		}
		s.mu.Unlock()
	}()

	hello, _ := json.Marshal(map[string]any{
		"type":            "hello",
		"num_connections": n,
		"debug_info": map[string]any{
			"host": "fakeslack", "build_number": 1, "approximate_connection_time": 18060,
		},
		"connection_info": map[string]any{"app_id": s.opts.AppID},
	})
	if c.write(hello) != nil {
		return
	}
	s.wg.Add(1)
	go s.pinger(c)
	s.readLoop(c)
}

// readLoop records acks until the socket fails or stays silent (no PONG, no frame) for three
// ping intervals.
func (s *Server) readLoop(c *conn) {
	idle := max(3*s.opts.PingInterval, time.Second)
	_ = c.ws.SetReadDeadline(time.Now().Add(idle))
	c.ws.SetPongHandler(func(string) error {
		_ = c.ws.SetReadDeadline(time.Now().Add(idle))
		s.mu.Lock()
		s.socket.pongs++
		s.notifyLocked()
		s.mu.Unlock()
		return nil
	})
	// Frames are stamped as they are read and recorded by a second
	// goroutine, so a busy server lock never delays reading (and stamping)
	// the acks behind it: ack latency is the app's.
	frames := make(chan receivedFrame, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range frames {
			s.handleAck(f.data, f.at)
		}
	}()
	defer func() { close(frames); <-done }()
	for {
		_, frame, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		frames <- receivedFrame{data: frame, at: time.Now()}
		_ = c.ws.SetReadDeadline(time.Now().Add(idle))
	}
}

type receivedFrame struct {
	data []byte
	at   time.Time
}

func (s *Server) pinger(c *conn) {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.PingInterval)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-c.stop:
			return
		case <-t.C:
			if err := c.ws.WriteControl(websocket.PingMessage, []byte(strconv.Itoa(n)), time.Now().Add(writeTimeout)); err != nil {
				c.close()
				return
			}
		}
	}
}
