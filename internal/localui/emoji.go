package localui

import "strings"

// shortcodes are the emoji names Slack turns into emoji in mrkdwn, as far as the stand-in knows
// them: the bot's own (:tada: on an empty App Home) and the common ones. Slack shows a name it
// does not know as typed, and so does the page.
var shortcodes = map[string]string{
	"tada": "🎉", "white_check_mark": "✅", "heavy_check_mark": "✔️", "x": "❌", "warning": "⚠️",
	"bell": "🔔", "hourglass": "⌛", "hourglass_flowing_sand": "⏳", "stopwatch": "⏱️", "clock1": "🕐",
	"arrow_right": "➡️", "arrow_forward": "▶️", "leftwards_arrow_with_hook": "↩️", "arrow_right_hook": "↪️",
	"pencil2": "✏️", "memo": "📝", "no_entry": "⛔", "no_entry_sign": "🚫", "lock": "🔒", "eyes": "👀",
	"wave": "👋", "+1": "👍", "thumbsup": "👍", "-1": "👎", "thumbsdown": "👎", "rocket": "🚀",
	"fire": "🔥", "sparkles": "✨", "information_source": "ℹ️", "question": "❓", "exclamation": "❗",
	"heavy_plus_sign": "➕", "ballot_box_with_check": "☑️", "black_square_for_stop": "⏹️",
	"double_vertical_bar": "⏸️", "arrow_double_up": "⏫", "track_next": "⏭️", "ballot_box": "🗳️",
}

// emoji replaces the :names: of known emoji in text by the emoji.
func emoji(text string) string {
	if !strings.Contains(text, ":") {
		return text
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(text, ':')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i+1:], ':')
		if j < 0 {
			break
		}
		if e, ok := shortcodes[text[i+1:i+1+j]]; ok {
			b.WriteString(text[:i] + e)
			text = text[i+2+j:]
			continue
		}
		b.WriteString(text[:i+1])
		text = text[i+1:]
	}
	b.WriteString(text)
	return b.String()
}
