package workflow

import (
	"slices"
	"unicode/utf16"
)

// The request fields of the people's side: editing a draft before
// approving it, telling the requester, "are you sure?" dialogs, and the
// language people read.

// Locales are the languages a request may be written in (its locale):
// LocaleEnglish, the default, and LocaleJapanese.
const (
	LocaleEnglish  = "en"
	LocaleJapanese = "ja"
)

// Locales lists every supported locale, the default first.
var Locales = []string{LocaleEnglish, LocaleJapanese}

// LocaleVar reads APPROVALS_LOCALE: the language of requests without a
// locale and of what the bot writes outside a request; LocaleEnglish when
// unset. Anything but a supported locale is an error naming the variable.
func LocaleVar(getenv func(string) string) (string, error) {
	v := getenv("APPROVALS_LOCALE")
	switch {
	case v == "":
		return LocaleEnglish, nil
	case !IsLocale(v):
		return "", Errorf(EINVALID, "APPROVALS_LOCALE must be \"en\" or \"ja\", not %s", quoteValue(v))
	}
	return v, nil
}

// IsLocale reports whether s is a supported locale.
func IsLocale(s string) bool { return slices.Contains(Locales, s) }

// Confirmable are the actions a request's confirm may list: their
// buttons ask "are you sure?" first.
var Confirmable = []string{"approve", "reject", "skip", "revise", "withdraw"}

// MaxEditLen is the most a person may write when editing a draft: Slack's
// plain_text_input holds at most 3000 characters, which Slack counts in
// UTF-16 code units (an emoji takes two).
const MaxEditLen = 3000

// EditLen is the length of s as Slack's text inputs count it.
func EditLen(s string) int { return len(utf16.Encode([]rune(s))) }

// Editable reports whether draft fits in Slack's text input, so that it
// can be offered for editing.
func Editable(draft string) bool { return EditLen(draft) <= MaxEditLen }

func (r Request) validatePeople() error {
	switch {
	case r.AllowEdit && len(r.Drafts) == 0:
		return Errorf(EINVALID, "allowEdit needs drafts: there is no text to edit without one")
	case r.NotifyRequester != nil && *r.NotifyRequester && r.RequestedBy == "":
		return Errorf(EINVALID, "notifyRequester true needs requestedBy: the person to tell")
	case unresolved(r.Locale):
		return unresolvedError("locale", r.Locale)
	case r.Locale != "" && !IsLocale(r.Locale):
		return Errorf(EINVALID, "locale must be \"en\" or \"ja\", not %s", quoteValue(r.Locale))
	}
	seen := map[string]bool{}
	for _, c := range r.Confirm {
		switch {
		case !slices.Contains(Confirmable, c):
			return Errorf(EINVALID, "confirm holds %s; it may hold only \"approve\", \"reject\", \"skip\", \"revise\" and \"withdraw\"", quoteValue(c))
		case seen[c]:
			return Errorf(EINVALID, "confirm repeats %q", c)
		case c == "skip" && !r.AllowSkip:
			return Errorf(EINVALID, "confirm \"skip\" needs allowSkip true: there is no Skip button to confirm")
		case c == "revise" && len(r.RevisionPresets) == 0:
			return Errorf(EINVALID, "confirm \"revise\" needs revisionPresets: there is no change request to confirm")
		case c == "withdraw" && r.RequestedBy == "":
			return Errorf(EINVALID, "confirm \"withdraw\" needs requestedBy: only the requester can withdraw a request")
		}
		seen[c] = true
	}
	return nil
}

// notifies reports whether the requester is told the outcome: when there
// is one, unless notifyRequester is false.
func (r Request) notifies() bool {
	return r.RequestedBy != "" && (r.NotifyRequester == nil || *r.NotifyRequester)
}

// Confirms reports whether a's buttons for the action (a word of
// Confirmable) ask "are you sure?" first.
func (a Approval) Confirms(action string) bool { return slices.Contains(a.Confirm, action) }
