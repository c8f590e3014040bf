package blocks

import (
	"fmt"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// The message catalog: every text the app writes for people, in each
// language of workflow.Locales. Builders never write prose of their own;
// they look it up by Key with T. catalog_test.go fails when a language
// lacks a key or has one too many, when a text takes other arguments than
// its English one, and when a builder writes text outside the catalog.

// Key names one text of the catalog.
type Key string

// DefaultLocale is the language of a request without one, and of the
// answers that belong to no request (APPROVALS_LOCALE overrides it for the
// bot and the notifier).
const DefaultLocale = workflow.LocaleEnglish

// catalogs holds the texts of each language.
var catalogs = map[string]map[Key]string{
	workflow.LocaleEnglish:  english,
	workflow.LocaleJapanese: japanese,
}

// Locale returns locale when the catalog has it, else DefaultLocale.
func Locale(locale string) string {
	if _, ok := catalogs[locale]; ok {
		return locale
	}
	return DefaultLocale
}

// T is the text of key in locale ("" or unknown: DefaultLocale), with
// args filled in as fmt.Sprintf does. A key missing from a language
// falls back to English (the catalog tests keep that from happening).
func T(locale string, key Key, args ...any) string {
	text, ok := catalogs[Locale(locale)][key]
	if !ok {
		text = english[key]
	}
	if len(args) == 0 {
		return text
	}
	return fmt.Sprintf(text, args...)
}

// Date renders t for Slack in the reader's own locale and time zone
// (Slack's date token), with a fallback in locale's format in UTC for
// clients that cannot render the token.
func Date(locale string, t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time}|%s>", t.Unix(), t.UTC().Format(T(locale, KDateLayout)))
}

