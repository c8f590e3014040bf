import * as path from 'path';
import { Duration, Fn, Lazy, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwactions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { acceptRoleDependsOn } from './lint';

/** The code of the three Lambdas: what `make package` builds. */
export class ApprovalsCode {
  /** notifier.zip, approvals-events.zip and approvals-archive.zip in a directory, such as the repository's dist/ after `make package`. */
  static fromDist(dir: string): ApprovalsCode {
    return new ApprovalsCode(
      lambda.Code.fromAsset(path.join(dir, 'notifier.zip')),
      lambda.Code.fromAsset(path.join(dir, 'approvals-events.zip')),
      lambda.Code.fromAsset(path.join(dir, 'approvals-archive.zip')),
    );
  }

  /** The zips uploaded to a bucket, as deploy/README.md uploads them for the CloudFormation template. */
  static fromBucket(bucket: import('aws-cdk-lib/aws-s3').IBucket, notifierKey: string, eventsKey: string, archiveKey: string): ApprovalsCode {
    return new ApprovalsCode(
      lambda.Code.fromBucket(bucket, notifierKey),
      lambda.Code.fromBucket(bucket, eventsKey),
      lambda.Code.fromBucket(bucket, archiveKey),
    );
  }

  private constructor(readonly notifier: lambda.Code, readonly events: lambda.Code, readonly archive: lambda.Code) {}
}

/** Props of Approvals. */
export interface ApprovalsProps {
  /** The notifier, events and archive Lambdas' code. */
  readonly code: ApprovalsCode;
  /** The bot's image (linux/arm64), built from deploy/Dockerfile; ideally pinned by digest. */
  readonly botImage: ecs.ContainerImage;
  /** The Secrets Manager secret whose SecretString is JSON with the keys botToken (xoxb-…) and appToken (xapp-…). */
  readonly slackSecret: secretsmanager.ISecret;
  /** The VPC the bot runs in; its tasks need outbound HTTPS to Slack and AWS. */
  readonly vpc: ec2.IVpc;
  /** The bot's subnets (default: the VPC's private subnets). */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Only for public subnets without a NAT gateway (default false). */
  readonly assignPublicIp?: boolean;
  /** Your own security group for the bot (default: one allowing outbound HTTPS only, nothing inbound). */
  readonly securityGroup?: ec2.ISecurityGroup;
  /** Bot replicas, 0 to 5 (default 2): Slack allows 10 Socket Mode connections per app, and a rolling deployment runs up to twice this many. */
  readonly desiredCount?: number;
  /** The table's name (default: one CloudFormation generates). */
  readonly tableName?: string;
  /** A customer managed key for the table, the dead-letter queue and the log groups; the secret must then be encrypted with it too (default: AWS owned and managed keys). */
  readonly encryptionKey?: kms.IKey;
  /** How long the log groups keep logs (default one month); the audit archive's has its own. */
  readonly logRetention?: logs.RetentionDays;
  /**
   * How long the audit archive's log group keeps each audit record: a year
   * or more (default 400 days, as long as the table keeps them by default,
   * APPROVALS_AUDIT_RETENTION).
   */
  readonly auditArchiveRetention?: logs.RetentionDays;
  /** An SNS topic the alarms notify when they fire and when they clear (default: none). */
  readonly alarmTopic?: sns.ITopic;
  /**
   * ARNs of the state machines whose approvals the bot decides, besides
   * those added with addStateMachine. With none, every state machine in
   * the account and region.
   */
  readonly stateMachineArns?: string[];
}

// What the work lists read: never the task token (deploy/cloudformation.yaml).
const INDEX_ATTRIBUTES = ['status', 'executionArn', 'stateName', 'channel', 'threadTs', 'messageTs', 'approvers',
  'requestedBy', 'title', 'createdAt', 'deadline', 'claimedAt', 'closedAt', 'decision', 'messageSynced'];

const ENDED = ['ABORTED', 'TIMED_OUT', 'FAILED', 'SUCCEEDED'];

// Begins the key of every audit record, and of nothing else (dynamo.AuditRecordPrefix).
const AUDIT_RECORD_PREFIX = 'log#';

/**
 * Everything deploy/cloudformation.yaml deploys but the shipped workflows:
 * the approvals table, the notifier Lambda a state machine invokes (see
 * SlackApprovalTask), the events Lambda with the EventBridge rule that
 * closes the requests of ended executions and its dead-letter queue, the
 * Socket Mode bot on ECS Fargate in a security group that lets nothing in,
 * the audit archive (a Lambda that keeps every audit record from the
 * table's stream in a retained log group), and the alarms; each role
 * allows what the template's does.
 *
 * Throws an Error for a desiredCount outside 0 to 5 or an
 * auditArchiveRetention under a year.
 */
export class Approvals extends Construct {
  /** The approvals table. */
  readonly table: dynamodb.Table;
  /** The notifier: give it to SlackApprovalTask. */
  readonly notifier: lambda.Function;
  /** The events Lambda, invoked by the execution status rule. */
  readonly eventsFunction: lambda.Function;
  /** Execution status change events the events Lambda could not handle. */
  readonly deadLetterQueue: sqs.Queue;
  /** The bot's ECS service. */
  readonly botService: ecs.FargateService;
  /** The audit archive: every audit record as first written, and any later change or delete of one. Retained with the stack deleted. */
  readonly auditArchive: logs.LogGroup;
  /** Writes the audit records of the table's stream to the audit archive. */
  readonly archiveFunction: lambda.Function;
  /** The alarms, by the template's logical IDs. */
  readonly alarms: Record<string, cloudwatch.Alarm> = {};

  private readonly stateMachineArns: string[];

  constructor(scope: Construct, id: string, props: ApprovalsProps) {
    super(scope, id);
    const desiredCount = props.desiredCount ?? 2;
    if (!Number.isInteger(desiredCount) || desiredCount < 0 || desiredCount > 5) {
      throw new Error(`Approvals ${id}: desiredCount must be 0 to 5 (Slack allows 10 Socket Mode connections per app, and a rolling deployment runs up to twice the desired count), not ${desiredCount}`);
    }
    const archiveRetention = props.auditArchiveRetention ?? logs.RetentionDays.THIRTEEN_MONTHS;
    if (!Object.values(logs.RetentionDays).includes(archiveRetention) || archiveRetention < logs.RetentionDays.ONE_YEAR) {
      throw new Error(`Approvals ${id}: auditArchiveRetention must be a RetentionDays of a year or more (the archive keeps each audit record at least as long as the table), not ${archiveRetention} days`);
    }
    const stack = Stack.of(this);
    const key = props.encryptionKey;
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.stateMachineArns = [...(props.stateMachineArns ?? [])];
    const logGroup = (name: string) => new logs.LogGroup(this, name, {
      retention,
      encryptionKey: key,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Must equal dynamo.TableSchema plus TTL on purgeAt and the stream
    // dynamo.AuditStream, like the template's.
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'purgeAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: key ? dynamodb.TableEncryption.CUSTOMER_MANAGED : undefined,
      encryptionKey: key,
      // Every change of every item, before and after: the audit archive reads its audit records.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: 'queue-index',
      partitionKey: { name: 'queue', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'queuedAt', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: INDEX_ATTRIBUTES,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: 'execution-index',
      partitionKey: { name: 'openExecution', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'openedAt', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: INDEX_ATTRIBUTES,
    });
    const tableArn = this.table.tableArn;
    const executionIndex = `${tableArn}/index/execution-index`;
    const allow = (actions: string[], resources: string[]) => new iam.PolicyStatement({ actions, resources });
    const secretArn = props.slackSecret.secretArn;

    // The notifier.
    const notifierLogs = logGroup('NotifierLogGroup');
    const notifierRole = new iam.Role(this, 'NotifierRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    for (const s of [
      // A write with its audit records and decider entries is a
      // TransactWriteItems: IAM checks PutItem or DeleteItem for each item
      // (there is no TransactWriteItems action). UpdateItem: the list of
      // user groups that may decide. BatchGetItem: reads that wait for a
      // call go as one.
      allow(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'], [tableArn]),
      // A request replacing an older one of its execution (after a Retry).
      allow(['dynamodb:Query'], [executionIndex]),
      // Is the older request's task still waiting? A task token names no resource.
      allow(['states:SendTaskHeartbeat'], ['*']),
      allow(['secretsmanager:GetSecretValue'], [secretArn]),
      allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [notifierLogs.logGroupArn]),
      ...(key ? [allow(['kms:Decrypt'], [key.keyArn])] : []),
    ]) {
      notifierRole.addToPolicy(s);
    }
    const lambdaEnv = { APPROVALS_TABLE: this.table.tableName, SLACK_SECRET_ARN: secretArn };
    this.notifier = new lambda.Function(this, 'Notifier', {
      description: 'Stores an approval request and posts it to Slack (lambda:invoke.waitForTaskToken).',
      runtime: lambda.Runtime.PROVIDED_AL2023,
      architecture: lambda.Architecture.ARM_64,
      handler: 'bootstrap',
      code: props.code.notifier,
      memorySize: 256,
      timeout: Duration.seconds(30),
      role: notifierRole,
      logGroup: notifierLogs,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: lambdaEnv,
    });

    // The events Lambda, its rule and its dead-letter queue.
    this.deadLetterQueue = new sqs.Queue(this, 'EventsDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: key ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: key,
    });
    const eventsLogs = logGroup('EventsLogGroup');
    const eventsRole = new iam.Role(this, 'EventsRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    for (const s of [
      // Close a request (read, then a conditional write with its audit
      // record and decider entries) and record its message as updated;
      // BatchGetItem: reads that wait for a call go as one.
      allow(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'], [tableArn]),
      allow(['dynamodb:Query'], [executionIndex]),
      // Events whose retries ran out (on-failure destination).
      allow(['sqs:SendMessage'], [this.deadLetterQueue.queueArn]),
      allow(['secretsmanager:GetSecretValue'], [secretArn]),
      allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [eventsLogs.logGroupArn]),
      ...(key ? [allow(['kms:Decrypt', 'kms:GenerateDataKey'], [key.keyArn])] : []),
    ]) {
      eventsRole.addToPolicy(s);
    }
    this.eventsFunction = new lambda.Function(this, 'EventsFunction', {
      description: 'Closes the approval requests of Step Functions executions that ended (EventBridge execution status change).',
      runtime: lambda.Runtime.PROVIDED_AL2023,
      architecture: lambda.Architecture.ARM_64,
      handler: 'bootstrap',
      code: props.code.events,
      memorySize: 256,
      timeout: Duration.seconds(60),
      role: eventsRole,
      logGroup: eventsLogs,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: lambdaEnv,
    });
    // Lambda retries a failed event twice, then keeps it in the queue; the
    // role's own statement above allows the send (a destination's grant
    // would add more).
    const dlqArn = this.deadLetterQueue.queueArn;
    new lambda.EventInvokeConfig(this, 'EventsInvokeConfig', {
      function: this.eventsFunction,
      qualifier: '$LATEST',
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      onFailure: { bind: () => ({ destination: dlqArn }) },
    });
    const rule = new events.Rule(this, 'ExecutionStatusRule', {
      description: 'Ended Step Functions executions, to close their open approval requests.',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: Lazy.any({
          produce: () => (this.stateMachineArns.length === 0
            ? { status: ENDED }
            : { status: ENDED, stateMachineArn: this.stateMachineArns }),
        }) as any,
      },
    });
    rule.addTarget(new targets.LambdaFunction(this.eventsFunction, {
      retryAttempts: 10,
      maxEventAge: Duration.hours(1),
      deadLetterQueue: this.deadLetterQueue,
    }));

    // The audit archive. The roles above may PutItem and DeleteItem on the
    // table, so its audit records are a working copy; the archive keeps
    // each from the stream in a log group, which only appends, and no role
    // here may delete or change its events, streams or retention.
    this.auditArchive = new logs.LogGroup(this, 'AuditArchiveLogGroup', {
      retention: archiveRetention,
      encryptionKey: key,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const archiveRole = new iam.Role(this, 'ArchiveRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const streamArn = this.table.tableStreamArn!;
    for (const s of [
      // Lambda reads the stream with the function's role; the function's
      // code calls nothing. (grantStreamRead would add ListStreams on *.)
      allow(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'], [streamArn]),
      // Append only: no action that deletes or changes a log event.
      allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [this.auditArchive.logGroupArn]),
      // The stream's records, with a customer managed key.
      ...(key ? [allow(['kms:Decrypt'], [key.keyArn])] : []),
    ]) {
      archiveRole.addToPolicy(s);
    }
    this.archiveFunction = new lambda.Function(this, 'ArchiveFunction', {
      description: 'Keeps every audit record, as first written, in the audit archive\'s log group (the table\'s stream).',
      runtime: lambda.Runtime.PROVIDED_AL2023,
      architecture: lambda.Architecture.ARM_64,
      handler: 'bootstrap',
      code: props.code.archive,
      memorySize: 128,
      timeout: Duration.seconds(60),
      role: archiveRole,
      // Its stdout lines are the archive; its log lines go to stderr.
      logGroup: this.auditArchive,
      loggingFormat: lambda.LoggingFormat.TEXT,
    });
    // Audit records only, from the stream's oldest record, retried until
    // archived: a batch that fails blocks its shard and raises
    // ArchiveBehindAlarm, nothing is skipped.
    const archiveMapping = new lambda.EventSourceMapping(this, 'ArchiveEventSourceMapping', {
      target: this.archiveFunction,
      eventSourceArn: streamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      retryAttempts: -1,
      filters: [lambda.FilterCriteria.filter({ dynamodb: { Keys: { id: { S: lambda.FilterRule.beginsWith(AUDIT_RECORD_PREFIX) } } } })],
    });
    // No age limit either; maxRecordAge cannot say so (60 s to 7 days).
    (archiveMapping.node.defaultChild as lambda.CfnEventSourceMapping).maximumRecordAgeInSeconds = -1;

    // The bot.
    const botLogs = logGroup('BotLogGroup');
    const cluster = new ecs.Cluster(this, 'BotCluster', { vpc: props.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const taskRole = new iam.Role(this, 'BotTaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com').withConditions({
        ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:ecs:${stack.region}:${stack.account}:*` },
        StringEquals: { 'aws:SourceAccount': stack.account },
      }),
    });
    for (const s of [
      // BatchGetItem: audit records and history entries. A write with its
      // audit records and decider entries is a TransactWriteItems of Puts
      // and Deletes; audit records are only ever added
      // (attribute_not_exists), never by BatchWriteItem, which could
      // replace or delete them; UpdateItem: the list of user groups that
      // may decide.
      allow(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'], [tableArn]),
      // execution-index: the open requests of an execution whose check is due.
      allow(['dynamodb:Query'], [`${tableArn}/index/queue-index`, executionIndex]),
      // A task token names no resource, so these cannot be scoped.
      allow(['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'], ['*']),
      ...(key ? [allow(['kms:Decrypt'], [key.keyArn])] : []),
    ]) {
      taskRole.addToPolicy(s);
    }
    // The executions of the watched state machines (all without any).
    taskRole.addToPolicy(allow(['states:DescribeExecution', 'states:GetExecutionHistory'], Lazy.list({
      produce: () => (this.stateMachineArns.length === 0
        ? [`arn:${stack.partition}:states:${stack.region}:${stack.account}:execution:*:*`]
        : this.stateMachineArns.map(executionsOf)),
    })));

    const taskDefinition = new ecs.FargateTaskDefinition(this, 'BotTaskDefinition', {
      cpu: 256,
      memoryLimitMiB: 512,
      runtimePlatform: { operatingSystemFamily: ecs.OperatingSystemFamily.LINUX, cpuArchitecture: ecs.CpuArchitecture.ARM64 },
      taskRole,
    });
    taskDefinition.addContainer('approvals-bot', {
      image: props.botImage,
      essential: true,
      readonlyRootFilesystem: true,
      stopTimeout: Duration.seconds(30),
      environment: { APPROVALS_TABLE: this.table.tableName, APPROVALS_HTTP_ADDR: ':8080' },
      // /healthz, /readyz, /metrics; private to the VPC.
      portMappings: [{ name: 'ops', containerPort: 8080, protocol: ecs.Protocol.TCP }],
      healthCheck: {
        command: ['CMD', '/approvals-bot', '-healthcheck'],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(60),
      },
      secrets: {
        SLACK_BOT_TOKEN: ecs.Secret.fromSecretsManager(props.slackSecret, 'botToken'),
        SLACK_APP_TOKEN: ecs.Secret.fromSecretsManager(props.slackSecret, 'appToken'),
      },
      logging: ecs.LogDrivers.awsLogs({ logGroup: botLogs, streamPrefix: 'bot' }),
    });
    if (key) {
      // Reading the secret, encrypted with the key.
      taskDefinition.obtainExecutionRole().addToPrincipalPolicy(allow(['kms:Decrypt'], [key.keyArn]));
    }
    let securityGroup = props.securityGroup;
    if (!securityGroup) {
      // The bot only calls out, over HTTPS; nothing may connect to it.
      const sg = new ec2.SecurityGroup(this, 'BotSecurityGroup', {
        vpc: props.vpc,
        description: 'approvals-bot tasks, outbound HTTPS only',
        allowAllOutbound: false,
        allowAllIpv6Outbound: false,
      });
      sg.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to Slack and AWS (IPv4)');
      sg.addEgressRule(ec2.Peer.anyIpv6(), ec2.Port.tcp(443), 'HTTPS to Slack and AWS (IPv6)');
      securityGroup = sg;
    }
    this.botService = new ecs.FargateService(this, 'BotService', {
      serviceName: 'approvals-bot',
      cluster,
      taskDefinition,
      desiredCount,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      securityGroups: [securityGroup],
      vpcSubnets: props.vpcSubnets,
      assignPublicIp: props.assignPublicIp ?? false,
    });

    acceptRoleDependsOn(this.notifier);
    acceptRoleDependsOn(this.eventsFunction);
    acceptRoleDependsOn(this.archiveFunction);
    this.addAlarms(stack, botLogs, cluster, props.alarmTopic);
  }

  /**
   * Lets the bot read the executions of a state machine whose approvals it
   * decides (to tell its own resume from a timeout, and to close requests
   * whose execution ended), and sends that state machine's ended
   * executions to the events Lambda. Without any, every state machine's.
   */
  addStateMachine(stateMachine: sfn.IStateMachine): void {
    this.stateMachineArns.push(stateMachine.stateMachineArn);
  }

  private addAlarms(stack: Stack, botLogs: logs.LogGroup, cluster: ecs.Cluster, topic?: sns.ITopic): void {
    const namespace = `SlackApprovals/${stack.stackName}`;
    const fiveMinutes = Duration.minutes(5);
    // The bot's log lines that need attention carry a fixed "alert" key (slackbot/health.go).
    const filter = (id: string, alert: string, metricName: string, metricValue = '1') => {
      new logs.MetricFilter(this, id, {
        logGroup: botLogs,
        filterPattern: logs.FilterPattern.stringValue('$.alert', '=', alert),
        metricNamespace: namespace,
        metricName,
        metricValue,
        unit: cloudwatch.Unit.COUNT,
      });
      return new cloudwatch.Metric({ namespace, metricName, statistic: 'Sum', period: fiveMinutes });
    };
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number,
      comparisonOperator = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD) => {
      this.alarms[id] = new cloudwatch.Alarm(this, id, {
        alarmDescription: description,
        metric,
        evaluationPeriods: 1,
        threshold,
        comparisonOperator,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    };
    alarm('NotifierErrorsAlarm', 'The notifier failed an invocation (invalid request, Slack or DynamoDB failure); see its log group.',
      this.notifier.metricErrors({ statistic: 'Sum', period: fiveMinutes }), 1);
    alarm('EventsFunctionErrorsAlarm', 'The events Lambda failed an invocation (closing the approvals of an ended execution); see its log group.',
      this.eventsFunction.metricErrors({ statistic: 'Sum', period: fiveMinutes }), 1);
    // The stream keeps a record 24 hours: an archive an hour behind (a
    // batch failing, retried) has 23 hours to catch up before one is lost.
    alarm('ArchiveBehindAlarm', 'The audit archive is more than an hour behind the table\'s stream (its batches failing); the stream keeps records 24 hours. See the archive function\'s errors in its log group.',
      this.archiveFunction.metric('IteratorAge', { statistic: 'Maximum', period: fiveMinutes }), Duration.hours(1).toMilliseconds(),
      cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD);
    // A replica logs bot_not_ready once it has been not ready for 60 s, then every minute.
    alarm('BotNotReadyAlarm', 'A bot replica has not been ready (Slack socket down or DynamoDB unreachable) for about 2 minutes; see the bot\'s log lines with "alert":"bot_not_ready" for the reason.',
      filter('BotNotReadyFilter', 'bot_not_ready', 'BotNotReady'), 2);
    alarm('SlackAuthRefusedAlarm', 'Slack refused the bot or app token (invalid_auth, token_revoked, account_inactive); rotate the secret and redeploy.',
      filter('BotSlackAuthRefusedFilter', 'slack_auth_refused', 'SlackAuthRefused'), 1);
    alarm('ApprovalsExpiredAlarm', 'Approvals reached their deadline with nobody deciding them (the sweeper closed them as expired).',
      filter('ApprovalsExpiredFilter', 'approval_expired', 'ApprovalsExpired', '$.expired'), 1);
    alarm('MessagesNotUpdatedAlarm', 'A request message could not be updated and was given up on; it still shows its buttons (clicks on it change nothing). See "alert":"message_not_updated" in the bot\'s logs.',
      filter('MessagesNotUpdatedFilter', 'message_not_updated', 'MessagesNotUpdated'), 1);

    // Container Insights reports both counts each minute; five minutes
    // short rides out a task replacement or a deploy.
    const taskCount = (metricName: string) => new cloudwatch.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName,
      dimensionsMap: { ClusterName: cluster.clusterName, ServiceName: this.botService.serviceName },
      statistic: 'Average',
      period: Duration.minutes(1),
    });
    this.alarms.BotTasksBelowDesiredAlarm = new cloudwatch.Alarm(this, 'BotTasksBelowDesiredAlarm', {
      alarmDescription: 'Fewer bot tasks run than desired for 5 minutes (tasks failing to start, or replaced as unhealthy).',
      metric: new cloudwatch.MathExpression({
        expression: 'desired - running',
        label: 'Bot tasks missing',
        usingMetrics: { desired: taskCount('DesiredTaskCount'), running: taskCount('RunningTaskCount') },
        period: Duration.minutes(1),
      }),
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.MISSING,
    });
    if (topic) {
      for (const a of Object.values(this.alarms)) {
        a.addAlarmAction(new cwactions.SnsAction(topic));
        a.addOkAction(new cwactions.SnsAction(topic));
      }
    }
  }
}

// executionsOf turns a state machine ARN (…:stateMachine:NAME) into the
// ARN of its executions (…:execution:NAME:*), as the template does.
function executionsOf(stateMachineArn: string): string {
  if (!Token.isUnresolved(stateMachineArn)) {
    return stateMachineArn.replace(':stateMachine:', ':execution:') + ':*';
  }
  return Fn.join('', [Fn.join(':execution:', Fn.split(':stateMachine:', stateMachineArn)), ':*']);
}
