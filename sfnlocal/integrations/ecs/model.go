package ecs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
)

// taskJSON is an ECS task as Step Functions records it (RunTask's Tasks[]
// and DescribeTasks' task), members in its order. Dates are epoch
// milliseconds, as the AWS SDK for Java writes them (the recording masks
// them).
type taskJSON struct {
	Attachments           []attachment    `json:"Attachments"`
	Attributes            []nameValue     `json:"Attributes"`
	AvailabilityZone      string          `json:"AvailabilityZone"`
	ClusterArn            string          `json:"ClusterArn"`
	Connectivity          string          `json:"Connectivity,omitempty"`
	ConnectivityAt        *json.Number    `json:"ConnectivityAt,omitempty"`
	Containers            []containerJSON `json:"Containers"`
	Cpu                   string          `json:"Cpu"`
	CreatedAt             json.Number     `json:"CreatedAt"`
	DesiredStatus         string          `json:"DesiredStatus"`
	EnableExecuteCommand  bool            `json:"EnableExecuteCommand"`
	EphemeralStorage      ephemeral       `json:"EphemeralStorage"`
	ExecutionStoppedAt    *json.Number    `json:"ExecutionStoppedAt,omitempty"`
	Group                 string          `json:"Group"`
	InferenceAccelerators []any           `json:"InferenceAccelerators"`
	LastStatus            string          `json:"LastStatus"`
	LaunchType            string          `json:"LaunchType"`
	Memory                string          `json:"Memory"`
	Overrides             overridesJSON   `json:"Overrides"`
	PlatformFamily        string          `json:"PlatformFamily,omitempty"`
	PlatformVersion       string          `json:"PlatformVersion,omitempty"`
	PullStartedAt         *json.Number    `json:"PullStartedAt,omitempty"`
	PullStoppedAt         *json.Number    `json:"PullStoppedAt,omitempty"`
	StartedAt             *json.Number    `json:"StartedAt,omitempty"`
	StartedBy             string          `json:"StartedBy,omitempty"`
	StopCode              string          `json:"StopCode,omitempty"`
	StoppedAt             *json.Number    `json:"StoppedAt,omitempty"`
	StoppedReason         string          `json:"StoppedReason,omitempty"`
	StoppingAt            *json.Number    `json:"StoppingAt,omitempty"`
	Tags                  []nameValue     `json:"Tags"`
	TaskArn               string          `json:"TaskArn"`
	TaskDefinitionArn     string          `json:"TaskDefinitionArn"`
	Version               int             `json:"Version"`
}

type attachment struct {
	Details []nameValue `json:"Details"`
	Id      string      `json:"Id"`
	Status  string      `json:"Status"`
	Type    string      `json:"Type"`
}

type nameValue struct {
	Name  string `json:"Name,omitempty"`
	Key   string `json:"Key,omitempty"`
	Value string `json:"Value"`
}

type ephemeral struct {
	SizeInGiB int `json:"SizeInGiB"`
}

type containerJSON struct {
	ContainerArn      string             `json:"ContainerArn"`
	Cpu               string             `json:"Cpu"`
	ExitCode          *int               `json:"ExitCode,omitempty"`
	GpuIds            []string           `json:"GpuIds"`
	Image             string             `json:"Image"`
	ImageDigest       string             `json:"ImageDigest,omitempty"`
	LastStatus        string             `json:"LastStatus"`
	ManagedAgents     []any              `json:"ManagedAgents"`
	Name              string             `json:"Name"`
	NetworkBindings   []any              `json:"NetworkBindings"`
	NetworkInterfaces []networkInterface `json:"NetworkInterfaces"`
	Reason            string             `json:"Reason,omitempty"`
	RuntimeId         string             `json:"RuntimeId,omitempty"`
	TaskArn           string             `json:"TaskArn"`
}

type networkInterface struct {
	AttachmentId       string `json:"AttachmentId"`
	PrivateIpv4Address string `json:"PrivateIpv4Address"`
}

type overridesJSON struct {
	ContainerOverrides            []containerOverrideJSON `json:"ContainerOverrides"`
	InferenceAcceleratorOverrides []any                   `json:"InferenceAcceleratorOverrides"`
}

type containerOverrideJSON struct {
	Command              []string   `json:"Command"`
	Environment          []keyValue `json:"Environment"`
	EnvironmentFiles     []any      `json:"EnvironmentFiles"`
	Name                 string     `json:"Name"`
	ResourceRequirements []any      `json:"ResourceRequirements"`
}

