package dynamo

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// encodePolicy adds a's policy, deadline lifecycle, votes, delegations
// and audit outbox to its item.
func encodePolicy(item map[string]types.AttributeValue, a workflow.Approval) {
	p := a.Policy
	item["allowDelegation"] = &types.AttributeValueMemberBOOL{Value: p.AllowDelegation}
	if p.Quorum > 0 {
		item["quorum"] = number(int64(p.Quorum))
	}
	if p.AllowSelfApproval {
		item["allowSelfApproval"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if p.Heartbeat > 0 {
		item["heartbeatMillis"] = number(p.Heartbeat.Milliseconds())
	}
	if a.AuditSeq > 0 {
		item["auditSeq"] = number(int64(a.AuditSeq))
	}
	if a.AuditAttempts > 0 {
		item["auditAttempts"] = number(int64(a.AuditAttempts))
	}
	if a.AgeBucket > 0 {
		item["ageBucket"] = number(int64(a.AgeBucket))
	}
	var requireComment []string
	for _, c := range p.RequireComment {
		requireComment = append(requireComment, string(c))
	}
	putList(item, "requireComment", requireComment)
	putList(item, "escalateTo", p.EscalateTo)
	putStrings(item, map[string]string{"onDeadline": string(p.OnDeadline)})
	putTimes(item, map[string]time.Time{"heartbeatAt": a.HeartbeatAt, "auditRetryAt": a.AuditRetryAt})
	putMaps(item, "steps", len(a.Steps), func(i int) map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{"kind": str(string(a.Steps[i].Kind))}
		putTimes(m, map[string]time.Time{"at": a.Steps[i].At, "doneAt": a.Steps[i].DoneAt})
		return m
	})
	putMaps(item, "votes", len(a.Votes), func(i int) map[string]types.AttributeValue {
		v := a.Votes[i]
		m := map[string]types.AttributeValue{"draftIndex": number(int64(v.DraftIndex))}
		putStrings(m, map[string]string{"userId": v.UserID, "comment": v.Comment, "edited": v.Edited})
		putTimes(m, map[string]time.Time{"at": v.At})
		return m
	})
	putMaps(item, "delegations", len(a.Delegations), func(i int) map[string]types.AttributeValue {
		x := a.Delegations[i]
		m := map[string]types.AttributeValue{}
		putStrings(m, map[string]string{"from": x.From, "to": x.To})
		putTimes(m, map[string]time.Time{"at": x.At, "told": x.Told})
		if x.Told.IsZero() {
			m["untold"] = &types.AttributeValueMemberBOOL{Value: true}
		}
		return m
	})
	putMaps(item, "auditOutbox", len(a.AuditOutbox), func(i int) map[string]types.AttributeValue {
		return encodeEvent(a.AuditOutbox[i])
	})
}

// decodePolicy reads what encodePolicy wrote. An item without
// allowDelegation (written before policies existed) allows delegation,
// the default.
func decodePolicy(d *decoder, a *workflow.Approval) {
	a.Policy = workflow.Policy{
		Quorum:            int(d.int("quorum")),
		AllowSelfApproval: d.bool("allowSelfApproval"),
		AllowDelegation:   d.bool("allowDelegation"),
		EscalateTo:        d.strs("escalateTo"),
		OnDeadline:        workflow.Action(d.str("onDeadline")),
		Heartbeat:         time.Duration(d.int("heartbeatMillis")) * time.Millisecond,
	}
	if _, ok := d.item["allowDelegation"]; !ok {
		a.Policy.AllowDelegation = true
	}
	for _, c := range d.strs("requireComment") {
		a.Policy.RequireComment = append(a.Policy.RequireComment, workflow.Action(c))
	}
	a.HeartbeatAt = d.time("heartbeatAt")
	a.AuditSeq = int(d.int("auditSeq"))
	a.AuditAttempts = int(d.int("auditAttempts"))
	a.AgeBucket = int(d.int("ageBucket"))
	a.AuditRetryAt = d.time("auditRetryAt")
	for _, m := range d.maps("steps") {
		x := decoder{item: m, err: d.err}
		a.Steps = append(a.Steps, workflow.Step{Kind: workflow.StepKind(x.str("kind")), At: x.time("at"), DoneAt: x.time("doneAt")})
		d.err = x.err
	}
	for _, m := range d.maps("votes") {
		x := decoder{item: m, err: d.err}
		a.Votes = append(a.Votes, workflow.Vote{UserID: x.str("userId"), DraftIndex: int(x.int("draftIndex")), Edited: x.str("edited"), Comment: x.str("comment"), At: x.time("at")})
		d.err = x.err
	}
	for _, m := range d.maps("delegations") {
		x := decoder{item: m, err: d.err}
		h := workflow.Delegation{From: x.str("from"), To: x.str("to"), At: x.time("at"), Told: x.time("told")}
		if h.Told.IsZero() && !x.bool("untold") {
			h.Told = h.At // recorded before notes were: its note was posted then
		}
		a.Delegations = append(a.Delegations, h)
		d.err = x.err
	}
	for _, m := range d.maps("auditOutbox") {
		x := decoder{item: m, err: d.err}
		a.AuditOutbox = append(a.AuditOutbox, decodeEvent(&x))
		d.err = x.err
	}
}

// encodeEvent returns the attributes of an audit event; decodeEvent reads
// them back. The audit log's items hold the same attributes at their top.
func encodeEvent(e workflow.AuditEvent) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{
		"approvalId": str(e.ApprovalID),
		"seq":        number(int64(e.Seq)),
		"type":       str(string(e.Type)),
	}
	putStrings(m, map[string]string{
		"actor": e.Actor, "action": string(e.Action), "comment": e.Comment, "preset": e.Preset,
		"finalStatus": string(e.Status), "reason": e.Reason, "executionArn": e.ExecutionARN, "stateName": e.StateName,
		"title": e.Title, "requestedBy": e.RequestedBy, "onDeadline": string(e.OnDeadline),
		"channel": e.Channel, "messageTs": e.MessageTS,
	})
	putTimes(m, map[string]time.Time{"at": e.At})
	if e.Deadline != nil {
		putTimes(m, map[string]time.Time{"deadline": *e.Deadline})
	}
	if e.DraftIndex != nil {
		m["draftIndex"] = number(int64(*e.DraftIndex))
	}
	if e.Quorum > 0 {
		m["quorum"] = number(int64(e.Quorum))
	}
	putList(m, "users", e.Users)
	putList(m, "escalateTo", e.EscalateTo)
	if e.Edited {
		m["edited"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if e.Record != nil {
		// The decision record travels as the JSON the export writes: one
		// attribute, read back as it was.
		if b, err := json.Marshal(e.Record); err == nil {
			m["record"] = str(string(b))
		}
	}
	return m
}

func decodeEvent(d *decoder) workflow.AuditEvent {
	e := workflow.AuditEvent{
		ApprovalID:   d.str("approvalId"),
		Seq:          int(d.int("seq")),
		At:           d.time("at"),
		Type:         workflow.EventType(d.str("type")),
		Actor:        d.str("actor"),
		Action:       workflow.Action(d.str("action")),
		Comment:      d.str("comment"),
		Preset:       d.str("preset"),
		Users:        d.strs("users"),
		Status:       workflow.Status(d.str("finalStatus")),
		Reason:       d.str("reason"),
		ExecutionARN: d.str("executionArn"),
		StateName:    d.str("stateName"),
		Title:        d.str("title"),
		RequestedBy:  d.str("requestedBy"),
		Quorum:       int(d.int("quorum")),
		EscalateTo:   d.strs("escalateTo"),
		OnDeadline:   workflow.Action(d.str("onDeadline")),
		Channel:      d.str("channel"),
		MessageTS:    d.str("messageTs"),
	}
	if _, ok := d.item["draftIndex"]; ok {
		i := int(d.int("draftIndex"))
		e.DraftIndex = &i
	}
	if t := d.time("deadline"); !t.IsZero() {
		e.Deadline = &t
	}
	e.Edited = d.bool("edited")
	if s := d.str("record"); s != "" {
		var r workflow.DecisionRecord
		if err := json.Unmarshal([]byte(s), &r); err != nil && d.err == nil {
			d.err = fmt.Errorf("attribute record: %w", err)
		}
		e.Record = &r
	}
	return e
}

// putMaps adds a list of n maps, made by m, unless n is 0.
func putMaps(item map[string]types.AttributeValue, name string, n int, m func(i int) map[string]types.AttributeValue) {
	if n == 0 {
		return
	}
	list := make([]types.AttributeValue, n)
	for i := range list {
		list[i] = &types.AttributeValueMemberM{Value: m(i)}
	}
	item[name] = &types.AttributeValueMemberL{Value: list}
}

// amended reports whether an index item's sort key carries amendedMark.
func amended(item map[string]types.AttributeValue, sortAttr string) bool {
	k, ok := item[sortAttr].(*types.AttributeValueMemberS)
	return ok && strings.HasSuffix(k.Value, amendedMark)
}
