package fakeslack

import (
	"encoding/json"
	"unicode/utf8"
)

// messageContent validates text and blocks of a chat.* call. Text over 40,000 characters is
// truncated, as Slack does, rather than rejected.
func messageContent(req *apiRequest) (text string, blocks json.RawMessage, e *apiError) {
	blocks, e = validateMessageBlocks(req.params.Get("blocks"))
	if e != nil {
		return "", nil, e
	}
	text = truncate(req.params.Get("text"), maxTextLen)
	if text == "" && blocks == nil {
		return "", nil, errCode("no_text")
	}
	return text, blocks, nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func (s *Server) chatPostMessage(req *apiRequest) (map[string]any, *apiError) {
	channel, threadTS := req.params.Get("channel"), req.params.Get("thread_ts")
	if channel == "" {
		return nil, errCode("channel_not_found")
	}
	channel, e := s.targetChannel(channel)
	if e != nil {
		return nil, e
	}
	text, blocks, e := messageContent(req)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.refusedLocked(channel); e != nil {
		return nil, e
	}
	if threadTS != "" && s.findLocked(channel, threadTS) == nil {
		return nil, errCode("thread_not_found")
	}
	m := s.addMessageLocked(Message{
		Channel: channel, TS: s.nextTSLocked(), ThreadTS: threadTS,
		User: s.opts.BotUserID, Text: text, Blocks: blocks,
	})
	return map[string]any{"channel": channel, "ts": m.TS, "message": s.messageJSON(m.Message)}, nil
}

// chatUpdate replaces the text and blocks it is given and keeps the ones it is not.
func (s *Server) chatUpdate(req *apiRequest) (map[string]any, *apiError) {
	channel, ts := req.params.Get("channel"), req.params.Get("ts")
	_, hasText := req.params["text"]
	_, hasBlocks := req.params["blocks"]
	blocks, e := validateMessageBlocks(req.params.Get("blocks"))
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.refusedLocked(channel); e != nil {
		return nil, e
	}
	m := s.findLocked(channel, ts)
	if m == nil || m.Deleted {
		return nil, errCode("message_not_found")
	}
	if m.User != s.opts.BotUserID {
		return nil, errCode("cant_update_message")
	}
	text := m.Text
	if hasText {
		text = truncate(req.params.Get("text"), maxTextLen)
	}
	if !hasBlocks {
		blocks = m.Blocks
	}
	if text == "" && blocks == nil {
		return nil, errCode("no_text")
	}
	s.editLocked(m, text, blocks)
	return map[string]any{"channel": channel, "ts": ts, "text": text, "message": s.messageJSON(m.Message)}, nil
}

func (s *Server) chatPostEphemeral(req *apiRequest) (map[string]any, *apiError) {
	channel, user := req.params.Get("channel"), req.params.Get("user")
	if channel == "" {
		return nil, errCode("channel_not_found")
	}
	if user == "" {
		return nil, errCode("user_not_found")
	}
	if e := ephemeralAllowed(channel, user); e != nil {
		return nil, e
	}
	text, blocks, e := messageContent(req)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.addMessageLocked(Message{
		Channel: channel, TS: s.nextTSLocked(), ThreadTS: req.params.Get("thread_ts"),
		User: s.opts.BotUserID, Text: text, Blocks: blocks, Ephemeral: true, To: user,
	})
	return map[string]any{"message_ts": m.TS}, nil
}

// messageJSON renders a message as the Web API and interaction payloads show it.
func (s *Server) messageJSON(m Message) map[string]any {
	out := map[string]any{"type": "message", "user": m.User, "text": m.Text, "ts": m.TS, "team": s.opts.TeamID}
	if m.User == s.opts.BotUserID {
		out["bot_id"] = s.opts.BotID
		out["app_id"] = s.opts.AppID
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	if m.Blocks != nil {
		out["blocks"] = m.Blocks
	}
	return out
}