// localTask is one task: as RunTask answered it, and as it stopped.
type localTask struct {
	arn      string
	running  taskJSON
	stopped  taskJSON
	command  []string
	env      map[string]string
	awsvpc   bool
	subnet   string
	exitCode *int
	startErr error
}

func newTask(td TaskDefinition, in *runTaskInput, region, account string, now time.Time, sync bool) *localTask {
	cluster := in.Cluster
	if cluster == "" {
		cluster = "default"
	}
	clusterArn := cluster
	if !strings.HasPrefix(cluster, "arn:") {
		clusterArn = fmt.Sprintf("arn:aws:ecs:%s:%s:cluster/%s", region, account, cluster)
	}
	clusterName := clusterArn[strings.LastIndexByte(clusterArn, '/')+1:]
	id := randomHex(16)
	arn := fmt.Sprintf("arn:aws:ecs:%s:%s:task/%s/%s", region, account, clusterName, id)
	tdArn := in.TaskDefinition
	if !strings.HasPrefix(tdArn, "arn:") {
		rev := "1"
		if _, r, ok := strings.Cut(in.TaskDefinition, ":"); ok {
			rev = r
		}
		tdArn = fmt.Sprintf("arn:aws:ecs:%s:%s:task-definition/%s:%s", region, account, td.Family, rev)
	}
	launch := in.LaunchType
	if launch == "" {
		launch = "FARGATE"
	}
	platform := in.PlatformVersion
	if platform == "" && launch == "FARGATE" {
		platform = "1.4.0"
	}
	startedBy := in.StartedBy
	if startedBy == "" && sync {
		startedBy = "AWS Step Functions"
	}
	group := in.Group
	if group == "" {
		group = "family:" + td.Family
	}
	t := &localTask{arn: arn, command: td.Command, env: map[string]string{}}
	for k, v := range td.Environment {
		t.env[k] = v
	}
	override := containerOverrideJSON{Command: []string{}, Environment: []keyValue{}, EnvironmentFiles: []any{}, Name: td.Container, ResourceRequirements: []any{}}
	for _, o := range in.Overrides.ContainerOverrides {
		if len(o.Command) > 0 {
			t.command = o.Command
			override.Command = o.Command
		}
		for _, kv := range o.Environment {
			t.env[kv.Name] = kv.Value
			override.Environment = append(override.Environment, kv)
		}
	}
	var tags []nameValue
	for _, tag := range in.Tags {
		tags = append(tags, nameValue{Key: tag.Key, Value: tag.Value})
	}
	if tags == nil {
		tags = []nameValue{}
	}
	t.running = taskJSON{
		Attachments:           []attachment{},
		Attributes:            []nameValue{{Name: "ecs.cpu-architecture", Value: "x86_64"}},
		AvailabilityZone:      region + "a",
		ClusterArn:            clusterArn,
		Containers:            []containerJSON{{ContainerArn: fmt.Sprintf("arn:aws:ecs:%s:%s:container/%s/%s/%s", region, account, clusterName, id, awstask.NewRequestID()), Cpu: "0", GpuIds: []string{}, Image: td.Image, LastStatus: "PENDING", ManagedAgents: []any{}, Name: td.Container, NetworkBindings: []any{}, NetworkInterfaces: []networkInterface{}, TaskArn: arn}},
		Cpu:                   td.Cpu,
		CreatedAt:             millis(now),
		DesiredStatus:         "RUNNING",
		EnableExecuteCommand:  in.EnableExecuteCommand,
		EphemeralStorage:      ephemeral{SizeInGiB: 20},
		Group:                 group,
		InferenceAccelerators: []any{},
		LastStatus:            "PROVISIONING",
		LaunchType:            launch,
		Memory:                td.Memory,
		Overrides:             overridesJSON{ContainerOverrides: []containerOverrideJSON{override}, InferenceAcceleratorOverrides: []any{}},
		PlatformFamily:        "Linux",
		PlatformVersion:       platform,
		StartedBy:             startedBy,
		Tags:                  tags,
		TaskArn:               arn,
		TaskDefinitionArn:     tdArn,
		Version:               1,
	}
	if nc := in.NetworkConfiguration; nc != nil {
		t.awsvpc = true
		if len(nc.AwsvpcConfiguration.Subnets) > 0 {
			t.subnet = nc.AwsvpcConfiguration.Subnets[0]
		}
		t.running.Attachments = []attachment{{Details: []nameValue{{Name: "subnetId", Value: t.subnet}}, Id: awstask.NewRequestID(), Status: "PRECREATED", Type: "ElasticNetworkInterface"}}
	}
	return t
}

