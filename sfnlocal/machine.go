package sfnlocal

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/validate"
)

// StateMachineType is STANDARD or EXPRESS.
type StateMachineType string

// State machine types.
const (
	Standard StateMachineType = "STANDARD"
	Express  StateMachineType = "EXPRESS"
)

// State machine statuses.
const (
	StateMachineActive   = "ACTIVE"
	StateMachineDeleting = "DELETING"
)

// CreateStateMachineInput is CreateStateMachine's request.
type CreateStateMachineInput struct {
	Name       string
	Definition string
	RoleArn    string
	Type       StateMachineType // default STANDARD
}

// StateMachine describes a state machine, as DescribeStateMachine does.
type StateMachine struct {
	StateMachineArn string
	Name            string
	Definition      string
	RoleArn         string
	Type            StateMachineType
	Status          string
	CreationDate    time.Time
	RevisionID      string
}

// UpdateStateMachineInput is UpdateStateMachine's request; empty fields
// are left unchanged.
type UpdateStateMachineInput struct {
	StateMachineArn string
	Definition      string
	RoleArn         string
}

// UpdateStateMachineOutput is UpdateStateMachine's response.
type UpdateStateMachineOutput struct {
	UpdateDate time.Time
	RevisionID string
}

// ListStateMachinesInput is ListStateMachines' request.
type ListStateMachinesInput struct {
	MaxResults int // 1–1000; 0 means 100
	NextToken  string
}

// StateMachineListItem is one entry of ListStateMachines.
type StateMachineListItem struct {
	StateMachineArn string
	Name            string
	Type            StateMachineType
	CreationDate    time.Time
}

// ListStateMachinesOutput is ListStateMachines' response.
type ListStateMachinesOutput struct {
	StateMachines []StateMachineListItem
	NextToken     string
}

type machine struct {
	arn, name string
	typ       StateMachineType
	created   time.Time
	// guarded by Engine.mu
	text     string
	def      *definition
	roleArn  string
	revision string
	deleting bool
	running  int
}

var namePattern = regexp.MustCompile("^[^\\s<>{}\\[\\]?*\"#%\\\\^|~`$&,;:/\\x00-\\x1f\\x7f-\\x9f]{1,80}$")

func validName(name string) bool { return namePattern.MatchString(name) }

func (e *Engine) machineArn(name string) string {
	return fmt.Sprintf("arn:aws:states:%s:%s:stateMachine:%s", e.region, e.acct, name)
}

// compile validates and parses a definition for a machine type.
func compile(text string, typ StateMachineType) (*definition, error) {
	if err := validate.CheckFor([]byte(text), string(typ)); err != nil {
		var inv *validate.InvalidDefinition
		if errors.As(err, &inv) {
			return nil, &APIError{Code: CodeInvalidDefinition, Message: inv.Error()}
		}
		return nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: '%v'", err)
	}
	def, err := parseDefinition([]byte(text))
	if err != nil {
		return nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: %v'", err)
	}
	return def, nil
}

// CreateStateMachine validates and stores a state machine. Creating one
// with the name, definition, role and type of an existing machine returns
// it unchanged; anything else under a taken name is
// StateMachineAlreadyExists. Errors: InvalidName, InvalidDefinition,
// InvalidArn (role), StateMachineTypeNotSupported.
func (e *Engine) CreateStateMachine(ctx context.Context, in CreateStateMachineInput) (StateMachine, error) {
	if in.Type == "" {
		in.Type = Standard
	}
	if in.Type != Standard && in.Type != Express {
		return StateMachine{}, apiErrorf(CodeValidationException, "1 validation error detected: Value '%s' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, EXPRESS]", in.Type)
	}
	if !validName(in.Name) {
		return StateMachine{}, apiErrorf(CodeInvalidName, "Invalid Name: '%s'", in.Name)
	}
	if in.RoleArn != "" && !strings.HasPrefix(in.RoleArn, "arn:") {
		return StateMachine{}, apiErrorf(CodeInvalidArn, "Invalid Arn: 'Resource type not valid in this context: %s'", in.RoleArn)
	}
	def, err := compile(in.Definition, in.Type)
	if err != nil {
		return StateMachine{}, err
	}
	arn := e.machineArn(in.Name)
	now := e.clock.Now()

	e.mu.Lock()
	defer e.mu.Unlock()
	if m, ok := e.machines[arn]; ok {
		if m.text == in.Definition && m.roleArn == in.RoleArn && m.typ == in.Type && !m.deleting {
			return m.describe(), nil
		}
		return StateMachine{}, apiErrorf(CodeStateMachineAlreadyExists, "State Machine Already Exists: '%s'", arn)
	}
	m := &machine{arn: arn, name: in.Name, typ: in.Type, created: now, text: in.Definition, def: def, roleArn: in.RoleArn, revision: newID()}
	e.machines[arn] = m
	e.machineSeq = append(e.machineSeq, m)
	return m.describe(), nil
}

