package host_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/host"
)

// TestSubstitute checks that placeholders are filled the way
// CloudFormation's DefinitionSubstitutions fills them: textually,
// everywhere, repeatedly, without escaping, ignoring names without a
// placeholder.
func TestSubstitute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		def    string
		values map[string]string
		want   string
	}{
		{"one placeholder", `{"c":"${Channel}"}`, map[string]string{"Channel": "C0PUBLISH"}, `{"c":"C0PUBLISH"}`},
		{"every occurrence, inside text", `{"a":"States.StringSplit('${A}', ',')","b":"${A}-${B}${A}"}`,
			map[string]string{"A": "U1,U2", "B": "x"}, `{"a":"States.StringSplit('U1,U2', ',')","b":"U1,U2-xU1,U2"}`},
		{"in keys too", `{"${K}":1}`, map[string]string{"K": "key"}, `{"key":1}`},
		{"names without a placeholder are ignored", `{"c":"${Channel}"}`, map[string]string{"Channel": "C1", "Unused": "x"}, `{"c":"C1"}`},
		{"a value may hold another placeholder", `{"c":"${A}"}`, map[string]string{"A": "<${B}>", "B": "${C}", "C": "end"}, `{"c":"<end>"}`},
		{"no escape: ${!A} is not a placeholder", `{"c":"${!A} ${A}"}`, map[string]string{"A": "v"}, `{"c":"${!A} v"}`},
		{"a dollar without braces stays", `{"p.$":"$.x","q":"$$.Task.Token"}`, map[string]string{"A": "v"}, `{"p.$":"$.x","q":"$$.Task.Token"}`},
		{"an empty value", `{"c":"${A}"}`, map[string]string{"A": ""}, `{"c":""}`},
		{"nothing to substitute", `{"c":"x"}`, nil, `{"c":"x"}`},
	}
	for _, tt := range tests {
		got, err := host.Substitute([]byte(tt.def), tt.values)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: Substitute = %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

func TestSubstituteRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		def    string
		values map[string]string
		want   string
	}{
		{"a placeholder without a value", `{"c":"${Channel}","a":"${Approvers}","b":"${Approvers}"}`, map[string]string{"Channel": "C1"},
			"${Approvers} has no value"},
		{"several without a value", `{"c":"${Channel}","a":"${Approvers}"}`, nil,
			"${Approvers}, ${Channel} have no value"},
		{"a value that refers to itself", `{"c":"${A}"}`, map[string]string{"A": "x${A}"}, "refer to each other without end"},
		{"values that refer to each other", `{"c":"${A}"}`, map[string]string{"A": "${B}", "B": "${A}"}, "refer to each other without end"},
		{"a value that breaks the JSON", `{"c":"${A}"}`, map[string]string{"A": `say "hi"`}, "the result is not valid JSON"},
	}
	for _, tt := range tests {
		got, err := host.Substitute([]byte(tt.def), tt.values)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Substitute = %s, %v; want an error containing %q", tt.name, got, err, tt.want)
		}
		var unfilled *host.UnfilledError
		if errors.As(err, &unfilled) != strings.Contains(tt.want, "no value") {
			t.Errorf("%s: error %T, UnfilledError only for placeholders without a value", tt.name, err)
		}
	}
}
