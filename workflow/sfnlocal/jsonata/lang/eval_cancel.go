package lang

// stopCheckInterval is how many evaluation steps pass between two looks
// at Options.Context: often enough that an endless loop stops within
// microseconds, rarely enough to cost nothing measurable.
const stopCheckInterval = 256

// stopped returns the context's error once Options.Context is done. It
// looks only every stopCheckInterval steps; every loop of the evaluator
// (tail calls, higher-order built-ins, paths) takes steps, so none can
// run on unchecked.
func (s *state) stopped() error {
	s.steps++
	if s.steps%stopCheckInterval != 0 {
		return nil
	}
	select {
	case <-s.done:
		return s.ctx.Err()
	default:
		return nil
	}
}
