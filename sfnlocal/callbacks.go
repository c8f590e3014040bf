package sfnlocal

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
)

// SendTaskSuccessInput is SendTaskSuccess's request.
type SendTaskSuccessInput struct {
	TaskToken string
	Output    string // JSON text
}

// SendTaskFailureInput is SendTaskFailure's request.
type SendTaskFailureInput struct {
	TaskToken string
	Error     string
	Cause     string
}

// SendTaskHeartbeatInput is SendTaskHeartbeat's request.
type SendTaskHeartbeatInput struct {
	TaskToken string
}

// tokenRegistry mints task tokens and maps open ones to their attempt.
// A token is a random nonce with an HMAC under the engine's key, so a
// well-formed token that is no longer open (TaskTimedOut) can be told from
// one the engine never issued (InvalidToken) without remembering it.
type tokenRegistry struct {
	key  [32]byte
	open sync.Map // token → *taskRun
}

const tokenPrefix = "AQ"

func (r *tokenRegistry) mint() string {
	var b [48 + 16]byte
	_, _ = rand.Read(b[:48])
	mac := hmac.New(sha256.New, r.key[:])
	mac.Write(b[:48])
	copy(b[48:], mac.Sum(nil))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

func (r *tokenRegistry) valid(token string) bool {
	if len(token) < len(tokenPrefix) || token[:len(tokenPrefix)] != tokenPrefix {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(token[len(tokenPrefix):])
	if err != nil || len(b) != 64 {
		return false
	}
	mac := hmac.New(sha256.New, r.key[:])
	mac.Write(b[:48])
	return hmac.Equal(mac.Sum(nil)[:16], b[48:])
}

// openTask finds the attempt waiting on a token.
func (e *Engine) openTask(token string) (*taskRun, error) {
	if len(token) < 1 || len(token) > 2048 {
		return nil, apiErrorf(CodeValidationException, "1 validation error detected: Value at 'taskToken' failed to satisfy constraint: Member must have length between 1 and 2048")
	}
	if !e.tokens.valid(token) {
		return nil, apiErrorf(CodeInvalidToken, "Invalid Token: 'Invalid token'")
	}
	v, ok := e.tokens.open.Load(token)
	if !ok {
		return nil, taskTimedOut()
	}
	return v.(*taskRun), nil
}

func taskTimedOut() *APIError {
	return apiErrorf(CodeTaskTimedOut, "Task Timed Out: 'Provided task does not exist anymore'")
}

// SendTaskSuccess completes the task waiting on a token with output, a
// JSON text. The token closes: a second call gets TaskTimedOut, as does a
// call after a timeout, a Catch or StopExecution moved on. Errors:
// InvalidToken, InvalidOutput, TaskTimedOut, ValidationException.
func (e *Engine) SendTaskSuccess(ctx context.Context, in SendTaskSuccessInput) error {
	r, err := e.openTask(in.TaskToken)
	if err != nil {
		return err
	}
	result, derr := decodeJSON([]byte(in.Output))
	if derr != nil {
		return apiErrorf(CodeInvalidOutput, "Invalid Output: '%v'", derr)
	}
	return r.callback(func() {
		if text, serr := r.resultText(result); serr != nil {
			r.failLocked(serr)
		} else {
			r.succeedLocked(result, text)
		}
	})
}

// SendTaskFailure fails the task waiting on a token with error and cause,
// which its Retry and Catch match. Errors as SendTaskSuccess.
func (e *Engine) SendTaskFailure(ctx context.Context, in SendTaskFailureInput) error {
	r, err := e.openTask(in.TaskToken)
	if err != nil {
		return err
	}
	if len(in.Error) > 256 || len(in.Cause) > 32768 {
		return apiErrorf(CodeValidationException, "1 validation error detected: error must be at most 256 characters and cause at most 32768")
	}
	serr := &stateError{Name: in.Error, Cause: in.Cause, nullName: in.Error == "", nullCause: in.Cause == ""}
	return r.callback(func() { r.failLocked(serr) })
}

// SendTaskHeartbeat restarts the heartbeat timer of the task waiting on a
// token; it records no event and does not extend TimeoutSeconds. Errors as
// SendTaskSuccess.
func (e *Engine) SendTaskHeartbeat(ctx context.Context, in SendTaskHeartbeatInput) error {
	r, err := e.openTask(in.TaskToken)
	if err != nil {
		return err
	}
	x := r.t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.closed || r.settled || x.status != StatusRunning {
		return taskTimedOut()
	}
	if r.beat != nil && r.beat.Stop() {
		r.armBeatLocked()
	}
	return nil
}

// callback closes the token and applies outcome, at once or, if the
// integration has not answered yet, right after TaskSubmitted.
func (r *taskRun) callback(outcome func()) error {
	x := r.t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.closed || r.settled || x.status != StatusRunning {
		return taskTimedOut()
	}
	r.closeTokenLocked()
	if !r.submitted {
		r.early = outcome
		return nil
	}
	outcome()
	return nil
}
