package fakeslack

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

const (
	responseURLUses = 5
	responseURLTTL  = 30 * time.Minute
)

// ResponsePost is a POST the app made to a response_url the fake handed out.
type ResponsePost struct {
	URL  string
	Body json.RawMessage
}

// responseURL remembers where a response goes: the person who acted, the channel, and the message
// acted on (none for slash commands).
type responseURL struct {
	uses      int
	minted    time.Time
	user      string
	channel   string
	messageTS string
	ephemeral bool
}

func (s *Server) mintResponseURLLocked(r responseURL) string {
	r.minted = s.opts.Now()
	s.seq++
	url := s.base + "/response/" + strconv.Itoa(s.seq)
	s.chat.responseURLs[url] = &r
	return url
}

// ResponsePosts returns every POST to a response URL, in arrival order, including rejected ones.
func (s *Server) ResponsePosts() []ResponsePost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chat.responsePosts)
}

// handleResponseURL applies a response like Slack: replace_original edits the message acted on,
// delete_original deletes it, otherwise a new message is posted (ephemeral unless "in_channel").
func (s *Server) handleResponseURL(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	url := s.base + r.URL.Path
	s.mu.Lock()
	defer s.mu.Unlock()
	ru, ok := s.chat.responseURLs[url]
	if !ok {
		http.Error(w, "no_such_url", http.StatusNotFound)
		return
	}
	s.chat.responsePosts = append(s.chat.responsePosts, ResponsePost{URL: url, Body: slices.Clone(body)})
	s.notifyLocked()
	if e := s.applyResponseLocked(ru, body); e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) applyResponseLocked(ru *responseURL, body []byte) *apiError {
	switch {
	case ru.uses >= responseURLUses:
		return errCode("used_url")
	case s.opts.Now().Sub(ru.minted) > responseURLTTL:
		return errCode("expired_url")
	}
	var msg struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
		ThreadTS        string          `json:"thread_ts"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return errCode("invalid_payload")
	}
	var blocks json.RawMessage
	if len(msg.Blocks) > 0 && string(msg.Blocks) != "null" {
		var e *apiError
		if blocks, e = validateMessageBlocks(string(msg.Blocks)); e != nil {
			return e
		}
	}
	text := truncate(msg.Text, maxTextLen)
	if !msg.DeleteOriginal && text == "" && blocks == nil {
		return errCode("no_text")
	}
	ru.uses++

	var original *storedMessage
	if ru.messageTS != "" {
		if ru.ephemeral {
			original = s.findEphemeralLocked(ru.user, ru.channel, ru.messageTS)
		} else {
			original = s.findLocked(ru.channel, ru.messageTS)
		}
	}
	switch {
	case msg.DeleteOriginal && original != nil:
		original.Deleted = true
		s.notifyLocked()
	case msg.ReplaceOriginal && original != nil:
		s.editLocked(original, text, blocks)
	case msg.DeleteOriginal, msg.ReplaceOriginal:
		return errCode("message_not_found")
	default:
		m := Message{
			Channel: ru.channel, TS: s.nextTSLocked(), ThreadTS: msg.ThreadTS,
			User: s.opts.BotUserID, Text: text, Blocks: blocks,
		}
		if msg.ResponseType != "in_channel" {
			m.Ephemeral, m.To = true, ru.user
		}
		s.addMessageLocked(m)
	}
	return nil
}
