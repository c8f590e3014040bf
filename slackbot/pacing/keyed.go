package pacing

import "sync"

// Keyed keeps one pacer per key, such as per channel, each with the
// same ceiling.
type Keyed struct {
	mu      sync.Mutex
	ceiling Rate
	m       map[string]*Pacer
}

// NewKeyed returns a Keyed whose pacers share ceiling (zero: none).
func NewKeyed(ceiling Rate) *Keyed {
	return &Keyed{ceiling: ceiling, m: map[string]*Pacer{}}
}

// Get returns key's pacer. Past 256 keys, pacers that have forgotten what
// they learnt are dropped first.
func (k *Keyed) Get(key string) *Pacer {
	k.mu.Lock()
	defer k.mu.Unlock()
	if pc, ok := k.m[key]; ok {
		return pc
	}
	if len(k.m) >= 256 {
		for key, pc := range k.m {
			if pc.idle() {
				delete(k.m, key)
			}
		}
	}
	pc := New(k.ceiling)
	k.m[key] = pc
	return pc
}
