//go:build race

package soak

// raceEnabled: this binary was built with the race detector, so its
// test builds the replicas with it too.
const raceEnabled = true
