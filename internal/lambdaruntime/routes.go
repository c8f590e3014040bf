package lambdaruntime

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the Runtime API.
const (
	headerRequestID   = "Lambda-Runtime-Aws-Request-Id"
	headerDeadline    = "Lambda-Runtime-Deadline-Ms"
	headerFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	headerTraceID     = "Lambda-Runtime-Trace-Id"
	headerErrorType   = "Lambda-Runtime-Function-Error-Type"
	trailerErrorBody  = "Lambda-Runtime-Function-Error-Body"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", s.handleNext)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", s.handleResponse)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", s.handleError)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", s.handleInitError)
	return mux
}

// handleNext long-polls for the next invocation.
func (s *Server) handleNext(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	select {
	case <-s.polled:
	default:
		close(s.polled)
	}
	s.mu.Unlock()

	var inv *invocation
	select {
	case inv = <-s.queue:
	case <-r.Context().Done():
		return
	case <-s.closed:
		writeError(w, http.StatusGone, "Runtime.Closed", "the runtime API emulator is closed")
		return
	}
	inv.handed = time.Now()
	deadline := inv.handed.Add(s.opts.Timeout)
	s.mu.Lock()
	s.inflight[inv.id] = inv
	s.mu.Unlock()
	inv.accepted <- deadline

	h := w.Header()
	h.Set(headerRequestID, inv.id)
	h.Set(headerDeadline, strconv.FormatInt(deadline.UnixMilli(), 10))
	h.Set(headerFunctionARN, s.opts.FunctionARN)
	h.Set(headerTraceID, fmt.Sprintf("Root=1-%08x-%s;Sampled=0", time.Now().Unix(), strings.ReplaceAll(inv.id, "-", "")[:24]))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload)
}

// handleResponse completes an invocation with the function's response. A
// streamed response that broke off reports its error in trailers.
func (s *Server) handleResponse(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	result := Result{Payload: body}
	if t := r.Trailer.Get(headerErrorType); t != "" {
		result = errorResult(decodeBase64(r.Trailer.Get(trailerErrorBody)), t)
	}
	s.complete(w, r.PathValue("id"), result)
}

// handleError completes an invocation with a function error.
func (s *Server) handleError(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	s.complete(w, r.PathValue("id"), errorResult(body, r.Header.Get(headerErrorType)))
}

// handleInitError records that the function failed to start.
func (s *Server) handleInitError(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	result := errorResult(body, r.Header.Get(headerErrorType))
	s.mu.Lock()
	if s.initErr == nil {
		s.initErr = &result
		close(s.failed)
	}
	s.mu.Unlock()
	writeStatus(w, http.StatusAccepted)
}

func (s *Server) complete(w http.ResponseWriter, id string, result Result) {
	s.mu.Lock()
	inv, ok := s.inflight[id]
	delete(s.inflight, id)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusBadRequest, "InvalidRequestID", "no invocation in progress has the request ID "+id)
		return
	}
	result.Duration = time.Since(inv.handed)
	inv.done <- result
	writeStatus(w, http.StatusAccepted)
}

// errorResult reads a function error document; the header's type is the
// fallback when the document has none.
func errorResult(body []byte, headerType string) Result {
	var doc struct {
		Message string `json:"errorMessage"`
		Type    string `json:"errorType"`
	}
	_ = json.Unmarshal(body, &doc) // a document that is not JSON keeps the fallbacks
	r := Result{Payload: body, ErrorType: doc.Type, ErrorMessage: doc.Message}
	if r.ErrorType == "" {
		r.ErrorType = headerType
	}
	if r.ErrorType == "" {
		r.ErrorType = "Unhandled"
	}
	return r
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxPayload))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "the body is unreadable or over the 6 MB limit")
		return nil, false
	}
	return body, true
}

func decodeBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

func writeStatus(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, `{"status":"OK"}`)
}

func writeError(w http.ResponseWriter, code int, errorType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"errorType": errorType, "errorMessage": msg})
}
