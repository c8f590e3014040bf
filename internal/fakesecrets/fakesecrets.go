// Package fakesecrets serves the AWS Secrets Manager GetSecretValue API
// (AWS JSON 1.1, X-Amz-Target secretsmanager.GetSecretValue) on a loopback
// port for tests, so code that reads secrets through aws-sdk-go-v2
// (AWS_ENDPOINT_URL_SECRETS_MANAGER) runs against it.
//
// It answers as Secrets Manager does: the secret by name, full ARN or
// partial ARN (without the six random characters); 400 with
// ResourceNotFoundException for an unknown secret, and whatever error
// Refuse sets (AccessDeniedException, DecryptionFailure, …) in AWS's error
// document. A request without a SigV4 Authorization header is refused
// with MissingAuthenticationTokenException.
package fakesecrets

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Region and Account are where the fake's secrets live.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// Server is a running fake Secrets Manager. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the endpoint, e.g. for AWS_ENDPOINT_URL_SECRETS_MANAGER.
	URL  string
	http *http.Server
	done chan struct{}

	mu      sync.Mutex
	secrets map[string]*secret // by name
	refuse  *apiError
	reads   int
}

type secret struct {
	arn, value, version string
	created             time.Time
}

type apiError struct {
	code, message string
}

// Start serves an empty fake on 127.0.0.1 at a free port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakesecrets: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), done: make(chan struct{}), secrets: map[string]*secret{}}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(fmt.Sprintf("fakesecrets: serve: %v", err))
		}
	}()
	return s, nil
}

// Close stops the server and waits for it.
func (s *Server) Close() {
	_ = s.http.Close()
	<-s.done
}

// Put creates the secret name with the SecretString value, or gives an
// existing one a new current version, and returns its ARN.
func (s *Server) Put(name, value string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sec, ok := s.secrets[name]
	if !ok {
		sec = &secret{arn: fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s-%s", Region, Account, name, suffix()), created: time.Now()}
		s.secrets[name] = sec
	}
	sec.value, sec.version = value, randomID()
	return sec.arn
}

// Refuse makes every GetSecretValue answer with the AWS error code (such
// as "AccessDeniedException") and message until it is called with "".
func (s *Server) Refuse(code, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = nil
	if code != "" {
		s.refuse = &apiError{code, message}
	}
}

// Reads is how many GetSecretValue requests were answered, errors
// included.
func (s *Server) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		writeError(w, http.StatusNotFound, apiError{"UnknownOperationException", ""})
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		writeError(w, http.StatusBadRequest, apiError{"MissingAuthenticationTokenException", "Missing Authentication Token"})
		return
	}
	if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" {
		writeError(w, http.StatusBadRequest, apiError{"UnknownOperationException", ""})
		return
	}
	var in struct {
		SecretID     string `json:"SecretId"`
		VersionID    string `json:"VersionId"`
		VersionStage string `json:"VersionStage"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, apiError{"SerializationException", "Start of structure or map found where not expected."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.refuse != nil {
		writeError(w, http.StatusBadRequest, *s.refuse)
		return
	}
	if in.SecretID == "" {
		writeError(w, http.StatusBadRequest, apiError{"ValidationException", "1 validation error detected: Value null at 'secretId' failed to satisfy constraint: Member must not be null"})
		return
	}
	sec := s.find(in.SecretID)
	if sec == nil || (in.VersionID != "" && in.VersionID != sec.version) || (in.VersionStage != "" && in.VersionStage != "AWSCURRENT") {
		writeError(w, http.StatusBadRequest, apiError{"ResourceNotFoundException", "Secrets Manager can't find the specified secret."})
		return
	}
	name := strings.TrimPrefix(sec.arn[:len(sec.arn)-7], fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:", Region, Account))
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"ARN": sec.arn, "Name": name, "SecretString": sec.value, "VersionId": sec.version,
		"VersionStages": []string{"AWSCURRENT"}, "CreatedDate": float64(sec.created.UnixMilli()) / 1000,
	})
}

// find resolves a SecretId as Secrets Manager does: a name, a full ARN, or
// an ARN without the random suffix.
func (s *Server) find(id string) *secret {
	if sec, ok := s.secrets[id]; ok {
		return sec
	}
	for _, sec := range s.secrets {
		if id == sec.arn || id == sec.arn[:len(sec.arn)-7] {
			return sec
		}
	}
	return nil
}

func writeError(w http.ResponseWriter, status int, e apiError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", e.code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": e.code, "Message": e.message})
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// suffix is the six random characters Secrets Manager appends to a
// secret's name in its ARN.
func suffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
