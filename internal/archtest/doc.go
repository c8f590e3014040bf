// Package archtest holds the tests that keep the architecture honest,
// checked on every `go test ./...`:
//
//   - workflow (the domain) uses the standard library only; adapters do not
//     import each other; lambdas import no adapter; slackbot never imports
//     AWS; nothing imports cmd/.
//   - blocks builds from slack-go's types and the domain only; the Lambdas
//     depend on no Socket Mode or Prometheus code, and the notifier binary
//     links none (nor any WebSocket connection code).
//   - the engine (sfnlocal) stands beside the approvals and never imports
//     them; jsonata uses the standard library only; workflow/ holds only
//     the approvals domain, its adapters and the shipped definitions.
//   - relative Markdown links and anchors resolve, and every test a page
//     names exists.
package archtest
