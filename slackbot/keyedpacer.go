package slackbot

import "sync"

// keyedPacer keeps one pacer per key, such as per channel, each with the
// same ceiling.
type keyedPacer struct {
	mu      sync.Mutex
	ceiling Rate
	m       map[string]*pacer
}

func newKeyedPacer(ceiling Rate) *keyedPacer {
	return &keyedPacer{ceiling: ceiling, m: map[string]*pacer{}}
}

// get returns key's pacer. Past 256 keys, pacers that have forgotten what
// they learnt are dropped first.
func (k *keyedPacer) get(key string) *pacer {
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
	pc := newPacer(k.ceiling)
	k.m[key] = pc
	return pc
}
