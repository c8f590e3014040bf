package localui

import (
	"testing"
)

const fakeSlackURL = "http://127.0.0.1:9999/"

func testRenderer(me string) *renderer {
	return &renderer{ws: DefaultWorkspace(), me: me, slackURL: fakeSlackURL}
}

func TestMrkdwn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, me, in, want string
	}{
		{"plain", "", "hello", "hello"},
		{"emphasis", "", "*bold* _italic_ ~strike~", "<strong>bold</strong> <em>italic</em> <s>strike</s>"},
		{"nested emphasis", "", "*bold _and italic_*", "<strong>bold <em>and italic</em></strong>"},
		{"no emphasis inside words or around spaces", "", "snake_case_name, 2*3*4 and * not bold *", "snake_case_name, 2*3*4 and * not bold *"},
		{"punctuation around emphasis", "", "(*a*), _b_.", "(<strong>a</strong>), <em>b</em>."},
		{"code keeps its text", "", "ID `ap_x *y*`", `ID <code class="code">ap_x *y*</code>`},
		{"unclosed code", "", "a ` b", "a ` b"},
		{"emoji by name", "", "Nothing waits for you. :tada: :white_check_mark:*done*", "Nothing waits for you. 🎉 ✅<strong>done</strong>"},
		{"unknown emoji and colons stay", "", ":no_such_emoji: at 10:30:00 :x", ":no_such_emoji: at 10:30:00 :x"},
		{"no emoji in code", "", "`:tada:`", `<code class="code">:tada:</code>`},
		{"preformatted", "", "```a *b*\n<@U0ALICE>```", `<pre class="pre">a *b*` + "\n" + `<span class="mention" data-user="U0ALICE">@alice</span></pre>`},
		{"unclosed preformatted", "", "```a", "```a"},
		{"line breaks", "", "a\nb", "a<br>b"},
		{"quotes as apps and people write them", "", "a\n> one\n&gt; two\nb", `a<blockquote class="quote">one<br>two</blockquote>b`},
		{"entities read back, then escaped", "", `&lt;b&gt; &amp;lt; & "x"`, `&lt;b&gt; &amp;lt; &amp; &#34;x&#34;`},
		{"a tag is text", "", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"link with label", "", "<https://example.com/a?b=1&amp;c=2|Step *Functions*>",
			`<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">Step *Functions*</a>`},
		{"bare link", "", "<https://example.com>", `<a href="https://example.com" target="_blank" rel="noopener noreferrer">https://example.com</a>`},
		{"bold link", "", "*<https://example.com|Title>*", `<strong><a href="https://example.com" target="_blank" rel="noopener noreferrer">Title</a></strong>`},
		{"no script links", "", "<javascript:alert(1)|click>", "&lt;javascript:alert(1)|click&gt;"},
		{"no quotes out of an href", "", `<https://x.example/"onmouseover="alert(1)|x>`, `<a href="https://x.example/&#34;onmouseover=&#34;alert(1)" target="_blank" rel="noopener noreferrer">x</a>`},
		{"message link opens in the page", "U0BOB", "<" + fakeSlackURL + "archives/C0PUBLISH/p1700000000000100?thread_ts=1699999999.000001&amp;cid=C0PUBLISH|the request>",
			`<a class="msg-link" href="/?as=U0BOB&amp;c=C0PUBLISH#m-1700000000-000100">the request</a>`},
		{"user mention by name", "", "<@U0ALICE>", `<span class="mention" data-user="U0ALICE">@alice</span>`},
		{"my mention", "U0ALICE", "<@U0ALICE>", `<span class="mention me" data-user="U0ALICE">@alice</span>`},
		{"unknown user", "", "<@U0NOBODY>", `<span class="mention" data-user="U0NOBODY">@U0NOBODY</span>`},
		{"group mention by handle", "", "<!subteam^S0EDITORS>", `<span class="mention group" data-group="S0EDITORS">@editors</span>`},
		{"my group", "U0CAROL", "<!subteam^S0EDITORS|@eds>", `<span class="mention group me" data-group="S0EDITORS">@editors</span>`},
		{"unknown group with its label", "", "<!subteam^S0OTHER|@others>", `<span class="mention group" data-group="S0OTHER">@others</span>`},
		{"broadcast", "", "<!here> <!channel>", `<span class="mention broadcast">@here</span> <span class="mention broadcast">@channel</span>`},
		{"escaped broadcast is text", "", "&lt;!channel&gt;", "&lt;!channel&gt;"},
		{"channel", "U0BOB", "<#C0PUBLISH>", `<a class="channel-link" href="/?as=U0BOB&amp;c=C0PUBLISH">#publishing</a>`},
		{"date", "", "<!date^1796029200^{date_short_pretty} {time}|2026-11-30 09:00 UTC>",
			`<time class="sdate" datetime="2026-11-30T09:00:00Z" data-unix="1796029200" data-format="{date_short_pretty} {time}" title="Mon 30 Nov 2026 09:00 UTC">2026-11-30 09:00 UTC</time>`},
		{"broken date shows its fallback", "", "<!date^soon^{date}|some day>", "some day"},
		{"placeholder runes in the text", "", "a\uE000b", "a\uFFFDb"},
		{"unclosed token", "", "a < b", "a &lt; b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testRenderer(tt.me).mrkdwn(tt.in); got != tt.want {
				t.Errorf("mrkdwn(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}
