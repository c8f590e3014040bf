package fakeslack

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// HumanUserID is the author of messages posted with Server.PostMessage.
const HumanUserID = "UHUMAN"

// Message is a message as the fake holds it.
type Message struct {
	Channel, TS, ThreadTS string
	// User is the author: the bot's user ID for messages the bot posted.
	User string
	Text string
	// Blocks is the compact JSON array of blocks, or nil.
	Blocks json.RawMessage
	// Updates counts the edits (chat.update or a response URL with replace_original); Edited is
	// when the last was made (zero: never), by the fake's clock, to the microsecond.
	Updates int
	Edited  time.Time
	// Ephemeral messages are seen only by To.
	Ephemeral bool
	To        string
	// Deleted is set by a response URL with delete_original.
	Deleted bool
}

type storedMessage struct {
	Message
	history []Message
}

type chatState struct {
	channels   map[string][]*storedMessage
	ephemerals map[string][]*storedMessage
	lastMicros int64

	responseURLs  map[string]*responseURL
	responsePosts []ResponsePost
}

func (c *chatState) init() {
	c.responseURLs = map[string]*responseURL{}
	c.channels = map[string][]*storedMessage{}
	c.ephemerals = map[string][]*storedMessage{}
}

// nextTSLocked returns a message timestamp from the clock, strictly greater than the previous one.
func (s *Server) nextTSLocked() string {
	micros := max(s.opts.Now().UnixMicro(), s.chat.lastMicros+100)
	s.chat.lastMicros = micros
	return fmt.Sprintf("%d.%06d", micros/1e6, micros%1e6)
}

func (s *Server) findLocked(channel, ts string) *storedMessage {
	for _, m := range s.chat.channels[channel] {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

func (s *Server) findEphemeralLocked(user, channel, ts string) *storedMessage {
	for _, m := range s.chat.ephemerals[user] {
		if m.Channel == channel && m.TS == ts {
			return m
		}
	}
	return nil
}

func (s *Server) addMessageLocked(m Message) *storedMessage {
	sm := &storedMessage{Message: m}
	if m.Ephemeral {
		s.chat.ephemerals[m.To] = append(s.chat.ephemerals[m.To], sm)
	} else {
		s.chat.channels[m.Channel] = append(s.chat.channels[m.Channel], sm)
	}
	s.notifyLocked()
	return sm
}

func (s *Server) editLocked(sm *storedMessage, text string, blocks json.RawMessage) {
	sm.history = append(sm.history, sm.Message)
	sm.Text, sm.Blocks = text, blocks
	sm.Updates++
	sm.Edited = time.UnixMicro(s.opts.Now().UnixMicro())
	s.notifyLocked()
}

// PostMessage posts a message as a person (HumanUserID), for threads and for testing that the bot
// cannot chat.update it. It returns the message's ts.
func (s *Server) PostMessage(channel, text string) (ts string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.addMessageLocked(Message{Channel: channel, TS: s.nextTSLocked(), User: HumanUserID, Text: text})
	return m.TS
}

// PostMessageAs posts a message as user in channel, in the thread of threadTS when it is not
// empty, as a person typing in Slack would. The app is not told (the fake sends no message
// events). It fails when the thread is unknown.
func (s *Server) PostMessageAs(user, channel, threadTS, text string) (ts string, err error) {
	if user == "" || channel == "" || text == "" {
		return "", fmt.Errorf("fakeslack: a message needs a user, a channel and text")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if threadTS != "" && s.findLocked(channel, threadTS) == nil {
		return "", fmt.Errorf("fakeslack: no thread %s in %s", threadTS, channel)
	}
	m := s.addMessageLocked(Message{
		Channel: channel, TS: s.nextTSLocked(), ThreadTS: threadTS, User: user, Text: truncate(text, maxTextLen),
	})
	return m.TS, nil
}

// Channels returns the IDs of the channels that hold messages, sorted.
func (s *Server) Channels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.chat.channels))
}

// Messages returns the channel's messages in post order, thread replies included.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.chat.channels[channel], func(*storedMessage) bool { return true })
}

// Message returns one message of a channel by ts.
func (s *Server) Message(channel, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findLocked(channel, ts); m != nil {
		return m.Message, true
	}
	return Message{}, false
}

// History returns the earlier versions of a message, oldest first, one per edit.
func (s *Server) History(channel, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findLocked(channel, ts); m != nil {
		return slices.Clone(m.history)
	}
	return nil
}

// Replies returns the replies in the thread started by threadTS, without the parent, in post order.
func (s *Server) Replies(channel, threadTS string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.chat.channels[channel], func(m *storedMessage) bool {
		return m.ThreadTS == threadTS && m.TS != threadTS
	})
}

// Ephemerals returns the ephemeral messages shown to user, in post order.
func (s *Server) Ephemerals(user string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.chat.ephemerals[user], func(*storedMessage) bool { return true })
}

func snapshot(ms []*storedMessage, keep func(*storedMessage) bool) []Message {
	var out []Message
	for _, m := range ms {
		if keep(m) {
			out = append(out, m.Message)
		}
	}
	return out
}
