package sfnapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// targetPrefix starts the X-Amz-Target of every Step Functions operation.
const targetPrefix = "AWSStepFunctions."

// maxBody bounds a request body: the largest valid request, a 1 MiB
// definition, JSON-escaped, is well below it.
const maxBody = 8 << 20

// operation serves one API operation: it reads the request's members and
// returns the response to marshal, or an error (*sfnlocal.APIError or
// *wireError) to answer with.
type operation func(ctx context.Context, r *request) (any, error)

// handler serves the API for one engine.
type handler struct {
	engine *sfnlocal.Engine
	log    *zap.Logger
	ops    map[string]operation
}

// Option configures NewHandler.
type Option func(*handler)

// WithLogger logs one line per request: at debug level when it succeeds,
// at warn level with the error code and message when it fails, at error
// level when an operation panics. Bodies (and so task tokens) are never
// logged. The default logs nothing.
func WithLogger(log *zap.Logger) Option {
	return func(h *handler) { h.log = log }
}

// NewHandler returns an http.Handler serving the Step Functions API on
// engine, on any path. It is safe for concurrent use.
func NewHandler(engine *sfnlocal.Engine, opts ...Option) http.Handler {
	h := &handler{engine: engine, log: zap.NewNop()}
	for _, opt := range opts {
		opt(h)
	}
	h.ops = h.routes()
	return h
}

// ServeHTTP answers one request. A panic in an operation is answered with
// a 500 InternalFailure; the server keeps serving.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID()
	w.Header().Set("x-amzn-RequestId", id)
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	log := h.log.With(zap.String("operation", op), zap.String("request_id", id))

	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("operation panicked", zap.Any("panic", v), zap.Stack("stack"))
			writeError(w, &wireError{status: http.StatusInternalServerError, code: codeInternalFailure, message: "Internal failure"})
		}
	}()

	resp, err := h.serve(w, r)
	var body []byte
	if err == nil {
		body, err = encode(resp)
	}
	if err != nil {
		we := toWire(err)
		writeError(w, we)
		fields := []zap.Field{zap.Int("status", we.status), zap.String("code", we.code),
			zap.String("message", we.message), zap.Duration("duration", time.Since(start))}
		if we.code == codeInternalFailure {
			fields = append(fields, zap.Error(err))
		}
		log.Warn("request failed", fields...)
		return
	}
	writeJSON(w, http.StatusOK, body)
	log.Debug("request", zap.Int("status", http.StatusOK), zap.Duration("duration", time.Since(start)))
}

// serve finds the operation, reads the body and runs the operation.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) (any, error) {
	target := r.Header.Get("X-Amz-Target")
	if target == "" {
		return nil, badRequest(codeUnknownOperation, "Missing the X-Amz-Target header naming the operation")
	}
	name, ok := strings.CutPrefix(target, targetPrefix)
	op, known := h.ops[name]
	if !ok || !known {
		return nil, badRequest(codeUnknownOperation, "Unknown operation %s", target)
	}
	if r.Method != http.MethodPost {
		return nil, badRequest(codeUnknownOperation, "Operation %s must be a POST, not %s", target, r.Method)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, &wireError{status: http.StatusRequestEntityTooLarge, code: codeSerialization, message: fmt.Sprintf("The request body exceeds %d bytes", maxBody)}
		}
		return nil, badRequest(codeSerialization, "Could not read the request body: %v", err)
	}
	req, werr := parseRequest(body)
	if werr != nil {
		return nil, werr
	}
	keepResponding(w)
	return op(r.Context(), req)
}

// keepResponding lifts the connection's read and write deadlines once the
// request has arrived, so no server timeout cuts a response still being
// written, however large it is or slow its client: with a WriteTimeout
// the write fails ("unexpected EOF" in the SDK); with a ReadTimeout that
// passes while a long response is written, later pages on that keep-alive
// connection were cut ("deserialization failed … use of closed network
// connection", reproduced by TestLargeHistoryPages). A slow TestState
// answers whole too. The request has arrived whole by now, so the
// ReadTimeout has done its job.
func keepResponding(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})  // a writer that cannot has none
	_ = rc.SetWriteDeadline(time.Time{}) // likewise
}

// encoded is a response body an operation has already encoded.
type encoded []byte

// encode marshals an operation's response, or returns it as it is when
// the operation encoded it itself.
func encode(resp any) ([]byte, error) {
	if b, ok := resp.(encoded); ok {
		return b, nil
	}
	return json.Marshal(resp)
}

func writeError(w http.ResponseWriter, e *wireError) {
	body := map[string]string{"__type": e.code, "message": e.message}
	if e.reason != "" {
		body["reason"] = e.reason
	}
	b, _ := json.Marshal(body)
	w.Header().Set("X-Amzn-ErrorType", e.code)
	writeJSON(w, e.status, b)
}

// writeJSON writes a whole response with its Content-Length, so a client
// can tell a complete body from a cut one.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// newRequestID returns a random UUID-shaped request ID.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