// container is what the stand-in runs.
func (t *localTask) container(td TaskDefinition) Container {
	env := make(map[string]string, len(t.env))
	for k, v := range t.env {
		env[k] = v
	}
	return Container{TaskARN: t.arn, Name: td.Container, Command: append([]string(nil), t.command...), Environment: env}
}

// stop records how the task stopped: its container exited with code, or
// could not start (err).
func (t *localTask) stop(started, stopped time.Time, code int, err error) {
	s := t.running
	s.Containers = append([]containerJSON(nil), t.running.Containers...)
	c := &s.Containers[0]
	c.LastStatus = "STOPPED"
	s.DesiredStatus, s.LastStatus, s.Version = "STOPPED", "STOPPED", 5
	s.PlatformFamily = ""
	at := func(tm time.Time) *json.Number { n := millis(tm); return &n }
	s.StoppingAt, s.ExecutionStoppedAt, s.StoppedAt = at(stopped), at(stopped), at(stopped)
	if err != nil {
		t.startErr = err
		s.StopCode, s.StoppedReason = "TaskFailedToStart", err.Error()
		c.Reason = err.Error()
	} else {
		t.exitCode = &code
		c.ExitCode = &code
		c.ImageDigest = "sha256:" + randomHex(32)
		c.RuntimeId = randomHex(16) + "-" + strconv.Itoa(int(started.Unix()%10000))
		s.Connectivity, s.ConnectivityAt = "CONNECTED", at(started)
		s.PullStartedAt, s.PullStoppedAt, s.StartedAt = at(started), at(started), at(started)
		s.StopCode, s.StoppedReason = "EssentialContainerExited", "Essential container in task exited"
	}
	if t.awsvpc {
		eni := t.running.Attachments[0].Id
		ip := fmt.Sprintf("10.0.%d.%d", randomByte(), randomByte()%254+1)
		s.Attachments = []attachment{{Details: []nameValue{
			{Name: "subnetId", Value: t.subnet},
			{Name: "networkInterfaceId", Value: "eni-" + randomHex(8)},
			{Name: "macAddress", Value: "0a:" + randomHex(1) + ":" + randomHex(1) + ":" + randomHex(1) + ":" + randomHex(1) + ":" + randomHex(1)},
			{Name: "privateDnsName", Value: "ip-" + ip + ".ec2.internal"},
			{Name: "privateIPv4Address", Value: ip},
		}, Id: eni, Status: "DELETED", Type: "eni"}}
		c.NetworkInterfaces = []networkInterface{{AttachmentId: eni, PrivateIpv4Address: ip}}
	}
	t.stopped = s
}

// failed reports whether the task did not run to a clean exit.
func (t *localTask) failed() bool { return t.startErr != nil || t.exitCode == nil || *t.exitCode != 0 }

// runTaskResponse is RunTask's answer with Step Functions' SDK metadata,
// members in its order.
func runTaskResponse(t *localTask) (json.RawMessage, error) {
	body, err := json.Marshal(struct {
		Failures []any      `json:"failures"`
		Tasks    []taskJSON `json:"tasks"`
	}{[]any{}, []taskJSON{t.running}})
	if err != nil {
		return nil, err
	}
	requestID := awstask.NewRequestID()
	out := awstask.Metadata(200, requestID, []awstask.Header{
		{Name: "x-amzn-RequestId", Value: requestID},
		{Name: "Content-Length", Value: strconv.Itoa(len(body))},
		{Name: "Date", Value: awstask.Date()},
		{Name: "Content-Type", Value: "application/x-amz-json-1.1"},
	})
	out["Failures"] = []any{}
	out["Tasks"] = []taskJSON{t.running}
	return json.Marshal(out)
}

func millis(t time.Time) json.Number { return json.Number(strconv.FormatInt(t.UnixMilli(), 10)) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randomByte() int {
	var b [1]byte
	_, _ = rand.Read(b[:])
	return int(b[0])
}
