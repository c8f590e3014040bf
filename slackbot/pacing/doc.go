// Package pacing paces calls to a Slack Web API method by Slack's own
// answers, without knowing the limit: unpaced until Slack answers 429, then
// a pause for Retry-After and a rate set below what Slack accepted, probing
// back up while callers are held back (Pacer). Replicas that each pace
// themselves this way converge to equal shares of the workspace's limit;
// the simulation tests check that against models of Slack's limits. Keyed
// keeps one Pacer per channel. Rate is an optional ceiling never exceeded.
package pacing
