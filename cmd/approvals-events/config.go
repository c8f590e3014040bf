package main

import "github.com/sfnapprovals/approvals/internal/lambdaenv"

// config is everything the function reads from its environment: what every
// Lambda function of the project reads (lambdaenv), nothing more.
type config = lambdaenv.Config

func loadConfig(getenv func(string) string) (config, error) { return lambdaenv.Load(getenv) }
