package dynamo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// Attribute names the schema, conditions and queries depend on; the rest
// are only in encode and decode.
const (
	attrID         = "id"
	attrQueue      = "queue"
	attrQueuedAt   = "queuedAt"
	attrPurgeAt    = "purgeAt"
	attrVersion    = "version"
	attrStatus     = "status"
	attrApprovalID = "approvalId" // on token guard items
	attrTaskToken  = "taskToken"  // only while the approval is open
	// ExecutionIndex keys: set only while the approval is open.
	attrOpenExecution = "openExecution"
	attrOpenedAt      = "openedAt"
)

// sortableTime is RFC 3339 with a fixed-width fraction, so strings sort as
// the times do (RFC3339Nano drops trailing zeros and does not).
const sortableTime = "2006-01-02T15:04:05.000000000Z07:00"

// amendedMark ends the index sort keys of an approval whose record says
// more about who may decide than the indexes project
// (workflow.Approval.Amended), so a listing knows to read it in full. It
// sorts right after the key without it, before any later time.
const amendedMark = "#+"

// sortKey is an index sort key: the time, then the ID, then amendedMark
// if a is amended.
func sortKey(t time.Time, a workflow.Approval) string {
	k := t.UTC().Format(sortableTime) + "#" + a.ID
	if a.Listed().Amended {
		k += amendedMark
	}
	return k
}

func key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrID: str(id)}
}

// guardID is the ID of the item that makes the task token unique. It holds
// a hash, not the token.
func guardID(token workflow.TaskToken) string {
	sum := sha256.Sum256([]byte(token.Reveal()))
	return "token#" + hex.EncodeToString(sum[:])
}

// isApproval tells approval items from token guards and missing items.
func isApproval(item map[string]types.AttributeValue) bool {
	_, ok := item[attrStatus]
	return ok
}

