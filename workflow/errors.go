package workflow

import (
	"errors"
	"fmt"
)

// Error codes. Adapters translate them at the edge: a Lambda error type, a
// private Slack message.
const (
	EINVALID   = "invalid"   // the input is wrong; nothing was changed
	ENOTFOUND  = "not_found" // no such approval
	EFORBIDDEN = "forbidden" // this person may not decide this approval
	ECONFLICT  = "conflict"  // somebody already decided, or is deciding
	EEXPIRED   = "expired"   // the task timed out or was closed
	ECANCELLED = "cancelled" // the request was cancelled (replaced by a newer one, …)
)

// Error is a domain error: a code callers branch on and a message people
// can read. Messages never contain a task token.
type Error struct {
	Code    string
	Message string
	// Why names the refusal for the people told of it, who may read
	// another language than Message's (see Whys); Args are its details
	// (user IDs, numbers), in order. "" for errors people are not told
	// of as such.
	Why  Why
	Args []string
	// Approval is the current state of the approval the error is about, when
	// known (for conflicts: who decided, and how).
	Approval *Approval
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or "" for
// nil and for errors that are not domain errors (infrastructure failures).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrorMessage returns the human message of a domain error, or a generic
// message for anything else, so infrastructure details stay in the logs.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side; nothing was changed. Please try again."
}

// Why names a refusal people are told of, so that the app can word it in
// their language.
type Why string

// The refusals people are told of, with their Args.
const (
	WhyUnknownUser     Why = "unknown_user"      // a click without a Slack user
	WhyRequester       Why = "requester"         // the requester may not decide
	WhyNotApprover     Why = "not_approver"      // not among who may decide
	WhyHandedOff       Why = "handed_off"        // Args: the delegate
	WhyNoDelegation    Why = "no_delegation"     // the request allows no hand-over
	WhyPickDelegate    Why = "pick_delegate"     // the delegate is not one person
	WhyDelegateSelf    Why = "delegate_self"     // handing it to oneself
	WhyDelegateAsker   Why = "delegate_asker"    // Args: the requester
	WhyDelegatorVoted  Why = "delegator_voted"   // the delegator already approved
	WhyDelegateVoted   Why = "delegate_voted"    // Args: the delegate
	WhyTooManyHandOver Why = "too_many_handover" // Args: MaxDelegations
	WhyTextTooLong     Why = "text_too_long"     // Args: the limit
	WhyNeedsReason     Why = "needs_reason"      // requireComment holds reject
	WhyNeedsComment    Why = "needs_comment"     // requireComment holds approve
	WhyPickDraft       Why = "pick_draft"        // Args: how many drafts
	WhyNoDrafts        Why = "no_drafts"         // a draft picked on a request without
	WhyNoChanges       Why = "no_changes"        // no change requests accepted
	WhyUnknownPreset   Why = "unknown_preset"    // a preset that was not offered
	WhyDescribeChange  Why = "describe_change"   // neither preset nor text
	WhyNoSkip          Why = "no_skip"           // the request cannot be skipped
	WhyNoEdit          Why = "no_edit"           // the request allows no edit
	WhyEditEmpty       Why = "edit_empty"        // the edited draft is empty
	WhyEditTooLong     Why = "edit_too_long"     // Args: MaxEditLen
	WhyNotRequester    Why = "not_requester"     // only the requester withdraws
	WhyVotedElsewhere  Why = "voted_elsewhere"   // Args: the draft number (0: no draft)
	WhyCommentsFull    Why = "comments_full"     // the votes hold as many comments as they can
	WhyOtherMessage    Why = "other_message"     // a button on another message than the request's
	WhyUnknownAction   Why = "unknown_action"    // a decision of no known kind
)

// Whys lists every Why, so that a test can check that each is worded.
var Whys = []Why{
	WhyUnknownUser, WhyRequester, WhyNotApprover, WhyHandedOff, WhyNoDelegation, WhyPickDelegate,
	WhyDelegateSelf, WhyDelegateAsker, WhyDelegatorVoted, WhyDelegateVoted, WhyTooManyHandOver,
	WhyTextTooLong, WhyNeedsReason, WhyNeedsComment, WhyPickDraft, WhyNoDrafts, WhyNoChanges,
	WhyUnknownPreset, WhyDescribeChange, WhyNoSkip, WhyNoEdit, WhyEditEmpty, WhyEditTooLong,
	WhyNotRequester, WhyVotedElsewhere, WhyCommentsFull, WhyOtherMessage, WhyUnknownAction,
}

// refusal is an *Error with the code, a Why and its args, and the
// message.
func refusal(code string, why Why, args []string, format string, fargs ...any) *Error {
	e := Errorf(code, format, fargs...)
	e.Why, e.Args = why, args
	return e
}

// ErrorWhy returns the Why and Args of the first *Error in err's chain.
func ErrorWhy(err error) (Why, []string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Why, e.Args
	}
	return "", nil
}
