package fakeslack

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// SnapshotVersion is the version of the Snapshot format this package
// writes and reads.
const SnapshotVersion = 1

// Snapshot is the part of a fake Slack's state that outlives a restart, as
// in Slack: every message, ephemeral ones included, with its earlier
// versions, and the clock of message timestamps, so that messages posted
// after a Restore sort after the restored ones. Open modals, triggers,
// response URLs, sockets, acks and call counts are not in it: in Slack
// they expire within minutes or belong to one connection. It encodes as
// JSON.
type Snapshot struct {
	Version  int            `json:"version"`
	Messages []SavedMessage `json:"messages"`
	Clock    SnapshotClock  `json:"clock"`
}

// SnapshotClock is where the fake's identifiers and timestamps had got to.
type SnapshotClock struct {
	// LastMicros is the last message timestamp handed out, in
	// microseconds.
	LastMicros int64 `json:"lastMicros"`
	// Seq is the last sequence number used for IDs (views, triggers).
	Seq int `json:"seq"`
}

// SavedMessage is a message in a Snapshot, with its earlier versions.
type SavedMessage struct {
	Channel   string          `json:"channel"`
	TS        string          `json:"ts"`
	ThreadTS  string          `json:"threadTs,omitempty"`
	User      string          `json:"user"`
	Text      string          `json:"text,omitempty"`
	Blocks    json.RawMessage `json:"blocks,omitempty"`
	Updates   int             `json:"updates,omitempty"`
	Edited    int64           `json:"editedMicros,omitempty"` // Unix microseconds
	Ephemeral bool            `json:"ephemeral,omitempty"`
	To        string          `json:"to,omitempty"`
	Deleted   bool            `json:"deleted,omitempty"`
	History   []SavedMessage  `json:"history,omitempty"`
}

func saved(m Message) SavedMessage {
	s := SavedMessage{Channel: m.Channel, TS: m.TS, ThreadTS: m.ThreadTS, User: m.User, Text: m.Text, Blocks: m.Blocks,
		Updates: m.Updates, Ephemeral: m.Ephemeral, To: m.To, Deleted: m.Deleted}
	if !m.Edited.IsZero() {
		s.Edited = m.Edited.UnixMicro()
	}
	return s
}

func (m SavedMessage) message() Message {
	out := Message{Channel: m.Channel, TS: m.TS, ThreadTS: m.ThreadTS, User: m.User, Text: m.Text, Blocks: m.Blocks,
		Updates: m.Updates, Ephemeral: m.Ephemeral, To: m.To, Deleted: m.Deleted}
	if m.Edited != 0 {
		out.Edited = time.UnixMicro(m.Edited)
	}
	return out
}

// Snapshot returns the server's durable state: channel messages by
// channel ID, then ephemeral messages by recipient, each in post order.
func (s *Server) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{Version: SnapshotVersion, Messages: []SavedMessage{}, Clock: SnapshotClock{LastMicros: s.chat.lastMicros, Seq: s.seq}}
	for _, byKey := range []map[string][]*storedMessage{s.chat.channels, s.chat.ephemerals} {
		for _, key := range slices.Sorted(maps.Keys(byKey)) {
			for _, m := range byKey[key] {
				sm := saved(m.Message)
				for _, h := range m.history {
					sm.History = append(sm.History, saved(h))
				}
				snap.Messages = append(snap.Messages, sm)
			}
		}
	}
	return snap
}

// Restore replaces the server's messages with the snapshot's and moves
// its clock forward to the snapshot's, so new timestamps and IDs follow
// the restored ones. A snapshot of another version, or with a message
// that has no channel or ts, or an ephemeral one without a recipient, or
// two messages with the same channel and ts, is refused with an error
// naming it, and nothing changes.
func (s *Server) Restore(snap Snapshot) error {
	if snap.Version != SnapshotVersion {
		return fmt.Errorf("fakeslack: restore: snapshot version %d, want %d", snap.Version, SnapshotVersion)
	}
	channels := map[string][]*storedMessage{}
	ephemerals := map[string][]*storedMessage{}
	seen := map[[2]string]bool{}
	for i, sm := range snap.Messages {
		m := sm.message()
		switch key := [2]string{m.Channel, m.TS}; {
		case m.Channel == "" || m.TS == "":
			return fmt.Errorf("fakeslack: restore: message %d has no channel or ts", i)
		case m.Ephemeral && m.To == "":
			return fmt.Errorf("fakeslack: restore: ephemeral message %s in %s has no recipient", m.TS, m.Channel)
		case m.Blocks != nil && !json.Valid(m.Blocks):
			return fmt.Errorf("fakeslack: restore: message %s in %s has blocks that are not JSON", m.TS, m.Channel)
		case !m.Ephemeral && seen[key]:
			return fmt.Errorf("fakeslack: restore: two messages %s in %s", m.TS, m.Channel)
		default:
			seen[key] = !m.Ephemeral
		}
		stored := &storedMessage{Message: m}
		for _, h := range sm.History {
			stored.history = append(stored.history, h.message())
		}
		if m.Ephemeral {
			ephemerals[m.To] = append(ephemerals[m.To], stored)
		} else {
			channels[m.Channel] = append(channels[m.Channel], stored)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.channels, s.chat.ephemerals = channels, ephemerals
	s.chat.lastMicros = max(s.chat.lastMicros, snap.Clock.LastMicros)
	s.seq = max(s.seq, snap.Clock.Seq)
	s.notifyLocked()
	return nil
}