// The keys, by where the text appears.
const (
	KDateLayout Key = "date.layout" // Go time layout of a date's fallback text
	KNobody     Key = "nobody"
	KListSep    Key = "list.sep" // between names in a list

	// The request message.
	KRequested        Key = "msg.requested"
	KShortened        Key = "msg.shortened"
	KDraftLabel       Key = "msg.draft"
	KDraftApproved    Key = "msg.draft.approved"
	KDraftNotEditable Key = "msg.draft.not_editable"
	KCtxApprovers     Key = "ctx.approvers"
	KCtxRequestedBy   Key = "ctx.requested_by"
	KCtxNoDeadline    Key = "ctx.no_deadline"
	KCtxDeadline      Key = "ctx.deadline"
	KCtxID            Key = "ctx.id"
	KOutcomeText      Key = "msg.outcome_text"

	// Buttons, menus and their options.
	KBtnApprove        Key = "btn.approve"
	KBtnApproveDraft   Key = "btn.approve_draft"
	KBtnApproveComment Key = "btn.approve_comment"
	KBtnReject         Key = "btn.reject"
	KBtnRevise         Key = "btn.revise"
	KBtnCustom         Key = "btn.custom"
	KBtnSkip           Key = "btn.skip"
	KBtnDelegate       Key = "btn.delegate"
	KBtnEdit           Key = "btn.edit"
	KBtnWithdraw       Key = "btn.withdraw"
	KPickDraft         Key = "select.draft"
	KPickDraftOption   Key = "select.draft_option"
	KMoreChanges       Key = "select.changes"

	// "Are you sure?" dialogs.
	KConfirmTitle         Key = "confirm.title"
	KConfirmDeny          Key = "confirm.deny"
	KConfirmApprove       Key = "confirm.approve"
	KConfirmApproveDraft  Key = "confirm.approve_draft"
	KConfirmApprovePicked Key = "confirm.approve_picked"
	KConfirmReject        Key = "confirm.reject"
	KConfirmSkip          Key = "confirm.skip"
	KConfirmRevise        Key = "confirm.revise"
	KConfirmWithdraw      Key = "confirm.withdraw"
	KConfirmGo            Key = "confirm.go"

	// Outcomes on the message.
	KOutExpiredBefore      Key = "out.expired_before"
	KOutExpiredNobody      Key = "out.expired_nobody"
	KOutDeadlineRejected   Key = "out.deadline_rejected"
	KOutDeadlineSkipped    Key = "out.deadline_skipped"
	KOutApproved           Key = "out.approved"
	KOutApprovedQuorum     Key = "out.approved_quorum"
	KOutApprovedDraft      Key = "out.approved_draft"
	KOutApprovedDraftQuor  Key = "out.approved_draft_quorum"
	KOutApprovedEdited     Key = "out.approved_edited"
	KOutApprovedEditedQuor Key = "out.approved_edited_quorum"
	KOutEditedText         Key = "out.edited_text"
	KOutComment            Key = "out.comment"
	KOutRejected           Key = "out.rejected"
	KOutReason             Key = "out.reason"
	KOutRevise             Key = "out.revise"
	KOutSkipped            Key = "out.skipped"
	KOutWithdrawn          Key = "out.withdrawn"
	KOutDecided            Key = "out.decided"

	// The reply in the request's thread once it closes.
	KReplyExpired          Key = "reply.expired"
	KReplyDeadlineRejected Key = "reply.deadline_rejected"
	KReplyDeadlineSkipped  Key = "reply.deadline_skipped"
	KReplyApproved         Key = "reply.approved"
	KReplyApprovedComment  Key = "reply.approved_comment"
	KReplyApprovedDraft    Key = "reply.approved_draft"
	KReplyApprovedDraftCom Key = "reply.approved_draft_comment"
	KReplyApprovedEdited   Key = "reply.approved_edited"
	KReplyApprovedEditCom  Key = "reply.approved_edited_comment"
	KReplyRejected         Key = "reply.rejected"
	KReplyRejectedReason   Key = "reply.rejected_reason"
	KReplyRevise           Key = "reply.revise"
	KReplySkipped          Key = "reply.skipped"
	KReplyWithdrawn        Key = "reply.withdrawn"
	KReplyWithdrawnReason  Key = "reply.withdrawn_reason"
	KReplyDecided          Key = "reply.decided"
	KFeedbackJoin          Key = "reply.feedback_join"

	// Cancelled requests.
	KCancelOutReplaced   Key = "cancel.out_replaced"
	KCancelOut           Key = "cancel.out"
	KCancelReplyReplaced Key = "cancel.reply_replaced"
	KCancelReply         Key = "cancel.reply"
	KCancelLateReplaced  Key = "cancel.late_replaced"
	KCancelLateEnded     Key = "cancel.late_ended"
	KCancelLateOther     Key = "cancel.late_other"
	KCancelNoReason      Key = "cancel.no_reason"
	KLinkOpenIt          Key = "link.open_it"
	KLinkNewRequest      Key = "link.new_request"
	KLinkAfterColon      Key = "link.after_colon"
	KLinkDecideOn        Key = "link.decide_on"
	KExecAborted         Key = "exec.aborted"
	KExecAbortedAt       Key = "exec.aborted_at"
	KExecTimedOut        Key = "exec.timed_out"
	KExecTimedOutAt      Key = "exec.timed_out_at"
	KExecFailed          Key = "exec.failed"
	KExecFailedAt        Key = "exec.failed_at"
	KExecSucceeded       Key = "exec.succeeded"
	KExecSucceededAt     Key = "exec.succeeded_at"
	KExecGone            Key = "exec.gone"
	KReasonReplaced      Key = "reason.replaced"

	// The status section: quorum, hand-overs, steps.
	KStHanded           Key = "st.handed"
	KStReminded         Key = "st.reminded"
	KStEscalated        Key = "st.escalated"
	KStEscalates        Key = "st.escalates"
	KStDeadlineRejected Key = "st.deadline_rejected"
	KStDeadlineSkipped  Key = "st.deadline_skipped"
	KQNeeds             Key = "q.needs"
	KQNeedsDrafts       Key = "q.needs_drafts"
	KQProgress          Key = "q.progress"
	KQProgressDraft     Key = "q.progress_draft"
	KQProgressEdited    Key = "q.progress_edited"
	KQComment           Key = "q.comment"
	KQEditedText        Key = "q.edited_text"
	KProgress           Key = "progress"

	// Modals.
	KModalCancel          Key = "m.cancel"
	KRejectTitle          Key = "m.reject.title"
	KRejectSubmit         Key = "m.reject.submit"
	KRejectQuestion       Key = "m.reject.question"
	KRejectLabel          Key = "m.reject.label"
	KRejectPlaceholder    Key = "m.reject.placeholder"
	KRejectHintOptional   Key = "m.reject.hint_optional"
	KRejectHintRequired   Key = "m.reject.hint_required"
	KReviseTitle          Key = "m.revise.title"
	KReviseSubmit         Key = "m.revise.submit"
	KReviseQuestion       Key = "m.revise.question"
	KRevisePresetLabel    Key = "m.revise.preset_label"
	KReviseFeedbackLabel  Key = "m.revise.feedback_label"
	KReviseHint           Key = "m.revise.hint"
	KRevisePlaceholder    Key = "m.revise.placeholder"
	KApproveTitle         Key = "m.approve.title"
	KApproveSubmit        Key = "m.approve.submit"
	KApproveQuestion      Key = "m.approve.question"
	KApproveQuestionDraft Key = "m.approve.question_draft"
	KApproveDraftLabel    Key = "m.approve.draft_label"
	KApproveDraftOption   Key = "m.approve.draft_option"
	KApproveQuorum        Key = "m.approve.quorum"
	KApproveQuorumDrafts  Key = "m.approve.quorum_drafts"
	KApproveQuorumSoFar   Key = "m.approve.quorum_so_far"
	KApproveQuorumDraftsS Key = "m.approve.quorum_drafts_so_far"
	KApproveCommentLabel  Key = "m.approve.comment_label"
	KApprovePlaceholder   Key = "m.approve.placeholder"
	KApproveHintOptional  Key = "m.approve.hint_optional"
	KApproveHintRequired  Key = "m.approve.hint_required"
	KDelegateTitle        Key = "m.delegate.title"
	KDelegateSubmit       Key = "m.delegate.submit"
	KDelegateQuestion     Key = "m.delegate.question"
	KDelegateLabel        Key = "m.delegate.label"
	KDelegatePlaceholder  Key = "m.delegate.placeholder"
	KDelegateHint         Key = "m.delegate.hint"
	KEditTitle            Key = "m.edit.title"
	KEditSubmit           Key = "m.edit.submit"
	KEditQuestion         Key = "m.edit.question"
	KEditLabel            Key = "m.edit.label"
	KEditHint             Key = "m.edit.hint"
	KEditPickLabel        Key = "m.edit.pick_label"
	KEditPickSubmit       Key = "m.edit.pick_submit"
	KEditPickQuestion     Key = "m.edit.pick_question"
	KWithdrawTitle        Key = "m.withdraw.title"
	KWithdrawSubmit       Key = "m.withdraw.submit"
	KWithdrawQuestion     Key = "m.withdraw.question"
	KWithdrawLabel        Key = "m.withdraw.label"
	KWithdrawPlaceholder  Key = "m.withdraw.placeholder"
	KWithdrawHint         Key = "m.withdraw.hint"
	KSureTitle            Key = "m.sure.title"

	// The App Home.
	KHomeTitle         Key = "home.title"
	KHomeUpdated       Key = "home.updated"
	KHomeWaiting       Key = "home.waiting"
	KHomeCannotList    Key = "home.cannot_list"
	KSomeUnchecked     Key = "pending.some_unchecked"
	KHomeNothing       Key = "home.nothing"
	KHomeCountOne      Key = "home.count_one"
	KHomeCount         Key = "home.count"
	KHomeMore          Key = "home.more"
	KHomeWaitingFor    Key = "home.waiting_for"
	KHomeRequestedBy   Key = "home.requested_by"
	KHomeDue           Key = "home.due"
	KHomeHandedBy      Key = "home.handed_by"
	KHomeHistory       Key = "home.history"
	KHomeHistoryFailed Key = "home.history_failed"
	KHomeHistoryNone   Key = "home.history_none"
	KHomeYours         Key = "home.yours"
	KHomeYoursFailed   Key = "home.yours_failed"
	KHomeYoursLine     Key = "home.yours_line"

	// A person's history and /approvals.
	KHistHanded        Key = "hist.handed"
	KHistVoted         Key = "hist.voted"
	KHistVotedDraft    Key = "hist.voted_draft"
	KHistApproved      Key = "hist.approved"
	KHistApprovedDraft Key = "hist.approved_draft"
	KHistEdited        Key = "hist.edited"
	KHistRejected      Key = "hist.rejected"
	KHistRevised       Key = "hist.revised"
	KHistSkipped       Key = "hist.skipped"
	KHistWithdrew      Key = "hist.withdrew"
	KHistDecided       Key = "hist.decided"
	KHistNone          Key = "hist.none"
	KHistHeadOne       Key = "hist.head_one"
	KHistHead          Key = "hist.head"
	KNoLinks           Key = "links.unavailable"
	KPendNone          Key = "pend.none"
	KPendNoneText      Key = "pend.none_text"
	KPendHeadOne       Key = "pend.head_one"
	KPendHead          Key = "pend.head"
	KPendMore          Key = "pend.more"
	KPendLine          Key = "pend.line"
	KPendNoDeadline    Key = "pend.no_deadline"
	KPendDue           Key = "pend.due"
	KHelp              Key = "help"
	KHelpFallback      Key = "help.fallback"
	KCmdPendingFailed  Key = "cmd.pending_failed"
	KCmdHistoryFailed  Key = "cmd.history_failed"
	KAgeUnderMinute    Key = "age.under_minute"
	KAgeMinute         Key = "age.minute"
	KAgeMinutes        Key = "age.minutes"
	KAgeHour           Key = "age.hour"
	KAgeHours          Key = "age.hours"
	KAgeDay            Key = "age.day"
	KAgeDays           Key = "age.days"

	// Notes in the request's thread, and the requester's direct message.
	KReminder               Key = "n.reminder"
	KReminderProgress       Key = "n.reminder_progress"
	KReminderDeadline       Key = "n.reminder_deadline"
	KReminderProgressDeadln Key = "n.reminder_progress_deadline"
	KEscalation             Key = "n.escalation"
	KEscalationDeadline     Key = "n.escalation_deadline"
	KDelegation             Key = "n.delegation"
	KRequesterNotice        Key = "dm.notice"
	KRequesterNoticeLink    Key = "dm.notice_link"

	// Private answers to a click or a form.
	KTransient            Key = "a.transient"
	KNotFound             Key = "a.not_found"
	KSlowClick            Key = "a.slow_click"
	KNoGroups             Key = "a.no_groups"
	KNotOnRequest         Key = "a.not_on_request"
	KLateExpired          Key = "late.expired"
	KLateDeadlineReject   Key = "late.deadline_rejected"
	KLateDeadlineSkip     Key = "late.deadline_skipped"
	KLateDecided          Key = "late.decided"
	KLateBusy             Key = "late.busy"
	KVerbApproved         Key = "verb.approved"
	KVerbApprovedDraft    Key = "verb.approved_draft"
	KVerbRejected         Key = "verb.rejected"
	KVerbRevise           Key = "verb.revise"
	KVerbSkipped          Key = "verb.skipped"
	KVerbWithdrawn        Key = "verb.withdrawn"
	KWhoMayDecide         Key = "a.who_may_decide"
	KVote                 Key = "a.vote"
	KVoteDraft            Key = "a.vote_draft"
	KVoteSameDraft        Key = "a.vote_same_draft"
	KDone                 Key = "a.done"
	KHandedTo             Key = "a.handed_to"
	KWithdrew             Key = "a.withdrew"
	KNoSuchDraft          Key = "a.no_such_draft"
	KNotEditable          Key = "a.not_editable"
	KOtherError           Key = "a.other_error"
	KSubPickDraft         Key = "sub.pick_draft"
	KSubTooLong           Key = "sub.too_long"
	KSubDescribe          Key = "sub.describe"
	KSubPickDelegate      Key = "sub.pick_delegate"
	KSubDelegateBot       Key = "sub.delegate_bot"
	KSubDelegateGone      Key = "sub.delegate_gone"
	KSubDelegateGuest     Key = "sub.delegate_guest"
	KSubDelegateUnknown   Key = "sub.delegate_unknown"
	KSubDelegateUnchecked Key = "sub.delegate_unchecked"

	// Answers while the bot shuts down.
	KDownClickNotApplied  Key = "down.click_not_applied"
	KDownClickCut         Key = "down.click_cut"
	KDownRecorded         Key = "down.recorded"
	KDownSubmitNotApplied Key = "down.submit_not_applied"
	KDownSubmitCut        Key = "down.submit_cut"
	KDownOpenNotDone      Key = "down.open_not_done"
	KDownOpenCut          Key = "down.open_cut"
	KDownCommand          Key = "down.command"
	KDownCommandCut       Key = "down.command_cut"
)

