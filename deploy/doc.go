// Package deploy holds the CloudFormation template (cloudformation.yaml),
// the bot's container image, the packaging of the Lambdas and the shipped
// workflows (make package) and the operator notes. Its tests check the
// template: it parses strictly with goformation; each role's IAM
// statements are exactly what its binary's code, or its workflow's
// definition, can call; the deployed definitions validate on the local
// engine; the EventBridge rule matches AWS's documented events; nothing
// lets traffic in; the whole stack creates, and updates, in moto's
// CloudFormation (moto_test.go says what moto does not check).
package deploy
