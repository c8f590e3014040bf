package blocks

import (
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func TestAuthorMrkdwnNeutralisesBroadcasts(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<!channel> look", "&lt;!channel&gt; look"},
		{"hi <!here> and <!here|here>", "hi &lt;!here&gt; and &lt;!here|here&gt;"},
		{"<!everyone> <!group>", "&lt;!everyone&gt; &lt;!group&gt;"},
		{"ping <!subteam^S123> and <!subteam^S123|@team>", "ping &lt;!subteam^S123&gt; and &lt;!subteam^S123|@team&gt;"},
		{"<!something_new>", "&lt;!something_new&gt;"},
		{"<@S123>", "&lt;@S123&gt;"},
		{"a lone <!here and\n>", "a lone &lt;!here and\n>"},
		{"<<!here>>", "&lt;&lt;!here&gt;>"},
		{"*bold* _it_ `code` ~s~ > quote", "*bold* _it_ `code` ~s~ > quote"},
		{"<https://example.com/a?b=1&amp;c=2|the post>", "<https://example.com/a?b=1&amp;c=2|the post>"},
		{"<mailto:a@example.com|mail> <http://x.test>", "<mailto:a@example.com|mail> <http://x.test>"},
		{"<@U0AAA> <@W0BBB|bob> <#C0CCC> <#G0DDD|priv>", "<@U0AAA> <@W0BBB|bob> <#C0CCC> <#G0DDD|priv>"},
		{"<!date^1700000000^{date_short}|Nov 14>", "<!date^1700000000^{date_short}|Nov 14>"},
		{"<javascript:alert(1)|x>", "&lt;javascript:alert(1)|x&gt;"},
	}
	for _, tt := range tests {
		got, cut := part{text: tt.in, kind: authorMrkdwn, max: maxSectionLen}.render(0)
		if got != tt.want || cut {
			t.Errorf("render(%q) = %q, %v; want %q", tt.in, got, cut, tt.want)
		}
	}
}

func TestPlainAuthorDefusesBroadcasts(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"Ship it <!channel>", 150, "Ship it <\u2060!channel>"},
		{"a < b, <@U1>", 150, "a < b, <@U1>"},
		{"<!here|here> ok", 12, "<\u2060!here|her…"},
	}
	for _, tt := range tests {
		if got := plainAuthor(tt.in, tt.n).Text; got != tt.want {
			t.Errorf("plainAuthor(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestTitleAtItsLimitStaysInTheHeader(t *testing.T) {
	a := workflowtest.SampleApproval()
	a.Title = ""
	for len([]rune(a.Title)) < workflow.MaxTitleLen {
		a.Title += "<!"
	}
	header := plainAuthor(a.Title, maxHeaderLen).Text
	if n := len([]rune(header)); n > maxHeaderLen {
		t.Errorf("header has %d characters, Slack allows %d", n, maxHeaderLen)
	}
}
