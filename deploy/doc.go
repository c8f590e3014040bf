// Package deploy holds the CloudFormation template (cloudformation.yaml),
// the bot's container image and the operator notes. Its tests check that
// each role's IAM statements are exactly what the binaries' code can call.
package deploy
