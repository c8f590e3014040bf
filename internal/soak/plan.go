package soak

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
)

// kind is what the people of one approval do.
type kind string

// The kinds of approval in a run, with their share of the mix.
const (
	// kindApprove: the approver approves.
	kindApprove kind = "approve"
	// kindReject: the group's member rejects with a reason (a modal).
	kindReject kind = "reject"
	// kindRevise: the approver requests changes, a preset and a text (a
	// modal).
	kindRevise kind = "revise"
	// kindQuorum: quorum 2; the approver and the group's member approve,
	// close together.
	kindQuorum kind = "quorum"
	// kindHandOver: the approver hands the request over (a modal) and the
	// delegate approves.
	kindHandOver kind = "handover"
	// kindDouble: two clicks at once through two sockets, so on two
	// replicas: the approver twice (variant "same"), or the approver's
	// approval against the member's skip ("two").
	kindDouble kind = "double"
	// kindDeadline: a deadline passes during the run; the approver
	// approves before it ("before"), after it ("after"), or never
	// ("never").
	kindDeadline kind = "deadline"
)

// Mix is the share of each kind of approval, in percent of the run's
// approvals; the shares add up to 100.
type Mix map[kind]int

// DefaultMix is the mix of a run.
var DefaultMix = Mix{
	kindApprove: 30, kindReject: 12, kindRevise: 10, kindQuorum: 14,
	kindHandOver: 10, kindDouble: 12, kindDeadline: 12,
}

// kinds lists the kinds in a fixed order.
var kinds = []kind{kindApprove, kindReject, kindRevise, kindQuorum, kindHandOver, kindDouble, kindDeadline}

// String is the mix as -mix takes it: "approve=30,reject=12,…".
func (m Mix) String() string {
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}

// ParseMix reads "approve=30,reject=12,…"; kinds left out get 0, and the
// shares must add up to 100.
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	total := 0
	for part := range strings.SplitSeq(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		k := kind(name)
		n, err := strconv.Atoi(value)
		switch {
		case !ok || !slices.Contains(kinds, k):
			return nil, fmt.Errorf("%q is not kind=percent with a kind among %s", part, DefaultMix)
		case err != nil || n < 0 || n > 100:
			return nil, fmt.Errorf("%s's share %q is not a percentage", name, value)
		case m[k] != 0:
			return nil, fmt.Errorf("%s is given twice", name)
		}
		m[k] = n
		total += n
	}
	if total != 100 {
		return nil, fmt.Errorf("the shares add up to %d, not 100", total)
	}
	return m, nil
}

// People of an approval: each approval has its own, so every private
// answer and modal a person gets is about that approval. The groups are
// few, as in a workspace: the approvals of a channel share one.
type people struct {
	approver string // a listed approver
	member   string // decides as a member of group
	group    string
	delegate string // the hand-over's delegate
}

func peopleOf(n int) people {
	return people{
		approver: fmt.Sprintf("U0A%05d", n),
		member:   fmt.Sprintf("U0M%05d", n),
		group:    fmt.Sprintf("S0G%02d", n%channels),
		delegate: fmt.Sprintf("U0D%05d", n),
	}
}

// requester asks for every approval; nobody decides their own.
const requester = "U0REQUESTER"

// channels are the run's channels; requests are spread over them, as
// Slack paces thread replies per channel.
const channels = 10

// item is one approval of the run: what its people will do, and, once it
// is requested, where it is and what they did.
type item struct {
	n       int
	kind    kind
	variant string // kindDouble: "same" or "two"; kindDeadline: "before", "after" or "never"
	who     people
	channel string
	// at is when the first person acts, from the start of the click phase;
	// for kindDeadline, from its deadline (negative: before it).
	at time.Duration
	// deadline is a kindDeadline approval's timeoutSeconds: it is
	// requested as the click phase starts, so its deadline passes during
	// the run.
	deadline time.Duration
	reason   string // kindReject's reason; kindRevise's text
	warmUp   bool   // decided before the faults start, for the baseline

	// Set once requested.
	pending devstack.Pending
	// deadlineAt is when the task is timed out, as Step Functions does at
	// the Task's TimeoutSeconds.
	deadlineAt time.Time

	mu      sync.Mutex
	acts    []*act
	views   map[string]bool // the forms its people saw
	givenUp string          // why a person stopped waiting, if one did
}