// whyKeys words the domain's refusals (workflow.Why); their Args fill in
// the text in order.
var whyKeys = map[workflow.Why]Key{
	workflow.WhyUnknownUser:     "why.unknown_user",
	workflow.WhyRequester:       "why.requester",
	workflow.WhyNotApprover:     "why.not_approver",
	workflow.WhyHandedOff:       "why.handed_off",
	workflow.WhyNoDelegation:    "why.no_delegation",
	workflow.WhyPickDelegate:    "why.pick_delegate",
	workflow.WhyDelegateSelf:    "why.delegate_self",
	workflow.WhyDelegateAsker:   "why.delegate_asker",
	workflow.WhyDelegatorVoted:  "why.delegator_voted",
	workflow.WhyDelegateVoted:   "why.delegate_voted",
	workflow.WhyTooManyHandOver: "why.too_many_handover",
	workflow.WhyTextTooLong:     "why.text_too_long",
	workflow.WhyNeedsReason:     "why.needs_reason",
	workflow.WhyNeedsComment:    "why.needs_comment",
	workflow.WhyPickDraft:       "why.pick_draft",
	workflow.WhyNoDrafts:        "why.no_drafts",
	workflow.WhyNoChanges:       "why.no_changes",
	workflow.WhyUnknownPreset:   "why.unknown_preset",
	workflow.WhyDescribeChange:  "why.describe_change",
	workflow.WhyNoSkip:          "why.no_skip",
	workflow.WhyNoEdit:          "why.no_edit",
	workflow.WhyEditEmpty:       "why.edit_empty",
	workflow.WhyEditTooLong:     "why.edit_too_long",
	workflow.WhyNotRequester:    "why.not_requester",
	workflow.WhyVotedElsewhere:  "why.voted_elsewhere",
	workflow.WhyCommentsFull:    "why.comments_full",
	workflow.WhyOtherMessage:    "why.other_message",
	workflow.WhyUnknownAction:   "why.unknown_action",
}

// ErrorText words a domain error for people in locale: a refusal with a
// Why from the catalog (user IDs among its Args become mentions);
// another domain error as the domain wrote it in English, or a general
// sentence in another language; any other error as a general sentence,
// so that infrastructure details stay in the logs. The text is mrkdwn.
func ErrorText(locale string, err error) string {
	why, args := workflow.ErrorWhy(err)
	if why == workflow.WhyVotedElsewhere && len(args) == 1 && args[0] == "0" {
		return T(locale, "why.voted_elsewhere_none")
	}
	if key, ok := whyKeys[why]; ok {
		fill := make([]any, len(args))
		for i, a := range args {
			fill[i] = a
			if workflow.IsUserID(a) {
				fill[i] = Mention(a)
			}
		}
		return T(locale, key, fill...)
	}
	if workflow.ErrorCode(err) != "" && Locale(locale) == workflow.LocaleEnglish {
		return Escape(workflow.ErrorMessage(err)) // may quote what was submitted
	}
	return T(locale, KOtherError)
}