// encode returns the item for a at the version. Empty strings, lists and
// zero times are left out; queue is set only while a is on a queue, and
// openExecution only while a is open, which keeps both indexes sparse. The task token is written only while a is
// open, so the write that makes an approval final deletes it. PurgeAt is
// kept in whole seconds (TTL).
func encode(a workflow.Approval, version int64) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		attrID:          str(a.ID),
		attrStatus:      str(string(a.Status)),
		attrVersion:     number(version),
		attrQueuedAt:    str(sortKey(a.QueuedAt(), a)),
		"allowSkip":     &types.AttributeValueMemberBOOL{Value: a.AllowSkip},
		"attempts":      number(int64(a.Attempts)),
		"messageSynced": &types.AttributeValueMemberBOOL{Value: a.MessageSynced},
	}
	if a.MessageAttempts > 0 {
		item["messageAttempts"] = number(int64(a.MessageAttempts))
	}
	if a.MessageGaveUp {
		item["messageGaveUp"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if !a.Status.Final() && a.TaskToken != "" {
		item[attrTaskToken] = str(a.TaskToken.Reveal())
	}
	if q := a.Queue(); q != "" {
		item[attrQueue] = str(string(q))
	}
	if !a.Status.Final() && a.ExecutionARN != "" {
		item[attrOpenExecution] = str(a.ExecutionARN)
		item[attrOpenedAt] = str(sortKey(a.CreatedAt, a))
	}
	if !a.PurgeAt.IsZero() {
		item[attrPurgeAt] = number(a.PurgeAt.Unix())
	}
	putStrings(item, map[string]string{
		"executionArn": a.ExecutionARN,
		"stateName":    a.StateName,
		"channel":      a.Channel,
		"threadTs":     a.ThreadTS,
		"messageTs":    a.MessageTS,
		"requestedBy":  a.RequestedBy,
		"title":        a.Title,
		"summary":      a.Summary,
		"locale":       a.Locale,
	})
	putTimes(item, map[string]time.Time{
		"createdAt":      a.CreatedAt,
		"deadline":       a.Deadline,
		"claimedAt":      a.ClaimedAt,
		"closedAt":       a.ClosedAt,
		"messageRetryAt": a.MessageRetryAt,
		"requesterTold":  a.RequesterToldAt,
	})
	if a.AllowEdit {
		item["allowEdit"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if a.NotifyRequester {
		item["notifyRequester"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	putList(item, "confirm", a.Confirm)
	putList(item, "approvers", a.Approvers)
	putList(item, "drafts", a.Drafts)
	putList(item, "revisionPresets", a.RevisionPresets)
	if len(a.Fields) > 0 {
		fields := make([]types.AttributeValue, len(a.Fields))
		for i, f := range a.Fields {
			fields[i] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"label": str(f.Label), "value": str(f.Value),
			}}
		}
		item["fields"] = &types.AttributeValueMemberL{Value: fields}
	}
	encodePolicy(item, a)
	if d := a.Decision; d != nil {
		m := map[string]types.AttributeValue{
			"action":     str(string(d.Action)),
			"draftIndex": number(int64(d.DraftIndex)),
		}
		putStrings(m, map[string]string{"preset": d.Preset, "text": d.Text, "edited": d.Edited, "decidedBy": d.DecidedBy})
		putTimes(m, map[string]time.Time{"decidedAt": d.DecidedAt})
		item["decision"] = &types.AttributeValueMemberM{Value: m}
	}
	if c := a.Cancellation; c != nil {
		m := map[string]types.AttributeValue{}
		putStrings(m, map[string]string{"reason": c.Reason, "replacedBy": c.ReplacedBy, "link": c.Link})
		putTimes(m, map[string]time.Time{"stoppedAt": c.StoppedAt})
		item["cancellation"] = &types.AttributeValueMemberM{Value: m}
	}
	return item
}

// decode returns the approval in an item and the item's version.
func decode(item map[string]types.AttributeValue) (workflow.Approval, int64, error) {
	d := decoder{item: item}
	a := workflow.Approval{
		ID:              d.str(attrID),
		TaskToken:       workflow.TaskToken(d.str(attrTaskToken)),
		ExecutionARN:    d.str("executionArn"),
		StateName:       d.str("stateName"),
		Channel:         d.str("channel"),
		ThreadTS:        d.str("threadTs"),
		MessageTS:       d.str("messageTs"),
		Approvers:       d.strs("approvers"),
		RequestedBy:     d.str("requestedBy"),
		Title:           d.str("title"),
		Summary:         d.str("summary"),
		Drafts:          d.strs("drafts"),
		RevisionPresets: d.strs("revisionPresets"),
		AllowSkip:       d.bool("allowSkip"),
		AllowEdit:       d.bool("allowEdit"),
		NotifyRequester: d.bool("notifyRequester"),
		Confirm:         d.strs("confirm"),
		Locale:          d.str("locale"),
		RequesterToldAt: d.time("requesterTold"),
		CreatedAt:       d.time("createdAt"),
		Deadline:        d.time("deadline"),
		Status:          workflow.Status(d.str(attrStatus)),
		ClaimedAt:       d.time("claimedAt"),
		Attempts:        int(d.int("attempts")),
		ClosedAt:        d.time("closedAt"),
		MessageSynced:   d.bool("messageSynced"),
		MessageAttempts: int(d.int("messageAttempts")),
		MessageRetryAt:  d.time("messageRetryAt"),
		MessageGaveUp:   d.bool("messageGaveUp"),
	}
	if _, ok := item[attrPurgeAt]; ok {
		a.PurgeAt = time.Unix(d.int(attrPurgeAt), 0).UTC()
	}
	for _, m := range d.maps("fields") {
		f := decoder{item: m, err: d.err}
		a.Fields = append(a.Fields, workflow.Field{Label: f.str("label"), Value: f.str("value")})
		d.err = f.err
	}
	if m, ok := d.get("decision").(*types.AttributeValueMemberM); ok {
		dd := decoder{item: m.Value, err: d.err}
		a.Decision = &workflow.Decision{
			Action:     workflow.Action(dd.str("action")),
			DraftIndex: int(dd.int("draftIndex")),
			Preset:     dd.str("preset"),
			Text:       dd.str("text"),
			Edited:     dd.str("edited"),
			DecidedBy:  dd.str("decidedBy"),
			DecidedAt:  dd.time("decidedAt"),
		}
		d.err = dd.err
	}
	if m, ok := d.get("cancellation").(*types.AttributeValueMemberM); ok {
		dc := decoder{item: m.Value, err: d.err}
		a.Cancellation = &workflow.Cancellation{Reason: dc.str("reason"), ReplacedBy: dc.str("replacedBy"), Link: dc.str("link"), StoppedAt: dc.time("stoppedAt")}
		d.err = dc.err
	}
	decodePolicy(&d, &a)
	version := d.int(attrVersion)
	if d.err != nil {
		return workflow.Approval{}, 0, fmt.Errorf("decode approval %s: %w", a.ID, d.err)
	}
	return a, version, nil
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func putStrings(item map[string]types.AttributeValue, values map[string]string) {
	for name, v := range values {
		if v != "" {
			item[name] = str(v)
		}
	}
}

func putTimes(item map[string]types.AttributeValue, values map[string]time.Time) {
	for name, t := range values {
		if !t.IsZero() {
			item[name] = str(t.UTC().Format(time.RFC3339Nano))
		}
	}
}

func putList(item map[string]types.AttributeValue, name string, values []string) {
	if len(values) == 0 {
		return
	}
	list := make([]types.AttributeValue, len(values))
	for i, v := range values {
		list[i] = str(v)
	}
	item[name] = &types.AttributeValueMemberL{Value: list}
}

// decoder reads typed attributes of an item, keeping the first error. A
// missing attribute reads as the zero value.
type decoder struct {
	item map[string]types.AttributeValue
	err  error
}

func (d *decoder) get(name string) types.AttributeValue { return d.item[name] }

func (d *decoder) fail(name string, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("attribute %s is %T, want %s", name, d.item[name], want)
	}
}

func (d *decoder) str(name string) string {
	switch v := d.item[name].(type) {
	case nil:
	case *types.AttributeValueMemberS:
		return v.Value
	default:
		d.fail(name, "a string")
	}
	return ""
}

func (d *decoder) int(name string) int64 {
	switch v := d.item[name].(type) {
	case nil:
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil && d.err == nil {
			d.err = fmt.Errorf("attribute %s: %w", name, err)
		}
		return n
	default:
		d.fail(name, "a number")
	}
	return 0
}

func (d *decoder) bool(name string) bool {
	switch v := d.item[name].(type) {
	case nil:
	case *types.AttributeValueMemberBOOL:
		return v.Value
	default:
		d.fail(name, "a boolean")
	}
	return false
}

func (d *decoder) time(name string) time.Time {
	s := d.str(name)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("attribute %s: %w", name, err)
	}
	return t
}

func (d *decoder) list(name string) []types.AttributeValue {
	switch v := d.item[name].(type) {
	case nil:
	case *types.AttributeValueMemberL:
		return v.Value
	default:
		d.fail(name, "a list")
	}
	return nil
}

func (d *decoder) strs(name string) []string {
	var out []string
	for _, v := range d.list(name) {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			d.fail(name, "a list of strings")
			return nil
		}
		out = append(out, s.Value)
	}
	return out
}

func (d *decoder) maps(name string) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	for _, v := range d.list(name) {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			d.fail(name, "a list of maps")
			return nil
		}
		out = append(out, m.Value)
	}
	return out
}
