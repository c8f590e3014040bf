// Package validate checks Amazon States Language definitions statically,
// the way Step Functions does before it stores a state machine.
//
// It works on the raw JSON, independent of the interpreter's model, and
// reports what AWS reports: CreateStateMachine and UpdateStateMachine refuse
// a definition with any ERROR diagnostic ([CheckFor]), and
// ValidateStateMachineDefinition lists every diagnostic ([DefinitionFor]),
// both for the machine's type (Express machines run no callbacks or .sync
// jobs).
// Codes, messages and locations follow what AWS returns where that is known
// (SCHEMA_VALIDATION_FAILED, MISSING_TRANSITION_TARGET, MISSING_END_STATE, …);
// locations read like "/States/Approve/Next" or
// "/States/Fan/Branches[0]/States/Step".
//
// JSONPath paths and intrinsic functions are checked for syntax, JSONata
// expressions ("{% … %}") for well-formedness; nothing is evaluated.
package validate
