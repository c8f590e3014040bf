// Package archive is the Lambda that keeps the audit trail where the
// product's roles cannot change it. DynamoDB's IAM cannot make a role's
// PutItem add only (no condition key requires a condition expression), so
// the audit records in the approvals table are the working copy: an event
// source mapping feeds this function every change of an audit record from
// the table's stream, and it writes one JSON line per change to its output,
// which Lambda sends to the archive's log group. CloudWatch Logs only ever
// appends (PutLogEvents), and no role of the product may delete or change
// a log event, a log stream or the group's retention (deploy/iam_test.go).
//
// So the archive holds every audit record as it was first written, and
// also shows any later overwrite or delete of one in the table, with the
// record before and after: the product never does either (its audit
// writes only add, see dynamo.AuditLog), so such a line is tampering or a
// bug.
//
// The package depends on the workflow domain only; cmd/approvals-archive
// wires the DynamoDB decoding into it.
package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/workflow"
)

// Kind is what happened to an audit record.
type Kind string

// The changes the archive records.
const (
	// Added: a new audit record, the trail's normal growth.
	Added Kind = "added"
	// Changed: an audit record was overwritten or updated, which the
	// product never does.
	Changed Kind = "changed"
	// Deleted: a principal deleted an audit record, which the product
	// never does.
	Deleted Kind = "deleted"
	// Expired: DynamoDB's time to live removed the record after its
	// retention (APPROVALS_AUDIT_RETENTION); the archive keeps its own
	// copy for the log group's retention.
	Expired Kind = "expired"
)

// Entry is one line of the archive.
type Entry struct {
	Archived Kind `json:"archived"`
	// Record is the audit record's key in the table.
	Record string `json:"record"`
	// Event is the record as written (Added, Changed); Before what it was
	// (Changed, Deleted, Expired).
	Event  *workflow.AuditEvent `json:"event,omitempty"`
	Before *workflow.AuditEvent `json:"before,omitempty"`
	// Undecodable holds an image that does not decode as an audit event,
	// as the stream gave it, with why: nothing is left out of the archive.
	Undecodable []Image `json:"undecodable,omitempty"`
	// Stream and Sequence are the stream record's: a batch Lambda retries
	// repeats lines with the same ones. Sequence numbers grow with time
	// within a stream, and a table whose stream is turned off and on again
	// gets a new stream.
	Stream   string `json:"stream"`
	Sequence string `json:"sequence"`
	// At is when DynamoDB made the change (to the second).
	At time.Time `json:"at"`
	// By is who made a change other than an addition, when the stream
	// says: DynamoDB names only its own time to live removals
	// ("dynamodb.amazonaws.com"); CloudTrail's data events, where enabled,
	// name the principal of other writes.
	By string `json:"by,omitempty"`
}

// Image is a stream image that is not an audit event.
type Image struct {
	Of      string          `json:"of"` // "event" (after) or "before"
	Problem string          `json:"problem"`
	Item    json.RawMessage `json:"item"`
}

// Decoder returns the audit event a stream image holds, and the key of the
// item it is an image of. It fails for an image that is not an audit
// record.
type Decoder interface {
	Key(keys map[string]lambdaevents.DynamoDBAttributeValue) string
	Decode(image map[string]lambdaevents.DynamoDBAttributeValue) (workflow.AuditEvent, error)
	// IsAuditRecord reports whether a key names an audit record.
	IsAuditRecord(key string) bool
}

// Response is what an invocation archived; the event source mapping
// ignores it.
type Response struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Deleted int `json:"deleted"`
	Expired int `json:"expired"`
	// Ignored counts records of items that are not audit records (the
	// mapping's filter lets none through).
	Ignored int `json:"ignored"`
}

// Handler archives batches of stream records. It is safe for concurrent
// use.
type Handler struct {
	decode Decoder
	logger *zap.Logger

	mu  sync.Mutex // one line at a time on out
	out io.Writer
}