func (m *machine) describe() StateMachine {
	status := StateMachineActive
	if m.deleting {
		status = StateMachineDeleting
	}
	return StateMachine{StateMachineArn: m.arn, Name: m.name, Definition: m.text, RoleArn: m.roleArn,
		Type: m.typ, Status: status, CreationDate: m.created, RevisionID: m.revision}
}

// machineLocked finds a machine by ARN (a "#TestCase" suffix is ignored).
func (e *Engine) machineLocked(arn string) (*machine, error) {
	arn, _, _ = strings.Cut(arn, "#")
	if !strings.HasPrefix(arn, "arn:aws:states:") || !strings.Contains(arn, ":stateMachine:") {
		return nil, apiErrorf(CodeInvalidArn, "Invalid Arn: 'Resource type not valid in this context: %s'", arn)
	}
	m, ok := e.machines[arn]
	if !ok {
		return nil, apiErrorf(CodeStateMachineDoesNotExist, "State Machine Does Not Exist: '%s'", arn)
	}
	return m, nil
}

// DescribeStateMachine returns a state machine. Errors: InvalidArn,
// StateMachineDoesNotExist.
func (e *Engine) DescribeStateMachine(ctx context.Context, arn string) (StateMachine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.machineLocked(arn)
	if err != nil {
		return StateMachine{}, err
	}
	return m.describe(), nil
}

// UpdateStateMachine replaces a machine's definition and/or role; running
// executions keep the definition they started with. Errors: InvalidArn,
// StateMachineDoesNotExist, StateMachineDeleting, InvalidDefinition,
// ValidationException (reason MISSING_REQUIRED_PARAMETER) when neither is
// given.
func (e *Engine) UpdateStateMachine(ctx context.Context, in UpdateStateMachineInput) (UpdateStateMachineOutput, error) {
	if in.Definition == "" && in.RoleArn == "" {
		return UpdateStateMachineOutput{}, &APIError{Code: CodeValidationException, Reason: ReasonMissingRequiredParameter,
			Message: "Either the definition, the role ARN, the LoggingConfiguration, or the TracingConfiguration must be specified"}
	}
	e.mu.Lock()
	m, err := e.machineLocked(in.StateMachineArn)
	var typ StateMachineType
	if err == nil {
		typ = m.typ
	}
	e.mu.Unlock()
	if err != nil {
		return UpdateStateMachineOutput{}, err
	}
	var def *definition
	if in.Definition != "" {
		if def, err = compile(in.Definition, typ); err != nil {
			return UpdateStateMachineOutput{}, err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.deleting {
		return UpdateStateMachineOutput{}, apiErrorf(CodeStateMachineDeleting, "State Machine is being deleted: '%s'", m.arn)
	}
	if def != nil {
		m.text, m.def = in.Definition, def
	}
	if in.RoleArn != "" {
		m.roleArn = in.RoleArn
	}
	m.revision = newID()
	return UpdateStateMachineOutput{UpdateDate: e.clock.Now(), RevisionID: m.revision}, nil
}

// DeleteStateMachine marks a machine DELETING; it disappears, with the
// executions it ran, once its running executions end, which they do
// normally. Deleting a missing machine succeeds, as on AWS. Errors:
// InvalidArn.
func (e *Engine) DeleteStateMachine(ctx context.Context, arn string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.machineLocked(arn)
	if err != nil {
		if ErrorCode(err) == CodeStateMachineDoesNotExist {
			return nil
		}
		return err
	}
	m.deleting = true
	e.reapLocked(m)
	return nil
}

// reapLocked removes a deleting machine without running executions, and
// forgets its ended executions.
func (e *Engine) reapLocked(m *machine) {
	if !m.deleting || m.running > 0 {
		return
	}
	delete(e.machines, m.arn)
	for i, x := range e.machineSeq {
		if x == m {
			e.machineSeq = append(e.machineSeq[:i], e.machineSeq[i+1:]...)
			break
		}
	}
	kept := e.finished[:0]
	for _, x := range e.finished {
		if x.m == m {
			e.forgetLocked(x)
		} else {
			kept = append(kept, x)
		}
	}
	clear(e.finished[len(kept):])
	e.finished = kept
}

// ListStateMachines lists machines in creation order. Errors: InvalidToken,
// ValidationException.
func (e *Engine) ListStateMachines(ctx context.Context, in ListStateMachinesInput) (ListStateMachinesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	start, end, next, err := page(len(e.machineSeq), in.MaxResults, in.NextToken, 100)
	if err != nil {
		return ListStateMachinesOutput{}, err
	}
	out := ListStateMachinesOutput{NextToken: next, StateMachines: []StateMachineListItem{}}
	for _, m := range e.machineSeq[start:end] {
		out.StateMachines = append(out.StateMachines, StateMachineListItem{StateMachineArn: m.arn, Name: m.name, Type: m.typ, CreationDate: m.created})
	}
	return out, nil
}