func (it *item) id() string { return it.pending.Response.ApprovalID }

// record adds what a person did.
func (it *item) record(a *act) {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.acts = append(it.acts, a)
}

func (it *item) actions() []deed {
	it.mu.Lock()
	defer it.mu.Unlock()
	out := make([]deed, 0, len(it.acts))
	for _, a := range it.acts {
		out = append(out, a.snapshot())
	}
	return out
}

// act is one click or submission and what came of it, as it goes on.
type act struct {
	mu sync.Mutex
	deed
}

// deed is what an act was: who did what, through which socket, what Slack
// showed and what the person saw after.
type deed struct {
	at       time.Time
	who      string
	what     string // "click approve", "submit reject", …
	via      int    // the socket index it was pinned to; -1 for Slack's pick
	envelope string
	result   string // what Slack showed: acked, an error
	acked    bool
	answer   string // what the person saw after
	answered bool
}

func newAct(who, what string, via int) *act {
	return &act{deed: deed{at: time.Now(), who: who, what: what, via: via}}
}

func (a *act) set(f func(*deed)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.deed)
}

func (a *act) snapshot() deed {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.deed
}

// makePlan deals the run's approvals: kinds by the mix, people, channels,
// when each is acted on and, for deadlines, when they pass. Warm-up
// approvals come first.
func makePlan(rng *rand.Rand, o Options) []*item {
	var list []*item
	for n := range o.WarmUp {
		list = append(list, &item{n: n, kind: kindApprove, who: peopleOf(n), warmUp: true})
	}
	var deck []kind
	for _, k := range kinds {
		for range o.Approvals * o.Mix[k] / 100 {
			deck = append(deck, k)
		}
	}
	for len(deck) < o.Approvals {
		deck = append(deck, kindApprove)
	}
	rng.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	for i, k := range deck {
		n := o.WarmUp + i
		it := &item{n: n, kind: k, who: peopleOf(n), at: time.Duration(rng.Int64N(int64(o.Duration)))}
		switch k {
		case kindReject:
			it.reason = fmt.Sprintf("Not this week (soak %d).", n)
		case kindRevise:
			it.reason = fmt.Sprintf("Cut the intro (soak %d).", n)
		case kindDouble:
			it.variant = []string{"same", "two"}[rng.IntN(2)]
		case kindDeadline:
			it.variant = []string{"before", "after", "never"}[rng.IntN(3)]
			// The deadline passes in the first 70% of the click phase
			// (whole seconds, as timeoutSeconds), and the click comes a
			// few seconds before or after it.
			it.deadline = (o.Duration/10 + time.Duration(rng.Int64N(int64(o.Duration*6/10)))).Round(time.Second)
			it.deadline = max(it.deadline, 10*time.Second)
			switch it.variant {
			case "before":
				it.at = -time.Duration(3+rng.IntN(5)) * time.Second
			case "after":
				it.at = time.Duration(2+rng.IntN(15)) * time.Second
			}
		}
		list = append(list, it)
	}
	for _, it := range list {
		it.channel = fmt.Sprintf("C0SOAK%02d", it.n%channels)
	}
	return list
}

// groups are the user groups of the plan and their members, for the fake
// Slack.
func groups(plan []*item) map[string][]string {
	g := map[string][]string{}
	for _, it := range plan {
		g[it.who.group] = append(g[it.who.group], it.who.member)
	}
	return g
}

// payload is the notifier's input for it (without the token, execution
// and state, which the stack adds).
func (it *item) payload() map[string]any {
	p := map[string]any{
		"channel":         it.channel,
		"approvers":       []string{it.who.approver, it.who.group},
		"requestedBy":     requester,
		"title":           fmt.Sprintf("Soak %d (%s)", it.n, it.kind),
		"summary":         "A request of the soak run.",
		"revisionPresets": []string{"Shorter", "Friendlier"},
		"allowSkip":       true,
	}
	switch it.kind {
	case kindQuorum:
		p["quorum"] = 2
	case kindDeadline:
		p["timeoutSeconds"] = int64(it.deadline / time.Second)
		p["reminders"] = []string{}
	}
	return p
}