// New returns a Handler that writes the archive's lines to out.
func New(decode Decoder, out io.Writer, logger *zap.Logger) *Handler {
	return &Handler{decode: decode, out: out, logger: logger}
}

// ttlPrincipal is the principal of a time to live removal in a stream
// record's user identity.
const ttlPrincipal = "dynamodb.amazonaws.com"

// Invoke implements lambda.Handler. A payload that is not a DynamoDB
// stream event is an error and archives nothing.
func (h *Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var event lambdaevents.DynamoDBEvent
	if err := json.Unmarshal(payload, &event); err != nil {
		return nil, fmt.Errorf("InvalidEvent: not a DynamoDB stream event: %w", err)
	}
	resp, err := h.Archive(event)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// Archive writes the lines of event's records, in order. It fails only
// when a record is not a DynamoDB stream record or the output refuses a
// line; Lambda then retries the batch, so the archive may repeat lines
// (same Sequence) but never miss one.
func (h *Handler) Archive(event lambdaevents.DynamoDBEvent) (Response, error) {
	var resp Response
	entries := make([]Entry, 0, len(event.Records))
	for i, r := range event.Records {
		key := h.decode.Key(r.Change.Keys)
		if key == "" {
			return Response{}, fmt.Errorf("InvalidEvent: record %d (%s) has no item key", i, r.EventID)
		}
		if !h.decode.IsAuditRecord(key) {
			resp.Ignored++
			continue
		}
		e := Entry{Record: key, Stream: r.EventSourceArn, Sequence: r.Change.SequenceNumber, At: r.Change.ApproximateCreationDateTime.UTC()}
		if r.UserIdentity != nil && r.EventName != "INSERT" {
			e.By = r.UserIdentity.PrincipalID
		}
		switch r.EventName {
		case "INSERT":
			e.Archived, resp.Added = Added, resp.Added+1
		case "MODIFY":
			e.Archived, resp.Changed = Changed, resp.Changed+1
		case "REMOVE":
			if r.UserIdentity != nil && r.UserIdentity.Type == "Service" && r.UserIdentity.PrincipalID == ttlPrincipal {
				e.Archived, resp.Expired = Expired, resp.Expired+1
			} else {
				e.Archived, resp.Deleted = Deleted, resp.Deleted+1
			}
		default:
			return Response{}, fmt.Errorf("InvalidEvent: record %d (%s) has event name %q, not INSERT, MODIFY or REMOVE", i, r.EventID, r.EventName)
		}
		if r.EventName != "REMOVE" {
			e.Event = h.image(&e, "event", r.Change.NewImage)
		}
		if r.EventName != "INSERT" {
			e.Before = h.image(&e, "before", r.Change.OldImage)
		}
		entries = append(entries, e)
	}
	if err := h.write(entries); err != nil {
		return Response{}, err
	}
	if resp.Changed+resp.Deleted > 0 {
		h.logger.Warn("audit records were changed or deleted in the table; the archive keeps what they were",
			zap.Int("changed", resp.Changed), zap.Int("deleted", resp.Deleted))
	}
	return resp, nil
}

// image decodes one image of e's record; one that does not decode is kept
// as it is in e.Undecodable.
func (h *Handler) image(e *Entry, of string, image map[string]lambdaevents.DynamoDBAttributeValue) *workflow.AuditEvent {
	ev, err := h.decode.Decode(image)
	if err == nil {
		return &ev
	}
	raw, merr := json.Marshal(image)
	if merr != nil {
		raw, _ = json.Marshal(merr.Error())
	}
	e.Undecodable = append(e.Undecodable, Image{Of: of, Problem: err.Error(), Item: raw})
	return nil
}

// write writes entries, one line each.
func (h *Handler) write(entries []Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode the archive line of %s: %w", e.Record, err)
		}
		if _, err := h.out.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("write the archive line of %s: %w", e.Record, err)
		}
	}
	return nil
}
