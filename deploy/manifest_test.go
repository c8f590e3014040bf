package deploy

import (
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// slackScopes are the bot token scopes of the slack-go methods the code
// may call (Slack's method reference): "" for a method that needs none.
// A method missing here fails the test, so a new call is looked up once.
var slackScopes = map[string]string{
	"AuthTestContext":            "",
	"GetPermalinkContext":        "",
	"GetUserGroupMembersContext": "usergroups:read",
	"GetUserInfoContext":         "users:read", // users.info: a delegate must be an active person
	"OpenConversationContext":    "im:write",   // conversations.open with one user: a DM
	"OpenViewContext":            "",
	"PublishViewContext":         "",
	"PostEphemeralContext":       "chat:write",
	"PostMessageContext":         "chat:write",
	"SendMessageContext":         "chat:write", // chat.postMessage, or a response_url (no scope)
	"UpdateMessageContext":       "chat:write",
}

// slackEventNames are the Events API event types of the slackevents
// types the bot asserts an inner event to; the envelope type is none.
var slackEventNames = map[string]string{
	"EventsAPIEvent":     "",
	"AppHomeOpenedEvent": "app_home_opened",
}

// manifest is the part of manifest.yml the bot's code depends on.
type manifest struct {
	Features struct {
		AppHome struct {
			HomeTab     bool `yaml:"home_tab_enabled"`
			MessagesTab bool `yaml:"messages_tab_enabled"`
		} `yaml:"app_home"`
		SlashCommands []struct {
			Command string `yaml:"command"`
		} `yaml:"slash_commands"`
	} `yaml:"features"`
	OAuth struct {
		Scopes struct {
			Bot []string `yaml:"bot"`
		} `yaml:"scopes"`
	} `yaml:"oauth_config"`
	Settings struct {
		Events struct {
			Bot []string `yaml:"bot_events"`
		} `yaml:"event_subscriptions"`
		Interactivity struct {
			Enabled bool `yaml:"is_enabled"`
		} `yaml:"interactivity"`
		SocketMode bool `yaml:"socket_mode_enabled"`
	} `yaml:"settings"`
}

// The Slack app manifest grants exactly the bot token scopes the code's
// Slack calls need (derived from the binaries' call graphs, as the IAM
// roles are) and subscribes to exactly the events the bot handles.
func TestManifestGrantsWhatTheCodeCalls(t *testing.T) {
	raw, err := os.ReadFile("../manifest.yml")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest.yml: %v", err)
	}
	var methods, events []string
	for _, u := range derived(t) {
		methods = append(methods, u.SlackMethods...)
		events = append(events, u.SlackEvents...)
	}
	need := []string{}
	for _, method := range methods {
		scope, ok := slackScopes[method]
		if !ok {
			t.Errorf("the code calls (*slack.Client).%s: add its scope to slackScopes", method)
		}
		if scope != "" {
			need = append(need, scope)
		}
	}
	if len(m.Features.SlashCommands) > 0 {
		need = append(need, "commands")
	}
	wantEvents := []string{}
	for _, typ := range events {
		name, ok := slackEventNames[typ]
		if !ok {
			t.Errorf("the bot handles slackevents.%s: add its event type to slackEventNames", typ)
		}
		if name != "" {
			wantEvents = append(wantEvents, name)
		}
	}
	for _, s := range []*[]string{&need, &wantEvents, &m.OAuth.Scopes.Bot, &m.Settings.Events.Bot} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	if m.Settings.Events.Bot == nil {
		m.Settings.Events.Bot = []string{}
	}
	if d := cmp.Diff(need, m.OAuth.Scopes.Bot); d != "" {
		t.Errorf("bot scopes (-what the code calls +manifest.yml):\n%s\nmethods called: %v", d, methods)
	}
	if d := cmp.Diff(wantEvents, m.Settings.Events.Bot); d != "" {
		t.Errorf("bot events (-what the bot handles +manifest.yml):\n%s", d)
	}
	if slices.Contains(wantEvents, "app_home_opened") != m.Features.AppHome.HomeTab {
		t.Errorf("the Home tab is enabled: %v; the bot publishes it on app_home_opened: %v", m.Features.AppHome.HomeTab, slices.Contains(wantEvents, "app_home_opened"))
	}
	if slices.Contains(need, "im:write") && !m.Features.AppHome.MessagesTab {
		t.Error("requests may be direct messages (im:write) but the App Home's Messages tab is off")
	}
	if !m.Settings.SocketMode || !m.Settings.Interactivity.Enabled {
		t.Error("the bot needs Socket Mode and interactivity")
	}
}
