package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// file is a MockConfigFile as written.
type file struct {
	StateMachines map[string]struct {
		TestCases map[string]map[string]string // test case → state name → mocked response name
	}
	MockedResponses map[string]map[string]step // mocked response name → invocations ("0", "1-2") → step
}

type step struct {
	Return json.RawMessage
	Throw  *struct{ Error, Cause *string }
}

// answer is a mocked response for a run of invocations, from..to
// inclusive.
type answer struct {
	from, to int
	result   json.RawMessage // Return; nil for a Throw
	err      string          // Throw's Error
	cause    string          // Throw's Cause
}

// script is one mocked response: its answers in invocation order.
type script []answer

// at returns the answer for invocation n (from 0).
func (s script) at(n int) (answer, bool) {
	for _, a := range s {
		if a.from <= n && n <= a.to {
			return a, true
		}
	}
	return answer{}, false
}

// config is a checked MockConfigFile.
type config struct {
	// testCases maps state machine name → test case → state name → script.
	testCases map[string]map[string]map[string]mocked
}

type mocked struct {
	name   string // the mocked response's name
	script script
}

// parse reads and checks a MockConfigFile: every test case names mocked
// responses that exist, and each mocked response's invocation keys cover
// 0…n without gaps or overlaps, each with exactly one of Return and Throw
// (Throw with Error and Cause strings).
func parse(data []byte) (*config, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mock config: %w", err)
	}
	if f.StateMachines == nil || f.MockedResponses == nil {
		return nil, errors.New("mock config: StateMachines and MockedResponses are both required")
	}
	scripts := make(map[string]script, len(f.MockedResponses))
	for name, steps := range f.MockedResponses {
		s, err := parseScript(steps)
		if err != nil {
			return nil, fmt.Errorf("mock config: mocked response %q: %w", name, err)
		}
		scripts[name] = s
	}
	c := &config{testCases: map[string]map[string]map[string]mocked{}}
	for machine, sm := range f.StateMachines {
		c.testCases[machine] = map[string]map[string]mocked{}
		for tc, states := range sm.TestCases {
			c.testCases[machine][tc] = map[string]mocked{}
			for state, response := range states {
				s, ok := scripts[response]
				if !ok {
					return nil, fmt.Errorf("mock config: state machine %q, test case %q, state %q: no mocked response %q", machine, tc, state, response)
				}
				c.testCases[machine][tc][state] = mocked{name: response, script: s}
			}
		}
	}
	return c, nil
}

func parseScript(steps map[string]step) (script, error) {
	if len(steps) == 0 {
		return nil, errors.New("no responses")
	}
	var s script
	for key, st := range steps {
		from, to, err := parseRange(key)
		if err != nil {
			return nil, err
		}
		a := answer{from: from, to: to}
		switch {
		case st.Return != nil && st.Throw != nil:
			return nil, fmt.Errorf("%q has both Return and Throw", key)
		case st.Return != nil:
			var b bytes.Buffer
			if err := json.Compact(&b, st.Return); err != nil {
				return nil, fmt.Errorf("%q: Return: %w", key, err)
			}
			a.result = b.Bytes()
		case st.Throw != nil:
			if st.Throw.Error == nil || st.Throw.Cause == nil {
				return nil, fmt.Errorf("%q: Throw needs Error and Cause strings", key)
			}
			a.err, a.cause = *st.Throw.Error, *st.Throw.Cause
		default:
			return nil, fmt.Errorf("%q has neither Return nor Throw", key)
		}
		s = append(s, a)
	}
	sort.Slice(s, func(i, j int) bool { return s[i].from < s[j].from })
	next := 0
	for _, a := range s {
		if a.from < next {
			return nil, fmt.Errorf("invocation %d has two responses", a.from)
		}
		if a.from > next {
			return nil, fmt.Errorf("invocation %d has no response: keys must count from 0 without gaps", next)
		}
		next = a.to + 1
	}
	return s, nil
}

// parseRange reads an invocation key: "3" or an inclusive range "1-2".
func parseRange(key string) (from, to int, err error) {
	lo, hi, isRange := strings.Cut(key, "-")
	from, err1 := strconv.Atoi(strings.TrimSpace(lo))
	to, err2 := from, error(nil)
	if isRange {
		to, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	if err1 != nil || err2 != nil || from < 0 || to < from {
		return 0, 0, fmt.Errorf("invocation key %q is neither a number nor a range like \"1-2\"", key)
	}
	return from, to, nil
}
