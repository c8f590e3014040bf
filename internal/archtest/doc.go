// Package archtest holds the test that keeps the architecture honest: the
// dependency rules of HOUSE_STYLE.md, checked on every `go test ./...`.
package archtest
