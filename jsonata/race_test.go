//go:build race

package jsonata

// raceDetector is whether the tests run under the race detector, which
// multiplies the memory a test holds several times over.
const raceDetector = true
